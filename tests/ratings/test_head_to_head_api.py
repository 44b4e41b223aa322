"""GET /api/ratings/{game}/players/{player}/head-to-head: the record against each opponent met."""
from __future__ import annotations

import pytest

from ratings.services import match_rate
from tests.conftest import client_for
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db


def outcome(ranks, **extra):
    return {"finished": True, "ranks": ranks, "scores": [0] * len(ranks), "winners": [], "cooperative": False, **extra}


def records(player, game="ten", **params):
    answer = client_for().get(f"/api/ratings/{game}/players/{player}/head-to-head", params)
    assert answer.status_code == 200, answer.json()
    return {row["name"]: row for row in answer.json()["results"]}


def test_it_counts_wins_losses_and_draws_against_each_opponent(alice, bob, carol):
    for seats, ranks in [
        ([alice, bob], [1, 2]),
        ([bob, alice], [1, 2]),
        ([alice, bob, carol], [1, 1, 3]),
        ([carol, alice], [1, 2]),
    ]:
        match_rate(match_id=stored("ten", seats, outcome(ranks)).pk)
    mine = records("alice")
    assert {k: mine["Bob"][k] for k in ("matches", "wins", "losses", "draws")} == {
        "matches": 3, "wins": 1, "losses": 1, "draws": 1
    }
    assert {k: mine["Carol"][k] for k in ("matches", "wins", "losses", "draws")} == {
        "matches": 2, "wins": 1, "losses": 1, "draws": 0
    }
    assert list(mine) == ["Bob", "Carol"]  # most matches first
    assert list(records("alice", opponent="carol")) == ["Carol"]
    assert records("bob")["Alice"]["wins"] == 1


def test_in_the_cooperative_game_it_counts_matches_won_together(alice, bob):
    for won in (True, False, True):
        result = outcome([1, 1], cooperative=True, won=won)
        match_rate(match_id=stored("the-game", [alice, bob], result).pk)
    partner = records("alice", game="the-game")
    assert list(partner) == ["Bob"]  # the game's pseudo-player is not a partner
    assert {k: partner["Bob"][k] for k in ("matches", "wins", "losses", "draws")} == {
        "matches": 3, "wins": 2, "losses": 1, "draws": 0
    }


def test_it_is_empty_for_a_player_who_met_nobody(alice):
    assert records("alice") == {}
