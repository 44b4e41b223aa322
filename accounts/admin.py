from django import forms
from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import UserChangeForm
from django.utils.translation import gettext as _

from accounts import services
from accounts.models import User
from server.errors import ApplicationError, error_response
from server.limits import throttle_wait


class PlayerChangeForm(UserChangeForm):
    """Staff renaming a user are held to the sign-up's name checks, so the admin is no way round them."""

    def clean(self):
        data = super().clean()
        if not {"username", "display_name"} & set(self.changed_data):
            return data
        try:
            services.user_names_check(
                username=data.get("username", self.instance.username),
                display_name=data.get("display_name", ""), user=self.instance,
            )
        except ApplicationError as exc:
            raise forms.ValidationError({exc.extra.get("field", "username"): exc.message}) from None
        return data


@admin.register(User)
class PlayerAdmin(UserAdmin):
    form = PlayerChangeForm
    # The stubs type `fieldsets` as optional (ModelAdmin's default); UserAdmin always sets a tuple.
    fieldsets = UserAdmin.fieldsets + (("Player", {"fields": ("display_name",)}),)  # type: ignore[operator]
    list_display = ("username", "display_name", "is_staff", "date_joined")


def admin_login(request, extra_context=None):
    """The admin site's login page behind the API login's throttles (per address and per account
    tried): it checks passwords too, and staff passwords are the ones most worth guessing."""
    if request.method == "POST":
        wait = throttle_wait(request, "login", account_scope="login_account")
        if wait is not None:
            return error_response("throttled", _("Too many login attempts: try again in %(wait)s seconds.") % {"wait": wait},
                                  headers={"Retry-After": str(wait)})
    return admin.site.login(request, extra_context)
