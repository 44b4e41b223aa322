"""GET /api/ratings/the-game/best-results: fewest cards left per player count, and the game's own rating."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ratings.services import match_rate
from tests.conftest import client_for
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db


def result(cards: int, players: int) -> dict:
    won = cards == 0
    return {
        "finished": True, "ranks": [1] * players, "scores": [cards] * players,
        "winners": list(range(players)) if won else [], "cooperative": True, "won": won,
    }


def test_it_lists_the_fewest_cards_left_first_per_player_count(alice, bob, carol):
    start = timezone.now()
    played = [([alice, bob], 12), ([bob, carol], 3), ([alice, carol], 3), ([alice, bob, carol], 0), ([carol], 40)]
    for offset, (team, cards) in enumerate(played):
        match = stored("the-game", team, result(cards, len(team)), finished_at=start + timedelta(seconds=offset))
        match_rate(match_id=match.pk)

    body = client_for().get("/api/ratings/the-game/best-results").json()
    assert [(r["players"], r["cards_left"]) for r in body["results"]] == [(1, 40), (2, 3), (2, 3), (2, 12), (3, 0)]
    two = client_for().get("/api/ratings/the-game/best-results", {"players": 2}).json()["results"]
    assert [[m["name"] for m in r["team"]] for r in two[:2]] == [["Bob", "Carol"], ["Alice", "Carol"]]  # earliest first
    assert two[0]["won"] is False
    games = {g["players"]: g for g in body["game_ratings"]}
    assert set(games) == {1, 2, 3}
    assert games[2]["games"] == 3 and games[2]["wins"] == 3  # the game beat every 2-player team
    assert games[3]["wins"] == 0 and games[3]["mu"] < 25


def test_a_game_that_is_not_cooperative_has_no_best_results():
    answer = client_for().get("/api/ratings/ten/best-results")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_cooperative"


def test_casual_matches_never_reach_the_board(alice):
    match_rate(match_id=stored("the-game", [alice], result(0, 1), rated=False).pk)
    assert client_for().get("/api/ratings/the-game/best-results").json()["count"] == 0
