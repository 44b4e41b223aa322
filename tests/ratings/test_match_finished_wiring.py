"""A match that ends over the API reaches the leaderboard through MATCH_FINISHED_TASKS, in well under a second."""
from __future__ import annotations

import random
import time

import pytest

from tests.conftest import client_for
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def test_a_finished_match_is_on_the_leaderboard_within_a_second(alice, bob, eager_tasks, django_capture_on_commit_callbacks):
    match_id = started_match("the-game", [alice, bob])
    clients = {0: client_for(alice), 1: client_for(bob)}
    rng = random.Random(0)
    for _ in range(500):
        view = clients[0].get(f"/api/matches/{match_id}/view").json()["view"]
        if view["finished"]:
            break
        seat = view["to_act"][0]
        legal = clients[seat].get(f"/api/matches/{match_id}/view").json()["legal_moves"]
        start = time.perf_counter()
        with django_capture_on_commit_callbacks(execute=True):
            answer = clients[seat].post(f"/api/matches/{match_id}/moves", {"move": rng.choice(legal)}, format="json")
        assert answer.status_code == 200, answer.json()
    board = client_for().get("/api/ratings/the-game/leaderboard", {"min_games": 1}).json()
    elapsed = time.perf_counter() - start
    assert {row["name"] for row in board["results"]} == {"Alice", "Bob"}
    assert elapsed < 1.0
    history = client_for().get("/api/ratings/the-game/players/game:2/history").json()["results"]
    assert [row["match"] for row in history] == [match_id]
