"""Accounts: registration, login (session for the browser, token for the API), logout."""
from __future__ import annotations

from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Q
from rest_framework.authtoken.models import Token

from accounts.models import User
from accounts.names import name_key, username_problem
from games.bots import BOTS
from server.errors import ApplicationError, bad_request, conflict

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
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def user_token_revoke(*, user: User) -> None:
    Token.objects.filter(user=user).delete()
