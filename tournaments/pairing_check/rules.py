"""The pairing checker's judgement of a round: the five rules, and the quality report the server stores.

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
   least possible. Decided by the checker's own exhaustive search (`search.py`: bitmask branch
   and bound, not the pairer's) for up to `EXACT_LIMIT` seated players (`CHECK_NODE_BUDGET`
   nodes), beyond that within `LARGE_NODE_BUDGET` nodes, or by Hajnal-Szemeredi (t tables >=
   the most distinct earlier opponents a seated player has among the seated, plus one, proves
   a rematch-free grouping exists); otherwise the round gets a note ("undecided"), not a finding.
5. "seat-balance": keeping the round's tables, a finding for a table where another seating
   would leave fewer of its players out of balance (a maximum matching of its players to the
   seats that keep each in balance).
Rules 3-5 judge formats that pair tables freely: swiss, swiss-tables, and a league of either.
Other formats are checked for rule 1 and the min..max / within-1 part of rule 2 only, and
elimination formats (whose knocked-out players sit out for good) for rule 1 without "every
eligible player is seated or has a bye".
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

from tournaments import standings as _standings
from tournaments.formats import FORMATS, Entrant, History, Pairing, Result
from tournaments.formats._common import Options, PlayerId, as_entrant, split_with_byes, table_sizes
from tournaments.pairing_check.export import Export, ExportEntrant, ExportRound
from tournaments.pairing_check.search import SearchBudgetExceeded, fewest_repeats

RULES = ("seating", "table-sizes", "byes", "rematch", "seat-balance")
EXACT_LIMIT = 16                 # seated players up to which the rematch search always runs
REPORT_NODE_BUDGET = 200_000     # search nodes `round_report` may spend (at most EXACT_LIMIT seated)
CHECK_NODE_BUDGET = 3_000_000    # ... and the checker, up to EXACT_LIMIT seated
LARGE_NODE_BUDGET = 20_000       # ... and the checker above EXACT_LIMIT seated

_FREE_PAIRING = ("swiss", "swiss-tables")
_ELIMINATION = ("single-elimination", "double-elimination", "table-elimination")


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
    entrants: dict[PlayerId, ExportEntrant] = {entrant.id: entrant for entrant in export.entrants}
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
                                    f"{counted(len(facts.byes), 'bye')} for {eligible} eligible players; "
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
                                    f"{counted(len(fewer), 'seated player')} had fewer ({sample})"))
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


def counted(number: int, noun: str) -> str:
    """The number with its noun, plural unless 1: '1 bye', '2 byes'."""
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
            parts.append(f"{counted(count, 'pair')} meeting a {_ordinal(meeting)} time")
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
            met: Counter[frozenset[PlayerId]] = Counter()
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
        spreads: list[Fraction | float] = []
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
