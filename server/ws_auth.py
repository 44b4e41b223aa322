"""WebSocket authentication: the session cookie (browsers), or `?token=` with an API token."""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings


@database_sync_to_async
def _user_for_token(key: str):
    from accounts.authentication import user_for_token

    return user_for_token(key)


class TokenAuthMiddleware(BaseMiddleware):
    """Runs inside the session middleware; a valid `?token=` replaces the session's user."""

    async def __call__(self, scope, receive, send):
        keys = parse_qs(scope.get("query_string", b"").decode()).get("token")
        if keys:
            user = await _user_for_token(keys[0][:64])
            if user is not None:
                scope = dict(scope, user=user)
        return await super().__call__(scope, receive, send)


def WebSocketAuthStack(inner):  # noqa: N802 - named like channels' AuthMiddlewareStack
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class BrowserOriginValidator(OriginValidator):
    """Refuses a browser's socket from a foreign page; lets programs without an Origin in.

    The Origin check guards session cookies against cross-site WebSocket hijacking. Clients
    that send no Origin are not browsers on someone else's page: they authenticate with a
    token (or are anonymous spectators).
    """

    def valid_origin(self, parsed_origin) -> bool:
        return parsed_origin is None or super().valid_origin(parsed_origin)


def origin_checked(inner):
    return BrowserOriginValidator(inner, settings.ALLOWED_HOSTS)
