"""Standings and tie-breaks from results (lila `SwissSheet`). Pure: no Django, no I/O.

Scoring by finishing position: a table of s players counts, for each player, as
s − 1 pairwise games weighted 1/(s − 1) each: a better rank than an opponent scores
1, a shared rank 1/2, a worse rank 0. So at two-player tables a win is 1, a draw
1/2, a loss 0; at a table of four, first scores 1, second 2/3, third 1/3, last 0,
and tables of different sizes weigh the same. Points are exact `Fraction`s
(`float()` them for JSON).

Tie-breaks, in order: Buchholz (sum over tables of the weight times each opponent's
final points), Sonneborn–Berger (the same, times the pairwise result against that
opponent), then rating (unrated last). Byes score `bye_points` and add nothing to
Buchholz or Sonneborn–Berger. A forfeit counts as the result the table records (the
no-show ranked last) and is counted in `forfeits`.

Cooperative games (The Game): a table's team score (cards left, lower is better) is
each member's result, and players rank by their mean team score, then rating.

Disqualified players are listed last; withdrawn players keep their place.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from tournaments.formats._common import Entrant, History, PlayerId, Result, seeded


@dataclass(frozen=True)
class Standing:
    """One row of the standings table."""

    rank: int
    player: PlayerId
    points: Fraction
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    forfeits: int
    buchholz: Fraction
    sonneborn_berger: Fraction
    rating: float | None
    mean_team_score: float | None = None
    withdrawn: bool = False
    disqualified: bool = False


def table_points(ranks: Sequence[int]) -> tuple[Fraction, ...]:
    """Each seat's points for one table, by finishing position (see the module docstring)."""
    if len(ranks) < 2:
        return (Fraction(0),) * len(ranks)
    games = 2 * (len(ranks) - 1)
    return tuple(Fraction(halves, games) for halves in _half_games(ranks))


def points(history: History, *, bye_points: Fraction = Fraction(1)) -> dict[PlayerId, Fraction]:
    """Every player's points from ranked results and byes."""
    scaled, unit = scaled_points(history, bye_points=bye_points)
    return {player: Fraction(total, unit) for player, total in scaled.items()}


def scaled_points(history: History, *, bye_points: Fraction = Fraction(1)) -> tuple[dict[PlayerId, int], int]:
    """Points as integers in units of 1/`unit` (the fast path pairing sorts on).

    `unit` is the least common multiple of the denominators that occur (2(s − 1) for a
    table of s, and the bye's), so sums stay exact without Fraction arithmetic.
    """
    bye = Fraction(bye_points)
    unit = bye.denominator
    for size in {len(res.seats) for res in history.results if res.ranks is not None and len(res.seats) > 1}:
        unit = math.lcm(unit, 2 * (size - 1))
    totals: dict[PlayerId, int] = {}
    for res in history.results:
        if res.ranks is None:
            continue
        step = unit // (2 * (len(res.seats) - 1)) if len(res.seats) > 1 else 0
        for player, halves in zip(res.seats, _half_games(res.ranks)):
            totals[player] = totals.get(player, 0) + halves * step
    bye_units = bye.numerator * (unit // bye.denominator)
    for entry in history.byes:
        totals[entry.player] = totals.get(entry.player, 0) + bye_units
    return totals, unit


def _half_games(ranks: Sequence[int]) -> list[int]:
    """Each seat's score in half games against the others: 2 per player beaten, 1 per tie."""
    if len(ranks) == 2:  # the common case, quickly
        first, second = ranks
        return [2, 0] if first < second else [0, 2] if first > second else [1, 1]
    return [2 * sum(1 for theirs in ranks if theirs > mine) + sum(1 for theirs in ranks if theirs == mine) - 1
            for mine in ranks]


def mean_team_scores(history: History) -> dict[PlayerId, float]:
    """Every player's mean team score over their cooperative tables."""
    sums: dict[PlayerId, list[float]] = {}
    for res in history.results:
        if res.team_score is None:
            continue
        for player in res.seats:
            entry = sums.setdefault(player, [0.0, 0])
            entry[0] += res.team_score
            entry[1] += 1
    return {player: total / count for player, (total, count) in sums.items()}


def standings(entrants: Iterable[Entrant | PlayerId], history: History | None = None, *,
              bye_points: Fraction = Fraction(1), cooperative: bool = False,
              seeding: str = "order") -> list[Standing]:
    """The standings table, best first; equal rows share a rank (1, 2, 2, 4).

    Tallied in integers: points in units of 1/`unit` (as `scaled_points`), an opponent's weight
    1/(s − 1) in units of 1/`spread`, a pairwise result in half games; so Buchholz and
    Sonneborn–Berger are integers over fixed denominators, and sorting compares integers. The
    rows carry the same exact fractions as summing `Fraction`s would, at a fraction of the cost.
    """
    history = history or History()
    field = seeded(entrants, seeding)
    seed_index = {entrant.id: index for index, entrant in enumerate(field)}
    _check_players(history.results, seed_index)
    bye = Fraction(bye_points)
    sizes = {len(res.seats) for res in history.results if res.ranks is not None and len(res.seats) > 1}
    unit = math.lcm(bye.denominator, *(2 * (size - 1) for size in sizes))
    spread = math.lcm(1, *(size - 1 for size in sizes))
    tally = {entrant.id: _Tally() for entrant in field}
    for res in history.results:
        _count_table(res, tally, unit, spread)
    bye_units = bye.numerator * (unit // bye.denominator)
    for given in history.byes:
        if given.player not in tally:
            raise ValueError(f"bye for {given.player!r}, who is not an entrant")
        tally[given.player].byes += 1
        tally[given.player].points += bye_units
    final = {player: t.points for player, t in tally.items()}
    scored = []
    for entrant in field:
        entry = tally[entrant.id]
        buchholz, berger = _tiebreak_units(entry, final)
        mean = sum(entry.team) / len(entry.team) if entry.team else None
        rating = float("inf") if entrant.rating is None else -entrant.rating  # unrated last
        disqualified = entrant.id in history.disqualified
        key: tuple[float, ...]
        if cooperative:
            key = (disqualified, float("inf") if mean is None else mean, rating)
        else:
            key = (disqualified, -entry.points, -buchholz, -berger, rating)
        scored.append((key, seed_index[entrant.id], entrant, buchholz, berger, mean))
    scored.sort(key=lambda item: (item[0], item[1]))
    rows: list[Standing] = []
    previous = None
    for position, (key, _, entrant, buchholz, berger, mean) in enumerate(scored, start=1):
        entry = tally[entrant.id]
        rows.append(Standing(
            rank=rows[-1].rank if rows and key == previous else position, player=entrant.id,
            points=Fraction(entry.points, unit), played=entry.played, wins=entry.wins, draws=entry.draws,
            losses=entry.losses, byes=entry.byes, forfeits=entry.forfeits,
            buchholz=Fraction(buchholz, unit * spread), sonneborn_berger=Fraction(berger, 2 * unit * spread),
            rating=entrant.rating, mean_team_score=mean, withdrawn=entrant.id in history.withdrawn,
            disqualified=key[0],
        ))
        previous = key
    return rows


# --- helpers --------------------------------------------------------------------------------


class _Tally:
    __slots__ = ("points", "played", "wins", "draws", "losses", "byes", "forfeits", "opponents", "team")

    def __init__(self) -> None:
        self.points = 0  # in units of 1/unit
        self.played = self.wins = self.draws = self.losses = self.byes = self.forfeits = 0
        self.opponents: list[tuple[PlayerId, int, int]] = []  # (opponent, weight in 1/spread, half games)
        self.team: list[float] = []


def _check_players(results: Sequence[Result], known: Mapping[PlayerId, int]) -> None:
    for res in results:
        for player in res.seats:
            if player not in known:
                raise ValueError(f"result in round {res.round} seats {player!r}, who is not an entrant")


def _count_table(res: Result, tally: Mapping[PlayerId, _Tally], unit: int, spread: int) -> None:
    for player in res.forfeited:
        tally[player].forfeits += 1
    if res.team_score is not None:
        for player in res.seats:
            tally[player].played += 1
            tally[player].team.append(res.team_score)
        return
    assert res.ranks is not None
    size = len(res.seats)
    step = unit // (2 * (size - 1)) if size > 1 else 0
    weight = spread // (size - 1) if size > 1 else 0
    best = min(res.ranks)
    for seat, (player, halves) in enumerate(zip(res.seats, _half_games(res.ranks))):
        entry = tally[player]
        entry.played += 1
        entry.points += halves * step
        mine = res.ranks[seat]
        if mine != best:
            entry.losses += 1
        elif res.ranks.count(best) == 1:
            entry.wins += 1
        else:
            entry.draws += 1
        for other, opponent in enumerate(res.seats):
            if other != seat:
                theirs = res.ranks[other]
                entry.opponents.append((opponent, weight, 2 if mine < theirs else 1 if mine == theirs else 0))


def _tiebreak_units(tally: _Tally, final: Mapping[PlayerId, int]) -> tuple[int, int]:
    """Buchholz in units of 1/(unit·spread), Sonneborn–Berger in units of 1/(2·unit·spread)."""
    buchholz = berger = 0
    for opponent, weight, halves in tally.opponents:
        share = weight * final[opponent]
        buchholz += share
        berger += share * halves
    return buchholz, berger
