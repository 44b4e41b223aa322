"""The pairing checker's input: a tournament export (version 1), read and validated.

The export is a JSON object:

    {"export": "tournament-pairings", "version": 1,
     "tournament": {...},                  # informational, optional
     "format": "swiss-tables",             # a `tournaments.formats.FORMATS` slug
     "options": {"table_size": 4, ...},    # what the format is given; it must accept them
     "entrants": [{"id": 1, "rating": 25.0, "entered": 1}, ...],   # seed order; ids are integers
     "withdrawn": {"7": 4}, "disqualified": {"9": 2},              # id -> first round missed
     "rounds": [{"round": 1, "byes": [5], "quality": {...},        # quality: ignored here
                 "tables": [{"seats": [1, 2, 3, 4], "ranks": [1, 2, 2, 4],
                             "team_score": null, "forfeited": [3]}]}]}

`rating`, `entered` (default 1), `withdrawn`, `disqualified`, a table's `ranks`, `team_score`
and `forfeited` may be left out; any other key is refused, so a misspelt key cannot pass
unnoticed. Rounds are numbered 1, 2, ... in order; only the last may have tables without a
"""
from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Any, TypeGuard

from tournaments.formats import FORMATS, Bye, Entrant, History, Pairing, Result, Table
from tournaments.formats._common import PlayerId

_EXPORT_KEYS = {"export", "version", "tournament", "format", "options", "entrants", "withdrawn",
                "disqualified", "rounds"}
_ENTRANT_KEYS = {"id", "rating", "entered"}
_ROUND_KEYS = {"round", "byes", "tables", "quality"}
_TABLE_KEYS = {"seats", "ranks", "team_score", "forfeited"}

# any game's (at most 6 seats) but small enough for the per-table checks, which grow with the
# cube of a table's seats (a 400-seat table took 52 s).
_ID_LIMIT = 2**63
MAX_TABLE_SEATS = 64


class ExportError(ValueError):
    """The export cannot be read: its message says what is wrong and where."""


@dataclass(frozen=True)
class ExportEntrant:
    """An entrant: id, rating (or None) and the first round they may be paired in."""

    id: int
    rating: float | None
    entered: int


@dataclass(frozen=True)
class ExportTable:
    """One table as exported: seat order, and its result (None while unplayed)."""

    seats: tuple[int, ...]
    result: Result | None


@dataclass(frozen=True)
class ExportRound:
    """One round as exported: its number, tables and byes."""

    number: int
    tables: tuple[ExportTable, ...]
    byes: tuple[int, ...]

    def pairing(self) -> Pairing:
        """The round as the format's `Pairing`."""
        return Pairing(self.number, tuple(Table(table.seats) for table in self.tables), self.byes)


@dataclass(frozen=True)
class Export:
    """A validated export: the format, its options, the field and the rounds played."""

    format: str
    options: Mapping[str, Any]
    entrants: tuple[ExportEntrant, ...]
    withdrawn: Mapping[PlayerId, int]
    disqualified: Mapping[PlayerId, int]
    rounds: tuple[ExportRound, ...]
    tournament: Mapping[str, Any] | None = None

    def entrants_in(self, number: int) -> list[Entrant]:
        """The entrants list the server gives the format for round `number` (late entries once entered)."""
        return [Entrant(e.id, e.rating) for e in self.entrants if e.entered <= number]

    def history_before(self, number: int) -> History:
        """The format's `History` before round `number`: results, byes, withdrawals, disqualifications."""
        earlier = [rnd for rnd in self.rounds if rnd.number < number]
        return History(
            results=tuple(t.result for rnd in earlier for t in rnd.tables if t.result is not None),
            byes=tuple(Bye(rnd.number, player) for rnd in earlier for player in rnd.byes),
            withdrawn=dict(self.withdrawn), disqualified=dict(self.disqualified),
        )



def load_export(data: Any) -> Export:
    """The export, validated (ExportError with a clear message on any bad shape)."""
    _require_object(data, "the export")
    _refuse_unknown(data, _EXPORT_KEYS, "the export")
    if data.get("export") != "tournament-pairings":
        raise ExportError(f'"export" must be "tournament-pairings", not {data.get("export")!r}')
    if data.get("version") != 1 or isinstance(data.get("version"), bool):
        raise ExportError(f'unsupported export version {data.get("version")!r} '
                          "(this checker reads version 1)")
    for key in ("format", "options", "entrants", "rounds"):
        if key not in data:
            raise ExportError(f'the export has no "{key}"')
    slug = data["format"]
    if not isinstance(slug, str) or slug not in FORMATS:
        raise ExportError(f"unknown format {slug!r} (known: {', '.join(sorted(FORMATS))})")
    options = data["options"]
    _require_object(options, '"options"')
    try:
        FORMATS[slug].options(options)
    except ValueError as error:
        raise ExportError(f"the {slug} format refuses these options: {error}") from None
    tournament = data.get("tournament")
    if tournament is not None:
        _require_object(tournament, '"tournament"')
    entrants = _load_entrants(data["entrants"])
    known = {entrant.id for entrant in entrants}
    withdrawn = _load_leaving(data.get("withdrawn", {}), "withdrawn", known)
    disqualified = _load_leaving(data.get("disqualified", {}), "disqualified", known)
    rounds = _load_rounds(data["rounds"])
    return Export(slug, dict(options), entrants, withdrawn, disqualified, rounds, tournament)


def _load_entrants(raw: Any) -> tuple[ExportEntrant, ...]:
    if not isinstance(raw, list):
        raise ExportError('"entrants" must be a list')
    entrants, seen = [], set()
    for index, item in enumerate(raw):
        where = f"entrant {index + 1}"
        _require_object(item, where)
        _refuse_unknown(item, _ENTRANT_KEYS, where)
        if "id" not in item:
            raise ExportError(f'{where} has no "id"')
        player = _player_id(item["id"], f"{where}'s id")
        if player in seen:
            raise ExportError(f"entrant id {player} appears twice")
        seen.add(player)
        rating = item.get("rating")
        if rating is not None and (isinstance(rating, bool) or not isinstance(rating, (int, float))):
            raise ExportError(f"entrant {player}'s rating must be a number or null, not {rating!r}")
        entered = item.get("entered", 1)
        if not _is_int(entered) or entered < 1:
            raise ExportError(f"entrant {player}'s entered must be a round number (1 or more), "
                              f"not {entered!r}")
        entrants.append(ExportEntrant(player, None if rating is None else float(rating), entered))
    return tuple(entrants)


def _load_leaving(raw: Any, name: str, known: set[int]) -> dict[PlayerId, int]:
    _require_object(raw, f'"{name}"')
    leaving: dict[PlayerId, int] = {}
    for key, first in raw.items():
        try:
            player = int(key) if not isinstance(key, bool) else None
        except (TypeError, ValueError):
            player = None
        if player is None or str(player) != str(key).strip():
            raise ExportError(f'"{name}" keys must be entrant ids, not {key!r}')
        if player not in known:
            raise ExportError(f'"{name}" names {player}, who is not an entrant')
        if not _is_int(first) or first < 1:
            raise ExportError(f'"{name}"[{key!r}] must be the first round missed (1 or more), not {first!r}')
        leaving[player] = first
    return leaving


def _load_rounds(raw: Any) -> tuple[ExportRound, ...]:
    if not isinstance(raw, list):
        raise ExportError('"rounds" must be a list')
    rounds = []
    for index, item in enumerate(raw):
        number = index + 1
        _require_object(item, f"round {number}")
        _refuse_unknown(item, _ROUND_KEYS, f"round {number}")
        for key in ("round", "tables", "byes"):
            if key not in item:
                raise ExportError(f'round {number} has no "{key}"')
        if item["round"] != number or isinstance(item["round"], bool):
            raise ExportError(f"rounds must be numbered 1, 2, ... in order: entry {number} "
                              f"says {item['round']!r}")
        if not isinstance(item["tables"], list):
            raise ExportError(f'round {number}\'s "tables" must be a list')
        byes = _id_list(item["byes"], f"round {number}'s byes")
        tables = tuple(_load_table(table, number, position)
                       for position, table in enumerate(item["tables"], start=1))
        rounds.append(ExportRound(number, tables, byes))
    for rnd in rounds[:-1]:
        for position, table in enumerate(rnd.tables, start=1):
            if table.result is None:
                raise ExportError(f"round {rnd.number} table {position} has no result, "
                                  f"yet round {rnd.number + 1} was paired")
    return tuple(rounds)


def _load_table(raw: Any, number: int, position: int) -> ExportTable:
    where = f"round {number} table {position}"
    _require_object(raw, where)
    _refuse_unknown(raw, _TABLE_KEYS, where)
    if "seats" not in raw:
        raise ExportError(f'{where} has no "seats"')
    seats = _id_list(raw["seats"], f"{where}'s seats")
    if not seats:
        raise ExportError(f"{where} has no seats")
    if len(seats) > MAX_TABLE_SEATS:
        raise ExportError(f"{where} has {len(seats)} seats: no format seats more than {MAX_TABLE_SEATS} at a table")
    if len(set(seats)) != len(seats):
        raise ExportError(f"{where} seats the same player twice: {list(seats)}")
    forfeited = _id_list(raw.get("forfeited", []), f"{where}'s forfeited")
    if not set(forfeited) <= set(seats):
        raise ExportError(f"{where}: forfeited players must be seated at the table")
    ranks, team_score = raw.get("ranks"), raw.get("team_score")
    if ranks is not None and team_score is not None:
        raise ExportError(f"{where} gives both ranks and a team_score")
    if team_score is not None and (isinstance(team_score, bool) or not isinstance(team_score, (int, float))):
        raise ExportError(f"{where}'s team_score must be a number or null, not {team_score!r}")
    if ranks is not None:
        if not isinstance(ranks, list) or len(ranks) != len(seats) or \
                not all(_is_int(rank) and rank >= 1 for rank in ranks):
            raise ExportError(f"{where}'s ranks must be one positive integer per seat, not {ranks!r}")
    if ranks is None and team_score is None:
        if forfeited:
            raise ExportError(f"{where} lists forfeits but has no result")
        return ExportTable(seats, None)
    return ExportTable(seats, Result(number, seats, None if ranks is None else tuple(ranks), team_score,
                                     frozenset(forfeited)))


def _id_list(raw: Any, where: str) -> tuple[int, ...]:
    if not isinstance(raw, list):
        raise ExportError(f"{where} must be a list of entrant ids")
    return tuple(_player_id(item, where) for item in raw)


def _player_id(raw: Any, where: str) -> int:
    if not _is_int(raw):
        raise ExportError(f"{where}: ids are integers, not {raw!r}")
    if not -_ID_LIMIT <= raw < _ID_LIMIT:
        raise ExportError(f"{where}: ids are 64-bit integers, and {str(raw)[:20]}... has {len(str(raw))} digits")
    return raw


def _require_object(raw: Any, where: str) -> None:
    if not isinstance(raw, Mapping):
        raise ExportError(f"{where} must be a JSON object")


def _refuse_unknown(raw: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(map(str, set(raw) - allowed))
    if unknown:
        raise ExportError(f"{where} has unknown keys: {', '.join(unknown)}")


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)



def read_export(path: str, stdin: IO[str] | None = None) -> Export:
    """The export in a file (or stdin for `-`), validated; ExportError if it cannot be read."""
    try:
        if path == "-":
            text = (stdin or sys.stdin).read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as error:
        raise ExportError(f"cannot read {path}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise ExportError(f"{path} is not UTF-8 text") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ExportError(f"{path} is not JSON: {error.msg} at line {error.lineno} "
                          f"column {error.colno}") from None
    except RecursionError:
        raise ExportError(f"{path} is nested too deeply to be an export") from None
    except ValueError as error:  # a number past Python's digit limit for int()
        raise ExportError(f"{path} holds a number too long to read: {error}") from None
    return load_export(data)
