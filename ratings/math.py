"""TrueSkill maths with no Django: environments, one match's update, predictions, and replays.

A rating is a pair `(mu, sigma)`; nothing else is ever stored (shared/STYLE.md). Competitors are
keys: `user:<id>`, `bot:<name>`, or `game:<players>` for The Game's own pseudo-player at one
player count. The server, the rebuild command and the report all rate through `table_updates`
(`rate_table` names its fields), so the incremental ledger, a rebuild and a replay can only ever
agree.
"""
from __future__ import annotations

import dataclasses
import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

import trueskill

Pair = tuple[float, float]  # (mu, sigma)

USER_PREFIX = "user:"
BOT_PREFIX = "bot:"
GAME_PREFIX = "game:"

# Rank of a team of abandoned seats in a cooperative match: after both the team and the game.
_ABANDONED_RANK = 3
# Grid of the numerical integral in `win_probabilities` (Simpson's rule, even count).
_GRID_STEPS = 400
_GRID_WIDTH_SD = 8.0


@dataclass(frozen=True)
class Params:
    """One TrueSkill environment's parameters (the defaults are the package's own)."""

    mu: float = 25.0
    sigma: float = 25.0 / 3
    beta: float = 25.0 / 6
    tau: float = 25.0 / 300
    draw_probability: float = 0.10

    @classmethod
    def from_dict(cls, values: Mapping[str, float]) -> Params:
        unknown = set(values) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            raise ValueError(f"unknown TrueSkill parameter(s) {sorted(unknown)}")
        return cls(**{name: float(value) for name, value in values.items()})

    def replace(self, **changes: float) -> Params:
        return dataclasses.replace(self, **changes)

    def label(self) -> str:
        return (
            f"mu={self.mu:g} sigma={self.sigma:.4g} beta={self.beta:.4g} tau={self.tau:.4g} "
            f"draw={self.draw_probability:g}"
        )


@lru_cache(maxsize=64)
def environment(params: Params) -> trueskill.TrueSkill:
    """An explicit environment for these parameters (never trueskill's global `setup()`)."""
    return trueskill.TrueSkill(
        mu=params.mu,
        sigma=params.sigma,
        beta=params.beta,
        tau=params.tau,
        draw_probability=params.draw_probability,
    )


# --- competitors ----------------------------------------------------------------------------


def user_competitor(user_id: int) -> str:
    return f"{USER_PREFIX}{user_id}"


def bot_competitor(name: str) -> str:
    return f"{BOT_PREFIX}{name}"


def game_competitor(players: int) -> str:
    """The Game's pseudo-player at one player count: it rates the game's difficulty."""
    return f"{GAME_PREFIX}{players}"


def competitor_kind(competitor: str) -> str:
    """`user`, `bot` or `game`, from the key's prefix."""
    return competitor.split(":", 1)[0]


# --- one match ------------------------------------------------------------------------------


class Table(NamedTuple):
    """A finished match as the maths sees it.

    `ranks` are the rating ranks per seat (1 is best, ties share a rank, abandoned seats already
    last). A cooperative table is rated as its team against the game: `won` says who won.
    A named tuple rather than a frozen dataclass: a rebuild builds one per match of the history,
    and a frozen dataclass takes several times as long to build.
    """

    seats: tuple[str, ...]
    ranks: tuple[int, ...]
    cooperative: bool = False
    won: bool = False


class Change(NamedTuple):
    """One competitor's rating before and after one match, and the rank it was rated at."""

    competitor: str
    seat: int | None  # None: The Game's pseudo-player
    rank: int
    before: Pair
    after: Pair


# One competitor's update as a plain tuple: `Change`'s fields, (competitor, seat, rank, before, after).
Update = tuple[str, "int | None", int, Pair, Pair]


def rate_table(env: trueskill.TrueSkill, table: Table, current: Mapping[str, Pair]) -> list[Change]:
    """Every competitor's update from one match, at once, with `env.rate`.

    `current` holds the ratings before the match; a competitor missing from it is new (the
    environment's mu and sigma). A competitor sitting in several seats (a bot playing itself)
    is not rated by the match: its seats play as stand-ins with its rating, so the others at the
    table are rated against it, and their updates are dropped (a match against oneself shows
    nothing of one's strength). If trueskill cannot compute an update (a FloatingPointError or a
    math domain error on extreme ratings) nobody's rating moves, deterministically, so a rebuild still agrees.
    """
    return [Change(*update) for update in table_updates(env, table, current)]


def table_updates(env: trueskill.TrueSkill, table: Table, current: Mapping[str, Pair]) -> list[Update]:
    """`rate_table`'s changes as plain tuples, for the ledger, which takes each apart at once: a
    rebuild rates every match of the history, and a named tuple per competitor shows in its time."""
    default = (env.mu, env.sigma)
    seats = table.seats
    if not table.cooperative and len(set(seats)) == len(seats):
        # The common case, kept lean: a rebuild runs it once per match of the history.
        befores = [current.get(competitor, default) for competitor in seats]
        try:
            rated = env.rate([(trueskill.Rating(mu, sigma),) for mu, sigma in befores], ranks=table.ranks)
        except (FloatingPointError, ValueError, ZeroDivisionError):  # trueskill's maths gave out
            afters = befores
        else:
            afters = [(after.mu, after.sigma) for (after,) in rated]
        return list(zip(seats, range(len(seats)), table.ranks, befores, afters))
    if table.cooperative:
        members, group_ranks, weights = _cooperative_groups(table)
    else:
        members = [[(seat, competitor)] for seat, competitor in enumerate(seats)]
        group_ranks = list(table.ranks)
        weights = None
    # `before` is the stored pair itself: a Rating keeps (pi, tau), and its mu and sigma read back
    # need not be the very floats it was made from.
    group_befores = [[current.get(competitor, default) for _, competitor in group] for group in members]
    rating_groups = [tuple(trueskill.Rating(mu, sigma) for mu, sigma in group) for group in group_befores]
    try:
        group_afters = [
            [(r.mu, r.sigma) for r in group] for group in env.rate(rating_groups, ranks=group_ranks, weights=weights)
        ]
    except (FloatingPointError, ValueError, ZeroDivisionError):  # trueskill's maths gave out
        group_afters = group_befores
    seated = Counter(competitor for group in members for _, competitor in group)
    return [
        (competitor, seat, rank, before, after)
        for group, before_group, after_group, rank in zip(members, group_befores, group_afters, group_ranks)
        for (seat, competitor), before, after in zip(group, before_group, after_group)
        if seated[competitor] == 1
    ]


def revised_table(
    table: Table, ranks: Sequence[int] | None, team_score: float | None, forfeited_seats: Iterable[int]
) -> Table | None:
    """The table with a result its tournament gave it after the match's own (an organiser's
    correction or forfeit): None when the change has no ranks this table can be rated with.

    A cooperative table's change is rated as the team's win (no card left) or loss, its
    forfeited seats beside the seats abandoned in play, ranked below the team and the game.
    """
    if table.cooperative:
        best, forfeited = min(table.ranks), set(forfeited_seats)
        revised = tuple(2 if seat in forfeited or rank != best else 1 for seat, rank in enumerate(table.ranks))
        return table._replace(ranks=revised, won=team_score == 0)
    if ranks is not None and len(ranks) == len(table.seats):
        return table._replace(ranks=tuple(ranks))
    return None


def reversed_pair(current: Pair, before: Pair, after: Pair) -> Pair:
    """A competitor's rating with one earlier match taken back: the match moved it from `before`
    to `after`, and it is `current` now.

    The match's shift in μ is subtracted and the certainty it gave (σ_before² − σ_after², the
    variance it removed) is given back, so a result rated again afterwards is not counted
    twice. Later matches keep their effect: the ledger is never recomputed, only appended to.
    """
    (mu, sigma), (mu_before, sigma_before), (mu_after, sigma_after) = current, before, after
    variance = sigma * sigma + sigma_before * sigma_before - sigma_after * sigma_after
    return (mu - (mu_after - mu_before), math.sqrt(max(variance, sigma * sigma * 0.25)))


def _rating(env: trueskill.TrueSkill, pair: Pair | None) -> trueskill.Rating:
    return env.create_rating() if pair is None else env.create_rating(pair[0], pair[1])


def _cooperative_groups(table: Table) -> tuple[list[list[tuple[int | None, str]]], list[int], list[tuple[float, ...]]]:
    """The team against the game's pseudo-player, and any abandoned seats as a last-ranked team.

    Team members are weighted 1/len(team): the team performs at its members' average, so the
    pseudo-player sits on the same scale as one player (a 2-player and a 5-player table of
    equal players start level with their game).
    """
    best = min(table.ranks)
    team: list[tuple[int | None, str]] = [(s, c) for s, c in enumerate(table.seats) if table.ranks[s] == best]
    abandoned: list[tuple[int | None, str]] = [(s, c) for s, c in enumerate(table.seats) if table.ranks[s] != best]
    members: list[list[tuple[int | None, str]]] = [team, [(None, game_competitor(len(table.seats)))]]
    ranks = [1, 2] if table.won else [2, 1]
    if abandoned:
        members.append(abandoned)
        ranks.append(_ABANDONED_RANK)
    weights = [tuple(1.0 / len(group) for _ in group) for group in members]
    return members, ranks, weights


# --- predictions ----------------------------------------------------------------------------


def _performance(env: trueskill.TrueSkill, group: Sequence[Pair], weights: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of a group's weighted performance."""
    mean = sum(w * mu for (mu, _), w in zip(group, weights))
    variance = sum(w * w * (sigma * sigma + env.beta * env.beta) for (_, sigma), w in zip(group, weights))
    return mean, variance


def win_probabilities(
    env: trueskill.TrueSkill, groups: Sequence[Sequence[Pair]], weights: Sequence[Sequence[float]] | None = None
) -> list[float]:
    """The chance that each group performs best (draws left aside).

    Two groups: Φ(Δμ / √(Σσ² + Σβ²)). More: ∫ pdf_i(x) Π_{j≠i} cdf_j(x) dx over a grid, since
    performances are independent normals.
    """
    if weights is None:
        weights = [[1.0] * len(group) for group in groups]
    perf = [_performance(env, group, w) for group, w in zip(groups, weights)]
    if len(perf) == 1:
        return [1.0]
    if len(perf) == 2:
        (m0, v0), (m1, v1) = perf
        p0 = _cdf((m0 - m1) / math.sqrt(v0 + v1))
        return [p0, 1.0 - p0]
    return _first_place_integral(perf)


def _first_place_integral(perf: list[tuple[float, float]]) -> list[float]:
    sds = [math.sqrt(v) for _, v in perf]
    lo = min(m - _GRID_WIDTH_SD * s for (m, _), s in zip(perf, sds))
    hi = max(m + _GRID_WIDTH_SD * s for (m, _), s in zip(perf, sds))
    step = (hi - lo) / _GRID_STEPS
    xs = [lo + k * step for k in range(_GRID_STEPS + 1)]
    simpson = [1.0 if k in (0, _GRID_STEPS) else (4.0 if k % 2 else 2.0) for k in range(_GRID_STEPS + 1)]
    cdfs = [[_cdf((x - m) / s) for x in xs] for (m, _), s in zip(perf, sds)]
    pdfs = [[_pdf((x - m) / s) / s for x in xs] for (m, _), s in zip(perf, sds)]
    totals = []
    for i in range(len(perf)):
        total = 0.0
        for k in range(_GRID_STEPS + 1):
            product = pdfs[i][k] * simpson[k]
            for j in range(len(perf)):
                if j != i:
                    product *= cdfs[j][k]
            total += product
        totals.append(total * step / 3)
    norm = sum(totals)
    return [t / norm for t in totals]


def table_groups(table_seats: Sequence[Pair], *, cooperative: bool, house: Pair | None = None):
    """The groups and weights a proposed table is predicted with (team vs the game if cooperative)."""
    if not cooperative:
        return [[pair] for pair in table_seats], None
    assert house is not None
    return [list(table_seats), [house]], [[1.0 / len(table_seats)] * len(table_seats), [1.0]]


def quality(
    env: trueskill.TrueSkill, groups: Sequence[Sequence[Pair]], weights: Sequence[Sequence[float]] | None = None
) -> float:
    """trueskill's match quality (the draw probability of the table, relative to an even one)."""
    rating_groups = [tuple(_rating(env, pair) for pair in group) for group in groups]
    return env.quality(rating_groups, weights=weights)


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


# --- replays: how well the ratings predicted each next result --------------------------------

# Buckets of the report: the fewest games any person at the table had played before it.
GAMES_BUCKETS: tuple[tuple[int, int | None], ...] = ((0, 0), (1, 4), (5, 9), (10, 19), (20, 49), (50, None))
_EPSILON = 1e-12


@dataclass
class Score:
    """Accumulated accuracy and log-loss of the favourite over some matches."""

    matches: int = 0
    correct: int = 0
    log_loss: float = 0.0
    chance: float = 0.0  # the accuracy a favourite drawn at random would have

    def add(self, correct: bool, p_favourite: float, chance: float) -> None:
        p = min(max(p_favourite, _EPSILON), 1 - _EPSILON)
        self.matches += 1
        self.correct += correct
        self.log_loss += -math.log(p if correct else 1 - p)
        self.chance += chance

    @property
    def accuracy(self) -> float:
        return self.correct / self.matches if self.matches else float("nan")

    @property
    def mean_log_loss(self) -> float:
        return self.log_loss / self.matches if self.matches else float("nan")

    @property
    def mean_chance(self) -> float:
        return self.chance / self.matches if self.matches else float("nan")


@dataclass
class Replay:
    """A replay's scores (overall and per bucket), tie counts and the ratings it ends with."""

    params: Params
    overall: Score = field(default_factory=Score)
    buckets: dict[tuple[int, int | None], Score] = field(default_factory=lambda: {b: Score() for b in GAMES_BUCKETS})
    adjacent_pairs: int = 0
    adjacent_ties: int = 0
    ratings: dict[str, Pair] = field(default_factory=dict)
    games: dict[str, int] = field(default_factory=dict)


def replay(tables: Iterable[Table], params: Params) -> Replay:
    """Rates `tables` in order; before each, scores the favourite's predicted chance to finish first.

    The favourite is the seat (or, cooperative, the team or the game) with the highest predicted
    chance of first place; it is right when it finished first (a shared first place counts).
    """
    env = environment(params)
    result = Replay(params)
    for table in tables:
        _score(env, table, result)
        for change in rate_table(env, table, result.ratings):
            result.ratings[change.competitor] = change.after
            result.games[change.competitor] = result.games.get(change.competitor, 0) + 1
    return result


def _score(env: trueskill.TrueSkill, table: Table, result: Replay) -> None:
    pairs = [result.ratings.get(c, (env.mu, env.sigma)) for c in table.seats]
    if table.cooperative:
        house = result.ratings.get(game_competitor(len(table.seats)), (env.mu, env.sigma))
        groups, weights = table_groups(pairs, cooperative=True, house=house)
        probabilities = win_probabilities(env, groups, weights)
        first = [table.won, not table.won]
    else:
        probabilities = win_probabilities(env, [[p] for p in pairs])
        first = [rank == min(table.ranks) for rank in table.ranks]
        ordered = sorted(table.ranks)
        result.adjacent_pairs += len(ordered) - 1
        result.adjacent_ties += sum(1 for a, b in itertools.pairwise(ordered) if a == b)
    favourite = max(range(len(probabilities)), key=lambda i: probabilities[i])
    chance = sum(first) / len(first)
    fewest = min(result.games.get(c, 0) for c in table.seats)
    correct = bool(first[favourite])
    result.overall.add(correct, probabilities[favourite], chance)
    for bucket in GAMES_BUCKETS:
        low, high = bucket
        if fewest >= low and (high is None or fewest <= high):
            result.buckets[bucket].add(correct, probabilities[favourite], chance)
            break


def kendall_tau(first: Sequence[str], second: Sequence[str]) -> float:
    """Kendall's τ-a between two orderings of the same items."""
    position = {item: i for i, item in enumerate(second)}
    concordant = discordant = 0
    for i in range(len(first)):
        for j in range(i + 1, len(first)):
            if position[first[i]] < position[first[j]]:
                concordant += 1
            else:
                discordant += 1
    pairs = concordant + discordant
    return (concordant - discordant) / pairs if pairs else 1.0
