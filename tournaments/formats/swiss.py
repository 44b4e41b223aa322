"""Swiss system at two-player tables (lila `PairingSystem`; the FIDE Dutch system in spirit).

Each round players are ranked by points, then seed. Floaters from the group above
meet the highest players of the next score group they may; the rest of a group is
paired top half against bottom half (1st v. (g/2+1)th, ...). A candidate is passed
over if the pair would be a rematch or a seat clash (both players absolutely due
the same seat: a seat balance of ±2, or the same seat twice running), and within a
few places a partner whose seat preference complements is preferred. Whoever cannot
be paired floats down. This greedy pass is linear in practice.

Whoever is left at the bottom is paired by augmenting paths (Edmonds' blossom
algorithm) in the graph of allowed pairs, on a window of the lowest-ranked players
that widens to the whole field only if needed, relaxing one constraint at a time:
first keeping the bye and every seat preference, then allowing seat clashes, then
moving the bye. So a rematch is paired only when no rematch-free pairing exists.

Byes: with an odd field the lowest-ranked player among those with the fewest byes
sits out (one bye per player while any player has none); the bye moves up only if
that is the only way to avoid a rematch. A bye scores `bye_points` (default 1).

Seat 0 (moves first) follows colour rules (`seat_two`): an absolute preference first,
then the player with more seat-1 games, then the one who sat in seat 1 more recently,
then alternation by board in round one.

Rounds: `rounds` option, default ⌈log2 n⌉. Withdrawn players are no longer paired; a
forfeited game counts as a meeting (the two are not paired again).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from typing import Any

from tournaments import standings as _standings
from tournaments.formats._common import (
    COMMON_KEYS,
    Field,
    History,
    Options,
    Pairing,
    PlayerId,
    Table,
    augment_matching,
    ceil_log,
    due_seat,
    seat_records,
    seat_two,
)
from tournaments.formats.base import Format

_COLOUR_LOOKAHEAD = 6   # how many acceptable candidates a player may skip for a better seat split
_SCAN_LIMIT = 64        # how far down its bracket a player looks before floating
_FIRST_WINDOW = 16      # players at the bottom the repair looks at first


class SwissFormat(Format):
    """Two-player Swiss: `next_round`, `standings`, `total_rounds`."""

    slug = "swiss"
    option_keys = COMMON_KEYS | {"rounds", "bye_points"}

    def total_rounds(self, entrant_count: int, options: Mapping[str, Any] | Options | None = None) -> int:
        opts = self.options(options)
        return opts.rounds if opts.rounds is not None else ceil_log(max(entrant_count, 2), 2)

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        number = history.last_round + 1
        if number > self.total_rounds(len(field_.entrants), options) or len(field_.active) < 2:
            return None
        scores, _ = _standings.scaled_points(history, bye_points=self.bye_points(options))
        final = number == self.total_rounds(len(field_.entrants), options)
        tables, byes = pair_two_player(field_.active, scores, field_.seed_index, history, final=final)
        return Pairing(number, tuple(tables), tuple(byes))


FORMAT = SwissFormat()


def pair_two_player(players: Sequence[PlayerId], scores: Mapping[PlayerId, Any],
                    seed_index: Mapping[PlayerId, int], history: History,
                    final: bool = False) -> tuple[list[Table], list[PlayerId]]:
    """Two-player Swiss tables (board order, seat 0 first) and the bye, for these players.

    `scores` rank the players (higher first; equal scores form a score group), seeds break ties;
    `final`: the tournament's last round, where seat counts must end within one (`due_seat`).
    """
    order = sorted(players, key=lambda p: (-scores.get(p, 0), seed_index[p]))
    position = {player: index for index, player in enumerate(order)}
    met = _opponents(history, position)
    bye_count = [0] * len(order)
    for given in history.byes:
        if given.player in position:
            bye_count[position[given.player]] += 1
    fewest = min(bye_count, default=0)
    records = seat_records(history)
    colour = [due_seat(records.get(player), final) for player in order]
    groups = [scores.get(player, 0) for player in order]
    pairs, bye = swiss_pairs(groups, met, [count == fewest for count in bye_count], colour)
    tables = [Table(seat_two(order[a], order[b], records, board)) for board, (a, b) in enumerate(pairs)]
    return tables, ([] if bye is None else [order[bye]])


def swiss_pairs(groups: Sequence[Hashable], met: Sequence[set[int]], bye_ok: Sequence[bool],
                colour: Sequence[int]) -> tuple[list[tuple[int, int]], int | None]:
    """Pairs players 0..n-1 (rank order); returns (pairs by board, bye position or None).

    `groups[p]`: p's score group key (equal keys are one group); `met[p]`: positions p has
    played; `bye_ok[p]`: p may take the bye; `colour[p]`: p's seat preference (`due_seat`:
    ±2 absolute, ±1 mild, 0 none; positive for seat 0).
    """
    count = len(groups)
    dummy = count if count % 2 else -1
    mate = [-1] * (count + (dummy != -1))
    if dummy != -1:
        eligible = [p for p in range(count) if bye_ok[p]] or list(range(count))
        mate[eligible[-1]], mate[dummy] = dummy, eligible[-1]
    floaters: list[int] = []
    start = 0
    while start < count:
        end = start
        while end < count and groups[end] == groups[start]:
            end += 1
        residents = [p for p in range(start, end) if mate[p] == -1]
        floaters = _pair_bracket(floaters, residents, met, colour, mate)
        start = end
    if floaters:
        mate = _repair(mate, met, bye_ok, colour, dummy)
    return _read_pairs(mate, dummy)


# --- the greedy pass ------------------------------------------------------------------------


def _pair_bracket(floaters: list[int], residents: list[int], met: Sequence[set[int]], colour: Sequence[int],
                  mate: list[int]) -> list[int]:
    """Pairs one score group (with the floaters from above); returns who floats down.

    Floaters meet the highest residents they may; the other residents pair top half
    against bottom half; whoever is left pairs among themselves where possible.
    """
    unpaired = []
    if floaters:
        free = _NextFree(len(residents))
        for player in floaters:
            choice = _choose(player, 0, residents, free, met, colour)
            if choice is None:
                unpaired.append(player)
            else:
                free.take(choice)
                mate[player], mate[residents[choice]] = residents[choice], player
        residents = [residents[j] for j in range(len(residents)) if free.find(j) == j]
    half = len(residents) // 2
    top, bottom = residents[:half], residents[half:]
    free = _NextFree(len(bottom))
    for index, player in enumerate(top):
        choice = _choose(player, index, bottom, free, met, colour)
        if choice is None:
            unpaired.append(player)
        else:
            free.take(choice)
            mate[player], mate[bottom[choice]] = bottom[choice], player
    rest = sorted(unpaired + [bottom[j] for j in range(len(bottom)) if free.find(j) == j])
    left = []
    while rest:
        player = rest.pop(0)
        partner = next((k for k, other in enumerate(rest) if _fit(player, other, met, colour) is not None),
                       None)
        if partner is None:
            left.append(player)
        else:
            other = rest.pop(partner)
            mate[player], mate[other] = other, player
    return left


def _choose(player: int, index: int, bottom: list[int], free: _NextFree, met: Sequence[set[int]],
            colour: Sequence[int]) -> int | None:
    """The bottom-half candidate for `player`: nearest its own index, no rematch, no seat clash.

    Up to `_COLOUR_LOOKAHEAD` candidates are passed over for one whose seat preference
    complements the player's; past `_SCAN_LIMIT` candidates the player floats instead.
    """
    fallback = None
    looked = 0
    for j in _free_from(free, index, len(bottom)):
        looked += 1
        fit = _fit(player, bottom[j], met, colour)
        if fit == 0:
            return j
        if fit is not None and fallback is None:
            fallback = j
        if (fallback is not None and looked > _COLOUR_LOOKAHEAD) or looked > _SCAN_LIMIT:
            break
    return fallback


def _fit(a: int, b: int, met: Sequence[set[int]], colour: Sequence[int]) -> int | None:
    """None if a and b may not meet (a rematch, or both must take the same seat); else 1 if both
    would rather have the same seat, 0 if their preferences fit."""
    if b in met[a]:
        return None
    same_side = colour[a] * colour[b] > 0
    if same_side and abs(colour[a]) == 2 and abs(colour[b]) == 2:
        return None
    return 1 if same_side else 0


def _free_from(free: _NextFree, index: int, size: int) -> Iterator[int]:
    j = free.find(index)
    while j < size:
        yield j
        j = free.find(j + 1)
    j = free.find(0)
    while j < index:
        yield j
        j = free.find(j + 1)


class _NextFree:
    """The smallest untaken index at or after j, with path compression (union-find)."""

    __slots__ = ("parent",)

    def __init__(self, size: int) -> None:
        self.parent = list(range(size + 1))

    def find(self, j: int) -> int:
        root = j
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[j] != root:
            self.parent[j], j = root, self.parent[j]
        return root

    def take(self, j: int) -> None:
        self.parent[j] = j + 1


# --- the repair: augmenting paths on a growing window ---------------------------------------


def _repair(mate: list[int], met: Sequence[set[int]], bye_ok: Sequence[bool], colour: Sequence[int],
            dummy: int) -> list[int]:
    """Pairs the leftovers by augmenting paths, relaxing the constraints one at a time.

    In order: keep the bye and every seat preference; keep the bye, allow seat clashes;
    move the bye (to another player with the fewest byes); only then pair the remaining
    players in rank order, rematches and all. A second bye is never given while someone
    has fewer.
    """
    count = len(met)
    nobody: frozenset[int] = frozenset()
    keep_bye = frozenset({dummy, mate[dummy]}) if dummy != -1 else nobody
    strict = _allowed(met, bye_ok, colour, dummy, strict=True)
    loose = _allowed(met, bye_ok, colour, dummy, strict=False)
    phases = ((keep_bye, strict), (keep_bye, loose), (nobody, strict), (nobody, loose))
    for frozen, allowed in phases:
        mate = _repair_windows(mate, allowed, dummy, frozen, count)
        if all(m != -1 for m in mate):
            return mate
    if dummy != -1 and mate[dummy] == -1:  # force the bye onto the lowest eligible player
        taker = max(p for p in range(count) if bye_ok[p])
        if mate[taker] != -1:
            mate[mate[taker]] = -1
        mate[taker], mate[dummy] = dummy, taker
        mate = _repair_windows(mate, loose, dummy, frozenset({dummy, taker}), count)
    exposed = [v for v in range(len(mate)) if mate[v] == -1]  # rematches are unavoidable now
    for a, b in zip(exposed[::2], exposed[1::2]):
        mate[a], mate[b] = b, a
    return mate


def _allowed(met: Sequence[set[int]], bye_ok: Sequence[bool], colour: Sequence[int], dummy: int,
             strict: bool) -> Callable[[int, int], bool]:
    def allowed(u: int, v: int) -> bool:
        if u == dummy:
            return bye_ok[v]
        if v == dummy:
            return bye_ok[u]
        if strict:
            return _fit(u, v, met, colour) is not None
        return v not in met[u]
    return allowed


def _repair_windows(mate: list[int], allowed: Callable[[int, int], bool], dummy: int,
                    frozen: frozenset[int], count: int) -> list[int]:
    """Augments on the bottom `size` players (and whoever is unpaired), growing to the whole field."""
    size = max(_FIRST_WINDOW, 4 * sum(1 for m in mate if m == -1))
    while True:
        low = max(0, count - size)
        members = set(range(low, count)) | {v for v in range(len(mate)) if mate[v] == -1}
        members |= {mate[v] for v in members if mate[v] != -1}
        if dummy != -1:
            members.add(dummy)
        vertices = sorted(members - frozen)
        local = {v: i for i, v in enumerate(vertices)}
        local_mate = [local.get(mate[v], -1) for v in vertices]
        exposed = [i for i, m in enumerate(local_mate) if m == -1]
        # The lambda is called only inside this call, so it always sees this pass's `vertices`.
        local_mate = augment_matching(len(vertices), lambda i, j: allowed(vertices[i], vertices[j]),  # noqa: B023
                                      local_mate, exposed)
        for i, v in enumerate(vertices):
            mate[v] = vertices[local_mate[i]] if local_mate[i] != -1 else -1
        if all(mate[v] != -1 for v in vertices) or low == 0:
            return mate
        size *= 4


def _read_pairs(mate: list[int], dummy: int) -> tuple[list[tuple[int, int]], int | None]:
    pairs = sorted((a, b) for a, b in enumerate(mate) if a < b and b != dummy and a != dummy)
    bye = mate[dummy] if dummy != -1 else None
    return pairs, bye


# --- inputs ---------------------------------------------------------------------------------


def _opponents(history: History, position: Mapping[PlayerId, int]) -> list[set[int]]:
    """For each position, the positions of players already met (forfeits count as met)."""
    met: list[set[int]] = [set() for _ in position]
    for res in history.results:
        seated = [position[p] for p in res.seats if p in position]
        for a in seated:
            met[a].update(b for b in seated if b != a)
    return met
