"""Shared by the account tests: personas' password, session clients, refusals that change nothing."""
from __future__ import annotations

from rest_framework.test import APIClient

from accounts.models import User

PASSWORD = "correct horse battery"  # tests.conftest.make_user's
NEW_PASSWORD = "a brand new passphrase"


def session_client(user: User, password: str = PASSWORD) -> APIClient:
    """A client logged in by session cookie, as a browser is."""
    client = APIClient()
    assert client.login(username=user.username, password=password)
    return client


def snapshot(user: User) -> tuple:
    """Everything an account operation could change, to check a refusal changed nothing."""
    user.refresh_from_db()
    return (user.username, user.display_name, user.email, user.avatar, user.password, user.is_active,
            sorted(user.api_tokens.values_list("key_hash", flat=True)))


def assert_error(answer, status: int, code: str) -> None:
    assert answer.status_code == status, answer.content
    error = answer.json()["error"]
    assert error["code"] == code and error["message"]
