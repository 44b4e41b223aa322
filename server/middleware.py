"""Request ids (taken from X-Request-ID, from a proxy, or made; logged and sent back), and the
request's language and time zone."""
from __future__ import annotations

import re
import uuid
import zoneinfo

from django.middleware.locale import LocaleMiddleware
from django.utils import timezone, translation
from django.utils.deprecation import MiddlewareMixin

from server import languages, logs

_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        given = request.headers.get("X-Request-ID", "")
        request.request_id = given if _VALID_ID.match(given) else uuid.uuid4().hex
        token = logs.request_id.set(request.request_id)
        match_token = logs.match_id.set(None)
        try:
            response = self.get_response(request)
        finally:
            logs.request_id.reset(token)
            logs.match_id.reset(match_token)
        response["X-Request-ID"] = request.request_id
        return response

    def process_view(self, request, view_func, view_args, view_kwargs):
        if "match_id" in view_kwargs:
            logs.match_id.set(view_kwargs["match_id"])
        return None


class LanguageMiddleware(LocaleMiddleware):
    """Django's LocaleMiddleware (Content-Language, Vary) with the language `server.languages`
    chooses, which knows the signed-in person's choice (so it runs after authentication)."""

    def process_request(self, request):
        translation.activate(languages.of_request(request))
        request.LANGUAGE_CODE = translation.get_language()


# The cookie base.html's script writes with the browser's zone (Intl's resolvedOptions().timeZone).
TIME_ZONE_COOKIE = "tz"


class TimeZoneMiddleware(MiddlewareMixin):
    """Times the server renders into a page are in the reader's time zone, as their browser
    reports it in the `tz` cookie; without one (or with a zone zoneinfo does not know), in
    settings.TIME_ZONE."""

    def process_request(self, request):
        name = request.COOKIES.get(TIME_ZONE_COOKIE, "")
        try:
            timezone.activate(zoneinfo.ZoneInfo(name))
        except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):  # absent, a path, a folder, no such zone
            timezone.deactivate()

    def process_response(self, request, response):
        timezone.deactivate()
        return response
