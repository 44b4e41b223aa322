"""The cap on open tables per user (`MAX_OPEN_TABLES_PER_USER`): past it, 409 `too_many_open_tables`."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from games.models import Match
from games.services import match_start_seated
from tests.conftest import client_for, make_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TABLE = {"game": "the-game", "players": 2, "rated": False}


def open_table(client) -> tuple[int, dict]:
    answer = client.post("/api/matches", TABLE, format="json")
    return answer.status_code, answer.json()


def test_a_user_cannot_fill_the_lobby_with_open_tables(settings):
    """Prevents one account opening tables without end (the lobby, every list and the database)."""
    settings.MAX_OPEN_TABLES_PER_USER = 3
    alice, bob = make_user("alice"), make_user("bob")
    mine = client_for(alice)
    created = [open_table(mine) for _ in range(3)]
    assert [status for status, _ in created] == [201, 201, 201]
    status, body = open_table(mine)
    assert status == 409 and body["error"]["code"] == "too_many_open_tables"
    assert "3" in body["error"]["message"] and body["error"]["extra"] == {"max": 3}
    assert Match.objects.filter(created_by=alice).count() == 3  # the refusal wrote nothing
    # Leaving one's own table does not close it: it still counts.
    assert mine.post(f"/api/matches/{created[0][1]['id']}/leave").status_code == 200
    assert open_table(mine)[0] == 409
    # Someone else's cap is their own.
    assert open_table(client_for(bob))[0] == 201
    # A table that starts is no longer open: it frees a place.
    assert client_for(bob).post(f"/api/matches/{created[1][1]['id']}/join", {}, format="json").status_code == 200
    assert mine.post(f"/api/matches/{created[1][1]['id']}/start").status_code == 200
    assert open_table(mine)[0] == 201


def test_staff_are_capped_too(settings):
    """Prevents a stolen staff account from being a way around the cap: staff play as anyone does."""
    settings.MAX_OPEN_TABLES_PER_USER = 1
    sam = client_for(make_user("sam", staff=True))
    assert open_table(sam)[0] == 201
    assert open_table(sam)[1]["error"]["code"] == "too_many_open_tables"


def test_requests_at_once_cannot_pass_the_cap_together(settings):
    """Prevents a burst of simultaneous requests each counting the same open tables and all passing."""
    settings.MAX_OPEN_TABLES_PER_USER = 2
    alice = make_user("alice")

    def attempt(_):
        try:
            return open_table(client_for(alice))[0]
        finally:
            connection.close()

    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(attempt, range(8)))
    assert sorted(statuses) == [201, 201] + [409] * 6
    assert Match.objects.filter(created_by=alice, status=Match.Status.OPEN).count() == 2


def test_tables_the_server_seats_are_neither_refused_nor_counted(settings):
    """Prevents a user at their cap from blocking the server's own tables (tournament rounds,
    the demo), and those tables from using up the user's cap."""
    settings.MAX_OPEN_TABLES_PER_USER = 1
    alice, bob = make_user("alice"), make_user("bob")
    assert open_table(client_for(alice))[0] == 201
    served = match_start_seated(game="the-game", seats=[alice, bob], created_by=alice, rated=False)
    assert served.status == Match.Status.RUNNING
    assert open_table(client_for(bob))[0] == 201
