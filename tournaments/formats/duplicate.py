"""Duplicate deals, an option of any format: every table of a round plays the same deal.

As in duplicate bridge, luck of the deal is taken out by giving the same shuffled deck
to every table of a round, so results compare play, not cards. A deck depends on the
player count (sizes and hands differ), so tables share a deal when they have the same
number of players: the deal key is (tournament seed, round, players).

The server turns a deal seed into the deck with the game's own seeded shuffle
(`games.engines._common.seeded_shuffle(canonical_deck, deal_seed, 0)`) and passes it
as `options["deck"]` to every table of that group, while each table keeps its own
game seed. A finished table's replay shows the deal: keep replays of a round private
until every table of that round has finished.
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import replace

from tournaments.formats._common import Pairing

_SEED_BITS = 63  # fits a signed 64-bit database column


def deal_seed(tournament_seed: int, round_number: int, players: int) -> int:
    """The deal seed shared by every table of `players` players in that round."""
    digest = hashlib.sha256(f"deal:{tournament_seed}:{round_number}:{players}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - _SEED_BITS)


def deal_groups(pairing: Pairing) -> Mapping[int, tuple[int, ...]]:
    """Which tables share a deal: player count → table indexes (0-based) in the round."""
    groups: dict[int, list[int]] = {}
    for index, table in enumerate(pairing.tables):
        groups.setdefault(len(table.seats), []).append(index)
    return {players: tuple(indexes) for players, indexes in sorted(groups.items())}


def with_deals(pairing: Pairing, tournament_seed: int) -> Pairing:
    """The pairing with each table's `deal` set to its group's deal seed."""
    tables = tuple(replace(table, deal=deal_seed(tournament_seed, pairing.round, len(table.seats)))
                   for table in pairing.tables)
    return replace(pairing, tables=tables)
