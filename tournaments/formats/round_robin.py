"""Round robin at two-player tables, single or double, by the Berger tables (circle method).

Entrants are numbered 1..n in seed order. With an odd n a dummy number n + 1 is
added and whoever meets it has a bye. The schedule is FIDE's Berger table: round 1
pairs 1–n, 2–(n−1), ...; each next round every number but n moves n/2 places round
the circle of 1..n−1, and n alternates seats on the first table. The first of a pair
sits in seat 0. A double round robin plays the cycle again with the seats swapped
and, as FIDE recommends (C.05 Annex 1), exchanges the last two rounds of the first
cycle so nobody plays the same seat three times running across the turn.

Withdrawn and disqualified players are dropped from the rest of the schedule; their
scheduled opponents get a bye that round.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tournaments.formats._common import COMMON_KEYS, Field, History, Options, Pairing, Table
from tournaments.formats.base import Format


class RoundRobinFormat(Format):
    """Round robin by the Berger tables: `next_round`, `standings`, `total_rounds`."""

    slug = "round-robin"
    option_keys = COMMON_KEYS | {"double", "bye_points"}

    def total_rounds(self, entrant_count: int, options: Mapping[str, Any] | Options | None = None) -> int:
        opts = self.options(options)
        cycle = entrant_count - 1 + entrant_count % 2
        return cycle * (2 if opts.double else 1)

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        number = history.last_round + 1
        if number > self.total_rounds(len(field_.entrants), options):
            return None
        ids = field_.ids
        active = set(field_.active)
        tables, byes = [], []
        for white, black in berger_round(len(ids), number, double=options.double):
            pair = [ids[n - 1] if n <= len(ids) else None for n in (white, black)]
            present = [player for player in pair if player is not None and player in active]
            if len(present) == 2:
                tables.append(Table(tuple(present)))
            else:
                byes.extend(present)
        return Pairing(number, tuple(tables), tuple(byes))


FORMAT = RoundRobinFormat()


def berger_round(players: int, number: int, *, double: bool = False) -> list[tuple[int, int]]:
    """Round `number` (1-based) as (seat 0, seat 1) pairs of the numbers 1..n'.

    n' is `players` rounded up to even; number n' is the bye when `players` is odd.
    Past one cycle the seats swap; in a double round robin the first cycle's last
    two rounds are exchanged.
    """
    size = players + players % 2
    cycle = size - 1
    index = (number - 1) % cycle
    swapped = (number - 1) // cycle % 2 == 1
    if double and not swapped and cycle >= 3 and index >= cycle - 2:
        index = 2 * cycle - 3 - index  # cycle-2 <-> cycle-1
    shift = index * (size // 2)

    def moved(start: int) -> int:
        return (start - 1 + shift) % cycle + 1

    first = moved(1)
    pairs = [(first, size) if index % 2 == 0 else (size, first)]
    pairs += [(moved(table), moved(size + 1 - table)) for table in range(2, size // 2 + 1)]
    return [(b, a) for a, b in pairs] if swapped else pairs


def berger_table(players: int, *, double: bool = False) -> list[list[tuple[int, int]]]:
    """Every round of the Berger table for that many players, as numbered pairs."""
    cycle = players - 1 + players % 2
    rounds = cycle * (2 if double else 1)
    return [berger_round(players, number, double=double) for number in range(1, rounds + 1)]
