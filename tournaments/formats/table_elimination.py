"""Elimination by tables, for games of three to six players at a table.

Round one seats every entrant at balanced tables (`table_sizes`; when no legal
split exists the fewest byes needed go to the top seeds, who go through, as byes do
in a bracket), seeds dealt in a snake (1, 2, 3, 3, 2, 1, ...) so the top seeds
are spread over the tables. The top `advance` of each table go through (at most
size − 1, so every table knocks somebody out; ties at the cut go to the higher
seed); if that leaves too few to seat the game's minimum, the best of the rest by
table rank, then seed, fill up (never all of them: every round knocks somebody
out). When the survivors fit one table, they play the final table; its ranking is
the final ranking.

A cooperative game has no ranking inside a table: there the cut is across tables,
by team score (lower first), then seed, as many as the per-table quotas add up to.

Placements: the final table's ranks first; then players by the round they went out
in (later is better) and their rank at that table. Ties share a place.
Withdrawn or disqualified players are not seated again.
"""
from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.formats._common import (
    COMMON_KEYS,
    Field,
    History,
    Options,
    Pairing,
    PlayerId,
    Result,
    Table,
    seat_records,
    seat_table,
    split_with_byes,
)
from tournaments.formats.base import Format


class TableEliminationFormat(Format):
    """Elimination by tables: `next_round`, `placements`, `champion`, `standings`."""

    slug = "table-elimination"
    option_keys = COMMON_KEYS | {"table_size", "advance"}
    two_player = False

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        if len(field_.entrants) < options.min_players:
            raise ValueError(f"the game needs {options.min_players} players; {len(field_.entrants)} entered")
        progress = replay(field_, options, history)
        alive = progress.alive
        if progress.finished or len(alive) < max(2, options.min_players):
            return None
        if len(alive) <= options.max_players:
            groups, byes = [list(alive)], []
        else:
            sizes, bye_count = split_with_byes(len(alive), options.seats, options.min_players,
                                               options.max_players)
            byes = list(alive[:bye_count])  # a bye goes through: the top seeds get it, as in a bracket
            groups = _snake(alive[bye_count:], sizes)
        records = seat_records(history)
        tables = tuple(Table(seat_table(group, records)) for group in groups)
        return Pairing(history.last_round + 1, tables, tuple(byes))

    def placements(self, entrants: Sequence[Any], options: Mapping[str, Any] | Options | None = None,
                   history: History | None = None) -> dict[PlayerId, int]:
        """Places decided so far: everyone knocked out, and the final table once played."""
        keys = replay(*self._inputs(entrants, options, history)).out
        still_in = len(entrants) - len(keys)
        ordered = sorted(keys.values())
        return {player: 1 + still_in + bisect_left(ordered, key) for player, key in keys.items()}

    def champion(self, entrants: Sequence[Any], options: Mapping[str, Any] | Options | None = None,
                 history: History | None = None) -> PlayerId | None:
        """The winner of the final table (the higher seed on a shared first place), once played."""
        field_, opts, past = self._inputs(entrants, options, history)
        progress = replay(field_, opts, past)
        if not progress.finished:
            return None
        return min(progress.out, key=lambda player: (progress.out[player], field_.seed_index[player]))


FORMAT = TableEliminationFormat()


@dataclass(frozen=True)
class Progress:
    """Where an elimination by tables stands after the rounds played."""

    alive: list[PlayerId]                 # still in, seed order
    out: dict[PlayerId, tuple[float | None, ...]]  # placed players: sort key, smaller is better
    finished: bool                        # the final table has been played


def replay(field_: Field, options: Options, history: History) -> Progress:
    """Walks the rounds played: who went through, who went out and how far they got."""
    alive = [player for player in field_.ids if player not in history.absent_in(1)]
    # players who left before the end place below everyone who played on
    out: dict[PlayerId, tuple[float | None, ...]] = {player: (0, 0) for player in field_.ids if player in history.absent}
    for number in range(1, history.last_round + 1):
        played = [res for res in history.results if res.round == number]
        byes = {bye.player for bye in history.byes if bye.round == number}
        if not played:
            continue
        final = len(played) == 1 and not byes and set(played[0].seats) >= set(alive)
        qualified = set() if final else set(_qualifiers(played, len(byes), options, field_)) | byes
        for res in played:
            for player, rank in zip(res.seats, res.ranks or (res.team_score,) * len(res.seats)):
                if player not in qualified:
                    out[player] = (-number, rank)  # a later round out is better, then the rank there
        gone = history.absent_in(number + 1)
        alive = [player for player in alive if player in qualified and player not in gone]
        if final:
            return Progress([], out, True)
    return Progress(alive, out, False)


def _qualifiers(played: Sequence[Result], byes: int, options: Options, field_: Field) -> list[PlayerId]:
    """Who goes through from one round's tables (byes aside)."""
    seed = field_.seed_index
    quotas = [min(options.advance, len(res.seats) - 1) for res in played]
    seated = sum(len(res.seats) for res in played)
    # enough for a final (two, and the game's minimum), and always fewer than played
    wanted = min(max(sum(quotas), options.min_players - byes, 2 - byes), seated - 1)
    if any(res.cooperative for res in played):  # no ranks inside a table: cut across tables
        everyone = sorted((res.team_score, seed[p], p) for res in played for p in res.seats)
        return [player for _, _, player in everyone[:wanted]]
    chosen, rest = [], []
    for res, quota in zip(played, quotas):
        assert res.ranks is not None
        ranked = sorted(zip(res.ranks, (seed[p] for p in res.seats), res.seats))
        chosen += [player for _, _, player in ranked[:min(quota, wanted)]]
        rest += ranked[quota:]
    chosen = chosen[:wanted]
    chosen += [player for _, _, player in sorted(rest)[:wanted - len(chosen)]]
    return chosen


def _snake(players: Sequence[PlayerId], sizes: Sequence[int]) -> list[list[PlayerId]]:
    """Deals players (seed order) to tables 1..t, t..1, 1..t, ... skipping full tables."""
    tables: list[list[PlayerId]] = [[] for _ in sizes]
    lane = 0
    for player in players:
        while True:
            sweep, step = divmod(lane, len(sizes))
            table = step if sweep % 2 == 0 else len(sizes) - 1 - step
            lane += 1
            if len(tables[table]) < sizes[table]:
                tables[table].append(player)
                break
    return tables
