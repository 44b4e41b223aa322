"""A table of a duplicate deal is closed to all but its seats, its organiser and staff until every
table of the deal has finished (issue #39, finding 1): every table of the round is dealt the same
deck, so what one table plays is the hidden hand of an opponent at another.

Regression: a player of the round's other table, a spectator and an anonymous client read the
table's /view, /log, chat and live socket (200) while it ran.
"""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from games import selectors, services, turns
from games.models import Match, Seat
from server.asgi import application
from tests.conftest import client_for, make_user
from tests.tournaments.builders import make_tournament, running_matches
from tournaments import services as tournament_services

KEPT_OUT = ["anonymous", "other_player", "spectator"]
LET_IN = ["seated", "organiser", "staff"]
# Every REST route that shows a table's play, with the personas it lets in while the deal runs
# (the raw events, the replay and the export wait for the end even for seats and the organiser).
ROUTES = {"view": LET_IN, "log": LET_IN, "chat": LET_IN, "events": ["staff"], "replay": ["staff"], "export": ["staff"]}


def _seated(match_id: int) -> list:
    return [seat.user for seat in Seat.objects.filter(match_id=match_id, user__isnull=False).select_related("user")]


def duplicate_round() -> dict:
    olga = make_user("olga")
    people = [make_user(name) for name in ("alice", "bob", "carol", "dan")]
    tournament = make_tournament(olga, people=tuple(people), options={"duplicate": True, "rounds": 1})
    tournament_services.tournament_start(tournament_id=tournament.pk, user=olga)
    first, second = running_matches(tournament)
    users = {"anonymous": None, "other_player": _seated(second)[0], "spectator": make_user("eve"),
             "seated": _seated(first)[0], "organiser": olga, "staff": make_user("sam", staff=True)}
    return {"match": first, "other": second, "users": users}


@pytest.fixture
def duplicate(db) -> dict:
    return duplicate_round()


@pytest.mark.django_db
@pytest.mark.parametrize("route", sorted(ROUTES))
@pytest.mark.parametrize("persona", KEPT_OUT + LET_IN)
def test_a_running_duplicate_table_is_closed_to_all_but_its_seats_organiser_and_staff(duplicate, route, persona):
    answer = client_for(duplicate["users"][persona]).get(f"/api/matches/{duplicate['match']}/{route}")
    if persona in ROUTES[route]:
        assert answer.status_code == 200, answer.content
    else:
        assert answer.status_code == 403, answer.content
    if persona in KEPT_OUT and route in ("view", "log", "chat"):
        error = answer.json()["error"]
        assert error["code"] == "table_closed_to_spectators"
        assert error["extra"] == {"opens_when": "deal_finished"} and "every table of its deal" in error["message"]


@pytest.mark.django_db
def test_a_finished_table_keeps_its_result_closed_while_its_deal_is_played_elsewhere(duplicate):
    turns.match_play_out(match_id=duplicate["match"])
    tournament_services.tournament_match_finished(match_id=duplicate["match"])
    match = Match.objects.get(pk=duplicate["match"])
    assert match.status == Match.Status.FINISHED and match.sealed
    other_player = client_for(duplicate["users"]["other_player"])
    assert other_player.get(f"/api/matches/{match.pk}/view").status_code == 403
    summary = other_player.get(f"/api/matches/{match.pk}").json()
    assert summary["outcome"] is None and summary["ranks"] is None and summary["rating"] is None
    turns.match_play_out(match_id=duplicate["other"])  # the deal is done: both tables open to everyone
    tournament_services.tournament_match_finished(match_id=duplicate["other"])
    assert other_player.get(f"/api/matches/{match.pk}/view").status_code == 200
    assert other_player.get(f"/api/matches/{match.pk}").json()["outcome"] is not None


@pytest.mark.django_db
def test_can_watch_is_the_one_decision_and_says_when_it_opens(duplicate):
    match = Match.objects.get(pk=duplicate["match"])
    for persona in KEPT_OUT:
        assert selectors.can_watch(match, duplicate["users"][persona]) == selectors.Watch(False, "deal_finished")
    for persona in LET_IN:
        assert selectors.can_watch(match, duplicate["users"][persona]).allowed
    casual = services.match_start_seated(game="the-game", seats=[make_user("zed")], created_by=make_user("yan"))
    assert selectors.can_watch(casual, None).allowed


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("persona", KEPT_OUT + LET_IN)
async def test_the_live_socket_refuses_a_closed_table_with_one_error_frame(persona):
    world = await database_sync_to_async(duplicate_round)()
    user = world["users"][persona]
    token = await database_sync_to_async(user_token)(user=user) if user is not None else None
    socket = WebsocketCommunicator(application, f"/ws/matches/{world['match']}/" + (f"?token={token}" if token else ""))
    connected, _ = await socket.connect()
    assert connected
    frame = await socket.receive_json_from(timeout=5)
    if persona in KEPT_OUT:
        assert frame["type"] == "error" and frame["code"] == "table_closed_to_spectators"
        assert (await socket.receive_output(timeout=5))["type"] == "websocket.close"
    else:
        assert frame["type"] == "snapshot"
    await socket.disconnect()


@pytest.mark.django_db
def test_the_tournament_shows_a_table_result_only_once_its_deal_is_done(duplicate):
    match = Match.objects.get(pk=duplicate["match"])
    tournament_id = match.tournament_table.round.tournament_id
    turns.match_play_out(match_id=match.pk)
    tournament_services.tournament_match_finished(match_id=match.pk)

    def shown_result(persona: str):
        rounds = client_for(duplicate["users"][persona]).get(f"/api/tournaments/{tournament_id}/rounds").json()
        rounds = rounds if isinstance(rounds, list) else rounds["results"]
        return next(t for t in rounds[0]["tables"] if t["match"] == match.pk)["result"]

    assert shown_result("other_player") is None and shown_result("spectator") is None
    turns.match_play_out(match_id=duplicate["other"])
    tournament_services.tournament_match_finished(match_id=duplicate["other"])
    assert shown_result("other_player") is not None
