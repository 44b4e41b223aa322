"""GET /api/ratings/{game}/leaderboard: best μ − 3σ first, a minimum of games, pages, your own place.

Who is listed (provisional players, people on the bots' pool's board, `kind`):
tests/ratings/test_boards_list_everyone.py.
"""
from __future__ import annotations

import pytest

from tests.conftest import client_for, make_user
from tests.ratings.builders import beat, board

pytestmark = pytest.mark.django_db


def test_it_orders_by_the_conservative_rating_and_numbers_the_places(alice, bob, carol):
    beat(alice, bob, 3)
    beat(bob, carol, 3)
    body = board(min_games=1)
    assert [row["name"] for row in body["results"]] == ["Alice", "Bob", "Carol"]
    assert [row["position"] for row in body["results"]] == [1, 2, 3]
    ratings = [row["rating"] for row in body["results"]]
    assert ratings == sorted(ratings, reverse=True)
    first = body["results"][0]
    assert first["rating"] == pytest.approx(first["mu"] - 3 * first["sigma"])
    assert first["games"] == 3 and first["wins"] == 3 and first["competitor"] == f"user:{first['user']}"


def test_min_games_still_leaves_out_players_below_it_when_asked(alice, bob, carol):
    beat(alice, bob, 5)
    beat(carol, alice, 1)
    assert [row["name"] for row in board(min_games=5)["results"]] == ["Alice", "Bob"]
    assert board(min_games=7)["count"] == 0
    assert board()["count"] == 3  # by default everyone rated is listed


def test_it_pages_and_keeps_the_places_running(alice):
    others = [make_user(f"rival{i}") for i in range(5)]
    for rival in others:
        beat(alice, rival)
    page = board(min_games=1, limit=2, offset=2)
    assert page["count"] == 6
    assert [row["position"] for row in page["results"]] == [3, 4]
    assert page["next"] and page["previous"]


def test_it_shows_the_callers_own_place_even_below_the_page(alice, bob, carol):
    beat(alice, bob, 2)
    beat(alice, carol, 2)
    body = board(user=carol, min_games=1, limit=1)
    assert [row["name"] for row in body["results"]] == ["Alice"]
    assert body["player"]["name"] == "Carol" and body["player"]["position"] in (2, 3)
    assert board(min_games=1, player="alice")["player"]["position"] == 1
    assert board(min_games=3, player="bob")["player"]["position"] is None  # two games: not on the board
    assert board(min_games=1)["player"] is None  # anonymous, nobody asked for


def test_it_refuses_an_unknown_game_a_bad_pool_and_an_unknown_player(alice):
    assert client_for().get("/api/ratings/chess/leaderboard").json()["error"]["code"] == "unknown_game"
    answer = client_for().get("/api/ratings/ten/leaderboard", {"pool": "robots", "min_games": -1})
    assert answer.status_code == 400
    assert set(answer.json()["error"]["extra"]["fields"]) == {"pool", "min_games"}
    missing = client_for().get("/api/ratings/ten/leaderboard", {"player": "nobody"})
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "player_not_found"


@pytest.mark.parametrize("player", ["%C2%B3", "99999999999999999999999", "game:%C2%B3", "game:99999999999999999999999"])
def test_a_player_that_only_looks_like_a_number_is_not_found(player):
    # "³" passes str.isdigit but not int(); a number past bigint is no id (schemathesis found both).
    for game in ("ten", "the-game"):
        answer = client_for().get(f"/api/ratings/{game}/players/{player}/history")
        assert answer.status_code == 404 and answer.json()["error"]["code"] == "player_not_found"
