"""`ratings.model_compare`: the five rating models, their predictive distributions and the metrics."""
from __future__ import annotations

import itertools
import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ratings import model_compare as mc
from ratings.math import Params, Table, game_competitor, kendall_tau

PARAMS = Params(draw_probability=0.05)


def thurstone_league(skills: dict[str, float], matches: int, size: int, seed: int) -> list[Table]:
    """Tables of `size` players drawn at random; each finishes in the order of skill + N(0, 4²) noise."""
    rng = random.Random(seed)
    tables = []
    for _ in range(matches):
        seats = tuple(rng.sample(sorted(skills), size))
        performances = [skills[s] + rng.gauss(0, 4) for s in seats]
        order = sorted(range(size), key=lambda i: -performances[i])
        ranks = [0] * size
        for place, seat in enumerate(order, start=1):
            ranks[seat] = place
        tables.append(Table(seats, tuple(ranks)))
    return tables


def team_league(skills: dict[str, float], matches: int, size: int, seed: int) -> list[Table]:
    """Cooperative tables: the team wins when its mean skill plus noise beats the game's 25."""
    rng = random.Random(seed)
    tables = []
    for _ in range(matches):
        seats = tuple(rng.sample(sorted(skills), size))
        won = sum(skills[s] for s in seats) / size + rng.gauss(0, 3) > 25
        tables.append(Table(seats, (1,) * size, cooperative=True, won=won))
    return tables


SKILLS = {f"bot:s{i}": 15 + 4 * i for i in range(6)}


# --- metrics against hand-computed values ----------------------------------------------------


def test_plackett_luce_probabilities_are_the_closed_form():
    prediction = mc.plackett_luce_prediction([math.log(2), 0.0, 0.0])  # strengths 2, 1, 1
    assert prediction.winner == pytest.approx((0.5, 0.25, 0.25))
    assert prediction.ahead[0][1] == pytest.approx(2 / 3)
    assert prediction.order_probability([0, 1, 2]) == pytest.approx(2 / 4 * 1 / 2)
    assert prediction.order_probability([1, 0, 2]) == pytest.approx(1 / 4 * 2 / 3)


def test_a_strict_result_scores_every_metric_as_computed_by_hand():
    score = mc.score_match(mc.plackett_luce_prediction([math.log(2), 0.0, 0.0]), (1, 2, 3))
    assert score.order_ll == pytest.approx(math.log(0.25))
    assert score.winner_ll == pytest.approx(-math.log(0.5))
    assert score.brier == pytest.approx(0.25 + 0.0625 + 0.0625)
    # (0,1) and (0,2) called right at 2/3; (1,2) at exactly 0.5 counts a half.
    assert (score.pairs_right, score.pairs) == (2.5, 3)
    metrics = mc.aggregate([score])
    assert metrics["pair_accuracy"] == pytest.approx(2.5 / 3)
    # Both orientations: bin 6 holds 2/3, 2/3 (both right), bin 3 holds 1/3, 1/3 (both wrong
    # way round, observed 0), bin 5 holds 0.5, 0.5 (one of each): (|4/3 - 2| + |2/3 - 0| + 0) / 6.
    assert metrics["ece"] == pytest.approx(2 / 9)


def test_a_tie_is_any_strict_order_consistent_with_it_and_a_shared_win_sums_the_co_winners():
    score = mc.score_match(mc.plackett_luce_prediction([math.log(2), 0.0, 0.0]), (1, 1, 3))
    assert score.order_ll == pytest.approx(math.log(2 / 4 * 1 / 2 + 1 / 4 * 2 / 3))
    assert score.winner_ll == pytest.approx(-math.log(0.75))
    assert score.brier == pytest.approx(0.0 + 0.0625 + 0.0625)  # each co-winner observed 1/2
    assert (score.pairs_right, score.pairs) == (1.5, 2)  # the tied pair is left out


def test_gaussian_order_probability_is_the_normal_integral():
    prediction = mc.gaussian_prediction([(1.0, 0.5), (0.0, 0.5)], [0.8413447, 0.1586553])
    assert prediction.order_probability([0, 1]) == pytest.approx(0.5 * math.erfc(-1 / math.sqrt(2)), abs=1e-5)
    assert prediction.ahead[0][1] == pytest.approx(0.5 * math.erfc(-1 / math.sqrt(2)))
    three_equal = mc.gaussian_prediction([(0.0, 1.0)] * 3, [1 / 3] * 3)
    assert three_equal.order_probability([2, 0, 1]) == pytest.approx(1 / 6, abs=1e-5)


def test_a_probability_of_zero_is_floored_not_infinite():
    prediction = mc.plackett_luce_prediction([0.0, -1e4])
    assert prediction.order_probability([1, 0]) == 0.0
    score = mc.score_match(prediction, (2, 1))
    assert math.isfinite(score.order_ll) and math.isfinite(score.winner_ll)


def test_settling_counts_the_games_after_which_the_chance_stays_in_the_band():
    assert mc._settled_after([0.5, 0.8, 0.62, 0.7, 0.66, 0.7], 0.7) == 4  # in the band from game 4 on
    assert mc._settled_after([0.7, 0.71], 0.7) == 1
    assert mc._settled_after([0.5, 0.5, 0.9], 0.7) == 3


def test_bootstrap_weights_match_a_resample_and_the_interval_holds_the_point():
    scores = [mc.score_match(mc.plackett_luce_prediction([x, 0.0]), (1, 2)) for x in (0.5, -0.3, 1.2)]
    assert mc.aggregate(scores, [2, 0, 1]) == pytest.approx(mc.aggregate([scores[0], scores[0], scores[2]]))
    draws = list(mc.bootstrap_draws(3, 200, seed=4))
    assert draws == list(mc.bootstrap_draws(3, 200, seed=4)) and all(sum(d) == 3 for d in draws)
    values = [mc.aggregate(scores, d)["order_ll"] for d in draws]
    low, high = mc.interval(values)
    assert low <= mc.aggregate(scores)["order_ll"] <= high


# --- the models -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", mc.MODELS)
def test_each_model_learns_the_order_of_known_strength_players(name):
    model = mc.make_model(name, PARAMS)
    model.fit(thurstone_league(SKILLS, 240, 3, seed=1))
    known = sorted(SKILLS, key=lambda s: -SKILLS[s])
    learned = sorted(SKILLS, key=lambda s: -model.strength(s))
    assert kendall_tau(learned, known) >= 0.85
    strongest, weakest = known[0], known[-1]
    prediction = model.predict(Table((weakest, strongest), (1, 2)))
    assert prediction.winner[1] > 0.7


@pytest.mark.parametrize("name", mc.MODELS)
def test_each_model_rates_a_cooperative_team_against_the_game(name):
    model = mc.make_model(name, PARAMS.replace(draw_probability=0.0))
    model.fit(team_league(SKILLS, 300, 3, seed=2))
    strong_team = tuple(sorted(SKILLS, key=lambda s: -SKILLS[s])[:3])
    weak_team = tuple(sorted(SKILLS, key=lambda s: SKILLS[s])[:3])
    strong = model.predict(Table(strong_team, (1, 1, 1), cooperative=True, won=True)).winner[0]
    weak = model.predict(Table(weak_team, (1, 1, 1), cooperative=True, won=True)).winner[0]
    assert strong > 0.6 > 0.4 > weak
    assert model.strength(strong_team[0]) > model.strength(weak_team[0])


def test_the_seat_term_learns_a_first_seat_advantage_and_plain_trueskill_cannot():
    rng = random.Random(3)
    players = sorted(SKILLS)
    tables = []
    for _ in range(300):
        seats = tuple(rng.sample(players, 3))
        performances = [25 + (6 if seat == 0 else 0) + rng.gauss(0, 4) for seat in range(3)]
        order = sorted(range(3), key=lambda i: -performances[i])
        tables.append(Table(seats, tuple(order.index(seat) + 1 for seat in range(3))))
    seat = mc.make_model("trueskill-seat", PARAMS)
    seat.fit(tables)
    assert seat.pair("seat:0/3")[0] > seat.pair("seat:1/3")[0] + 2
    plain = mc.make_model("trueskill", PARAMS)
    plain.fit(tables)
    table = Table(tuple(players[:3]), (1, 2, 3))
    assert seat.predict(table).winner[0] > 0.5 > plain.predict(table).winner[0]


@pytest.mark.parametrize("name", mc.MODELS)
def test_every_models_strict_orders_sum_to_one(name):
    model = mc.make_model(name, PARAMS)
    model.fit(thurstone_league(SKILLS, 60, 4, seed=5))
    prediction = model.predict(Table(tuple(sorted(SKILLS)[:4]), (1, 2, 3, 4)))
    total = sum(prediction.order_probability(order) for order in itertools.permutations(range(4)))
    assert total == pytest.approx(1.0, abs=5e-4)
    assert sum(prediction.winner) == pytest.approx(1.0)


@given(st.lists(st.tuples(st.floats(-30, 30), st.floats(0.3, 10)), min_size=2, max_size=4))
def test_gaussian_strict_orders_sum_to_one_and_a_weak_order_is_their_sum(performances):
    prediction = mc.gaussian_prediction(performances, [1 / len(performances)] * len(performances))
    orders = list(itertools.permutations(range(len(performances))))
    assert sum(prediction.order_probability(o) for o in orders) == pytest.approx(1.0, abs=5e-4)
    all_tied = prediction.weak_order_probability([1] * len(performances))
    assert all_tied == pytest.approx(1.0, abs=5e-4)


@given(st.lists(st.floats(-20, 20), min_size=2, max_size=5), st.lists(st.integers(1, 3), min_size=5, max_size=5))
def test_plackett_luce_weak_orders_lie_between_their_strict_order_and_one(log_strengths, rank_pool):
    prediction = mc.plackett_luce_prediction(log_strengths)
    n = len(log_strengths)
    orders = list(itertools.permutations(range(n)))
    assert sum(prediction.order_probability(o) for o in orders) == pytest.approx(1.0)
    ranks = rank_pool[:n]
    consistent = [o for o in orders if all(ranks[a] <= ranks[b] for a, b in itertools.combinations(o, 2))]
    assert prediction.weak_order_probability(ranks) == pytest.approx(sum(prediction.order_probability(o) for o in consistent))


def test_the_game_pseudo_player_is_rated_by_every_model():
    tables = team_league(SKILLS, 40, 2, seed=6)
    for name in mc.MODELS:
        model = mc.make_model(name, PARAMS.replace(draw_probability=0.0))
        model.fit(tables)
        assert model.strength(game_competitor(2)) != mc.make_model(name, PARAMS).strength(game_competitor(2))


# --- evaluation -------------------------------------------------------------------------------


def test_evaluation_is_deterministic_for_a_seed_and_covers_every_model():
    tables = thurstone_league(SKILLS, 80, 3, seed=7)
    first = mc.evaluate(tables, PARAMS, resamples=50, seed=3, strengths=SKILLS)
    second = mc.evaluate(tables, PARAMS, resamples=50, seed=3, strengths=SKILLS)
    assert first.as_dict() == second.as_dict()
    assert (first.train, first.test) == (64, 16)
    assert set(first.results) == set(mc.MODELS)
    assert first.results["ttt"].settle is None and not first.results["ttt"].online
    for result in first.results.values():
        for metric in mc.METRICS:
            low, high = result.intervals[metric]
            assert low <= result.metrics[metric] <= high
        assert result.rank_correlation > 0.5
    point, low, high = first.difference("trueskill", "elo", "order_ll")
    assert low <= point <= high
    assert first.difference("elo", "elo", "winner_ll") == (0.0, 0.0, 0.0)


def test_settling_is_measured_for_the_players_asked_about():
    tables = thurstone_league(SKILLS, 150, 3, seed=8)
    comparison = mc.evaluate(tables, PARAMS, models=("trueskill", "elo"), resamples=10, newcomers=["bot:s0", "bot:s5"])
    for name in ("trueskill", "elo"):
        result = comparison.results[name]
        assert result.settled_players == 2
        assert 1 <= result.settle <= 120


def test_an_unknown_model_is_refused():
    with pytest.raises(ValueError):
        mc.make_model("glicko", PARAMS)
