"""POST /api/auth/password: the old password, Django's validators; this session stays, the
others end and every API token is revoked."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.services import socket_credential_valid
from tests.accounts.helpers import NEW_PASSWORD, PASSWORD, assert_error, session_client, snapshot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

URL = "/api/auth/password"


def change(client, old=PASSWORD, new=NEW_PASSWORD):
    return client.post(URL, {"old_password": old, "new_password": new}, format="json")


def test_it_changes_the_password_keeps_this_session_and_ends_the_others(alice):
    this, other = session_client(alice), session_client(alice)
    old_token = client_for(alice)
    answer = change(this)
    assert answer.status_code == 200
    assert this.get("/api/auth/me").status_code == 200  # update_session_auth_hash
    assert other.get("/api/auth/me").status_code in (401, 403)  # the other session's hash is stale
    assert old_token.get("/api/auth/me").status_code == 401  # revoked
    fresh = APIClient()
    fresh.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
    assert fresh.get("/api/auth/me").json()["username"] == "alice"
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD) and not alice.check_password(PASSWORD)


def test_a_token_client_gets_a_new_token_and_its_own_is_revoked(alice):
    client = client_for(alice)
    answer = change(client)
    assert answer.status_code == 200 and len(answer.json()["token"]) == 40
    assert client.get("/api/auth/me").status_code == 401
    assert alice.api_tokens.count() == 1


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"old_password": "not it", "new_password": NEW_PASSWORD}, 403, "wrong_password"),
    ({"old_password": PASSWORD, "new_password": "12345678"}, 400, "weak_password"),
    ({"old_password": PASSWORD, "new_password": "alice"}, 400, "weak_password"),
    ({"old_password": PASSWORD}, 400, "invalid_input"),
    ({"new_password": NEW_PASSWORD}, 400, "invalid_input"),
])
def test_bad_input_is_refused_and_changes_nothing(alice, body, status, code):
    client = client_for(alice)
    before = snapshot(alice)
    assert_error(client.post(URL, body, format="json"), status, code)
    assert snapshot(alice) == before


def test_anonymous_is_401():
    assert_error(change(APIClient()), 401, "not_authenticated")


@pytest.mark.parametrize("persona", ["bob", "staff"])
def test_another_player_or_staff_changes_only_their_own(alice, bob, staff, persona):
    """The endpoint acts on the caller (staff included): alice's password is out of its reach."""
    caller = {"bob": bob, "staff": staff}[persona]
    client = client_for(caller)
    before = snapshot(alice)
    answer = change(client)  # the personas share a password: the same body alice would send
    assert answer.status_code == 200 and answer.json()["user"]["id"] == caller.pk
    assert snapshot(alice) == before


def test_an_open_socket_of_another_session_stops_being_served(alice):
    """Regression: an open socket checked only that its session named the user, so a session that
    Django had ended by the password change kept its live table."""

    other = session_client(alice)
    session_key = other.cookies["sessionid"].value
    assert socket_credential_valid(user_id=alice.pk, token_sha256=None, session_key=session_key)
    assert change(session_client(alice)).status_code == 200
    assert not socket_credential_valid(user_id=alice.pk, token_sha256=None, session_key=session_key)
