"""Incentives: finishing one place worse never leaves a player with a higher rating than
finishing better would have, at every table size, with ties, for every game's parameters.

"One place worse" is one step down the weak orders: a player tied with others drops just below
them; a player alone ties with the group below. Over both μ and the conservative rating μ − 3σ
the boards order by, through `ratings.math.table_updates`, which the server rates with. A sweep
of 100,000 seeded random matches (25,000 in CI: tests/sweeps.py), and hypothesis for the corners (big ties, tiny σ), with μ from
−10 to 60 (the prior 25 ± 4σ, where ladders live). Beyond that trueskill's approximations give
out: a player 50 to 130 points from the table can gain up to 0.07 μ by finishing worse.
"""
from __future__ import annotations

import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES
from ratings import math as rmath
from tests.sweeps import sweep_size

# Each competitive game's TrueSkill setting (server/settings.py RATINGS_TRUESKILL), with the
# table sizes its engine allows. Kept here, not read from Django, so spawned workers stay pure.
GAMES = {
    "ten": (rmath.Params(beta=25 / 6, draw_probability=0.03), range(2, 6)),
    "split": (rmath.Params(beta=25 / 6, draw_probability=0.01), range(2, 7)),
    "sequence-stacks": (rmath.Params(beta=25 / 6, draw_probability=0.10), range(2, 7)),
}
SWEEP_MATCHES = sweep_size(100_000)  # a quarter in CI (tests/sweeps.py)
_CHUNK = 5_000
_SLACK = 1e-9  # trueskill's own rounding: a tie that moves nobody differs in the last bits


def competition_ranks(keys: list[float]) -> tuple[int, ...]:
    return tuple(1 + sum(1 for other in keys if other < mine) for mine in keys)


def one_place_worse(keys: list[float], player: int) -> list[float] | None:
    """The weak order with `player` one step down (None: already alone at the bottom)."""
    mine = keys[player]
    tied = any(key == mine for seat, key in enumerate(keys) if seat != player)
    below = sorted({key for key in keys if key > mine})
    worse = list(keys)
    if tied:
        worse[player] = (mine + below[0]) / 2 if below else mine + 1
    elif below:
        worse[player] = below[0]
    else:
        return None
    return worse


def violation(params: rmath.Params, pairs: list[rmath.Pair], keys: list[float], player: int) -> str | None:
    """What went wrong for `player` finishing one place worse, or None."""
    worse = one_place_worse(keys, player)
    if worse is None:
        return None
    env = rmath.environment(params)
    seats = tuple(f"user:{seat}" for seat in range(len(pairs)))
    current = dict(zip(seats, pairs))
    after = {}
    for label, order in (("better", keys), ("worse", worse)):
        ranks = competition_ranks(order)
        (change,) = [c for c in rmath.rate_table(env, rmath.Table(seats, ranks), current) if c.seat == player]
        after[label] = change.after
    (mu_b, sigma_b), (mu_w, sigma_w) = after["better"], after["worse"]
    if mu_w > mu_b + _SLACK or mu_w - 3 * sigma_w > mu_b - 3 * sigma_b + _SLACK:
        return f"{params.label()} ratings {pairs} order {keys} player {player}: better {after['better']} worse {after['worse']}"
    return None


def random_match(rng: random.Random) -> tuple[rmath.Params, list[rmath.Pair], list[float], int]:
    params, sizes = GAMES[rng.choice(sorted(GAMES))]
    players = rng.choice(sizes)
    pairs = [(rng.uniform(-10.0, 60.0), rng.uniform(0.3, 25 / 3)) for _ in range(players)]
    # Few distinct keys make ties common; sometimes everyone ties.
    keys = [float(rng.randint(1, rng.choice((1, 2, players)))) for _ in range(players)]
    # Any player but one alone at the bottom, who has no worse place to finish.
    player = rng.choice([seat for seat in range(players) if one_place_worse(keys, seat) is not None])
    return params, pairs, keys, player


def sweep(seed: int, count: int) -> list[str]:
    """`count` random matches from `seed`: what failed."""
    rng = random.Random(seed)
    return [found for _ in range(count) if (found := violation(*random_match(rng))) is not None]


@pytest.mark.slow
@pytest.mark.processes
def test_finishing_worse_never_rates_higher_over_a_sweep_of_random_matches():
    seeds = range(SWEEP_MATCHES // _CHUNK)
    # Spawned, not forked: a fork of the test process (its database connections, threads) can hang.
    with ProcessPoolExecutor(max_workers=2, mp_context=multiprocessing.get_context("spawn")) as pool:
        failures = [failure for found in pool.map(sweep, seeds, [_CHUNK] * len(seeds)) for failure in found]
    assert failures == []


def test_the_sweep_rates_with_the_server_s_settings_at_every_table_size():
    # Here, not at the top: the sweep's spawned workers import this module without Django set up.
    from ratings.selectors import game_params, is_cooperative  # noqa: PLC0415

    competitive = {game for game in ENGINES if not is_cooperative(game)}
    assert set(GAMES) == competitive
    for game, (params, sizes) in GAMES.items():
        assert params == game_params(game)
        assert list(sizes) == list(range(max(2, ENGINES[game].min_players), ENGINES[game].max_players + 1))


@st.composite
def matches(draw):
    game = draw(st.sampled_from(sorted(GAMES)))
    params, sizes = GAMES[game]
    players = draw(st.sampled_from(list(sizes)))
    pairs = draw(
        st.lists(
            st.tuples(st.floats(-10.0, 60.0), st.floats(0.05, 25 / 3)), min_size=players, max_size=players
        )
    )
    keys = draw(st.lists(st.integers(1, players).map(float), min_size=players, max_size=players))
    return params, pairs, keys, draw(st.integers(0, players - 1))


@given(matches())
def test_finishing_worse_never_rates_higher_at_the_corners(match):
    assert violation(*match) is None


def test_the_steps_down_are_the_ones_players_expect():
    assert one_place_worse([1.0, 2.0, 3.0], 0) == [2.0, 2.0, 3.0]  # alone: ties with the next
    assert one_place_worse([2.0, 2.0, 3.0], 0) == [2.5, 2.0, 3.0]  # tied: just below the group
    assert one_place_worse([1.0, 1.0], 1) == [1.0, 2.0]  # tied at the bottom: below them
    assert one_place_worse([1.0, 2.0], 1) is None  # alone at the bottom
    assert competition_ranks([2.5, 2.0, 3.0]) == (2, 1, 3)
