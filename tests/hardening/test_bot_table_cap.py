"""Issue #39, finding 6: the cap on running tables a user started with no other person at them
(`MAX_RUNNING_BOT_TABLES_PER_USER`): past it, starting another is 409 `too_many_bot_tables`."""
from __future__ import annotations

import pytest

from games.models import Match
from tests.conftest import client_for, make_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TABLE = {"game": "the-game", "players": 2, "rated": False}


def bot_table(client, *, leave: bool) -> int:
    """Open, (leave,) seat bots: the issue's loop, up to the start."""
    table = client.post("/api/matches", TABLE, format="json").json()["id"]
    if leave:
        assert client.post(f"/api/matches/{table}/leave").status_code == 200
    while Match.objects.get(pk=table).seat_set.count() < TABLE["players"]:
        assert client.post(f"/api/matches/{table}/bots", {"bot": "random"}, format="json").status_code in (200, 201)
    return table


def test_a_user_cannot_start_bot_tables_without_end(settings):
    """Prevents one account filling the worker with bot moves: open, leave, seat bots, start, repeat."""
    settings.MAX_RUNNING_BOT_TABLES_PER_USER = 2
    alice = make_user("alice")
    mine = client_for(alice)
    started = [bot_table(mine, leave=leave) for leave in (True, False)]
    assert [mine.post(f"/api/matches/{t}/start").status_code for t in started] == [200, 200]
    assert Match.objects.filter(pk__in=started, status=Match.Status.RUNNING).count() == 2
    third = bot_table(mine, leave=True)
    answer = mine.post(f"/api/matches/{third}/start")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "too_many_bot_tables"
    assert answer.json()["error"]["extra"] == {"max": 2}
    assert Match.objects.get(pk=third).status == Match.Status.OPEN  # the refusal changed nothing


def test_a_table_with_another_person_is_not_counted_and_others_have_their_own_cap(settings):
    """The cap is for tables nobody else plays at: a table with bob starts, and bob's cap is his."""
    settings.MAX_RUNNING_BOT_TABLES_PER_USER = 0
    alice, bob = make_user("alice"), make_user("bob")
    table = client_for(alice).post("/api/matches", TABLE, format="json").json()["id"]
    assert client_for(bob).post(f"/api/matches/{table}/join", {}, format="json").status_code == 200
    assert client_for(alice).post(f"/api/matches/{table}/start").status_code == 200
    solo = bot_table(client_for(bob), leave=False)
    assert client_for(bob).post(f"/api/matches/{solo}/start").json()["error"]["code"] == "too_many_bot_tables"


def test_a_game_of_solitaire_has_no_bot_and_is_not_counted(settings):
    """A 1-player table of The Game queues no bot move: any number run (bench/moves starts dozens)."""
    settings.MAX_RUNNING_BOT_TABLES_PER_USER = 0
    mine = client_for(make_user("alice"))
    for _ in range(2):
        table = mine.post("/api/matches", {"game": "the-game", "players": 1, "rated": False}, format="json").json()["id"]
        assert mine.post(f"/api/matches/{table}/start").status_code == 200


@pytest.mark.parametrize("persona", ["anonymous", "another player", "staff"])
def test_no_one_else_starts_the_table_and_staff_are_capped_too(settings, persona):
    """Anonymous is 401, another player 403 (`not_table_owner`); staff's own bot tables are capped."""
    settings.MAX_RUNNING_BOT_TABLES_PER_USER = 0
    alice = make_user("alice")
    if persona == "staff":
        sam = client_for(make_user("sam", staff=True))
        answer = sam.post(f"/api/matches/{bot_table(sam, leave=True)}/start")
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "too_many_bot_tables"
        return
    table = bot_table(client_for(alice), leave=True)
    caller = client_for(make_user("bob")) if persona == "another player" else client_for(None)
    answer = caller.post(f"/api/matches/{table}/start")
    assert answer.status_code == (403 if persona == "another player" else 401)
    assert Match.objects.get(pk=table).status == Match.Status.OPEN
