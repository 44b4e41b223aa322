"""GET /api/ratings/{game}/players/{player}[/history]: a player's rating now and match by match."""
from __future__ import annotations

import itertools

import pytest

from ratings.services import match_rate
from tests.conftest import client_for
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db

WIN = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}


def test_the_history_chains_each_match_from_the_last_oldest_first(alice, bob):
    matches = [stored("ten", [alice, bob] if i % 2 else [bob, alice], WIN) for i in range(3)]
    match_rate(match_id=matches[-1].pk)
    body = client_for().get("/api/ratings/ten/players/alice/history").json()
    assert body["count"] == 3
    rows = body["results"]
    assert [row["match"] for row in rows] == [m.pk for m in matches]
    assert [row["position"] for row in rows] == [1, 2, 3]
    assert rows[0]["mu_before"] == 25 and rows[0]["rank"] == 2
    for earlier, later in itertools.pairwise(rows):
        assert (later["mu_before"], later["sigma_before"]) == (earlier["mu_after"], earlier["sigma_after"])
    assert rows[-1]["rating_after"] == pytest.approx(rows[-1]["mu_after"] - 3 * rows[-1]["sigma_after"])
    now = client_for().get("/api/ratings/ten/players/alice", {"min_games": 1}).json()
    assert (now["mu"], now["sigma"], now["games"]) == (rows[-1]["mu_after"], rows[-1]["sigma_after"], 3)
    assert now["position"] in (1, 2)


def test_a_bots_history_is_found_by_its_name_on_the_bots_board(alice):
    match_rate(match_id=stored("ten", ["run_builder", alice], WIN).pk)
    rows = client_for().get("/api/ratings/ten/players/bot:run_builder/history").json()["results"]
    assert [row["rank"] for row in rows] == [1]
    # Alice has only played a bot: her history is found on that board unless another is asked for.
    assert client_for().get("/api/ratings/ten/players/alice/history").json()["count"] == 1
    assert client_for().get("/api/ratings/ten/players/alice/history", {"pool": "bots"}).json()["count"] == 1
    assert client_for().get("/api/ratings/ten/players/alice/history", {"pool": "people"}).json()["count"] == 0


def test_a_player_with_no_rating_has_an_empty_history_and_no_rating(alice):
    assert client_for().get("/api/ratings/ten/players/alice/history").json()["count"] == 0
    answer = client_for().get("/api/ratings/ten/players/alice")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_rated"
    assert client_for().get("/api/ratings/ten/players/nobody/history").status_code == 404
