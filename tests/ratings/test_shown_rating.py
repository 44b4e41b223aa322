"""The rating written beside a name: never a negative number (issue #43 item 8).

μ − 3σ starts at 0 and a new player's first losses take it below zero. Until PROVISIONAL_GAMES
rated games the pages show the skill estimate μ with a "?" and how many games are left to
settle it; after that μ − 3σ, from 0 up. The board's order stays μ − 3σ (`rating`).
"""
from __future__ import annotations

import pytest

from ratings.selectors import PROVISIONAL_GAMES, games_to_settle, shown_rating, user_ratings
from tests.ratings.builders import beat, board

pytestmark = pytest.mark.django_db


def test_a_new_players_first_loss_shows_the_skill_estimate_and_the_games_left_to_settle(alice, bob):
    beat(alice, bob)
    winner, loser = board()["results"]
    assert loser["name"] == "Bob" and loser["rating"] < 0  # what the board orders by
    assert loser["provisional"] and loser["games_to_settle"] == PROVISIONAL_GAMES - 1
    assert loser["shown_rating"] == pytest.approx(loser["mu"]) and loser["shown_rating"] > 0
    # The order is μ − 3σ still: the winner is above, whatever the numbers shown.
    assert winner["name"] == "Alice" and winner["rating"] > loser["rating"]


def test_a_settled_rating_is_mu_minus_three_sigma_and_never_below_zero(alice, bob, carol):
    beat(alice, bob, PROVISIONAL_GAMES)
    beat(carol, alice, 1)
    rows = {row["name"]: row for row in board()["results"]}
    for name in ("Alice", "Bob"):
        assert not rows[name]["provisional"] and rows[name]["games_to_settle"] == 0
        assert rows[name]["shown_rating"] == pytest.approx(max(rows[name]["rating"], 0))
    assert rows["Bob"]["rating"] < 0 and rows["Bob"]["shown_rating"] == 0  # five losses in five games
    assert rows["Carol"]["provisional"] and rows["Carol"]["games_to_settle"] == PROVISIONAL_GAMES - 1
    # The profile's cards read the same row.
    (card,) = user_ratings(bob.pk)
    assert card["shown_rating"] == 0 and card["rating"] == pytest.approx(rows["Bob"]["rating"])


@pytest.mark.parametrize(("games", "left"), [(0, PROVISIONAL_GAMES), (1, PROVISIONAL_GAMES - 1),
                                             (PROVISIONAL_GAMES, 0), (PROVISIONAL_GAMES + 3, 0)])
def test_games_to_settle_counts_down_to_zero(games, left):
    assert games_to_settle(games) == left


def test_the_shown_rating_is_mu_while_provisional_then_the_conservative_rating_from_zero_up():
    assert shown_rating(20.0, -4.0, PROVISIONAL_GAMES - 1) == 20.0
    assert shown_rating(20.0, -4.0, PROVISIONAL_GAMES) == 0.0
    assert shown_rating(30.0, 12.5, PROVISIONAL_GAMES) == 12.5
