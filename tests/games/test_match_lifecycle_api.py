"""A whole match over HTTP, for every registered game: register, create, join, start, play, outcome."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from games.engines import ENGINES
from tests.games.helpers import game_params, play_to_end, started_match

pytestmark = pytest.mark.django_db


def register(client: APIClient, username: str) -> dict:
    answer = client.post(
        "/api/auth/register", {"username": username, "password": "a long enough passphrase", "display_name": username},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    return answer.json()


@pytest.mark.no_cover  # volume: a random whole match, move by move (tests/untraced.py)
@pytest.mark.parametrize(("game", "players"), game_params())
def test_two_people_play_a_whole_match_over_the_api(game, players):
    clients = [APIClient() for _ in range(players)]
    sessions = [register(c, f"player{i}") for i, c in enumerate(clients)]
    for client, session in zip(clients, sessions):
        client.credentials(HTTP_AUTHORIZATION=f"Token {session['token']}")

    created = clients[0].post("/api/matches", {"game": game, "players": players}, format="json")
    assert created.status_code == 201
    match_id = created.json()["id"]
    assert created.json()["status"] == "open"
    for client in clients[1:]:
        assert client.post(f"/api/matches/{match_id}/join", {}, format="json").status_code == 200
    started = clients[0].post(f"/api/matches/{match_id}/start")
    assert started.status_code == 200
    assert started.json()["status"] == "running"
    assert len(started.json()["seed_sha256"]) == 64 and started.json()["seed"] is None

    users = [User.objects.get(username=f"player{i}") for i in range(players)]
    final_view = play_to_end(match_id, users)

    detail = clients[1].get(f"/api/matches/{match_id}").json()
    assert detail["status"] == "finished"
    assert detail["outcome"] == final_view["outcome"]
    assert detail["outcome"]["finished"] is True and len(detail["outcome"]["ranks"]) == players
    assert detail["seed"] is not None  # revealed at the end
    events = APIClient().get(f"/api/matches/{match_id}/events")
    assert events.status_code == 200
    kinds = [e["data"]["type"] for e in events.json()]
    assert kinds[0] == "MatchStarted" and kinds[1] == "GameStarted" and kinds[-1] == "MatchFinished"
    assert [e["seq"] for e in events.json()] == list(range(1, len(kinds) + 1))


def test_the_match_list_filters_by_game_status_and_player(alice, bob):
    running = started_match("the-game", [alice, bob])
    anon = APIClient()
    assert [m["id"] for m in anon.get("/api/matches?status=running").json()["results"]] == [running]
    assert anon.get("/api/matches?status=finished").json()["results"] == []
    assert [m["id"] for m in anon.get("/api/matches?player=bob").json()["results"]] == [running]
    assert anon.get("/api/matches?player=carol").json()["results"] == []
    assert [m["id"] for m in anon.get(f"/api/matches?player={bob.pk}").json()["results"]] == [running]
    for looks_like_an_id in ("³", "9" * 30):  # not a user id: nobody's matches, not a 500
        assert anon.get("/api/matches", {"player": looks_like_an_id}).json()["results"] == []
    assert anon.get("/api/matches?game=ten").json()["results"] == []
    assert anon.get("/api/matches?status=bogus").status_code == 400


def test_the_games_endpoint_lists_every_engine_with_its_bots():
    games = APIClient().get("/api/games").json()
    assert [g["slug"] for g in games] == sorted(ENGINES)
    assert all("random" in g["bots"] and g["strong_bot"] in g["bots"] for g in games)
