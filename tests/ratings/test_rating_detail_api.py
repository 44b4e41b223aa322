"""GET /api/ratings/{game}/players/{player}: a rating, its place on the pool's board, its pool."""
from __future__ import annotations

import pytest

from ratings.services import match_rate
from tests.conftest import client_for, make_user
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db

WIN = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}


def detail(player, game="ten", **params):
    return client_for().get(f"/api/ratings/{game}/players/{player}", params)


def test_a_person_who_only_played_bots_is_found_in_the_bots_pool_by_default():
    """Regression: the default pool was people's for every person, so this answered 404 not_rated."""
    newcomer = make_user("dora")
    match_rate(match_id=stored("ten", [newcomer, "run_builder"], WIN).pk)
    answer = detail("dora")
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["pool"] == "bots" and body["kind"] == "user" and body["games"] == 1
    assert body["position"] == 1 and body["provisional"] is True
    people = detail("dora", pool="people")
    assert people.status_code == 404 and people.json()["error"]["code"] == "not_rated"


def test_a_person_rated_in_both_pools_gets_the_peoples_by_default_and_either_when_asked(alice, bob):
    match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    match_rate(match_id=stored("ten", ["run_builder", alice], WIN).pk)
    assert detail("alice").json()["pool"] == "people"
    bots = detail("alice", pool="bots").json()
    assert bots["pool"] == "bots" and bots["position"] == 2  # below the bot that beat her


def test_a_bot_defaults_to_the_bots_pool_and_the_unrated_to_not_rated(alice):
    match_rate(match_id=stored("ten", [alice, "run_builder"], WIN).pk)
    bot = detail("bot:run_builder").json()
    assert (bot["pool"], bot["kind"], bot["position"]) == ("bots", "bot", 2)
    make_user("erin")
    missing = detail("erin")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_rated"
    assert "people" in missing.json()["error"]["message"]


def test_min_games_takes_a_rating_off_the_board_but_still_shows_it(alice, bob):
    match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    body = detail("alice", min_games=2).json()
    assert body["position"] is None and body["games"] == 1 and body["provisional"] is True
