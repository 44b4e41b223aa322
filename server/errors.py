"""The one error catalogue: services raise `ApplicationError`; HTTP and WebSocket render it.

Every error leaves the server as `{"error": {"code": ..., "message": ..., "extra": {...}}}`.
"""
from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler


class ApplicationError(Exception):
    """A refused operation: nothing was written. `status` is the HTTP status it maps to."""

    status = 409

    def __init__(self, code: str, message: str, *, status: int | None = None, extra: dict | None = None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        if status is not None:
            self.status = status
        self.extra = extra or {}

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.extra:
            body["extra"] = self.extra
        return body


def bad_request(code: str, message: str, **extra: Any) -> ApplicationError:
    return ApplicationError(code, message, status=400, extra=extra)


def forbidden(code: str, message: str) -> ApplicationError:
    return ApplicationError(code, message, status=403)


def not_found(code: str, message: str) -> ApplicationError:
    return ApplicationError(code, message, status=404)


def conflict(code: str, message: str, **extra: Any) -> ApplicationError:
    return ApplicationError(code, message, status=409, extra=extra)


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
        body = {"code": code, "message": "The request's fields are not valid.", "extra": {"fields": exc.detail}}
    else:
        body = {"code": code, "message": str(getattr(exc, "detail", exc))}
    response.data = {"error": body}
    return response
