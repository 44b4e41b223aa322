"""POST /api/auth/me/delete: the account is anonymised, never removed; its matches stay,
credited to "deleted player N", and its names cannot be taken to pass for the person who left."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import RetiredName, User
from games import selectors
from tests.accounts.helpers import PASSWORD, assert_error, session_client, snapshot
from tests.conftest import client_for
from tests.games.builders import finished_match
from tests.games.helpers import started_match
from tests.tournaments.builders import make_tournament
from tournaments.models import Entrant
from tournaments.services import entrant_withdraw

pytestmark = pytest.mark.django_db

URL = "/api/auth/me/delete"


def delete(client, password=PASSWORD):
    return client.post(URL, {"password": password}, format="json")


def test_the_deleted_account_cannot_log_in_and_its_tokens_and_sessions_end(alice):
    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])
    other_session, token = session_client(alice), client_for(alice)
    assert delete(client_for(alice)).status_code == 204
    alice.refresh_from_db()
    assert alice.username == f"deleted-player-{alice.pk}" and alice.shown_name == f"deleted player {alice.pk}"
    assert (alice.email, alice.is_active, alice.has_usable_password()) == ("", False, False)
    assert not alice.api_tokens.exists()
    assert token.get("/api/auth/me").status_code == 401
    assert other_session.get("/api/auth/me").status_code in (401, 403)
    for username in ("alice", alice.username):
        login = APIClient().post("/api/auth/login", {"username": username, "password": PASSWORD}, format="json")
        assert_error(login, 400, "invalid_credentials")


def test_the_session_that_deletes_is_logged_out(alice):
    client = session_client(alice)
    assert delete(client).status_code == 204
    assert client.get("/api/auth/me").status_code in (401, 403)


def test_its_matches_and_tournaments_stay_credited_to_deleted_player_n(alice, bob):
    match = finished_match("the-game", [alice, bob], seed=3)
    tournament = make_tournament(bob, people=(alice, bob))
    entrant_withdraw(tournament_id=tournament.pk, user=alice)  # an active entry would block (below)
    assert delete(client_for(alice)).status_code == 204
    shown = f"deleted player {alice.pk}"
    seats = APIClient().get(f"/api/matches/{match.pk}").json()["seats"]
    assert [s["name"] for s in seats] == [shown, "Bob"]
    assert selectors.match_summary(match)["seats"][0]["name"] == shown
    assert Entrant.objects.get(tournament=tournament, user=alice).name == shown
    assert User.objects.filter(pk=alice.pk).exists()  # the row stays: seats and entrants point at it
    for profile in (f"deleted-player-{alice.pk}", "bob"):  # its own page, and its opponent's matches
        page = APIClient().get(f"/players/{profile}").content.decode()
        assert shown in page and "Alice" not in page


@pytest.mark.parametrize(("username", "display_name", "status", "code"), [
    ("alice", "", 409, "username_taken"),
    ("AL1CE", "", 409, "username_taken"),  # a look-alike of the old username
    ("someone", "Alice", 409, "name_taken"),  # the old display name
    ("deleted-player-99999", "", 422, "name_reserved"),  # the names the server gives
    ("someone", "deleted player 1", 422, "name_reserved"),
])
def test_its_names_cannot_be_taken_by_someone_else(alice, username, display_name, status, code):
    assert delete(client_for(alice)).status_code == 204
    body = {"username": username, "password": "a long enough passphrase", "display_name": display_name}
    assert_error(APIClient().post("/api/auth/register", body, format="json"), status, code)


def test_names_are_retired_as_hashes_only(alice):
    assert delete(client_for(alice)).status_code == 204
    stored = list(RetiredName.objects.values_list("key_sha256", flat=True))
    assert len(stored) == 1 and "alice" not in stored[0]  # username and display name share one key


@pytest.mark.parametrize(("body", "status", "code"), [
    ({"password": "wrong"}, 403, "wrong_password"),
    ({}, 400, "invalid_input"),
])
def test_bad_input_is_refused_and_changes_nothing(alice, body, status, code):
    client = client_for(alice)
    before = snapshot(alice)
    assert_error(client.post(URL, body, format="json"), status, code)
    assert snapshot(alice) == before and not RetiredName.objects.exists()


def test_it_is_refused_while_people_wait_on_the_account(alice, bob):
    """A deleted player cannot come back to a table or a round: the others would wait for nobody."""
    running = started_match("the-game", [alice, bob])
    tournament = make_tournament(bob, people=(alice,))
    client = client_for(alice)
    before = snapshot(alice)
    answer = delete(client)
    assert_error(answer, 409, "account_in_play")
    assert answer.json()["error"]["extra"] == {"matches": [running], "tournaments": [tournament.pk]}
    assert snapshot(alice) == before and not RetiredName.objects.exists()


def test_a_table_with_only_bots_besides_does_not_block(alice):
    client = client_for(alice)
    table = client.post("/api/matches", {"game": "the-game", "players": 2, "rated": False}, format="json").json()
    assert client.post(f"/api/matches/{table['id']}/bots", {"bot": "random"}, format="json").status_code == 200
    assert delete(client).status_code == 204


def test_anonymous_is_401():
    assert_error(delete(APIClient()), 401, "not_authenticated")


@pytest.mark.parametrize("persona", ["bob", "staff"])
def test_another_player_or_staff_deletes_only_their_own(alice, bob, staff, persona):
    caller = {"bob": bob, "staff": staff}[persona]
    client = client_for(caller)
    before = snapshot(alice)
    assert delete(client).status_code == 204
    assert snapshot(alice) == before
    caller.refresh_from_db()
    assert not caller.is_active and not caller.is_staff
