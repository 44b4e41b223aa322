"""Accounts: registration, login (session for the browser, token for the API), API tokens and
socket tickets, logout."""
from __future__ import annotations

import secrets
from datetime import timedelta
from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY, authenticate, password_validation
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.authentication import user_for_token_hash
from accounts.models import ApiToken, User
from accounts.names import name_key, username_problem
from accounts.tokens import key_hash, key_new
from games.bots import BOTS
from server.errors import ApplicationError, bad_request, conflict, not_found

# Bots sit at tables by name: nobody may be seen by one of those names.
_BOT_KEYS = frozenset(name_key(bot) for bots in BOTS.values() for bot in bots)


def user_register(*, username: str, password: str, display_name: str = "") -> User:
    """Creates a user after the name checks (`user_names_check`) and Django's password validators."""
    user_names_check(username=username, display_name=display_name)
    candidate = User(username=username, display_name=display_name)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as exc:
        raise bad_request("weak_password", " ".join(exc.messages)) from None
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError:  # a sign-up of the same name committed meanwhile
        raise _taken("username") from None
    return candidate


def user_names_check(*, username: str, display_name: str, user: User | None = None) -> None:
    """Refuses names that pass for someone else's: a bot's (422 `name_reserved`), or another
    user's username or display name, compared by `name_key` (409 `username_taken` /
    `name_taken`). A user's own two names may be the same name; `user` is the one renamed.
    """
    problem = username_problem(username)
    if problem is not None:
        raise bad_request("invalid_name", f"{problem}.", field="username")
    keys = {"username": name_key(username), "display_name": name_key(display_name)}
    if display_name and not keys["display_name"]:
        raise bad_request("invalid_name", "A display name needs visible letters or digits.", field="display_name")
    if "@" in display_name:
        raise bad_request("invalid_name", "@ marks players of other servers (name@server).", field="display_name")
    for field, key in keys.items():
        if key in _BOT_KEYS:
            raise ApplicationError("name_reserved", "That name is a bot's.", status=422, extra={"field": field})
    others = User.objects.exclude(pk=user.pk) if user is not None else User.objects.all()
    for field, key in keys.items():
        if key and others.filter(Q(username_key=key) | Q(display_key=key)).exists():
            raise _taken(field)


def _taken(field: str) -> ApplicationError:
    if field == "username":
        return conflict("username_taken", "That username is taken, or looks the same as a name in use.", field=field)
    return conflict("name_taken", "That display name looks the same as a name in use.", field=field)


def user_authenticate(*, request, username: str, password: str) -> User:
    """The same answer for an unknown user and a wrong password, so logins reveal no usernames."""
    user = authenticate(request, username=username, password=password)
    if user is None:
        raise ApplicationError("invalid_credentials", "Wrong username or password.", status=400)
    return user


def user_token(*, user: User) -> str:
    """A new API token for `user`, valid for `API_TOKEN_DAYS`. Its key is returned this once and
    kept only as a hash. The user's expired tokens go meanwhile, so they do not pile up."""
    now = timezone.now()
    ApiToken.objects.filter(user=user, expires__lte=now).delete()
    key = key_new()
    ApiToken.objects.create(user=user, key_hash=key_hash(key), expires=now + timedelta(days=settings.API_TOKEN_DAYS))
    return key


def user_token_revoke(*, user: User, token_id: int) -> None:
    """Revokes one of `user`'s tokens; another user's is as unknown as one that never was (404)."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    if not deleted:
        raise not_found("token_not_found", f"You have no token {token_id}.")


def user_tokens_revoke(*, user: User) -> None:
    """Revokes every token of `user` (logging out logs out everywhere)."""
    ApiToken.objects.filter(user=user).delete()


def socket_ticket_issue(*, user: User, token_key: str | None) -> str:
    """A ticket that opens one socket as `user` within `SOCKET_TICKET_SECONDS`: a URL that may be
    logged on the way holds nothing lasting. Made with a token, it dies with that token."""
    ticket = secrets.token_urlsafe(32)
    issued = {"user": user.pk, "token": key_hash(token_key) if token_key else None}
    try:
        cache.set(_ticket_cache_key(ticket), issued, settings.SOCKET_TICKET_SECONDS)
    except Exception:  # noqa: BLE001 - the cache backend's own connection errors
        raise ApplicationError("tickets_unavailable", "Socket tickets are unavailable right now; "
                               "send the token in an Authorization header instead.", status=503) from None
    return ticket


def socket_ticket_redeem(*, ticket: str) -> tuple[User, str | None] | None:
    """The active user a ticket was issued to, and the digest of the token it was made with (None:
    made in a session), the first time it is shown; None after that, after it expired, or once
    that token is revoked or expired."""
    cache_key = _ticket_cache_key(ticket)
    issued = cache.get(cache_key)
    if issued is None or not cache.delete(cache_key):  # of two redeeming at once, one deletes it
        return None
    if issued["token"] is not None:
        user = user_for_token_hash(issued["token"])
        return (user, issued["token"]) if user is not None and user.pk == issued["user"] else None
    user = User.objects.filter(pk=issued["user"], is_active=True).first()
    return (user, None) if user is not None else None


def socket_credential_valid(*, user_id: int, token_sha256: str | None, session_key: str | None) -> bool:
    """Whether an open socket's user may still be served: the API token it opened with is neither
    revoked nor expired, or else the session it opened in is still logged in as that user."""
    if token_sha256 is not None:
        user = user_for_token_hash(token_sha256)
        return user is not None and user.pk == user_id
    session = import_module(settings.SESSION_ENGINE).SessionStore(session_key=session_key)
    return session.get(SESSION_KEY) == str(user_id) and User.objects.filter(pk=user_id, is_active=True).exists()


def _ticket_cache_key(ticket: str) -> str:
    return f"socket_ticket_{key_hash(ticket)}"  # the cache holds no ticket that works either
