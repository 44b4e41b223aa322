"""DRF's exception handler: DRF's own exceptions renamed into the catalogue's codes and shape."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, TooManyFieldsSent, TooManyFilesSent
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler

from server.errors import ApplicationError

# DRF's own exceptions, renamed into the catalogue's codes.
_DRF_CODES = {
    exceptions.ParseError: "malformed_json",
    exceptions.ValidationError: "invalid_input",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "authentication_failed",
    exceptions.PermissionDenied: "permission_denied",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.Throttled: "throttled",
}


def api_exception_handler(exc: Exception, context: dict) -> Response | None:
    """DRF's handler, with every error in the catalogue's shape."""
    if isinstance(exc, (TooManyFieldsSent, TooManyFilesSent)):
        # Django's own refusal (DATA_UPLOAD_MAX_NUMBER_FIELDS) while DRF parses a form body: a
        # SuspiciousOperation, which Django would answer with its HTML 400 page.
        exc = ApplicationError(
            "too_many_fields", _("The request has more fields than the server reads (at most %(limit)s).")
            % {"limit": settings.DATA_UPLOAD_MAX_NUMBER_FIELDS}
        )
    if isinstance(exc, ApplicationError):
        return Response({"error": exc.as_dict()}, status=exc.status)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    response = exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in _DRF_CODES.items() if isinstance(exc, cls)), "error")
    if isinstance(exc, exceptions.ValidationError):
        body = {"code": code, "message": _("The request's fields are not valid."), "extra": {"fields": exc.detail}}
    elif isinstance(exc, exceptions.Throttled) and (wait := getattr(exc, "wait", None)) is not None:
        # DRF formats the wait into its message before translating it, so no catalogue can.
        message = ngettext("Too many requests: wait %(wait)s second.", "Too many requests: wait %(wait)s seconds.", wait)
        body = {"code": code, "message": message % {"wait": wait}}
    else:
        body = {"code": code, "message": str(getattr(exc, "detail", exc))}
    response.data = {"error": body}
    return response
