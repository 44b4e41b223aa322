from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.utils.translation import gettext as _
from django.views.defaults import page_not_found
from django.views.generic import RedirectView
from django.views.i18n import JavaScriptCatalog
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts.admin import admin_login
from leaguelog.urls import log_urlpatterns
from server import csp, health
from server.errors import error_response

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("csp-report", csp.csp_report, name="csp-report"),
    # Browsers ask for /favicon.ico on pages that name no icon (the API docs): a 404 there is
    # the one console error a newcomer would meet.
    path("favicon.ico", RedirectView.as_view(url=static("frontend/img/icon.svg"), permanent=True)),
    path("admin/login/", admin_login),  # before the site's own, which it wraps
    path("admin/", admin.site.urls),
    # The pages' scripts' messages in the reader's language (Django's gettext for JavaScript).
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves its start-up script as a file, and the template keeps no inline style:
    # the Content-Security-Policy allows neither inline.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema", template_name="frontend/api_docs.html"),
         name="docs"),
    path("api/", include("accounts.urls")),
    path("api/", include("games.urls")),
    path("api/", include("tournaments.urls")),
    path("api/", include("ratings.urls")),
    path("api/", include("leaguelog.urls")),
    path("api/", include("chat.urls")),
    path("api/", include("notifications.urls")),
    *log_urlpatterns,
    path("", include("frontend.urls")),
]


def _not_found(request, exception=None):
    """JSON under /api/, the usual page elsewhere."""
    if request.path.startswith("/api/"):
        return error_response("not_found", _("No such endpoint."))
    return page_not_found(request, exception)


handler404 = _not_found
