"""GET /api/ratings/{game}/predict: a proposed table's quality and each seat's chance to win."""
from __future__ import annotations

import pytest
import trueskill
from django.conf import settings

from ratings.selectors import table_prediction, user_refs, users_by_rating
from ratings.services import match_rate
from tests.conftest import client_for, make_user
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db

WIN = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}


def predict(game, players, **params):
    return client_for().get(f"/api/ratings/{game}/predict", {"players": players, **params})


def test_two_new_players_are_an_even_table_with_trueskills_quality(alice, bob):
    body = predict("ten", "alice,bob").json()
    env = trueskill.TrueSkill(**settings.RATINGS_TRUESKILL["ten"])
    fresh = env.create_rating()
    assert body["quality"] == pytest.approx(env.quality([(fresh,), (fresh,)]))
    assert [p["win_probability"] for p in body["players"]] == pytest.approx([0.5, 0.5])
    assert body["pool"] == "people" and body["cooperative"] is False


def test_the_stronger_player_is_favoured_and_the_chances_add_up_to_one(alice, bob, carol):
    for _ in range(4):
        match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    two = predict("ten", "alice,bob").json()
    assert two["players"][0]["win_probability"] > 0.7
    env = trueskill.TrueSkill(**settings.RATINGS_TRUESKILL["ten"])
    ratings = [(env.create_rating(p["mu"], p["sigma"]),) for p in two["players"]]
    assert two["quality"] == pytest.approx(env.quality(ratings))

    three = predict("ten", "carol,alice,bob").json()
    chances = [p["win_probability"] for p in three["players"]]
    assert sum(chances) == pytest.approx(1.0)
    assert chances[1] == max(chances) and chances[2] == min(chances)


def test_the_cooperative_game_gives_the_teams_chance_against_the_game(alice, bob, carol):
    lost = {"finished": True, "ranks": [1, 1], "scores": [9, 9], "winners": [], "cooperative": True, "won": False}
    for _ in range(3):
        match_rate(match_id=stored("the-game", [alice, bob], lost).pk)
    body = predict("the-game", "alice,bob").json()
    assert body["cooperative"] is True
    assert body["team_win_probability"] < 0.5
    assert all(p["win_probability"] is None for p in body["players"])
    assert predict("the-game", "carol").json()["team_win_probability"] == pytest.approx(0.5)  # both new


def test_a_bot_at_the_table_uses_the_bots_ratings(alice):
    body = predict("ten", "alice,bot:run_builder").json()
    assert body["pool"] == "bots"
    assert [p["competitor"] for p in body["players"]] == [f"user:{alice.pk}", "bot:run_builder"]


def test_it_refuses_a_table_of_the_wrong_size_a_repeated_player_or_an_unknown_one(alice, bob):
    assert predict("ten", "alice").json()["error"]["code"] == "bad_player_count"
    assert predict("ten", ",".join(["alice"] * 2)).json()["error"]["code"] == "duplicate_player"
    assert predict("ten", "alice,nobody").status_code == 404
    assert client_for().get("/api/ratings/ten/predict").status_code == 400


def test_tournaments_can_seed_people_by_rating(alice, bob, carol):
    dave = make_user("dave")
    for _ in range(3):
        match_rate(match_id=stored("ten", [carol, alice], WIN).pk)
    order = users_by_rating("ten", [dave.pk, alice.pk, bob.pk, carol.pk])
    assert order[0] == carol.pk
    assert order.index(bob.pk) + 1 == order.index(dave.pk)  # unrated players tie, by id
    table = table_prediction("ten", user_refs([alice.pk, carol.pk]))
    assert table["players"][1]["win_probability"] > 0.5 > table["players"][0]["win_probability"]
