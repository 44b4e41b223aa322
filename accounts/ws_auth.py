"""WebSocket authentication: the session cookie (browsers), a single-use `?ticket=` from
`POST /api/auth/socket-ticket`, or an API token in an `Authorization: Token <key>` header.

`?token=<key>` still works for programs written before tickets; uvicorn's logs never show it
(`server.logs.SecretQueryFilter`), but a proxy in front may log URLs: send the header instead.
A socket opened with a token (or a ticket made with one) keeps its digest in the scope
(`token_sha256`), so the table can close it once that token is revoked or expires.
"""
from __future__ import annotations

from urllib.parse import parse_qs

from channels.auth import AuthMiddlewareStack
from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from channels.security.websocket import OriginValidator
from django.conf import settings

from accounts.authentication import user_for_token_hash
from accounts.services import socket_ticket_redeem
from accounts.tokens import key_hash


@database_sync_to_async
def _user_for(ticket: str | None, key: str | None):
    """`(user, the digest of the token it came with or None)`, or None."""
    if ticket is not None:
        return socket_ticket_redeem(ticket=ticket)
    assert key is not None  # the middleware asks with a ticket or a key
    user = user_for_token_hash(digest := key_hash(key))
    return (user, digest) if user is not None else None


class TokenAuthMiddleware(BaseMiddleware):
    """Runs inside the session middleware; a valid ticket or token replaces the session's user.
    One that is not valid (used, expired, revoked) leaves the session's user, or nobody."""

    async def __call__(self, scope, receive, send):
        query = parse_qs(scope.get("query_string", b"").decode())
        scheme, _, header_key = dict(scope.get("headers", [])).get(b"authorization", b"").decode("latin-1").partition(" ")
        ticket = query["ticket"][0][:64] if "ticket" in query else None
        key = header_key.strip() if scheme.lower() == "token" else query.get("token", [None])[0]
        if ticket is not None or key:
            found = await _user_for(ticket, key[:64] if key else None)
            if found is not None:
                scope = dict(scope, user=found[0], token_sha256=found[1])
        return await super().__call__(scope, receive, send)


def WebSocketAuthStack(inner):  # noqa: N802 - named like channels' AuthMiddlewareStack
    return AuthMiddlewareStack(TokenAuthMiddleware(inner))


class BrowserOriginValidator(OriginValidator):
    """Refuses a browser's socket from a foreign page; lets programs without an Origin in.

    The Origin check guards session cookies against cross-site WebSocket hijacking. Clients
    that send no Origin are not browsers on someone else's page: they authenticate with a
    ticket or a token (or are anonymous spectators).
    """

    def valid_origin(self, parsed_origin) -> bool:
        return parsed_origin is None or super().valid_origin(parsed_origin)


def origin_checked(inner):
    return BrowserOriginValidator(inner, settings.ALLOWED_HOSTS)
