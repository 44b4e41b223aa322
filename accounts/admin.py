from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.http import JsonResponse

from accounts.models import User
from server.limits import throttle_wait


@admin.register(User)
class PlayerAdmin(UserAdmin):
    fieldsets = UserAdmin.fieldsets + (("Player", {"fields": ("display_name",)}),)
    list_display = ("username", "display_name", "is_staff", "date_joined")


def admin_login(request, extra_context=None):
    """The admin site's login page behind the API login's throttles (per address and per account
    tried): it checks passwords too, and staff passwords are the ones most worth guessing."""
    if request.method == "POST":
        wait = throttle_wait(request, "login", account_scope="login_account")
        if wait is not None:
            error = {"code": "throttled", "message": f"Too many login attempts: try again in {wait} seconds."}
            return JsonResponse({"error": error}, status=429, headers={"Retry-After": str(wait)})
    return admin.site.login(request, extra_context)
