"""The exhaustive search behind the rematch rule: the least repeat cost of a grouping into tables.

It knows nothing of tournaments: players are 0..n-1, `weight[a][b]` is what seating a and b
together costs, and the answer is the least total over every split into tables of given sizes.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations


class SearchBudgetExceeded(Exception):
    """The exhaustive search used up its node budget before it could decide."""


def fewest_repeats(weight: Sequence[Sequence[int]], sizes: Sequence[int], budget: int,
                   known: int | None = None) -> int:
    """The least total weight of the pairs sharing a table, over every split of players
    0..n-1 (n = sum of sizes) into tables of these sizes.

    `weight[a][b]` (symmetric, non-negative) is what seating a and b together costs; `known`
    is the cost of a split known to exist (the search then looks only below it). Raises
    SearchBudgetExceeded after `budget` search nodes. Decides first whether a split of cost 0
    exists (cheap: only pairs of weight 0 are tried), then branches and bounds for the least.
    """
    search = _Search(weight, sizes, budget)
    if search.clean(search.everyone, search.counts):
        return 0
    # No split costs more than every pair together: a bound that never cuts, like infinity, but an int.
    bound = sum(map(sum, weight)) + 1 if known is None else known
    found = search.least(search.everyone, search.counts, bound)
    return found if found < bound else bound


class _Search:
    """Splits of a set of players into tables, as bitmasks, memoised on (players left, tables left).

    Each step places the most constrained player left (fewest partners of weight 0) and tries
    every table for them. Players with no weighted pair among those left are interchangeable:
    a table takes the lowest-numbered of them, never another choice of the same count. Both
    searches cut with cliques of players who all met (more of them left than tables is a
    rematch by pigeonhole); the least-cost search also bounds from below (`_lower_bound`),
    prices the last two tables in O(1) per choice, and remembers per state the exact least or
    a bound below which it is not.
    """

    def __init__(self, weight: Sequence[Sequence[int]], sizes: Sequence[int], budget: int) -> None:
        count = len(weight)
        if sum(sizes) != count or any(size < 1 for size in sizes):
            raise ValueError(f"table sizes {list(sizes)} do not seat {count} players")
        self.neighbours = [sum(1 << b for b in range(count) if row[b]) for row in weight]
        self.classes = []  # per player: (weight, mask of partners at that weight), cheapest first
        for row in weight:
            by_weight: dict[int, int] = {}
            for other, cost in enumerate(row):
                if cost:
                    by_weight[cost] = by_weight.get(cost, 0) | 1 << other
            self.classes.append(sorted(by_weight.items()))
        self.cliques = _clique_cover(weight, self.neighbours)
        self.everyone = (1 << count) - 1
        self.table_sizes = sorted(set(sizes), reverse=True)
        self.counts = tuple(list(sizes).count(size) for size in self.table_sizes)
        self.budget = budget
        self.nodes = 0
        self.dead: set[tuple[int, tuple[int, ...]]] = set()
        self.exact: dict[tuple[int, tuple[int, ...]], int] = {}
        self.below: dict[tuple[int, tuple[int, ...]], int] = {}  # the least is at least this

    def _tick(self) -> None:
        self.nodes += 1
        if self.nodes > self.budget:
            raise SearchBudgetExceeded(self.nodes)

    def _split(self, left: int) -> tuple[int, int]:
        """The players of `left` with a weighted pair inside it, and the others."""
        tied, rest = 0, left
        while rest:
            bit = rest & -rest
            rest ^= bit
            if self.neighbours[bit.bit_length() - 1] & left:
                tied |= bit
        return tied, left & ~tied

    def _opener(self, tied: int, left: int) -> int:
        """The tied player with the fewest weight-0 partners left (ties: the lowest)."""
        best, fewest, rest = -1, None, tied
        while rest:
            bit = rest & -rest
            rest ^= bit
            player = bit.bit_length() - 1
            free = (left & ~self.neighbours[player]).bit_count()
            if fewest is None or free < fewest:
                best, fewest = player, free
        return best

    def _tables_left(self, counts: tuple[int, ...]) -> Iterator[tuple[int, tuple[int, ...]]]:
        """(size, tables left after one of that size) for each size still to fill."""
        for index, size in enumerate(self.table_sizes):
            if counts[index]:
                yield size, counts[:index] + (counts[index] - 1,) + counts[index + 1:]

    def clean(self, left: int, counts: tuple[int, ...]) -> bool:
        """Whether the players in `left` split into `counts` tables with no weighted pair."""
        tied, loose = self._split(left)
        if not tied:
            return True
        key = (left, counts)
        if key in self.dead:
            return False
        tables = sum(counts)
        if any((left & clique).bit_count() > tables for clique, _ in self.cliques):
            self.dead.add(key)
            return False  # more players who all met than tables to spread them over
        opener = self._opener(tied, left)
        allowed = left & ~self.neighbours[opener] & ~(1 << opener)
        for size, after in self._tables_left(counts):
            if allowed.bit_count() >= size - 1 and \
                    self._clean_fill(1 << opener, allowed & tied, loose, size - 1, left, after):
                return True
        self.dead.add(key)
        return False

    def _clean_fill(self, table: int, candidates: int, loose: int, need: int, left: int,
                    after: tuple[int, ...]) -> bool:
        self._tick()
        if need <= loose.bit_count() and self.clean(left & ~(table | _lowest_bits(loose, need)), after):
            return True
        while candidates and need:
            bit = candidates & -candidates
            candidates ^= bit
            narrowed = candidates & ~self.neighbours[bit.bit_length() - 1]
            if narrowed.bit_count() + loose.bit_count() >= need - 1 and \
                    self._clean_fill(table | bit, narrowed, loose, need - 1, left, after):
                return True
        return False

    def least(self, left: int, counts: tuple[int, ...], bound: int) -> int:
        """The least weight of a split of `left` into `counts` tables if below `bound`, else a value >= it."""
        key = (left, counts)
        if key in self.exact:
            return self.exact[key]
        tied, loose = self._split(left)
        if not tied:
            return 0
        tables = sum(counts)
        if tables == 1:
            return self._weight_within(left)
        floor = max(self.below.get(key, 0), self._lower_bound(left, tied, counts, bound))
        if floor >= bound:
            return floor
        opener = self._opener(tied, left)
        best = bound
        for size, after in self._tables_left(counts):
            if tables == 2:
                best = self._last_two(left, tied & ~(1 << opener), loose, opener, size, best)
            else:
                best = self._fill(1 << opener, 0, tied & ~(1 << opener), loose, size - 1, left, after, best)
        if best < bound:
            self.exact[key] = best
        else:
            self.below[key] = bound
        return best

    def _fill(self, table: int, cost: int, candidates: int, loose: int, need: int, left: int,
              after: tuple[int, ...], best: int) -> int:
        """The least total of the tables completing `table` (`cost` so far) if below `best`, else `best`."""
        self._tick()
        if need <= loose.bit_count():
            rest = self.least(left & ~(table | _lowest_bits(loose, need)), after, best - cost)
            best = min(best, cost + rest)
        while candidates and need:
            bit = candidates & -candidates
            candidates ^= bit
            if candidates.bit_count() + 1 + loose.bit_count() < need:
                break
            added = cost + self._weight_to(bit.bit_length() - 1, table)
            if added < best:  # else the rest of the split, costing at least 0, cannot help
                best = self._fill(table | bit, added, candidates, loose, need - 1, left, after, best)
        return best

    def _last_two(self, left: int, candidates: int, loose: int, opener: int, size: int, best: int) -> int:
        """The least weight of the last two tables, the opener's of `size`, if below `best`; else `best`.

        For a table T and the rest R of `left`: w(T) + w(R) = w(left) + 2 w(T) - (sum over T of
        each member's weight to all of `left`), so each choice of T costs O(1) more to price.
        """
        reach = {}
        rest = left
        while rest:
            bit = rest & -rest
            rest ^= bit
            reach[bit] = self._weight_to(bit.bit_length() - 1, left)
        whole = sum(reach.values()) // 2
        spare = loose.bit_count()

        def walk(table: int, within: int, reached: int, candidates: int, need: int) -> None:
            nonlocal best
            self._tick()
            if need <= spare:  # loose players add nothing to either sum
                best = min(best, whole + 2 * within - reached)
            while candidates and need:
                bit = candidates & -candidates
                candidates ^= bit
                if candidates.bit_count() + 1 + spare < need:
                    break
                walk(table | bit, within + self._weight_to(bit.bit_length() - 1, table), reached + reach[bit],
                     candidates, need - 1)

        opener_bit = 1 << opener
        walk(opener_bit, 0, reach[opener_bit], candidates, size - 1)
        return best

    def _weight_to(self, player: int, group: int) -> int:
        """The weight of the pairs between `player` and the players in `group`."""
        if not self.neighbours[player] & group:
            return 0
        classes = self.classes[player]
        if len(classes) == 1:  # the common case: every earlier opponent met as often
            return classes[0][0] * (classes[0][1] & group).bit_count()
        return sum(cost * (mask & group).bit_count() for cost, mask in classes)

    def _weight_within(self, group: int) -> int:
        """The weight of the pairs inside `group` (one table)."""
        total, rest = 0, group
        while rest:
            bit = rest & -rest
            rest ^= bit
            total += self._weight_to(bit.bit_length() - 1, group)
        return total // 2

    def _lower_bound(self, left: int, tied: int, counts: tuple[int, ...], bound: int) -> int:
        """The larger of two bounds: cliques of players who all met, spread as evenly as the
        tables left allow; and half the sum of each player's cheapest partners for the smallest table."""
        tables = sum(counts)
        by_cliques = 0
        for clique, cost in self.cliques:
            members = (left & clique).bit_count()
            if members > tables:
                share, extra = divmod(members, tables)
                pairs = extra * (share + 1) * share // 2 + (tables - extra) * share * (share - 1) // 2
                by_cliques += cost * pairs
        if by_cliques >= bound:
            return by_cliques
        partners = min(size for size, _ in self._tables_left(counts)) - 1
        total, rest = 0, tied
        while rest:
            bit = rest & -rest
            rest ^= bit
            player = bit.bit_length() - 1
            short = partners - ((left & ~self.neighbours[player]).bit_count() - 1)
            for cost, mask in self.classes[player]:
                if short <= 0:
                    break
                taken = min(short, (left & mask).bit_count())
                total += taken * cost
                short -= taken
        return max(by_cliques, (total + 1) // 2)


def _clique_cover(weight: Sequence[Sequence[int]], neighbours: Sequence[int]) -> list[tuple[int, int]]:
    """Edge-disjoint cliques covering every weighted pair, each with its cheapest pair's weight (greedy).

    A grouping seats together at least the pairs that spreading each clique evenly over the
    tables cannot avoid, and no pair belongs to two cliques: so these bound the cost from below.
    """
    uncovered = list(neighbours)
    cliques = []
    for start in sorted(range(len(weight)), key=lambda p: -uncovered[p].bit_count()):
        while uncovered[start]:
            clique, candidates = 1 << start, uncovered[start]
            while candidates:
                rest, pick, most = candidates, 0, -1
                while rest:  # the candidate tied to most of the other candidates
                    bit = rest & -rest
                    rest ^= bit
                    linked = (uncovered[bit.bit_length() - 1] & candidates).bit_count()
                    if linked > most:
                        pick, most = bit, linked
                clique |= pick
                candidates &= uncovered[pick.bit_length() - 1]
            members = [p for p in range(len(weight)) if clique >> p & 1]
            for member in members:
                uncovered[member] &= ~clique
            cliques.append((clique, min(weight[a][b] for a, b in combinations(members, 2))))
    return cliques


def _lowest_bits(mask: int, count: int) -> int:
    taken = 0
    for _ in range(count):
        bit = mask & -mask
        taken |= bit
        mask ^= bit
    return taken
