"""Swiss tables: a Swiss system for games of three to six players at a table.

Each round players are ranked (points by finishing position, then seed; for a
cooperative game by mean team score, lower first) and cut into tables of the chosen
size, top table first. Sizes stay within the game's range and within one of each other:
17 players at tables of 4 for a game of 2–5 players sit 5+4+4+4 (`table_sizes`). When no
legal split exists (5 players at a game of 3–4) the fewest byes needed go, as in Swiss,
to the lowest-ranked among those with the fewest byes; a bye moves up among those with as
many byes when a seat is wanted by more players than there are tables (`pick_byes`).

What a grouping must do, in order (each breaks ties of the one before):
1. Rematches: two players share a table again only when no grouping of the round's
   seated players avoids it; then the fewest pairs meet a third time, then the fewest a
   second time (`repeat_cost`).
2. Seats: every player stays *in balance*, each seat's count within 1 of its fair share
   (`SeatRecord`), where the grouping allows it. Late in a cycle of k rounds at tables of
   k a player has few seats left, so a table needs players owed different seats.
3. Score groups: tables are as close to rank order as 1 and 2 allow. So when the players
   ranked next to each other have met, or are owed the same seat, a table reaches further
   down the ranking: score closeness is what gives way, never a rematch or a seat.

How: each table is opened by the top remaining player and filled with the next players in
rank order who add no cost (`_Grouping.fill`), or seats are shared out first and the tables
built seat by seat (`_Grouping.fill_by_seats`, several seat orders); then swaps between
tables remove what is left, nearest tables first (`_Grouping.repair`); if a cost is still
left, a branch and bound over every grouping finds the fewest rematches or proves there
are none fewer (`_least_repeats`; small fields always, large ones while its budget lasts),
and a tabu search over swaps takes what is left, seats above all (`_Grouping.search`).

Why large fields never see an avoidable rematch: say t tables, and Δ the most distinct
earlier opponents any seated player has. If player x at table A has met someone there,
x has neighbours at no more than Δ tables, so at least t − Δ tables B hold none; their
players y number at least (t − Δ)·s (s the smaller table size), and at most (s)·Δ of them
have met someone at A other than x. With t > 2Δ some y has met nobody at A but x and x
has met nobody at B: swapping them strictly lowers the rematches. The repair tries every
such swap, so whenever t > 2Δ (10,000 players at tables of 4 for 8 rounds: t = 2,500,
Δ ≤ 24) the round has no rematch. (Hajnal–Szemerédi guarantees a rematch-free grouping
already for t > Δ; between the two the search finds one in practice.)

At table size 2 the two-player Swiss pairer is used (score groups, no rematches, seat-0
and seat-1 games within two of each other, and within one at the end). A bye scores `bye_points` (default 1/2, an
average table result). Rounds: `rounds`, default ⌈log_k n⌉ for tables of k.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from itertools import chain, combinations
from random import Random
from typing import Any

from tournaments import standings as _standings
from tournaments.formats._common import (
    COMMON_KEYS,
    Field,
    History,
    Options,
    Pairing,
    PlayerId,
    SeatRecord,
    Table,
    balanced_seats,
    by_distance,
    ceil_log,
    most_seated_in_balance,
    seat_records,
    seat_table,
    split_with_byes,
)
from tournaments.formats.base import Format
from tournaments.formats.swiss import pair_two_player

_SCAN_LIMIT = 48        # players the greedy fill looks through for one who adds no cost
_EXACT_WORK = 200_000   # candidate tables the search for the fewest rematches may try ...
_RESTARTS = 4           # ... over this many orders of the players
_EXACT_SMALL = 24       # up to this many players the fewest rematches get the whole budget
_TABU_STEPS = 3000      # most steps of the tabu search ...
_TABU_WORK = 20_000     # ... and at most this many swap tries (steps × players) in all
_TABU_TENURE = 7        # rounds of the search a moved player stays put
_BOTH_FILLS_LIMIT = 400 # up to this many players both fills are tried and the better kept
_SEAT_ATTEMPTS = 12     # seat orders the seat-by-seat fill tries before the search takes over
_REPAIRED = 3           # the cheapest fills that the swaps then repair
_TIGHTEN_PASSES = 20      # passes of the score-tightening swaps ...
_TIGHTEN_REACH = 30       # ... and how many tables below a table they reach;
_TIGHTEN_LARGE = (3, 4)   # both in fields over _BOTH_FILLS_LIMIT, to keep within the time
_JOIN_WINDOW = 8        # tables either side a player of a seat looks at before augmenting paths
_JOIN_SEARCH = 5000     # most tables an augmenting path visits


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
            final = number == self.total_rounds(len(field_.entrants), options)
            tables, byes = pair_two_player(players, scores, field_.seed_index, history, final=final)
            return Pairing(number, tuple(tables), tuple(byes))
        order = sorted(players, key=lambda p: (-scores.get(p, 0), field_.seed_index[p]))
        sizes, bye_count = split_with_byes(len(order), options.seats, options.min_players,
                                           options.max_players)
        records = seat_records(history)
        byes = pick_byes(order, bye_count, history, sizes, records)
        sitting_out = set(byes)
        seated = [player for player in order if player not in sitting_out]
        groups = group_tables(seated, sizes, meetings(history), records, scores)
        seated_tables = tuple(Table(seat_table(group, records)) for group in groups)
        return Pairing(number, seated_tables, tuple(byes))


FORMAT = SwissTablesFormat()


def _ranking_scores(history: History, options: Options, bye_points: Fraction) -> dict[PlayerId, Any]:
    """Higher is better: points, or for a cooperative game the negated mean team score."""
    if options.cooperative:
        return {player: -mean for player, mean in _standings.mean_team_scores(history).items()}
    return _standings.scaled_points(history, bye_points=bye_points)[0]


def pick_byes(order: Sequence[PlayerId], count: int, history: History, sizes: Sequence[int] = (),
              records: Mapping[PlayerId, SeatRecord] | None = None) -> list[PlayerId]:
    """`count` byes to the lowest-ranked players, fewest byes so far first.

    With `sizes` and `records`, a bye moves to another player with as many byes when that lets
    more of the seated players keep their seats in balance (late in a cycle of rounds a seat
    can be wanted by more players than there are tables).
    """
    if count == 0:
        return []
    had = Counter(bye.player for bye in history.byes)
    rank = {player: index for index, player in enumerate(order)}
    byes = sorted(order, key=lambda p: (had[p], -rank[p]))[:count]
    if records is None:
        return byes
    out_of_place = _out_of_balance(order, byes, sizes, records)
    for _ in range(count):
        if not out_of_place:
            break
        swap = next(((giver, taker) for taker in sorted(out_of_place, key=lambda p: -rank[p])
                     for giver in byes if had[giver] == had[taker]
                     and len(_out_of_balance(order, _swapped(byes, giver, taker), sizes, records))
                     < len(out_of_place)), None)
        if swap is None:
            break
        byes = _swapped(byes, *swap)
        out_of_place = _out_of_balance(order, byes, sizes, records)
    return byes


def _swapped(byes: list[PlayerId], giver: PlayerId, taker: PlayerId) -> list[PlayerId]:
    return [taker if player == giver else player for player in byes]


def _out_of_balance(order: Sequence[PlayerId], byes: Sequence[PlayerId], sizes: Sequence[int],
                    records: Mapping[PlayerId, SeatRecord]) -> list[PlayerId]:
    """The seated players no seat assignment keeps in balance who could be in balance."""
    out = set(byes)
    grouping = _Grouping([p for p in order if p not in out], sizes, {}, records, {})
    return _seat_classes(grouping)[1]


def meetings(history: History) -> dict[PlayerId, Counter[PlayerId]]:
    """How often each pair of players has shared a table."""
    met: dict[PlayerId, Counter[PlayerId]] = {}
    for res in history.results:
        for player in res.seats:
            counter = met.setdefault(player, Counter())
            counter.update(other for other in res.seats if other != player)
    return met


def repeat_cost(groups: Sequence[Sequence[PlayerId]], met: Mapping[PlayerId, Counter[PlayerId]], base: int) -> int:
    """Pairs at one table that met m times before weigh base**(m − 1): with base above the
    number of pairs, fewer third meetings always beat any number of second ones."""
    empty: Counter[PlayerId] = Counter()
    return sum(_weight(met.get(a, empty)[b], base) for group in groups for a, b in combinations(group, 2))


def group_tables(order: Sequence[PlayerId], sizes: Sequence[int], met: Mapping[PlayerId, Counter[PlayerId]],
                 records: Mapping[PlayerId, SeatRecord] | None = None,
                 scores: Mapping[PlayerId, Any] | None = None) -> list[list[PlayerId]]:
    """Players (rank order) into tables of `sizes`, top table first: fewest rematches, then
    players kept in seat balance (`records`), then the least score spread (`scores`)."""
    tried: list[_Grouping] = []
    attempts: list[int | None] = [None, *range(_SEAT_ATTEMPTS)]  # None: the rank-order fill
    first = _Grouping(order, sizes, met, records or {}, scores or {})
    choices = sum(mask.bit_count() for mask in first.masks[sizes[0]].values()) if sizes else 0
    if 2 * choices < len(order) * sizes[0]:  # late in a seat cycle: seats first
        attempts = [*range(_SEAT_ATTEMPTS), None]
    for attempt in attempts:
        grouping = first if not tried else _Grouping(order, sizes, met, records or {}, scores or {})
        if attempt is None:
            grouping.fill()
        else:
            grouping.fill_by_seats(attempt)
        tried.append(grouping)
        if not grouping.total() and (attempt is not None or len(order) > _BOTH_FILLS_LIMIT):
            break
    tried.sort(key=lambda g: (g.total(), g.spread_total()))
    if tried[0].total():  # swaps are the costly part: only the best fills get them
        for grouping in tried[:_REPAIRED]:
            grouping.repair()
    best = min(tried[:_REPAIRED], key=lambda g: (g.total(), g.spread_total()))
    if best.total() >= best.scale:  # a rematch left: can a grouping have none?
        _adopt(best, 1, _EXACT_WORK)
    if best.total():
        best.search()
    if best.total() >= best.scale:  # rematches unavoidable, or not found: can there be fewer?
        # Finding the fewest in a large field rarely finishes: a small budget there.
        _adopt(best, None, 2 * _EXACT_WORK if len(order) <= _EXACT_SMALL else _EXACT_WORK // 10)
    best.tighten()
    return best.ordered()


def _adopt(grouping: _Grouping, below: int | None, budget: int) -> None:
    """Takes the grouping `_least_repeats` finds, if any within its budget, and repairs its seats."""
    try:
        found = _least_repeats(grouping, budget, below)
    except _OutOfBudget:
        return
    if found is not None:
        grouping.groups, grouping.sizes = found
        grouping.costs = [grouping.cost(g, size) for g, size in zip(grouping.groups, grouping.sizes)]
        grouping.repair()


def _weight(times: int, base: int) -> int:
    return base ** (times - 1) if times else 0


class _Grouping:
    """Tables under construction and what each costs: rematches first, then seats."""

    def __init__(self, order: Sequence[PlayerId], sizes: Sequence[int], met: Mapping[PlayerId, Counter[PlayerId]],
                 records: Mapping[PlayerId, SeatRecord], scores: Mapping[PlayerId, Any]) -> None:
        self.order = list(order)
        self.score = {player: scores.get(player, 0) for player in order}
        self.sizes = list(sizes)
        self.rank = {player: index for index, player in enumerate(order)}
        self.met = met
        self.base = len(order) * (len(order) - 1) // 2 + 1
        self.scale = len(order) + 1  # a rematch outweighs every seat put together
        self.masks = {size: {p: balanced_seats(records.get(p), size) for p in order} for size in set(sizes)}
        self.groups: list[list[PlayerId]] = []
        self.costs: list[int] = []

    # -- costs ----------------------------------------------------------------------------

    def cost(self, group: Sequence[PlayerId], size: int) -> int:
        """Repeat cost (scaled) plus players out of seat balance who need not be."""
        met, repeat = self.met, 0
        for index in range(1, len(group)):
            known = met.get(group[index])
            if known:
                for other in range(index):
                    times = known.get(group[other])
                    if times:
                        repeat += self.base ** (times - 1)
        masks = self.masks[size]
        wanted = tuple(sorted([masks[p] for p in group if masks[p]]))
        return repeat * self.scale + len(wanted) - most_seated_in_balance(wanted, (1 << size) - 1)

    def total(self) -> int:
        return sum(self.costs)

    def spread(self, group: Sequence[PlayerId]) -> Any:
        score = self.score
        values = [score[p] for p in group]
        return max(values) - min(values)

    def closeness(self, group: Sequence[PlayerId]) -> Any:
        """How far apart a table's scores are: the sum of squared gaps between every two players
        (smoother than the spread, so a swap that helps shows)."""
        score = self.score
        values = [score[p] for p in group]
        return sum((a - b) * (a - b) for a, b in combinations(values, 2))

    def spread_total(self) -> Any:
        return sum(self.spread(group) for group in self.groups)

    # -- the greedy fill --------------------------------------------------------------------

    def fill(self) -> None:
        """Each table: the top remaining player, then for each seat the next player in rank order
        who adds no cost (or, failing that within `_SCAN_LIMIT`, who adds least)."""
        remaining = list(self.order)
        start = 0  # taken players are set to None; remaining[:start] are all taken
        for size in self.sizes:
            while remaining[start] is None:
                start += 1
            table = [remaining[start]]
            remaining[start] = None
            current = 0
            while len(table) < size:
                best, best_cost, scanned = None, None, 0
                for index in range(start, len(remaining)):
                    if remaining[index] is None:
                        continue
                    cost = self.cost([*table, remaining[index]], size)
                    if best_cost is None or cost < best_cost:
                        best, best_cost = index, cost
                    scanned += 1
                    if cost == current or scanned >= _SCAN_LIMIT:
                        break
                assert best is not None and best_cost is not None  # a table is filled only while players remain
                table.append(remaining[best])
                remaining[best] = None
                current = best_cost
            self.groups.append(table)
            self.costs.append(current)

    # -- seats first, then tables seat by seat ----------------------------------------------

    def fill_by_seats(self, attempt: int = 0) -> None:
        """Gives every player a seat that keeps them in balance (`_seat_classes`), then builds the
        tables seat by seat: the players of each seat, best first, each to the nearest table (by
        rank) without someone they have met (`_join_tables`). Attempt a starts with seat a
        and goes round, every other attempt the other way round: the seat that goes last
        has the fewest tables left to choose from."""
        tables = {size: [j for j, s in enumerate(self.sizes) if s == size] for size in set(self.sizes)}
        seat_of, _ = _seat_classes(self)
        self.groups = [[] for _ in self.sizes]
        for size, indexes in tables.items():
            step = -1 if attempt % 2 else 1
            for turn in range(size):
                seat = (attempt // 2 + step * turn) % size
                layer = [p for p in self.order if seat_of[p] == (size, seat)]
                _join_tables(self, layer, indexes)
        self.costs = [self.cost(g, size) for g, size in zip(self.groups, self.sizes)]

    # -- closer score groups ----------------------------------------------------------------

    def tighten(self) -> None:
        """Swaps between neighbouring tables that lower the score spread and cost nothing else."""
        rank = self.rank
        by_rank = sorted(range(len(self.groups)), key=lambda i: min(rank[p] for p in self.groups[i]))
        self.groups = [self.groups[i] for i in by_rank]
        self.sizes = [self.sizes[i] for i in by_rank]
        self.costs = [self.costs[i] for i in by_rank]
        passes, reach = (_TIGHTEN_PASSES, _TIGHTEN_REACH) if len(self.order) <= _BOTH_FILLS_LIMIT \
            else _TIGHTEN_LARGE
        for _ in range(passes):
            improved = False
            for index in range(len(self.groups) - 1):
                for other in range(index + 1, min(index + 1 + reach, len(self.groups))):
                    improved |= self._tighten_pair(index, other)
            if not improved:
                return

    def _tighten_pair(self, index: int, other: int) -> bool:
        here, there = self.groups[index], self.groups[other]
        score = self.score
        if min(score[p] for p in here) >= max(score[p] for p in there) or \
                min(score[p] for p in there) >= max(score[p] for p in here):
            return False  # ranges apart: no swap narrows them
        improved = False
        for position in range(len(here)):
            for slot in range(len(there)):
                player, candidate = here[position], there[slot]
                if score[player] == score[candidate]:
                    continue
                before = self.closeness(here) + self.closeness(there)
                here[position], there[slot] = candidate, player
                here_cost, there_cost = self.cost(here, self.sizes[index]), self.cost(there, self.sizes[other])
                if (here_cost + there_cost <= self.costs[index] + self.costs[other]
                        and self.closeness(here) + self.closeness(there) < before):
                    self.costs[index], self.costs[other] = here_cost, there_cost
                    improved = True
                else:
                    here[position], there[slot] = player, candidate
        return improved

    # -- single swaps, nearest tables first -------------------------------------------------

    def repair(self) -> None:
        """Swaps that lower the cost, each costly table trying the tables nearest it first."""
        while True:
            improved = False
            for index in range(len(self.groups)):
                while self.costs[index] and self._improve(index):
                    improved = True
            if not improved or not self.total():
                return

    def _improve(self, index: int) -> bool:
        for position in range(len(self.groups[index])):
            for other in by_distance(index, len(self.groups)):
                if self._swap_if_better(index, position, other):
                    return True
        return False

    def _swap_if_better(self, index: int, position: int, other: int) -> bool:
        group, there = self.groups[index], self.groups[other]
        before = self.costs[index] + self.costs[other]
        player = group[position]
        for slot, candidate in enumerate(there):
            group[position], there[slot] = candidate, player
            here_cost, there_cost = self.cost(group, self.sizes[index]), self.cost(there, self.sizes[other])
            if here_cost + there_cost < before:
                self.costs[index], self.costs[other] = here_cost, there_cost
                return True
            group[position], there[slot] = player, candidate
        return False

    # -- tabu search ----------------------------------------------------------------------

    def search(self) -> None:
        """Tabu search over swaps: the best swap for a player at a costly table, even a worse one,
        with recently moved players left alone; the cheapest grouping seen is kept."""
        rng = Random(len(self.order) * 7919 + len(self.groups))  # the same inputs, the same pairing
        best_total, best_groups = self.total(), [list(g) for g in self.groups]
        tabu: dict[PlayerId, int] = {}
        steps = min(_TABU_STEPS, _TABU_WORK // max(1, len(self.order)))
        for step in range(steps):
            costly = [i for i, cost in enumerate(self.costs) if cost]
            if not costly:
                break
            index = rng.choice(costly)
            group = self.groups[index]
            position = rng.randrange(len(group))
            player = group[position]
            move = self._best_swap(index, position, tabu, step)
            if move is None:
                continue
            other, slot, here_cost, there_cost = move
            there = self.groups[other]
            group[position], there[slot] = there[slot], player
            self.costs[index], self.costs[other] = here_cost, there_cost
            tabu[player] = tabu[group[position]] = step + _TABU_TENURE
            if self.total() < best_total:
                best_total, best_groups = self.total(), [list(g) for g in self.groups]
        self.groups = best_groups
        self.costs = [self.cost(g, size) for g, size in zip(self.groups, self.sizes)]
        self.repair()

    def _best_swap(self, index: int, position: int, tabu: Mapping[PlayerId, int],
                   step: int) -> tuple[int, int, int, int] | None:
        group, size = self.groups[index], self.sizes[index]
        player = group[position]
        best, best_key = None, None
        for other in range(len(self.groups)):
            if other == index:
                continue
            there = self.groups[other]
            for slot, candidate in enumerate(there):
                if tabu.get(candidate, -1) > step:
                    continue
                group[position], there[slot] = candidate, player
                here_cost, there_cost = self.cost(group, size), self.cost(there, self.sizes[other])
                group[position], there[slot] = player, candidate
                delta = here_cost + there_cost - self.costs[index] - self.costs[other]
                key = (delta, abs(self.rank[player] - self.rank[candidate]))
                if best_key is None or key < best_key:
                    best, best_key = (other, slot, here_cost, there_cost), key
        return best

    # -- the result -------------------------------------------------------------------------

    def ordered(self) -> list[list[PlayerId]]:
        """Tables top first (by their best-ranked player), each in rank order."""
        rank = self.rank
        groups = [sorted(group, key=rank.__getitem__) for group in self.groups]
        return sorted(groups, key=lambda group: rank[group[0]])


def _seat_classes(grouping: _Grouping) -> tuple[dict[PlayerId, tuple[int, int]], list[PlayerId]]:
    """A (table size, seat) for each player that keeps them in balance, as many as possible.

    The tables' seats are the places to fill: each table of size m has one of each
    (m, seat). First each rank-ordered block the size of a table shares out its own
    table's seats; whoever is left takes a free place by augmenting paths through the
    places (a maximum matching: at most 12 kinds of place, so the paths are short);
    players no place keeps in balance take what is left. Returns the places and the players
    who could be in balance but got no place that keeps them so.
    """
    free: Counter[tuple[int, int]] = Counter()
    holders: dict[tuple[int, int], list[PlayerId]] = {}
    seat_of: dict[PlayerId, tuple[int, int]] = {}
    left: list[PlayerId] = []
    offset = 0
    for size in grouping.sizes:
        block = grouping.order[offset:offset + size]
        offset += size
        masks = grouping.masks[size]
        taken = 0
        for player in sorted(block, key=lambda p: masks[p].bit_count()):  # fewest choices first
            choices = masks[player] & ~taken
            if choices:
                bit = choices & -choices
                taken |= bit
                place = (size, bit.bit_length() - 1)
                seat_of[player] = place
                holders.setdefault(place, []).append(player)
            else:
                left.append(player)
        for seat in range(size):
            if not taken >> seat & 1:
                free[(size, seat)] += 1
    sizes = sorted(set(grouping.sizes))

    def places(player: PlayerId) -> list[tuple[int, int]]:
        return [(size, seat) for size in sizes for seat in range(size) if grouping.masks[size][player] >> seat & 1]

    unplaced = []
    for player in sorted(left, key=grouping.rank.__getitem__):
        if not _place_path(player, places, free, holders, seat_of):
            unplaced.append(player)
    for player in unplaced:  # out of balance whatever happens: any free place
        place = next(place for place, count in free.items() if count)
        free[place] -= 1
        seat_of[player] = place
        holders.setdefault(place, []).append(player)
    return seat_of, [p for p in unplaced if any(grouping.masks[size][p] for size in sizes)]


def _place_path(player: PlayerId, places: Callable[[PlayerId], list[tuple[int, int]]], free: Counter[tuple[int, int]],
                holders: dict[tuple[int, int], list[PlayerId]], seat_of: dict[PlayerId, tuple[int, int]]) -> bool:
    """Seats `player` by a shortest augmenting path over the kinds of place; False if none exists."""
    start = places(player)
    parent: dict[tuple[int, int], tuple[tuple[int, int] | None, PlayerId]] = {}
    queue = []
    for place in start:
        if place not in parent:
            parent[place] = (None, player)
            queue.append(place)
    head = 0
    while head < len(queue):
        place = queue[head]
        head += 1
        if free[place]:
            free[place] -= 1
            step: tuple[int, int] | None = place
            while step is not None:  # each mover steps from the previous place into this one
                previous, mover = parent[step]
                if previous is not None:
                    holders[previous].remove(mover)
                seat_of[mover] = step
                holders.setdefault(step, []).append(mover)
                step = previous
            return True
        for holder in holders.get(place, ()):
            for onward in places(holder):
                if onward not in parent:
                    parent[onward] = (place, holder)
                    queue.append(onward)
    return False


def _join_tables(grouping: _Grouping, layer: Sequence[PlayerId], indexes: Sequence[int]) -> None:
    """Puts one player of `layer` (rank order) at each table of `indexes`: the i-th player at the
    nearest free table to the i-th that holds nobody they have met, by augmenting paths when
    the nearest are taken; a player no free table can take sits at the nearest one left."""
    empty: Counter[PlayerId] = Counter()
    met, groups = grouping.met, grouping.groups

    def fits(player: PlayerId, table: int) -> bool:
        known = met.get(player, empty)
        return not any(known[member] for member in groups[table])

    owner: dict[int, PlayerId] = {}
    waiting = []
    count = len(indexes)
    for i, player in enumerate(layer):
        for j in _around(min(i, count - 1), count, _JOIN_WINDOW):
            if j not in owner and fits(player, indexes[j]):
                owner[j] = player
                break
        else:
            waiting.append((i, player))
    for i, player in waiting:
        if not _join_path(player, i, owner, fits, indexes):
            j = next(j for j in _around(min(i, count - 1), count, count) if j not in owner)
            owner[j] = player
    for j, player in owner.items():
        groups[indexes[j]].append(player)


def _around(index: int, count: int, reach: int) -> Iterator[int]:
    """`index`, then the indexes beside it outwards, up to `reach` away."""
    return chain((index,), by_distance(index, count, reach))


def _join_path(player: PlayerId, i: int, owner: dict[int, PlayerId], fits: Callable[[PlayerId, int], bool],
               indexes: Sequence[int]) -> bool:
    """An augmenting path from `player` to a free table, nearest tables first (Kuhn)."""
    count = len(indexes)
    seen: set[int] = set()
    parent: dict[int, tuple[int | None, PlayerId]] = {}
    queue = []
    for j in _around(min(i, count - 1), count, count):
        if fits(player, indexes[j]):
            parent[j] = (None, player)
            seen.add(j)
            queue.append(j)
    head = 0
    while head < len(queue) and head < _JOIN_SEARCH:
        j = queue[head]
        head += 1
        if j not in owner:
            step: int | None = j
            while step is not None:
                previous, mover = parent[step]
                owner[step] = mover
                step = previous
            return True
        holder = owner[j]
        for onward in range(count):
            if onward not in seen and fits(holder, indexes[onward]):
                seen.add(onward)
                parent[onward] = (j, holder)
                queue.append(onward)
    return False


class _OutOfBudget(Exception):
    pass


def _clique_cover(met_mask: Sequence[int], weight: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Groups of players who all met each other (bit masks) with their lightest pair's weight,
    sharing no pair and together holding every pair that met (greedy, most-met first)."""
    uncovered = list(met_mask)
    cliques = []
    for player in sorted(range(len(met_mask)), key=lambda i: -met_mask[i].bit_count()):
        while uncovered[player]:
            clique, candidates = 1 << player, uncovered[player]
            while candidates:
                best = max((i for i in range(len(met_mask)) if candidates >> i & 1),
                           key=lambda i: (uncovered[i] & candidates).bit_count())
                clique |= 1 << best
                candidates &= uncovered[best]
            members = [i for i in range(len(met_mask)) if clique >> i & 1]
            for member in members:
                uncovered[member] &= ~clique
            cliques.append((clique, min(weight[a][b] for a, b in combinations(members, 2))))
    return cliques


def _least_repeats(grouping: _Grouping, budget: int,
                   below: int | None = None) -> tuple[list[list[PlayerId]], list[int]] | None:
    """A grouping (groups, their sizes) with a repeat cost below `below` (default: what `grouping`
    holds) and the least any grouping has, by branch and bound over bit masks with memoised
    sub-fields; None when there is none. With `below=1` it only looks for a rematch-free
    grouping, trying tables of players who have not met. Seats are left to the swaps that follow.

    Each step seats the remaining player with the fewest partners they have not met (the most
    constrained) at a table of each size still to fill. Players who have met nobody left are
    interchangeable, so a table takes the best-ranked of them and no other choice. A sub-field
    is cut when the pairs its players cannot avoid reach the bound: players with fewer unmet
    partners than a table has other seats meet again at least their lightest met partners
    (each pair counted from both ends), and more players who all met each other than there
    are tables must share (`_clique_cover`); one solved exactly is
    remembered with its cost, one that found nothing below its bound with that bound.
    Raises `_OutOfBudget` after `budget` candidate tables.
    """
    # A depth-first search's time is heavy-tailed in the order it tries players: restarts
    # in other (fixed, seeded) orders, each with a share of the budget, tame the tail.
    # The search for a rematch-free grouping restarts; the search for the fewest keeps its
    # budget for one order, as its bounds need the whole search to pay off.
    restarts = _RESTARTS if below == 1 else 1
    for attempt in range(restarts):
        order = list(grouping.order)
        if attempt:
            Random(attempt).shuffle(order)
        try:
            return _least_repeats_in(grouping, order, budget // restarts, below)
        except _OutOfBudget:
            if attempt == restarts - 1:
                raise
    return None


def _least_repeats_in(grouping: _Grouping, order: list[PlayerId], budget: int,
                      below: int | None) -> tuple[list[list[PlayerId]], list[int]] | None:
    """`_least_repeats` with the players tried in `order`."""
    empty: Counter[PlayerId] = Counter()
    count = len(order)
    weight = [[0] * count for _ in range(count)]
    for i, a in enumerate(order):
        known = grouping.met.get(a, empty)
        for j, b in enumerate(order):
            if i != j and known[b]:
                weight[i][j] = _weight(known[b], grouping.base)
    met_mask = [sum(1 << j for j in range(count) if weight[i][j]) for i in range(count)]
    cliques = [(clique, lightest, clique.bit_count()) for clique, lightest in _clique_cover(met_mask, weight)]
    by_weight = []  # per player: (weight, mask of partners met that often), lightest first
    for i in range(count):
        classes: dict[int, int] = {}
        for j in range(count):
            if weight[i][j]:
                classes[weight[i][j]] = classes.get(weight[i][j], 0) | 1 << j
        by_weight.append(sorted(classes.items()))
    kinds = sorted(set(grouping.sizes), reverse=True)
    memo: dict[tuple[int, tuple[int, ...]], tuple[int, list[tuple[int, list[int]]] | None]] = {}
    work = [0]

    def forced(remaining: int, tables_left: int) -> int:
        """Pairs no grouping avoids: players who all met each other, more of them than tables,
        must share (spread evenly, q or q + 1 a table)."""
        pairs = 0
        for clique, lightest, members in cliques:
            if members <= tables_left:  # fewer than the tables even before any has left
                continue
            k = (clique & remaining).bit_count()
            if k > tables_left:
                q, r = divmod(k, tables_left)
                pairs += lightest * (r * (q + 1) * q // 2 + (tables_left - r) * q * (q - 1) // 2)
        return pairs

    def shortfall(players: list[int], remaining: int, seats: int) -> int:
        """Each player at a table of `seats` others meets again, beyond their unmet partners,
        at least their lightest met partners; each pair is counted from both ends."""
        total = 0
        for i in players:
            short = seats - ((remaining & ~met_mask[i]).bit_count() - 1)
            for cost, mask in by_weight[i]:
                if short <= 0:
                    break
                taken = min(short, (mask & remaining).bit_count())
                total += taken * cost
                short -= taken
        return (total + 1) // 2

    def tables(head: int, tied: list[int], free: list[int], size: int,
               limit: list[int]) -> Iterator[tuple[list[int], int]]:
        """Tables of `size` for `head` cheaper than `limit[0]` (which the caller lowers as it finds
        better): some of the tied players, then the first free ones.

        `open_` (a bit mask) holds the tied players still possible: while no rematch is
        allowed (`limit` 1) only those who met no one at the table, and a table that cannot
        be filled from what is open is not pursued."""
        clean = limit[0] == 1
        spare = len(free)

        def extend(members: list[int], open_: int, cost: int) -> Iterator[tuple[list[int], int]]:
            work[0] += 1
            if work[0] > budget:
                raise _OutOfBudget
            need = size - len(members)
            if need <= spare and cost < limit[0]:
                yield members + free[:need], cost
            if not need or open_.bit_count() + spare < need:
                return
            while open_:
                bit = open_ & -open_
                open_ ^= bit
                player = bit.bit_length() - 1
                row, added = weight[player], cost
                for member in members:
                    added += row[member]
                if added < limit[0]:
                    members.append(player)
                    if need == 1:
                        # What extend() does for a full table, inline: most calls are these, and a
                        # generator each costs more than the step itself (the same steps counted).
                        work[0] += 1
                        if work[0] > budget:
                            raise _OutOfBudget
                        yield members[:], added
                    else:
                        yield from extend(members, open_ & ~met_mask[player] if clean else open_, added)
                    members.pop()
        start = sum(1 << player for player in tied)
        yield from extend([head], start & ~met_mask[head] if clean else start, 0)

    def solve(remaining: int, left: tuple[int, ...], bound: int) -> tuple[int, list[tuple[int, list[int]]] | None]:
        if not remaining:
            return 0, []
        known = memo.get((remaining, left))
        if known is not None and (known[1] is not None or known[0] >= bound):
            return known
        players, bits = [], remaining
        while bits:
            low = bits & -bits
            players.append(low.bit_length() - 1)
            bits ^= low
        found: list[tuple[int, list[int]]] | None
        if sum(left) == 1:  # the last table takes who is left
            work[0] += 1
            cost = 0
            for a in players:  # the pairs who met: no other pair weighs anything
                row, partners = weight[a], met_mask[a] & remaining & -(1 << (a + 1))
                while partners:
                    low = partners & -partners
                    cost += row[low.bit_length() - 1]
                    partners ^= low
            return (cost, [(len(players), players)]) if cost < bound else (bound, None)
        tied = [i for i in players if met_mask[i] & remaining]
        if not tied:  # nobody left has met anybody left: tables in rank order
            found, start = [], 0
            for kind, size in enumerate(kinds):
                for _ in range(left[kind]):
                    found.append((size, players[start:start + size]))
                    start += size
            return (0, found) if bound > 0 else (bound, None)
        smallest = min(size for kind, size in enumerate(kinds) if left[kind])
        if forced(remaining, sum(left)) >= bound or shortfall(tied, remaining, smallest - 1) >= bound:
            memo[(remaining, left)] = (bound, None)
            return bound, None
        head = max(tied, key=lambda i: ((met_mask[i] & remaining).bit_count(), -i))
        rest_tied = [i for i in tied if i != head]
        free = [i for i in players if not met_mask[i] & remaining]
        best, found = bound, None
        for kind, size in enumerate(kinds):
            if not left[kind]:
                continue
            after = left[:kind] + (left[kind] - 1,) + left[kind + 1:]
            limit = [best]
            for members, cost in tables(head, rest_tied, free, size, limit):
                taken = 0
                for member in members:
                    taken |= 1 << member
                sub_cost, sub_tables = solve(remaining & ~taken, after, best - cost)
                if sub_tables is not None and cost + sub_cost < best:
                    best, found = cost + sub_cost, [(size, members)] + sub_tables
                    limit[0] = best
                    if best == 0:  # nothing is cheaper
                        memo[(remaining, left)] = (best, found)
                        return best, found
        memo[(remaining, left)] = (best, found)
        return best, found

    left = tuple(grouping.sizes.count(size) for size in kinds)
    current = repeat_cost(grouping.groups, grouping.met, grouping.base) if below is None else below
    _, found = solve((1 << count) - 1, left, current)
    if found is None:
        return None
    return [[order[i] for i in members] for _, members in found], [size for size, _ in found]
