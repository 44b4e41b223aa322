"""Boards list everyone rated: provisional players marked, people beside bots on the bots' pool's board.

The ratings issue: people who played bots were on no board, and the default minimum of five
games left a new player's boards empty. Done when a new player sees themselves on a board after
their first rated match.
"""
from __future__ import annotations

import pytest

from accounts.models import User
from ratings.selectors import PROVISIONAL_GAMES
from ratings.services import match_rate
from tests.conftest import client_for, make_user
from tests.ratings.builders import WIN, beat, board, stored

pytestmark = pytest.mark.django_db

WON_TOGETHER = {"finished": True, "ranks": [1, 1], "scores": [0, 0], "winners": [0, 1], "cooperative": True, "won": True}


def person(username):
    return User.objects.get(username=username)


def detail(player, game="ten", user=None, **params):
    return client_for(user).get(f"/api/ratings/{game}/players/{player}", params)


def test_players_below_five_games_are_listed_numbered_and_marked_provisional(alice, bob, carol):
    beat(alice, bob, PROVISIONAL_GAMES - 1)
    beat(alice, carol)
    body = board()
    rows = {row["name"]: row for row in body["results"]}
    assert body["count"] == 3 and body["provisional_games"] == PROVISIONAL_GAMES
    assert [row["position"] for row in body["results"]] == [1, 2, 3]  # provisional rows are numbered too
    assert rows["Alice"]["games"] == PROVISIONAL_GAMES and rows["Alice"]["provisional"] is False
    assert rows["Bob"]["games"] == PROVISIONAL_GAMES - 1 and rows["Bob"]["provisional"] is True
    assert rows["Carol"]["provisional"] is True and rows["Carol"]["kind"] == "user"


def test_a_place_is_the_same_on_the_board_in_the_player_row_and_in_the_rating_detail(alice, bob, carol):
    beat(alice, bob, 3)
    beat(carol, bob, 1)
    for row in board()["results"]:
        username = {"Alice": "alice", "Bob": "bob", "Carol": "carol"}[row["name"]]
        mine = board(user=person(username))["player"]
        assert (mine["position"], mine["provisional"]) == (row["position"], row["provisional"])
        answer = detail(username)
        assert answer.status_code == 200
        assert (answer.json()["position"], answer.json()["provisional"]) == (row["position"], row["provisional"])


def test_a_new_player_is_on_the_peoples_board_after_their_first_rated_match(alice):
    newcomer = make_user("dora")
    match_rate(match_id=stored("ten", [newcomer, alice], WIN).pk)
    body = board(user=newcomer)
    assert [row["name"] for row in body["results"]] == ["Dora", "Alice"]
    assert body["player"]["name"] == "Dora" and body["player"]["position"] == 1
    assert body["player"]["games"] == 1 and body["player"]["provisional"] is True


def test_a_new_player_is_on_the_bots_pool_board_after_their_first_match_against_a_bot():
    newcomer = make_user("dora")
    match_rate(match_id=stored("ten", [newcomer, "run_builder"], WIN).pk)
    assert board()["count"] == 0  # the people's board still has matches among people only
    body = board(pool="bots", user=newcomer)
    assert [(row["competitor"], row["kind"]) for row in body["results"]] == [
        (f"user:{newcomer.pk}", "user"), ("bot:run_builder", "bot"),
    ]
    assert body["player"]["position"] == 1 and body["player"]["provisional"] is True
    assert [row["name"] for row in body["results"]] == ["Dora", "run_builder"]


def test_the_bots_pool_board_lists_people_and_bots_in_one_order(alice, bob):
    beat(alice, "run_builder", 3)
    beat("run_builder", bob, 3)
    beat(alice, "random", 1)
    body = board(pool="bots")
    assert {row["name"]: row["kind"] for row in body["results"]} == {
        "Alice": "user", "Bob": "user", "run_builder": "bot", "random": "bot",
    }
    ratings = [row["rating"] for row in body["results"]]
    assert ratings == sorted(ratings, reverse=True) and [row["position"] for row in body["results"]] == [1, 2, 3, 4]


def test_the_kind_filter_keeps_people_or_bots_and_numbers_that_board(alice, bob):
    beat(alice, "run_builder", 3)
    beat("run_builder", bob, 3)
    beat(alice, "random", 1)
    people = board(pool="bots", kind="user", player="bob")
    assert [row["name"] for row in people["results"]] == ["Alice", "Bob"]
    assert [row["position"] for row in people["results"]] == [1, 2] and people["player"]["position"] == 2
    bots = board(pool="bots", kind="bot", player="bob")
    assert {row["kind"] for row in bots["results"]} == {"bot"} and bots["count"] == 2
    assert bots["player"]["name"] == "Bob" and bots["player"]["position"] is None  # not on a board of bots
    assert board(kind="bot")["count"] == 0  # the people's board has no bots


@pytest.mark.parametrize("kind", ["robot", "game", "USER", "user,bot"])
def test_it_refuses_a_kind_that_is_not_user_or_bot(kind):
    answer = client_for().get("/api/ratings/ten/leaderboard", {"pool": "bots", "kind": kind})
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "invalid_input" and set(error["extra"]["fields"]) == {"kind"}


def test_the_games_own_rating_is_on_neither_board(alice, bob):
    match_rate(match_id=stored("the-game", [alice, bob], WON_TOGETHER).pk)
    match_rate(match_id=stored("the-game", [alice, "random"], WON_TOGETHER).pk)
    assert {row["kind"] for row in board("the-game")["results"]} == {"user"}
    assert {row["kind"] for row in board("the-game", pool="bots")["results"]} == {"user", "bot"}


def test_everyone_reads_the_same_public_boards(alice, bob, staff):
    beat(alice, bob, 2)
    beat(alice, "random", 1)
    for pool in ("people", "bots"):
        seen = []
        for who in (None, bob, staff):
            body = board(pool=pool, user=who, player="alice")
            seen.append((body["count"], body["results"], body["player"]))
        assert seen[0] == seen[1] == seen[2] and seen[0][0] > 0


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("who", ["anonymous", "player", "staff"])
def test_the_boards_take_no_writes(method, who, alice):
    beat(alice, "random", 1)
    user = {"anonymous": None, "player": alice, "staff": make_user("sam", staff=True)}[who]
    for path in ("/api/ratings/ten/leaderboard", "/api/ratings/ten/players/alice"):
        answer = getattr(client_for(user), method)(path, {"pool": "bots"}, format="json")
        assert answer.status_code == 405, (path, answer.content)
        assert answer.json()["error"]["code"] == "method_not_allowed"
