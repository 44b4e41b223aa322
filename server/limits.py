"""Limits on what a client may send: body size (413), JSON depth and NUL characters (400).

Request rates (429) are DRF's scoped throttles, configured in settings, counted per client
address (`client_address`), per user, and for logins per account tried as well.
"""
from __future__ import annotations

import functools
import hashlib
import ipaddress
import logging
import unicodedata
from typing import Any

from django.conf import settings
from django.core.cache import caches
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import parsers
from rest_framework.parsers import JSONParser
from rest_framework.throttling import ScopedRateThrottle

from server import metrics
from server.errors import bad_request, error_response

log = logging.getLogger(__name__)


class BodySizeLimitMiddleware:
    """Refuses a body larger than the limit with 413 before anything reads it.

    `MAX_BODY_BYTES` holds for every request; `MAX_UPLOAD_BYTES` for the paths in
    `UPLOAD_PATHS` (match files can be larger than any move).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.MAX_UPLOAD_BYTES if request.path in settings.UPLOAD_PATHS else settings.MAX_BODY_BYTES
        if length > limit:
            return error_response("body_too_large", _("Request bodies are at most %(limit)s bytes.") % {"limit": limit})
        if any("\x00" in text for key, values in request.GET.lists() for text in (key, *values)):
            return error_response("nul_character", NUL_MESSAGE)  # PostgreSQL text cannot hold it
        return self.get_response(request)


NUL_MESSAGE = gettext_lazy("Text may not contain the NUL character.")


def whole_number(text: str) -> int | None:
    """`text` as a database id or count, if it is one: ASCII digits below 2**63. ("³" passes
    `str.isdigit` but not `int`, and a longer number fails the database's bigint.)"""
    if text.isascii() and text.isdigit() and int(text) < 2**63:
        return int(text)
    return None


def json_depth(value: Any, limit: int) -> int:
    """The nesting depth of a JSON value, stopping early once past `limit`."""
    stack = [(value, 1)]
    deepest = 0
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        if deepest > limit:
            return deepest
        if isinstance(item, dict):
            stack.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            stack.extend((child, depth + 1) for child in item)
    return deepest


def json_has_nul(value: Any) -> bool:
    """Whether any key or string of a JSON value holds the NUL character."""
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(json_has_nul(k) or json_has_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(json_has_nul(item) for item in value)
    return False


class BoundedJSONParser(JSONParser):
    """JSON bodies nested at most `MAX_JSON_DEPTH` deep (no move or form needs more)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise bad_request(
                "json_too_deep",
                _("JSON is nested at most %(max_json_depth)s deep.") % {"max_json_depth": settings.MAX_JSON_DEPTH},
            ) from None
        if json_depth(data, settings.MAX_JSON_DEPTH) > settings.MAX_JSON_DEPTH:
            raise bad_request(
                "json_too_deep",
                _("JSON is nested at most %(max_json_depth)s deep.") % {"max_json_depth": settings.MAX_JSON_DEPTH},
            )
        if json_has_nul(data):
            raise bad_request("nul_character", NUL_MESSAGE)
        return data


@functools.lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def _address(text: str):
    """`text` as an IP address (a port and IPv6 brackets dropped, as proxies may write them), or None."""
    text = text.strip()
    if text.startswith("["):
        text = text[1:].partition("]")[0]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    return address.ipv4_mapped or address if address.version == 6 else address


def _trusted(address) -> bool:
    return address is not None and any(address in network for network in _networks(tuple(settings.TRUSTED_PROXIES)))


def client_ip(meta):
    """The address a request comes from (an `ipaddress` address, None when not IP: a Unix socket).

    The socket's peer, unless that is one of `TRUSTED_PROXIES`: then the right-most address of
    X-Forwarded-For that is not a trusted proxy (each proxy appends the address it heard from,
    so everything left of that is whatever the client wrote).
    """
    address = _address(meta.get("REMOTE_ADDR") or "")
    if _trusted(address):
        forwarded = [_address(part) for part in meta.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        untrusted = [hop for hop in reversed(forwarded) if not _trusted(hop)]
        if untrusted and untrusted[0] is not None:
            address = untrusted[0]
    return address


def client_address(meta) -> str:
    """The address a request comes from, as the throttles count it (`client_ip`). An IPv6 client
    counts as its /64: one subscriber commonly holds all of it, and a fresh address per request
    would be a fresh allowance.
    """
    peer_text = meta.get("REMOTE_ADDR") or ""
    address = client_ip(meta)
    if address is None:
        return peer_text  # not IP (a Unix socket): every such client counts together
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


_throttle_cache = None


class ScopedThrottle(ScopedRateThrottle):
    """DRF's scoped throttle, counted in fixed windows, that lets requests through while the
    cache (Redis) is away: a move must still commit during an outage.

    DRF's own throttle keeps every request's time in one cache entry, read and rewritten whole
    on each request (1,200 floats at the moves rate); here each client has one counter per
    window, incremented in place. A client may spend a window's allowance at the end of one
    window and again at the start of the next.
    """

    @property
    def cache(self):
        # Django's `cache` is one object per thread and context, and under the HTTP thread pool
        # every request is a new context: it opened a new Redis connection per request.
        global _throttle_cache
        if _throttle_cache is None:
            _throttle_cache = caches.create_connection("default")
        return _throttle_cache

    def allow_request(self, request, view) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        num_requests, duration = self.parse_rate(self.get_rate())
        assert num_requests is not None and duration is not None  # get_rate gives a rate or raises
        self.num_requests, self.duration = num_requests, duration
        self.now = self.timer()
        window = int(self.now // self.duration)
        self.window_ends = (window + 1) * self.duration
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        try:
            allowed = self._count(self.window_key(key, window)) <= self.num_requests
        except Exception:  # noqa: BLE001 - the cache backend's own connection errors
            log.warning("throttle cache unavailable; letting %s through", request.path, exc_info=True)
            return True
        if not allowed:
            metrics.throttle_refusals.labels(self.scope).inc()
        return allowed

    @staticmethod
    def window_key(key: str, window: int) -> str:
        return f"{key}_{window}"

    def _count(self, key: str) -> int:
        try:
            return self.cache.incr(key)
        except ValueError:  # the window's first request (or its counter just expired)
            assert self.duration is not None  # set by allow_request, the only caller
            if self.cache.add(key, 1, self.duration + 1):
                return 1
            return self.cache.incr(key)

    def get_ident(self, request) -> str:
        # DRF's takes X-Forwarded-For whole from anyone, which anyone can change on every request.
        return client_address(request.META)

    def wait(self) -> float:
        return max(0.0, self.window_ends - self.now)


class AccountThrottle(ScopedThrottle):
    """Attempts per account: the `username` a request names, from any address, so that a guesser
    spread over many addresses is stopped too. Views name the scope in `account_throttle_scope`.

    Every attempt counts, right or wrong, and the count is checked before the password: a
    password that is right cannot be told from a wrong one once the account is throttled.
    The price: a stranger can keep an account's owner from logging in with a password for the
    window (their open sessions and tokens still work).
    """

    scope_attr = "account_throttle_scope"

    def get_cache_key(self, request, view) -> str | None:
        # A DRF request's parsed body, or a form page's POST; the field naming the account is
        # `username`, or the view's `account_throttle_field` (the password reset's `email`).
        body = request.data if hasattr(request, "data") else request.POST
        field = getattr(view, "account_throttle_field", "username")
        username = body.get(field) if hasattr(body, "get") else None
        if not isinstance(username, str):
            return None
        ident = hashlib.sha256(account_folded(username).encode("utf-8", "surrogatepass")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}


def account_folded(username: str) -> str:
    """One text for every spelling that logs into the same account: the API strips the username,
    the admin's form also NFKC-normalises it; case is folded too, which only joins more."""
    return unicodedata.normalize("NFKC", username.strip()).casefold()


class _Scopes:
    """What the throttles read from a view: its scopes."""

    def __init__(self, scope: str, account_scope: str | None, account_field: str):
        self.throttle_scope = scope
        self.account_throttle_scope = account_scope
        self.account_throttle_field = account_field


def throttle_wait(
    request, scope: str, *, account_scope: str | None = None, account_field: str = "username"
) -> int | None:
    """Seconds a plain Django view's `request` must wait under the API's throttles for `scope`
    (and `account_scope`), else None. Pages and the API count together, under the same keys."""
    view = _Scopes(scope, account_scope, account_field)
    waits = [throttle.wait() for throttle in (ScopedThrottle(), AccountThrottle()) if not throttle.allow_request(request, view)]
    return max(1, int(max(waits))) if waits else None


class _RefusingNul:
    """Form bodies: refuses the NUL character as the JSON parser does."""

    def parse(self, stream, media_type=None, parser_context=None):
        parsed = super().parse(stream, media_type, parser_context)
        form = getattr(parsed, "data", parsed)  # multipart gives data and files
        if any("\x00" in text for key, values in form.lists() for text in (key, *values)):
            raise bad_request("nul_character", NUL_MESSAGE)
        return parsed


class FormParser(_RefusingNul, parsers.FormParser):
    pass


class MultiPartParser(_RefusingNul, parsers.MultiPartParser):
    pass
