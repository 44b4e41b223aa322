"""Which language a reader gets: the one rule for pages, the API and sockets.

Pages: the signed-in person's choice (kept on their account), then the switcher's cookie (a
visitor's choice), then the browser's Accept-Language. The API puts Accept-Language first: a
client that asks for a language gets it, whatever the account's page language is.
"""
from __future__ import annotations

from django.conf import settings
from django.utils import translation
from django.utils.translation.trans_real import parse_accept_lang_header


def supported(code: str | None) -> str | None:
    """`code` as one of LANGUAGES (`en` and `en-us` are `en-gb`), or None."""
    if not code:
        return None
    try:
        return translation.get_supported_language_variant(code)
    except LookupError:
        return None


def from_accept_language(header: str) -> str | None:
    for code, _quality in parse_accept_lang_header(header or ""):
        if code == "*":
            break
        if language := supported(code):
            return language
    return None


def chosen(*, user_language: str = "", cookie: str | None = None, accept_language: str = "",
           api: bool = False) -> str:
    header = from_accept_language(accept_language)
    if api and header:
        return header
    return supported(user_language) or supported(cookie) or header or settings.LANGUAGE_CODE


def of_request(request) -> str:
    user = getattr(request, "user", None)
    return chosen(
        user_language=getattr(user, "language", "") if user is not None and user.is_authenticated else "",
        cookie=request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=request.headers.get("Accept-Language", ""),
        api=request.path.startswith("/api/"),
    )


def kept_at_sign_up(request) -> str:
    """The language a new account keeps: the switcher's choice, or a language other than the
    site's default that the browser asked for. A browser that merely says English has chosen
    nothing, so the account follows the browser ("") and a later Welsh browser gets Welsh."""
    choice = supported(request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME))
    if choice:
        return choice
    asked = from_accept_language(request.headers.get("Accept-Language", ""))
    return asked if asked and asked != settings.LANGUAGE_CODE else ""


def of_scope(scope) -> str:
    """A socket's language, from its handshake: the same rule as a page's."""
    headers = dict(scope.get("headers") or [])
    user = scope.get("user")
    return chosen(
        user_language=getattr(user, "language", "") if user is not None and user.is_authenticated else "",
        cookie=(scope.get("cookies") or {}).get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=headers.get(b"accept-language", b"").decode("latin-1"),
    )
