"""PATCH /api/auth/me: display name (the sign-up's name rules), e-mail (needs the password),
avatar."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.accounts.helpers import PASSWORD, assert_error, snapshot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/auth/me"


def patch(client, **body):
    return client.patch(URL, body, format="json")


def test_it_changes_the_display_name_and_avatar(alice):
    answer = patch(client_for(alice), display_name="Queen of Ten", avatar=7)
    assert answer.status_code == 200
    assert answer.json()["display_name"] == "Queen of Ten" and answer.json()["avatar"] == 7
    alice.refresh_from_db()
    assert (alice.display_name, alice.avatar, alice.display_key) == ("Queen of Ten", 7, "queenoften")


def test_an_empty_display_name_shows_the_username(alice):
    assert patch(client_for(alice), display_name="").json()["display_name"] == ""
    alice.refresh_from_db()
    assert alice.shown_name == "alice"


def test_the_email_changes_with_the_password(alice):
    answer = patch(client_for(alice), email="alice@example.org", password=PASSWORD)
    assert answer.status_code == 200 and answer.json()["email"] == "alice@example.org"


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"display_name": "Bob"}, 409, "name_taken"),  # bob's display name
    ({"display_name": "B0B"}, 409, "name_taken"),  # ... or a look-alike of it
    ({"display_name": "bob"}, 409, "name_taken"),  # bob's username
    ({"display_name": "random"}, 422, "name_reserved"),  # a bot's
    ({"display_name": "Deleted Player 12"}, 422, "name_reserved"),
    ({"display_name": "\u200b"}, 400, "invalid_name"),
    ({"display_name": "al@home"}, 400, "invalid_name"),
    ({"display_name": "x" * 41}, 400, "invalid_input"),
    ({"avatar": 12}, 400, "invalid_avatar"),
    ({"avatar": -1}, 400, "invalid_avatar"),
    ({"email": "not an e-mail"}, 400, "invalid_input"),
    ({"email": "alice@example.org"}, 400, "password_required"),
    ({"email": "alice@example.org", "password": "wrong"}, 403, "wrong_password"),
])
def test_bad_input_is_refused_and_changes_nothing(alice, bob, body, status, code):
    client = client_for(alice)
    before = snapshot(alice)
    assert_error(patch(client, **body), status, code)
    assert snapshot(alice) == before


def test_anonymous_is_401():
    assert_error(patch(APIClient(), display_name="Ghost"), 401, "not_authenticated")


@pytest.mark.parametrize("persona", ["bob", "staff"])
def test_another_player_or_staff_changes_only_their_own(alice, bob, staff, persona):
    caller = {"bob": bob, "staff": staff}[persona]
    before = snapshot(alice)
    answer = patch(client_for(caller), avatar=3)
    assert answer.status_code == 200 and answer.json()["id"] == caller.pk
    assert snapshot(alice) == before
