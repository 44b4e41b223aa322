"""Pairing checker: reads a tournament export and lists, round by round, every pairing rule broken.

Pure Python (no Django): `python -m tournaments.pairing_check FILE [--json]` (FILE may be `-`
for stdin) or `python manage.py pairing_check FILE`. Exit status 0: no findings; 1: findings;
2: the input could not be read (one line on stderr says why).

The export (version 1) is a JSON object:

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
result (ranks and team_score both null).

Words: in round r a player is *eligible* when entered (`entered` <= r) and neither withdrawn
nor disqualified from round r or earlier; *seated* players sit at a table, *byes* are the
round's byes. Two players have *met* once for each earlier table they shared (forfeited
tables count). A pair meeting for the (m+1)-th time, m >= 1, is a *rematch*; the *repeat
cost* of a grouping weighs each such pair B**(m-1), B = (seated choose 2) + 1, so fewer third
meetings always win, then fewer second meetings. A player's *fair share* of seat s is the sum
of 1/size over their tables of more than s seats; they are *in balance* when, in every seat,
|times in that seat - fair share| < 1 (exact arithmetic); their *seat deviation* is the largest
of those differences.

The rules, checked for every round (finding codes in quotes):
1. "seating": every eligible player sits at exactly one table or has a bye; nobody else
   appears (unknown id, not yet entered, withdrawn, disqualified), nobody twice.
2. "table-sizes": every table within the game's min..max players, sizes within 1 of each
   other; for swiss-tables the sizes `table_sizes` gives for the seated count and the fewest
   byes `split_with_byes` needs; for swiss (and swiss-tables at table size 2, which pairs
   with the two-player Swiss) tables of 2 and one bye exactly when the eligible count is odd.
3. "byes": nobody gets a bye while a seated player of the round has had fewer byes.
4. "rematch": a rematch where some grouping of the same seated players into the same table
   sizes has none ("avoidable"); where rematches cannot be avoided, a repeat cost above the
   least possible. Decided by an exhaustive search of this module's own (bitmask branch and
   bound, not the pairer's) for up to `EXACT_LIMIT` seated players (`CHECK_NODE_BUDGET`
   nodes), beyond that within `LARGE_NODE_BUDGET` nodes, or by Hajnal-Szemeredi (t tables >= the most distinct earlier opponents a
   seated player has among the seated, plus one, proves a rematch-free grouping exists);
   otherwise the round gets a note ("undecided"), not a finding.
5. "seat-balance": keeping the round's tables, a finding for a table where another seating
   would leave fewer of its players out of balance (a maximum matching of its players to the
   seats that keep each in balance).
Rules 3-5 judge formats that pair tables freely: swiss, swiss-tables, and a league of either.
Other formats are checked for rule 1 and the min..max / within-1 part of rule 2 only, and
elimination formats (whose knocked-out players sit out for good) for rule 1 without "every
eligible player is seated or has a bye".
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from io import TextIOBase
from itertools import combinations
from typing import IO, Any

from tournaments import standings as _standings
from tournaments.formats import FORMATS, Bye, Entrant, History, Pairing, Result, Table
from tournaments.formats._common import Options, PlayerId, as_entrant, split_with_byes, table_sizes

RULES = ("seating", "table-sizes", "byes", "rematch", "seat-balance")
EXACT_LIMIT = 16                 # seated players up to which the rematch search always runs
REPORT_NODE_BUDGET = 200_000     # search nodes `round_report` may spend (at most EXACT_LIMIT seated)
CHECK_NODE_BUDGET = 3_000_000    # ... and the checker, up to EXACT_LIMIT seated
LARGE_NODE_BUDGET = 20_000       # ... and the checker above EXACT_LIMIT seated

_FREE_PAIRING = ("swiss", "swiss-tables")
_ELIMINATION = ("single-elimination", "double-elimination", "table-elimination")
_EXPORT_KEYS = {"export", "version", "tournament", "format", "options", "entrants", "withdrawn",
                "disqualified", "rounds"}
_ENTRANT_KEYS = {"id", "rating", "entered"}
_ROUND_KEYS = {"round", "byes", "tables", "quality"}
_TABLE_KEYS = {"seats", "ranks", "team_score", "forfeited"}


class ExportError(ValueError):
    """The export cannot be read: its message says what is wrong and where."""


# --- the export -----------------------------------------------------------------------------


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
    withdrawn: Mapping[int, int]
    disqualified: Mapping[int, int]
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


@dataclass(frozen=True)
class Finding:
    """One rule a round broke (or, with `note`, a rule the checker could not decide)."""

    round: int
    rule: str
    players: tuple[PlayerId, ...]
    message: str
    note: bool = False

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"round": self.round, "rule": self.rule, "players": list(self.players),
                "message": self.message}


# Bounds on what an export may hold: ids as the database stores them, and tables far larger than
# any game's (at most 6 seats) but small enough for the per-table checks, which grow with the
# cube of a table's seats (a 400-seat table took 52 s).
_ID_LIMIT = 2**63
MAX_TABLE_SEATS = 64


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


def _load_leaving(raw: Any, name: str, known: set[int]) -> dict[int, int]:
    _require_object(raw, f'"{name}"')
    leaving = {}
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


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# --- the round report -----------------------------------------------------------------------


def round_report(fmt_slug: str, entrants: Sequence[Entrant | PlayerId], options: Mapping[str, Any] | Options,
                 history: History, pairing: Pairing) -> dict[str, Any]:
    """The JSON-ready quality report of one round, from the format's inputs and its pairing.

    `entrants`, `options`, `history` are what `FORMATS[fmt_slug].next_round` was given (history
    = everything before the round) and `pairing` what it returned. Keys:

    - `tables`: the number of tables; `table_sizes`: each table's size, in table order.
    - `byes`: the ids given a bye, as the pairing lists them.
    - `rematches`: every pair seated together again, table by table, as
      {"players": [a, b] (seat order), "meeting": how many times they have now met (2 = second
      meeting), "avoidable": true when some grouping of the same seated players into the same
      table sizes has no rematch at all, false when none has, null when undecided (more than
      `EXACT_LIMIT` seated and Hajnal-Szemeredi does not settle it, the search ran out of its
      node budget, or the format does not pair tables freely)}; the same value for every pair.
    - `repeat_cost_minimal`: true when no grouping of the seated players into these table sizes
      has a lower repeat cost (always true without rematches), false when one has, null when
      undecided as above.
    - `seat_balance`: over the round's eligible players (seated and byes), after this round:
      `max_deviation`, the largest seat deviation (times in a seat minus fair share, see the
      module docstring), rounded to 3 places; `out_of_balance`, the ids whose deviation is 1 or
      more, in entrant order; `first_seat_spread`, the most seat-0 turns minus the fewest.
    - `score_spread`: per table, the highest score minus the lowest among its players before
      the round (points as the standings count them with the format's bye points; for a
      cooperative game the mean team score, players without one left out), rounded to 3
      places: `per_table` in table order, their `mean` and `max` (0.0 without tables).

    Linear in the field apart from the exhaustive search, which runs only with at most
    `EXACT_LIMIT` seated players (and `REPORT_NODE_BUDGET` nodes).
    """
    facts = _RoundFacts(fmt_slug, entrants, options, history, pairing)
    seated = len(facts.seated)
    verdict = _repeat_verdict(facts, budget=REPORT_NODE_BUDGET if seated <= EXACT_LIMIT else 0)
    avoidable = None if verdict.minimum is None else verdict.minimum == 0
    balance = facts.balance_after()
    spreads = facts.score_spreads()
    return {
        "tables": len(facts.tables),
        "table_sizes": [len(table) for table in facts.tables],
        "byes": list(facts.byes),
        "rematches": [{"players": [a, b], "meeting": meetings + 1, "avoidable": avoidable}
                      for a, b, meetings in facts.rematches()],
        "repeat_cost_minimal": None if verdict.minimum is None else verdict.cost == verdict.minimum,
        "seat_balance": {
            "max_deviation": _rounded(max(balance.values(), default=Fraction(0))),
            "out_of_balance": [player for player, deviation in balance.items() if deviation >= 1],
            "first_seat_spread": facts.first_seat_spread(),
        },
        "score_spread": {
            "per_table": [_rounded(spread) for spread in spreads],
            "mean": _rounded(sum(spreads) / len(spreads)) if spreads else 0.0,
            "max": _rounded(max(spreads, default=0)),
        },
    }


def _rounded(value: Fraction | float) -> float:
    return round(float(value), 3)


# --- the checker ----------------------------------------------------------------------------


def rules_for(fmt_slug: str, options: Mapping[str, Any] | Options) -> tuple[tuple[str, ...], str | None]:
    """The rules checked for this format, and a sentence on what is left out (None if nothing)."""
    inner = _inner_slug(fmt_slug, FORMATS[fmt_slug].options(options))
    if inner in _FREE_PAIRING:
        return RULES, None
    left_out = (f"{inner} does not pair tables freely: rules byes, rematch and seat-balance are not "
                "checked, and table-sizes only for min..max players and sizes within 1")
    if inner in _ELIMINATION:
        left_out += "; knocked-out players sit out, so seating does not ask for every eligible player"
    return RULES[:2], left_out


def check_export(export: Export) -> list[Finding]:
    """Every finding (and, with `note` set, every undecided rematch question) of every round."""
    findings: list[Finding] = []
    for rnd in export.rounds:
        findings.extend(_check_round(export, rnd))
    return findings


def _check_round(export: Export, rnd: ExportRound) -> list[Finding]:
    facts = _RoundFacts(export.format, export.entrants_in(rnd.number), export.options,
                        export.history_before(rnd.number), rnd.pairing())
    findings = _rule_seating(facts, export) + _rule_table_sizes(facts)
    if facts.free_pairing:
        findings += _rule_byes(facts) + _rule_rematch(facts) + _rule_seat_balance(facts)
    return findings


def _rule_seating(facts: _RoundFacts, export: Export) -> list[Finding]:
    number, findings = facts.number, []
    entrants = {entrant.id: entrant for entrant in export.entrants}
    appearances = Counter(facts.seated) + Counter(facts.byes)
    for player in dict.fromkeys([*facts.seated, *facts.byes]):
        if appearances[player] > 1:
            findings.append(Finding(number, "seating", (player,),
                                    f"player {player} appears {appearances[player]} times in the round"))
        entrant = entrants.get(player)
        withdrawn, disqualified = export.withdrawn.get(player), export.disqualified.get(player)
        if entrant is None:
            reason = "is not an entrant"
        elif entrant.entered > number:
            reason = f"enters only in round {entrant.entered}"
        elif withdrawn is not None and withdrawn <= number:
            reason = f"withdrew (misses rounds {withdrawn} on)"
        elif disqualified is not None and disqualified <= number:
            reason = f"is disqualified (from round {disqualified})"
        else:
            continue
        findings.append(Finding(number, "seating", (player,), f"player {player} is paired but {reason}"))
    if facts.inner not in _ELIMINATION:
        for player in facts.eligible:
            if player not in appearances:
                findings.append(Finding(number, "seating", (player,),
                                        f"player {player} is eligible but neither seated nor given a bye"))
    return findings


def _rule_table_sizes(facts: _RoundFacts) -> list[Finding]:
    number, opts, findings = facts.number, facts.opts, []
    sizes = [len(table) for table in facts.tables]
    two_player = facts.free_pairing and (facts.inner == "swiss" or opts.seats == 2)
    for position, table in enumerate(facts.tables, start=1):
        if two_player and len(table) != 2:
            findings.append(Finding(number, "table-sizes", table,
                                    f"table {position} seats {len(table)}; two-player Swiss seats 2"))
        elif not opts.min_players <= len(table) <= opts.max_players:
            findings.append(Finding(number, "table-sizes", table,
                                    f"table {position} seats {len(table)}; the game takes "
                                    f"{opts.min_players} to {opts.max_players}"))
    if sizes and max(sizes) - min(sizes) > 1:
        findings.append(Finding(number, "table-sizes", (), f"table sizes {sizes} differ by more than 1"))
    elif facts.free_pairing and not two_player:
        wanted = table_sizes(len(facts.seated), opts.seats, opts.min_players, opts.max_players)
        if wanted != sorted(sizes, reverse=True):
            findings.append(Finding(number, "table-sizes", (),
                                    f"{len(facts.seated)} seated players sit at tables of "
                                    f"{sorted(sizes, reverse=True)}; table_sizes gives {wanted}"))
    if facts.free_pairing:
        eligible = len(facts.eligible)
        if two_player:
            fewest = eligible % 2
        else:
            fewest = split_with_byes(eligible, opts.seats, opts.min_players, opts.max_players)[1]
        if len(facts.byes) != fewest:
            findings.append(Finding(number, "table-sizes", tuple(facts.byes),
                                    f"{_count(len(facts.byes), 'bye')} for {eligible} eligible players; "
                                    f"a legal split needs {fewest}"))
    return findings


def _rule_byes(facts: _RoundFacts) -> list[Finding]:
    had = Counter(bye.player for bye in facts.history.byes)
    findings = []
    for player in facts.byes:
        fewer = [other for other in facts.seated if had[other] < had[player]]
        if fewer:
            sample = ", ".join(map(str, fewer[:5])) + (", ..." if len(fewer) > 5 else "")
            findings.append(Finding(facts.number, "byes", (player,),
                                    f"player {player} gets a {_ordinal(had[player] + 1)} bye while "
                                    f"{_count(len(fewer), 'seated player')} had fewer ({sample})"))
    return findings


def _rule_rematch(facts: _RoundFacts) -> list[Finding]:
    rematches = facts.rematches()
    if not rematches:
        return []
    seated = len(facts.seated)
    verdict = _repeat_verdict(facts, budget=CHECK_NODE_BUDGET if seated <= EXACT_LIMIT else LARGE_NODE_BUDGET)
    number = facts.number
    players = tuple(dict.fromkeys(player for a, b, _ in rematches for player in (a, b)))
    if verdict.minimum is None:
        return [Finding(number, "rematch", players, f"undecided: {verdict.how}; the round has "
                        f"{_profile(verdict.cost, facts.weight_base)}", note=True)]
    if verdict.minimum == 0:
        return [Finding(number, "rematch", (a, b),
                        f"players {a} and {b} meet for the {_ordinal(met + 1)} time, yet a grouping of "
                        f"round {number} without rematches exists ({verdict.how})")
                for a, b, met in rematches]
    if verdict.cost > verdict.minimum:
        return [Finding(number, "rematch", players,
                        f"rematches cannot be avoided, but the round has "
                        f"{_profile(verdict.cost, facts.weight_base)} where the best grouping has "
                        f"{_profile(verdict.minimum, facts.weight_base)}")]
    return []


def _rule_seat_balance(facts: _RoundFacts) -> list[Finding]:
    findings = []
    for position, table in enumerate(facts.tables, start=1):
        size = len(table)
        unit = facts.book.unit
        keeps = [[facts.book.deviation_after(player, size, seat) < unit for seat in range(size)]
                 for player in table]
        out = tuple(player for seat, player in enumerate(table) if not keeps[seat][seat])
        fewest_out = size - _matching_size(keeps)
        if len(out) > fewest_out:
            findings.append(Finding(facts.number, "seat-balance", out,
                                    f"table {position}: {len(out)} of its players end out of seat balance "
                                    f"({', '.join(map(str, out))}); another seating leaves {fewest_out}"))
    return findings


def _matching_size(allowed: Sequence[Sequence[bool]]) -> int:
    """How many rows can be matched to distinct columns where `allowed[row][column]` (augmenting paths)."""
    owner: dict[int, int] = {}

    def place(row: int, seen: set[int]) -> bool:
        for column, ok in enumerate(allowed[row]):
            if ok and column not in seen:
                seen.add(column)
                if column not in owner or place(owner[column], seen):
                    owner[column] = row
                    return True
        return False

    return sum(place(row, set()) for row in range(len(allowed)))


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _profile(cost: int, base: int) -> str:
    """A repeat cost in words: its base-B digits count the pairs meeting a 2nd, 3rd, ... time."""
    parts, meeting = [], 2
    while cost:
        cost, count = divmod(cost, base)
        if count:
            parts.append(f"{_count(count, 'pair')} meeting a {_ordinal(meeting)} time")
        meeting += 1
    return " and ".join(reversed(parts)) or "no rematch"


# --- one round's facts, shared by the report and the rules ----------------------------------


class _RoundFacts:
    """A round with what was known before it: eligible players, earlier meetings, seat tallies.

    Linear in the history: meetings are counted only for pairs at this round's tables until a
    question about the whole field (Hajnal-Szemeredi, the search) needs them all.
    """

    def __init__(self, fmt_slug: str, entrants: Sequence[Entrant | PlayerId],
                 options: Mapping[str, Any] | Options, history: History, pairing: Pairing) -> None:
        if fmt_slug not in FORMATS:
            raise ValueError(f"unknown format {fmt_slug!r}")
        self.fmt = FORMATS[fmt_slug]
        self.opts = self.fmt.options(options)
        self.inner = _inner_slug(fmt_slug, self.opts)
        self.free_pairing = self.inner in _FREE_PAIRING
        self.number = pairing.round
        self.history = history
        absent = history.absent_in(pairing.round)
        self.eligible = [e.id for e in map(as_entrant, entrants) if e.id not in absent]
        self.tables = [tuple(table.seats) for table in pairing.tables]
        self.byes = list(pairing.byes)
        self.seated = [player for table in self.tables for player in table]
        self.book = _SeatBook(history.results, {len(table) for table in self.tables})
        self.weight_base = math.comb(len(self.seated), 2) + 1
        self._rematches: list[tuple[PlayerId, PlayerId, int]] | None = None
        self._met: dict[PlayerId, dict[PlayerId, int]] | None = None

    def rematches(self) -> list[tuple[PlayerId, PlayerId, int]]:
        """(a, b, earlier meetings) for every pair seated together again, table by table."""
        if self._rematches is None:
            table_of = {player: index for index, table in enumerate(self.tables) for player in table}
            met: Counter = Counter()
            for res in self.history.results:
                if len(res.seats) == 2:  # the common case, quickly
                    a, b = res.seats
                    if a in table_of and table_of[a] == table_of.get(b):
                        met[frozenset(res.seats)] += 1
                    continue
                by_table: dict[int, list[PlayerId]] = {}
                for player in res.seats:
                    if player in table_of:
                        by_table.setdefault(table_of[player], []).append(player)
                for together in by_table.values():
                    for a, b in combinations(together, 2):
                        met[frozenset((a, b))] += 1
            self._rematches = [(a, b, met[frozenset((a, b))]) for table in self.tables
                               for a, b in combinations(table, 2) if frozenset((a, b)) in met]
        return self._rematches

    def met(self) -> dict[PlayerId, dict[PlayerId, int]]:
        """For each player seated this round, how often they met each other seated player before."""
        if self._met is None:
            seated = set(self.seated)
            self._met = {player: {} for player in seated}
            for res in self.history.results:
                present = [player for player in res.seats if player in seated]
                for a, b in combinations(present, 2):
                    self._met[a][b] = self._met[a].get(b, 0) + 1
                    self._met[b][a] = self._met[b].get(a, 0) + 1
        return self._met

    def repeat_weight(self, meetings: int) -> int:
        """The repeat cost of one pair at a table after `meetings` earlier meetings."""
        return self.weight_base ** (meetings - 1) if meetings else 0

    def balance_after(self) -> dict[PlayerId, Fraction]:
        """Each eligible player's seat deviation once this round is seated (byes: unchanged)."""
        seat_of = {player: (len(table), seat) for table in self.tables for seat, player in enumerate(table)}
        unit = self.book.unit
        return {player: Fraction(self.book.deviation_after(player, *seat_of.get(player, (0, -1))), unit)
                for player in self.eligible}

    def first_seat_spread(self) -> int:
        """Most seat-0 turns minus fewest among the eligible, this round included."""
        first = {table[0] for table in self.tables}
        counts = [self.book.seat_count(player, 0) + (player in first) for player in self.eligible]
        return max(counts) - min(counts) if counts else 0

    def score_spreads(self) -> list[Fraction | float]:
        """Each table's highest minus lowest score before the round (cooperative: mean team score)."""
        if self.opts.cooperative:
            means = _standings.mean_team_scores(self.history)
            known = [[means[player] for player in table if player in means] for table in self.tables]
            return [max(scores) - min(scores) if len(scores) > 1 else 0.0 for scores in known]
        points, unit = _standings.scaled_points(self.history, bye_points=self.fmt.bye_points(self.opts))
        spreads = []
        for table in self.tables:
            scores = [points.get(player, 0) for player in table]
            spreads.append(Fraction(max(scores) - min(scores), unit))
        return spreads


def _inner_slug(fmt_slug: str, opts: Options) -> str:
    return opts.format if fmt_slug == "league" else fmt_slug


class _SeatBook:
    """Per player: times in each seat and tables of each size; fair shares exactly, in 1/unit."""

    def __init__(self, results: Iterable[Result], round_sizes: set[int]) -> None:
        results = list(results)
        every_size = {len(res.seats) for res in results} | round_sizes | {1}
        self.width = max(every_size)
        self.unit = math.lcm(*every_size)
        self.seats: dict[PlayerId, list[int]] = {}
        self.sizes: dict[PlayerId, list[int]] = {}  # tables by size, index = size
        width = self.width
        for res in results:
            size = len(res.seats)
            for seat, player in enumerate(res.seats):
                counts = self.seats.get(player)
                if counts is None:
                    counts = self.seats[player] = [0] * width
                    self.sizes[player] = [0] * (width + 1)
                counts[seat] += 1
                self.sizes[player][size] += 1

    def seat_count(self, player: PlayerId, seat: int) -> int:
        """Earlier tables at which `player` sat in `seat`."""
        counts = self.seats.get(player)
        return counts[seat] if counts else 0

    def deviation_after(self, player: PlayerId, size: int, seat: int) -> int:
        """The player's seat deviation, in 1/unit, after sitting in `seat` at a table of `size`
        (size 0: not seated); in balance means below `unit`."""
        counts = self.seats.get(player)
        tables = self.sizes.get(player)
        counts = list(counts) if counts else [0] * self.width
        tables = list(tables) if tables else [0] * (self.width + 1)
        if size:
            counts[seat] += 1
            tables[size] += 1
        worst = share = 0  # share: tables of more than `position` seats, each 1/size, in 1/unit
        unit = self.unit
        for position in range(self.width - 1, -1, -1):
            share += tables[position + 1] * (unit // (position + 1))
            worst = max(worst, abs(counts[position] * unit - share))
        return worst


# --- the least repeat cost: Hajnal-Szemeredi, then an exhaustive search ---------------------


@dataclass(frozen=True)
class _Verdict:
    """The round's repeat cost, the least possible (None: undecided), and how that was settled."""

    cost: int
    minimum: int | None
    how: str


def _repeat_verdict(facts: _RoundFacts, budget: int) -> _Verdict:
    """How the round's repeat cost compares with the least any grouping into its table sizes has."""
    cost = sum(facts.repeat_weight(met) for _, _, met in facts.rematches())
    if cost == 0:
        return _Verdict(0, 0, "no rematches")
    if not facts.free_pairing:
        return _Verdict(cost, None, f"{facts.inner} does not pair tables freely")
    seated = facts.seated
    if len(set(seated)) != len(seated):
        return _Verdict(cost, None, "a player is seated twice, so groupings are not compared")
    sizes = [len(table) for table in facts.tables]
    position = {player: index for index, player in enumerate(seated)}
    met = facts.met()
    opponents = {player: list(met[player]) for player in seated}
    most = max(len(found) for found in opponents.values())
    if max(sizes) - min(sizes) <= 1 and len(sizes) >= most + 1:
        return _Verdict(cost, 0, f"Hajnal-Szemeredi: {len(sizes)} tables, at most {most} earlier "
                                 f"opponents each")
    if not budget:
        return _Verdict(cost, None, f"{len(seated)} seated players are too many for the exhaustive "
                                    f"search and Hajnal-Szemeredi needs at least {most + 1} tables")
    weight = [[0] * len(seated) for _ in seated]
    for player, others in opponents.items():
        for other in others:
            weight[position[player]][position[other]] = facts.repeat_weight(met[player][other])
    try:
        least = fewest_repeats(weight, sizes, budget, known=cost)
    except SearchBudgetExceeded:
        return _Verdict(cost, None, f"the exhaustive search ran out of its {budget:,} nodes")
    return _Verdict(cost, least, "exhaustive search")


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
    bound = math.inf if known is None else known
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
        self.below: dict[tuple[int, tuple[int, ...]], float] = {}  # the least is at least this

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

    def _tables_left(self, counts: tuple[int, ...]):
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

    def least(self, left: int, counts: tuple[int, ...], bound: float) -> float:
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
              after: tuple[int, ...], best: float) -> float:
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

    def _last_two(self, left: int, candidates: int, loose: int, opener: int, size: int, best: float) -> float:
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

    def _lower_bound(self, left: int, tied: int, counts: tuple[int, ...], bound: float) -> int:
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


# --- the command line -----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (shared with `manage.py pairing_check`)."""
    parser.add_argument("file", help="the export (JSON); - reads standard input")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print the findings as JSON")


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


def report_findings(export: Export, findings: Sequence[Finding], *, as_json: bool) -> str:
    """The findings round by round with a summary line (or as a JSON document)."""
    rules, left_out = rules_for(export.format, export.options)
    real = [finding for finding in findings if not finding.note]
    notes = [finding for finding in findings if finding.note]
    by_rule = Counter(finding.rule for finding in real)
    counts = ", ".join(f"{rule} {by_rule[rule]}" for rule in RULES if by_rule[rule])
    summary = (f"{_count(len(real), 'finding')} in {_count(len(export.rounds), 'round')}"
               f"{f' ({counts})' if counts else ''}; {_count(len(notes), 'note')}")
    if as_json:
        return json.dumps({
            "format": export.format, "rules": list(rules), "left_out": left_out,
            "rounds": [{"round": rnd.number,
                        "findings": [f.as_dict() for f in real if f.round == rnd.number],
                        "notes": [f.as_dict() for f in notes if f.round == rnd.number]}
                       for rnd in export.rounds],
            "summary": {"rounds": len(export.rounds), "findings": len(real), "notes": len(notes),
                        "by_rule": {rule: by_rule[rule] for rule in RULES if by_rule[rule]}},
        }, indent=2)
    lines = [f"{export.format}: {len(export.entrants)} entrants, {len(export.rounds)} rounds; "
             f"rules checked: {', '.join(rules)}"]
    if left_out:
        lines.append(f"note: {left_out}")
    for rnd in export.rounds:
        mine = [f for f in findings if f.round == rnd.number]
        if not mine:
            lines.append(f"round {rnd.number}: no findings")
        for finding in mine:
            label = f"note {finding.rule}" if finding.note else finding.rule
            lines.append(f"round {rnd.number}: [{label}] {finding.message}")
    lines.append(f"summary: {summary}")
    return "\n".join(lines)


def run(file: str, *, as_json: bool = False, stdout: IO[str] | TextIOBase | None = None,
        stdin: IO[str] | None = None) -> int:
    """Checks one export and prints the findings: 0 without findings, 1 with (ExportError if unreadable)."""
    export = read_export(file, stdin)
    findings = check_export(export)
    (stdout or sys.stdout).write(report_findings(export, findings, as_json=as_json) + "\n")
    return 1 if any(not finding.note for finding in findings) else 0


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None,
         stdin: IO[str] | None = None) -> int:
    """`python -m tournaments.pairing_check FILE [--json]`: the exit status (0, 1, or 2 if unreadable)."""
    parser = argparse.ArgumentParser(prog="python -m tournaments.pairing_check",
                                     description="Checks the pairings of a tournament export (version 1).")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args.file, as_json=args.as_json, stdout=stdout, stdin=stdin)
    except ExportError as error:
        print(f"pairing_check: {error}", file=stderr or sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
