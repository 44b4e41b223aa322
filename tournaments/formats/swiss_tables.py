"""Swiss tables: a Swiss system for games of three to six players at a table.

Each round players are ranked (points by finishing position, then seed; for a
cooperative game by mean team score, lower first) and cut into tables of the chosen
size, top table first. Sizes stay within the game's range and are balanced: 17
players at tables of 4 for a game of 2–5 players sit 5+4+4+4 (`table_sizes`). When no
legal split exists (5 players at a game of 3–4) the fewest byes needed go, as in
Swiss, to the lowest-ranked among those with the fewest byes.

Repeated opponents are minimised: each table is opened by the top remaining player
and filled, seat by seat, with the next players in rank order who have met nobody
at the table (or, if none is near, whoever has met it least); then swaps between
neighbouring tables remove repeats where they can. With at most `_EXACT_LIMIT` players
and a repeat left, an exhaustive search finds the grouping with the fewest repeats
(ties: closest to rank order).

Seat 0 (moves first) rotates fairly: at each table it goes to the player most owed
it (fair share, Σ 1/table size over tables played, minus seat-0 turns), and the other
seats go to those who have sat latest on average first.

At table size 2 the two-player Swiss pairer is used (score groups, no rematches).
A bye scores `bye_points` (default 1/2, an average table result). Rounds: `rounds`,
default ⌈log_k n⌉ for tables of k.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any

from tournaments import standings as _standings
from tournaments.formats._common import (
    COMMON_KEYS,
    Field,
    Format,
    History,
    Options,
    Pairing,
    PlayerId,
    Table,
    ceil_log,
    seat_records,
    seat_table,
    split_with_byes,
)
from tournaments.formats.swiss import pair_two_player

_SCAN_LIMIT = 24        # players the greedy fill looks through for one who is new to the table
_EXACT_LIMIT = 12       # up to this many players, a grouping with repeats gets an exhaustive search
_SWAP_PASSES = 2


class SwissTablesFormat(Format):
    """Swiss at multi-player tables: `next_round`, `standings`, `total_rounds`."""

    slug = "swiss-tables"
    option_keys = COMMON_KEYS | {"table_size", "rounds", "bye_points"}
    two_player = False
    default_bye_points = Fraction(1, 2)

    def total_rounds(self, entrant_count: int, options: Mapping[str, Any] | Options | None = None) -> int:
        opts = self.options(options)
        return opts.rounds if opts.rounds is not None else ceil_log(max(entrant_count, 2), opts.seats)

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        if len(field_.entrants) < options.min_players:
            raise ValueError(f"the game needs {options.min_players} players; {len(field_.entrants)} entered")
        number = history.last_round + 1
        if number > self.total_rounds(len(field_.entrants), options):
            return None
        players = field_.active
        if len(players) < options.min_players:
            return None
        scores = _ranking_scores(history, options, self.bye_points(options))
        if options.seats == 2:
            tables, byes = pair_two_player(players, scores, field_.seed_index, history)
            return Pairing(number, tuple(tables), tuple(byes))
        order = sorted(players, key=lambda p: (-scores.get(p, 0), field_.seed_index[p]))
        sizes, bye_count = split_with_byes(len(order), options.seats, options.min_players,
                                           options.max_players)
        byes = pick_byes(order, bye_count, history)
        sitting_out = set(byes)
        seated = [player for player in order if player not in sitting_out]
        groups = group_tables(seated, sizes, meetings(history))
        records = seat_records(history)
        tables = tuple(Table(seat_table(group, records)) for group in groups)
        return Pairing(number, tables, tuple(byes))


FORMAT = SwissTablesFormat()


def _ranking_scores(history: History, options: Options, bye_points: Fraction) -> dict[PlayerId, Any]:
    """Higher is better: points, or for a cooperative game the negated mean team score."""
    if options.cooperative:
        return {player: -mean for player, mean in _standings.mean_team_scores(history).items()}
    return _standings.scaled_points(history, bye_points=bye_points)[0]


def pick_byes(order: Sequence[PlayerId], count: int, history: History) -> list[PlayerId]:
    """`count` byes to the lowest-ranked players, fewest byes so far first."""
    if count == 0:
        return []
    had = Counter(bye.player for bye in history.byes)
    rank = {player: index for index, player in enumerate(order)}
    return sorted(order, key=lambda p: (had[p], -rank[p]))[:count]


def meetings(history: History) -> dict[PlayerId, Counter]:
    """How often each pair of players has shared a table."""
    met: dict[PlayerId, Counter] = {}
    for res in history.results:
        for player in res.seats:
            counter = met.setdefault(player, Counter())
            counter.update(other for other in res.seats if other != player)
    return met


def repeats(groups: Sequence[Sequence[PlayerId]], met: Mapping[PlayerId, Counter]) -> int:
    """Pairs of players seated together again, counted with multiplicity of past meetings."""
    empty: Counter = Counter()
    return sum(met.get(a, empty)[b] for group in groups for a, b in combinations(group, 2))


def group_tables(order: Sequence[PlayerId], sizes: Sequence[int],
                 met: Mapping[PlayerId, Counter]) -> list[list[PlayerId]]:
    """Players (rank order) into tables of `sizes`, top table first, repeats minimised."""
    groups = _greedy_fill(order, sizes, met)
    if repeats(groups, met):
        groups = _swap_neighbours(groups, order, met)
    if repeats(groups, met) and len(order) <= _EXACT_LIMIT:
        groups = _exhaustive(order, sizes, met)
    return groups


def _greedy_fill(order: Sequence[PlayerId], sizes: Sequence[int],
                 met: Mapping[PlayerId, Counter]) -> list[list[PlayerId]]:
    """Each table: the top remaining player, then for each seat the next player in rank order
    who has met nobody at the table (or, failing that within `_SCAN_LIMIT`, who has met fewest)."""
    empty: Counter = Counter()
    remaining = list(order)
    start = 0  # taken players are set to None; remaining[:start] are all taken
    groups = []
    for size in sizes:
        while remaining[start] is None:
            start += 1
        table = [remaining[start]]
        remaining[start] = None
        while len(table) < size:
            best, best_cost, scanned = None, None, 0
            for index in range(start, len(remaining)):
                if remaining[index] is None:
                    continue
                cost = sum(met.get(remaining[index], empty)[member] for member in table)
                if best_cost is None or cost < best_cost:
                    best, best_cost = index, cost
                scanned += 1
                if cost == 0 or scanned >= _SCAN_LIMIT:
                    break
            table.append(remaining[best])
            remaining[best] = None
        groups.append(table)
    return groups


def _swap_neighbours(groups: list[list[PlayerId]], order: Sequence[PlayerId],
                     met: Mapping[PlayerId, Counter]) -> list[list[PlayerId]]:
    """Swaps players between a table and the next two when that lowers the repeats."""
    groups = [list(group) for group in groups]
    for _ in range(_SWAP_PASSES):
        improved = False
        for t, group in enumerate(groups):
            if not repeats([group], met):
                continue
            for other in groups[t + 1:t + 3]:
                improved |= _improving_swap(group, other, met)
        if not improved:
            break
    rank = {player: index for index, player in enumerate(order)}
    groups = [sorted(group, key=rank.__getitem__) for group in groups]
    return sorted(groups, key=lambda group: rank[group[0]])  # the top table first


def _improving_swap(group: list[PlayerId], other: list[PlayerId], met: Mapping[PlayerId, Counter]) -> bool:
    before = repeats([group, other], met)
    for i, a in enumerate(group):
        for j, b in enumerate(other):
            group[i], other[j] = b, a
            if repeats([group, other], met) < before:
                return True
            group[i], other[j] = a, b
    return False


def _exhaustive(order: Sequence[PlayerId], sizes: Sequence[int],
                met: Mapping[PlayerId, Counter]) -> list[list[PlayerId]]:
    """The grouping with the fewest repeats over every split into these sizes.

    The top remaining player opens the next table, of any size still to fill; the
    first grouping found is kept on ties, so tables stay close to rank order.
    """
    empty: Counter = Counter()
    best: list = [None, None]  # [repeats, groups]

    def search(remaining: list[PlayerId], left: Counter, chosen: list[list[PlayerId]], cost: int) -> None:
        if best[0] is not None and cost >= best[0]:
            return
        if not remaining:
            best[0], best[1] = cost, [list(group) for group in chosen]
            return
        head, rest = remaining[0], remaining[1:]
        for size in sorted(left, reverse=True):
            if not left[size]:
                continue
            left[size] -= 1
            for others in combinations(rest, size - 1):
                table = [head, *others]
                added = sum(met.get(a, empty)[b] for a, b in combinations(table, 2))
                chosen.append(table)
                search([p for p in rest if p not in others], left, chosen, cost + added)
                chosen.pop()
                if best[0] == 0:
                    break
            left[size] += 1
            if best[0] == 0:
                return

    search(list(order), Counter(sizes), [], 0)
    return best[1]
