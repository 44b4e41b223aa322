"""Accounts: registration, login (session for the browser, token for the API), logout."""
from __future__ import annotations

from django.contrib.auth import authenticate, password_validation
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from accounts.models import User
from server.errors import ApplicationError, bad_request, conflict


def user_register(*, username: str, password: str, display_name: str = "") -> User:
    """Creates a user after Django's password validators; a taken username is a 409."""
    candidate = User(username=username, display_name=display_name)
    try:
        password_validation.validate_password(password, user=candidate)
    except ValidationError as exc:
        raise bad_request("weak_password", " ".join(exc.messages)) from None
    candidate.set_password(password)
    try:
        with transaction.atomic():
            candidate.save()
    except IntegrityError:
        raise conflict("username_taken", "That username is taken.") from None
    return candidate


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
