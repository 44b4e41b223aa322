"""ratings.math, without a database: one match's update, predictions, replays."""
from __future__ import annotations

import math

import pytest
import trueskill
from hypothesis import given
from hypothesis import strategies as st

from ratings import math as rmath

PARAMS = rmath.Params(draw_probability=0.05)
ENV = rmath.environment(PARAMS)


def table(*ranks, seats=None, **extra):
    return rmath.Table(seats=tuple(seats or [f"user:{i}" for i in range(len(ranks))]), ranks=tuple(ranks), **extra)


def test_the_environment_is_explicit_and_cached():
    assert rmath.environment(PARAMS) is ENV
    assert (ENV.mu, ENV.sigma, ENV.beta, ENV.tau, ENV.draw_probability) == (25, 25 / 3, 25 / 6, 25 / 300, 0.05)
    assert ENV is not trueskill.global_env()


def test_params_come_from_a_dict_and_refuse_unknown_keys():
    assert rmath.Params.from_dict({"beta": 5}).beta == 5.0
    with pytest.raises(ValueError):
        rmath.Params.from_dict({"gamma": 1})


@given(st.lists(st.integers(min_value=1, max_value=6), min_size=2, max_size=6),
       st.lists(st.tuples(st.floats(10, 40), st.floats(1, 8.5)), min_size=6, max_size=6))
def test_a_free_for_all_is_exactly_trueskill_rate(ranks, pairs):
    current = {f"user:{i}": pairs[i] for i in range(len(ranks))}
    changes = rmath.rate_table(ENV, table(*ranks), current)
    expected = ENV.rate([(ENV.create_rating(*pairs[i]),) for i in range(len(ranks))], ranks=ranks)
    assert [c.after for c in changes] == [(g[0].mu, g[0].sigma) for g in expected]
    assert [c.before for c in changes] == [current[c.competitor] for c in changes]
    assert [c.rank for c in changes] == ranks


def test_a_competitor_in_two_seats_is_not_rated_and_the_others_are_rated_against_it():
    current = {"bot:a": (30.0, 2.0), "user:1": (25.0, 8.0)}
    changes = rmath.rate_table(ENV, table(2, 1, 3, seats=["bot:a", "user:1", "bot:a"]), current)
    assert [(c.competitor, c.seat, c.rank) for c in changes] == [("user:1", 1, 1)]
    bot = trueskill.Rating(30.0, 2.0)
    expected = ENV.rate([(bot,), (trueskill.Rating(25.0, 8.0),), (bot,)], ranks=[2, 1, 3])
    assert changes[0].after == (expected[1][0].mu, expected[1][0].sigma)


def test_a_bot_against_itself_rates_nobody():
    assert rmath.rate_table(ENV, table(2, 1, seats=["bot:a", "bot:a"]), {}) == []


def test_a_cooperative_team_plays_the_game_at_its_average():
    won = rmath.rate_table(ENV, table(1, 1, 1, cooperative=True, won=True), {})
    assert [c.competitor for c in won] == ["user:0", "user:1", "user:2", "game:3"]
    assert [c.rank for c in won] == [1, 1, 1, 2]
    assert won[0].after[0] > 25 > won[3].after[0]
    lost = rmath.rate_table(ENV, table(1, 1, cooperative=True, won=False), {})
    assert lost[0].after[0] < 25 < lost[2].after[0] and lost[2].rank == 1


def test_an_abandoned_seat_in_a_cooperative_match_ranks_below_the_team_and_the_game():
    changes = rmath.rate_table(ENV, table(1, 2, cooperative=True, won=True), {})
    ranks = {c.competitor: c.rank for c in changes}
    assert ranks == {"user:0": 1, "game:2": 2, "user:1": 3}


def test_two_player_win_probability_is_the_closed_form_and_the_integral_agrees():
    a, b = (30.0, 4.0), (25.0, 6.0)
    p = rmath.win_probabilities(ENV, [[a], [b]])
    expected = 0.5 * math.erfc(-(5.0 / math.sqrt(16 + 36 + 2 * ENV.beta**2)) / math.sqrt(2))
    assert p == pytest.approx([expected, 1 - expected])
    # A third player far below changes almost nothing: the integral agrees with the closed form.
    three = rmath.win_probabilities(ENV, [[a], [b], [(-200.0, 1.0)]])
    assert three[:2] == pytest.approx([expected, 1 - expected], abs=1e-6)


def test_equal_players_are_equally_likely_to_win_and_quality_is_trueskills():
    chances = rmath.win_probabilities(ENV, [[(25.0, 8.0)]] * 5)
    assert chances == pytest.approx([0.2] * 5, abs=1e-9)
    fresh = ENV.create_rating()
    assert rmath.quality(ENV, [[(25.0, 25 / 3)]] * 3) == pytest.approx(ENV.quality([(fresh,)] * 3))


def test_a_replay_scores_the_favourite_and_counts_ties():
    tables = [table(1, 2, seats=["user:a", "user:b"])] * 30 + [table(1, 1, seats=["user:a", "user:b"])]
    result = rmath.replay(tables, PARAMS)
    assert result.overall.matches == 31
    assert result.overall.accuracy > 0.9  # once a has won, a is the favourite
    assert result.buckets[(0, 0)].matches == 1 and result.buckets[(20, 49)].matches == 11
    assert (result.adjacent_pairs, result.adjacent_ties) == (31, 1)
    assert result.ratings["user:a"][0] > result.ratings["user:b"][0]


def test_kendall_tau():
    assert rmath.kendall_tau(list("abcde"), list("abcde")) == 1
    assert rmath.kendall_tau(list("edcba"), list("abcde")) == -1
    assert rmath.kendall_tau(list("bacde"), list("abcde")) == pytest.approx(0.8)


def test_an_update_trueskill_cannot_compute_leaves_every_rating_as_it_was(monkeypatch):
    def refuse(*args, **kwargs):
        raise FloatingPointError

    current = {"user:0": (30.000000000000004, 1.1875), "user:1": (12.5, 3.0)}
    monkeypatch.setattr(ENV, "rate", refuse)
    for cooperative in (False, True):
        changes = rmath.rate_table(ENV, table(1, 2, cooperative=cooperative, won=True), current)
        assert all(c.before == c.after for c in changes)
        assert changes[0].after == current["user:0"]
