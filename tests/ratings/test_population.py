"""A simulated population: bots of graded strength play rated matches; the board ranks them in order.

Each bot plays the game's strong bot's choice with probability p and a uniform legal move
otherwise (`MixedBot`), for p = 0, 0.25, 0.5, 0.75, 1, so their true order is known.
"""
from __future__ import annotations

import itertools
import random

import pytest

from games.bots import STRONG_BOT
from ratings import math as rmath
from ratings.services import match_rate
from tests.conftest import client_for
from tests.ratings.builders import played, stored

pytestmark = pytest.mark.django_db

STRENGTHS = (0.0, 0.25, 0.5, 0.75, 1.0)


def population(game: str, players: int, matches: int) -> list[str]:
    """Plays `matches` rated bot matches from fixed seeds, every table a rotation of the bots."""
    names = [f"{STRONG_BOT[game]}@{p:g}" for p in STRENGTHS]
    tables = list(itertools.combinations(names, players))
    for index in range(matches):
        seats = list(tables[index % len(tables)])
        random.Random(index).shuffle(seats)
        outcome, _ = played(game, tuple(seats), 10_000 + index)
        match_rate(match_id=stored(game, seats, outcome, seed=10_000 + index).pk)
    return names


def board_order(game: str) -> list[str]:
    answer = client_for(None).get(f"/api/ratings/{game}/leaderboard", {"pool": "bots", "min_games": 1})
    assert answer.status_code == 200, answer.json()
    return [row["competitor"] for row in answer.json()["results"]]


@pytest.mark.no_cover  # volume: 300 bot matches a case (tests/untraced.py)
@pytest.mark.parametrize(("game", "players", "matches"), [("split", 2, 300), ("sequence-stacks", 4, 300)])
def test_the_leaderboard_orders_bots_of_graded_strength_correctly(game, players, matches):
    names = population(game, players, matches)
    truth = [f"bot:{name}" for name in reversed(names)]  # strongest first
    order = board_order(game)
    tau = rmath.kendall_tau(order, truth)
    print(f"\n{game}, {players} players, {matches} matches: Kendall tau = {tau:.2f}; board {order}")
    assert sorted(order) == sorted(truth)
    assert tau >= 0.8
