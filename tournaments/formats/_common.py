"""Shapes and helpers shared by the pairing formats (underscore: not a format).

Pure Python: no Django, no I/O, no clock. Everything here is plain data so the
Django layer can build it from its event log and serialise what comes back.
"""
from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any, TypeGuard

PlayerId = Hashable

_SEEDINGS = ("order", "rating")


# --- entrants, results, history -------------------------------------------------------------


@dataclass(frozen=True)
class Entrant:
    """A player in a tournament: an opaque hashable id and an optional rating."""

    id: PlayerId
    rating: float | None = None


@dataclass(frozen=True)
class Result:
    """One played table: seat order (seat 0 first) and each seat's finishing rank.

    `ranks[i]` is seat i's rank (1 is best, tied seats share a rank). A cooperative
    table gives `team_score` instead (the team's result, e.g. cards left; lower is
    better) and no ranks. `forfeited` lists seats that did not play: they lose (the
    caller ranks them last; `forfeit_result` does that). `match` is the bracket
    match id for elimination formats (copy it from `Table.match`).
    """

    round: int
    seats: tuple[PlayerId, ...]
    ranks: tuple[int, ...] | None = None
    team_score: float | None = None
    forfeited: frozenset[PlayerId] = frozenset()
    match: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "forfeited", frozenset(self.forfeited))
        if self.ranks is not None:
            object.__setattr__(self, "ranks", tuple(self.ranks))
        if not _is_int(self.round) or self.round < 1:
            raise ValueError(f"a result's round must be a positive integer, not {self.round!r}")
        if len(self.seats) < 1 or len(set(self.seats)) != len(self.seats):
            raise ValueError(f"a result needs distinct seats, not {self.seats!r}")
        if (self.ranks is None) == (self.team_score is None):
            raise ValueError("a result gives either ranks or a team_score")
        if self.ranks is not None:
            if len(self.ranks) != len(self.seats) or not all(_is_int(r) and r >= 1 for r in self.ranks):
                raise ValueError(f"ranks must be one positive integer per seat, not {self.ranks!r}")
        if not self.forfeited <= set(self.seats):
            raise ValueError("forfeited players must be seated at the table")

    @property
    def cooperative(self) -> bool:
        return self.team_score is not None


@dataclass(frozen=True)
class Bye:
    """A round in which a player was not seated but scored as the format says."""

    round: int
    player: PlayerId


@dataclass(frozen=True)
class History:
    """Everything that happened so far: results, byes given, withdrawals, disqualifications.

    `withdrawn` and `disqualified` map a player to the first round they take no part
    in (a set of ids means "from the next round on"). They are not paired from then
    on; their results stand. Standings list disqualified players last.
    """

    results: tuple[Result, ...] = ()
    byes: tuple[Bye, ...] = ()
    withdrawn: Mapping[PlayerId, int] = field(default_factory=dict)
    disqualified: Mapping[PlayerId, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "byes", tuple(self.byes))
        following = self.last_round + 1
        for name in ("withdrawn", "disqualified"):
            given = getattr(self, name)
            leaving = dict(given) if isinstance(given, Mapping) else dict.fromkeys(given, following)
            object.__setattr__(self, name, leaving)

    @property
    def last_round(self) -> int:
        """The highest round number with a result or a bye (0 before the first round)."""
        rounds = [r.round for r in self.results] + [b.round for b in self.byes]
        return max(rounds, default=0)

    def leaving(self) -> dict[PlayerId, int]:
        """Every withdrawn or disqualified player and the first round they miss."""
        leaving = dict(self.withdrawn)
        for player, number in self.disqualified.items():
            leaving[player] = min(number, leaving.get(player, number))
        return leaving

    def absent_in(self, number: int) -> frozenset[PlayerId]:
        """Players who take no part in round `number`."""
        return frozenset(player for player, first in self.leaving().items() if first <= number)

    @property
    def absent(self) -> frozenset[PlayerId]:
        """Players who will not be paired in the next round."""
        return self.absent_in(self.last_round + 1)

    def with_round(self, pairing: Pairing, results: Iterable[Result]) -> History:
        """This history plus one round: its results and the pairing's byes (handy for callers and tests)."""
        byes = tuple(Bye(pairing.round, player) for player in pairing.byes)
        return replace(self, results=self.results + tuple(results), byes=self.byes + byes)


def result(
    round: int,
    *seats: PlayerId,
    ranks: Sequence[int] | None = None,
    team_score: float | None = None,
    forfeited: Iterable[PlayerId] = (),
    match: str | None = None,
) -> Result:
    """Builder: `result(1, "a", "b", ranks=[1, 2])`; without ranks, seat order is finishing order."""
    if ranks is None and team_score is None:
        ranks = range(1, len(seats) + 1)
    return Result(round, tuple(seats), None if ranks is None else tuple(ranks), team_score,
                  frozenset(forfeited), match)


def forfeit_result(round: int, seats: Sequence[PlayerId], forfeited: Iterable[PlayerId],
                   match: str | None = None) -> Result:
    """A table some seats did not play: players present share rank 1, no-shows share the last rank."""
    gone = frozenset(forfeited)
    present = sum(1 for seat in seats if seat not in gone)
    ranks = [present + 1 if seat in gone else 1 for seat in seats]
    return Result(round, tuple(seats), tuple(ranks), None, gone, match)


# --- pairings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """One table to play: ids in seat order (seat 0 moves first).

    `match` names the bracket match (elimination formats); `deal` is the shared deal
    seed when the tournament plays duplicate deals (see `duplicate.py`).
    """

    seats: tuple[PlayerId, ...]
    match: str | None = None
    deal: int | None = None


@dataclass(frozen=True)
class Pairing:
    """The next round: its number, its tables, its byes, and its date for a league matchday."""

    round: int
    tables: tuple[Table, ...]
    byes: tuple[PlayerId, ...] = ()
    date: _dt.date | None = None

    def players(self) -> Iterator[PlayerId]:
        """Every player seated this round, table by table."""
        for table in self.tables:
            yield from table.seats


# --- options --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Options:
    """Every format option, validated. Each format accepts the subset in its `option_keys`.

    - table_size: seats per table wanted (multi-player formats); min_players/max_players:
      the game's range, tables never leave it.
    - rounds: rounds to play (Swiss formats); double: double round robin.
    - third_place: single elimination plays a third-place match.
    - grand_final_reset: double elimination replays the grand final if the losers'
      bracket champion wins it.
    - advance: how many of each table go through (table elimination).
    - seeding: "order" (entrants as given) or "rating" (highest rating first, stable).
    - seed: the tournament's seed, for duplicate deals.
    - cooperative: the game is cooperative (results carry a team score, lower is better).
    - bye_points: points for a bye (default 1 for two-player formats, 1/2 at multi-player tables).
    - duplicate: every table of a round with the same player count plays the same deal.
    - format, start, every_days, weekdays, skip_dates: a league's inner format and calendar.
    """

    table_size: int | None = None
    min_players: int = 2
    max_players: int = 2
    rounds: int | None = None
    double: bool = False
    third_place: bool = False
    grand_final_reset: bool = True
    advance: int = 1
    seeding: str = "order"
    seed: int = 0
    cooperative: bool = False
    bye_points: Fraction | None = None
    duplicate: bool = False
    format: str = "round-robin"
    start: _dt.date | None = None
    every_days: int = 7
    weekdays: tuple[int, ...] = ()
    skip_dates: tuple[_dt.date, ...] = ()

    @property
    def seats(self) -> int:
        """The table size in use: `table_size`, else 4 clamped to the game's range."""
        if self.table_size is not None:
            return self.table_size
        return min(self.max_players, max(self.min_players, 4))

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | Options | None, allowed: Iterable[str]) -> Options:
        """Options from a JSON-like dict, refusing unknown keys and bad values (ValueError)."""
        if isinstance(raw, Options):
            raw._check()
            return raw
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            raise ValueError("options must be an object")
        unknown = sorted(set(raw) - set(allowed))
        if unknown:
            raise ValueError(f"unknown options: {', '.join(map(str, unknown))}")
        values = {name: _PARSERS[name](name, value) for name, value in raw.items()}
        options = cls(**values)
        options._check()
        return options

    def _check(self) -> None:
        if self.min_players > self.max_players:
            raise ValueError("min_players is above max_players")
        if self.table_size is not None and not self.min_players <= self.table_size <= self.max_players:
            raise ValueError(f"table_size must lie in {self.min_players}..{self.max_players}")


def _int_at_least(low: int) -> Callable[[str, Any], int]:
    def parse(name: str, value: Any) -> int:
        if _is_int(value) and value >= low:
            return value
        raise ValueError(f"{name} must be an integer of at least {low}, not {value!r}")
    return parse


def _int_between(low: int, high: int) -> Callable[[str, Any], int]:
    def parse(name: str, value: Any) -> int:
        if _is_int(value) and low <= value <= high:
            return value
        raise ValueError(f"{name} must be an integer from {low} to {high}, not {value!r}")
    return parse


def _season_start(name: str, value: Any) -> _dt.date:
    """A league's first matchday: late enough seasons would run past the year 9999."""
    day = _date(name, value)
    if day > _LAST_SEASON_START:
        raise ValueError(f"{name} must be no later than {_LAST_SEASON_START.isoformat()}, not {day.isoformat()}")
    return day


# A league starts by then and plays at least once a year (every_days at most 366), so a season
# of fewer than 999 matchdays ends before the calendar does; a longer one is refused when it
# is paired (`league._slots`).
_LAST_SEASON_START = _dt.date(9000, 12, 31)


def _optional(parse: Callable[[str, Any], Any]) -> Callable[[str, Any], Any]:
    return lambda name, value: None if value is None else parse(name, value)


def _bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, not {value!r}")
    return value


def _seeding(name: str, value: Any) -> str:
    if not isinstance(value, str) or value not in _SEEDINGS:
        raise ValueError(f"{name} must be one of {', '.join(_SEEDINGS)}, not {value!r}")
    return value


def _any_int(name: str, value: Any) -> int:
    if _is_int(value):
        return value
    raise ValueError(f"{name} must be an integer, not {value!r}")


def _fraction(name: str, value: Any) -> Fraction:
    try:
        points = Fraction(value) if not isinstance(value, float) else Fraction(value).limit_denominator(1000)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None
    if isinstance(value, bool) or points < 0:
        raise ValueError(f"{name} must be a non-negative number, not {value!r}")
    return points


def _string(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a string, not {value!r}")
    return value


def _date(name: str, value: Any) -> _dt.date:
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    if isinstance(value, str):
        try:
            return _dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{name} must be a date (YYYY-MM-DD), not {value!r}")


def _weekdays(name: str, value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(_is_int(day) and 0 <= day <= 6 for day in value):
        raise ValueError(f"{name} must be a list of weekdays 0 (Monday) to 6 (Sunday), not {value!r}")
    return tuple(sorted(set(value)))


def _dates(name: str, value: Any) -> tuple[_dt.date, ...]:
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a list of dates")
    return tuple(_date(name, day) for day in value)


_PARSERS: dict[str, Callable[[str, Any], Any]] = {
    "table_size": _optional(_int_at_least(2)),
    "min_players": _int_at_least(1),
    "max_players": _int_at_least(1),
    "rounds": _optional(_int_at_least(1)),
    "double": _bool,
    "third_place": _bool,
    "grand_final_reset": _bool,
    "advance": _int_at_least(1),
    "seeding": _seeding,
    "seed": _any_int,
    "cooperative": _bool,
    "bye_points": _optional(_fraction),
    "duplicate": _bool,
    "format": _string,
    "start": _optional(_season_start),
    "every_days": _int_between(1, 366),
    "weekdays": _weekdays,
    "skip_dates": _dates,
}
assert set(_PARSERS) == {f.name for f in fields(Options)}

COMMON_KEYS = frozenset({"seeding", "seed", "duplicate", "min_players", "max_players", "cooperative"})


# --- the field: entrants in seed order ------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """The entrants in seed order (seed index 0 is the top seed) and who may still be paired."""

    entrants: tuple[Entrant, ...]
    seed_index: Mapping[PlayerId, int]
    active: tuple[PlayerId, ...]

    @classmethod
    def build(cls, entrants: Iterable[Entrant | PlayerId], seeding: str, history: History) -> Field:
        """Entrants as given (or sorted by rating, highest first, when seeding is "rating")."""
        ordered = seeded(entrants, seeding)
        index = {entrant.id: position for position, entrant in enumerate(ordered)}
        if len(index) != len(ordered):
            raise ValueError("entrant ids must be distinct")
        absent = history.absent
        active = tuple(entrant.id for entrant in ordered if entrant.id not in absent)
        return cls(ordered, index, active)

    @property
    def ids(self) -> tuple[PlayerId, ...]:
        return tuple(entrant.id for entrant in self.entrants)


def as_entrant(entrant: Entrant | PlayerId) -> Entrant:
    """An `Entrant` as given, or one without a rating from a bare id."""
    return entrant if isinstance(entrant, Entrant) else Entrant(entrant)


def seeded(entrants: Iterable[Entrant | PlayerId], seeding: str = "order") -> tuple[Entrant, ...]:
    """Entrants in seed order: as given, or by rating (highest first; unrated last; stable)."""
    ordered = tuple(as_entrant(entrant) for entrant in entrants)
    if seeding == "rating":
        ordered = tuple(sorted(ordered, key=lambda e: (e.rating is None, -(e.rating or 0.0))))
    elif seeding != "order":
        raise ValueError(f"unknown seeding {seeding!r}")
    return ordered


# --- seat histories and seat allocation -----------------------------------------------------


# A seat's fair share is counted in units of 1/_SHARE_UNIT (lcm of 1..12) so every table size up
# to 12 divides it and the balance rule is exact integer arithmetic.
_SHARE_UNIT = 27720


@dataclass
class SeatRecord:
    """Where a player has sat: how often in each seat, its fair share of each, and recent seats.

    A player's fair share of seat s is the sum, over the tables they played, of 1/size for
    each table with a seat s. A player is *in balance* while every seat's count is within 1
    (strictly) of its fair share: at tables of one size, each seat's count within 1 of every
    other's, and at two-player tables seat-0 games minus seat-1 games in −1..1.
    """

    tables: int = 0
    counts: list[int] = field(default_factory=list)   # games in each seat
    shares: list[int] = field(default_factory=list)   # fair share of each seat, in 1/_SHARE_UNIT
    recent: list[int] = field(default_factory=list)   # seats at two-player tables, in round order

    @property
    def first(self) -> int:
        """Games in seat 0."""
        return self.counts[0] if self.counts else 0

    @property
    def balance(self) -> int:
        """Two-player colour balance: seat-0 games minus seat-1 games."""
        return self.first - (self.counts[1] if len(self.counts) > 1 else 0)

    def sat(self, seat: int, size: int) -> None:
        """Counts one table of `size` played in `seat`."""
        _share_step(size)
        if len(self.counts) < size:
            grow = size - len(self.counts)
            self.counts.extend([0] * grow)
            self.shares.extend([0] * grow)
        self.tables += 1
        self.counts[seat] += 1
        step = _SHARE_UNIT // size
        for position in range(size):
            self.shares[position] += step
        if size == 2:
            self.recent.append(seat)

    def owed(self, size: int) -> list[int]:
        """Per seat, how far the fair share would exceed the count after a table of `size`
        (in 1/_SHARE_UNIT) if the player sat in none of the seats; one entry per seat ever used."""
        step = _share_step(size)
        width = max(size, len(self.counts))
        return [(self.shares[s] if s < len(self.shares) else 0) + (step if s < size else 0)
                - _SHARE_UNIT * (self.counts[s] if s < len(self.counts) else 0) for s in range(width)]

    def deviation(self) -> Fraction:
        """The largest gap between a seat's count and its fair share (in balance: below 1)."""
        return Fraction(max((abs(_SHARE_UNIT * c - share) for c, share in zip(self.counts, self.shares)),
                            default=0), _SHARE_UNIT)


def _share_step(size: int) -> int:
    if size < 1 or _SHARE_UNIT % size:
        raise ValueError(f"tables of {size} players are not supported (1 to 12)")
    return _SHARE_UNIT // size


def seat_records(history: History) -> dict[PlayerId, SeatRecord]:
    """Every player's seat record, from the results in round order."""
    records: dict[PlayerId, SeatRecord] = {}
    for res in sorted(history.results, key=lambda r: r.round):
        size = len(res.seats)
        for seat, player in enumerate(res.seats):
            record = records.get(player)
            if record is None:
                record = records[player] = SeatRecord()
            record.sat(seat, size)
    return records


def balanced_seats(record: SeatRecord | None, size: int) -> int:
    """The seats (a bit mask, bit s for seat s) at a table of `size` that keep the player in balance.

    0 when no seat does (the player is out of balance already, e.g. after tables of other sizes).
    """
    if record is None:
        return (1 << size) - 1
    owed = record.owed(size)
    off = [s for s, gap in enumerate(owed) if abs(gap) >= _SHARE_UNIT]
    if len(off) > 1:
        return 0
    if off:  # only sitting in that seat can bring it back within 1
        seat = off[0]
        return 1 << seat if seat < size and 0 < owed[seat] < 2 * _SHARE_UNIT else 0
    mask = 0
    for seat in range(size):
        if owed[seat] > 0:  # sitting there takes 1 off its gap: it must stay above −1
            mask |= 1 << seat
    return mask


@lru_cache(maxsize=65536)
def most_seated_in_balance(masks: tuple[int, ...], free: int) -> int:
    """How many players (each a mask of the seats that keep them in balance) can be seated in
    balance at once, in the seats of `free` (a maximum bipartite matching; tables are small)."""
    if not masks:
        return 0
    first, rest = masks[0], masks[1:]
    best = most_seated_in_balance(rest, free)
    choices = first & free
    while choices and best <= len(rest):
        bit = choices & -choices
        choices ^= bit
        best = max(best, 1 + most_seated_in_balance(rest, free & ~bit))
    return best


def due_seat(record: SeatRecord | None, final: bool = False) -> int:
    """Two-player seat preference: +2/−2 must sit in seat 0/1 next, +1/−1 would rather, 0 either.

    Absolute (FIDE-like) at a seat balance of ±2 or after the same seat twice running, and
    in the final round at a balance of ±1 as well, so seat-0 and seat-1 games end within
    one of each other; before that a ±1 gives way to the score groups rather than float a
    player. With equal counts, alternation from the last game is preferred.
    """
    if record is None or not record.recent:
        return 0
    balance, recent = record.balance, record.recent[-2:]
    if balance >= 2 or (recent == [0, 0] and balance > -2) or (final and balance > 0):
        return -2
    if balance <= -2 or recent == [1, 1] or (final and balance < 0):
        return 2
    if balance != 0:
        return -balance
    return 1 if recent[-1] == 1 else -1


def seat_two(higher: PlayerId, lower: PlayerId, records: Mapping[PlayerId, SeatRecord],
             board: int) -> tuple[PlayerId, PlayerId]:
    """Seat order for a two-player table: who is owed seat 0 gets it (FIDE-like colour rules).

    The order that keeps more of the two in balance (`SeatRecord`) wins; then an absolute
    preference of one player is honoured; otherwise the lower balance (seat-0 minus seat-1
    games) moves first; on equal balance, the one who sat in seat 1 in the
    latest round where the two differ; with identical histories, the higher-ranked
    player alternates from their last seat, or by board in round one.
    """
    empty = SeatRecord()
    a, b = records.get(higher, empty), records.get(lower, empty)
    keep_a, keep_b = balanced_seats(a, 2), balanced_seats(b, 2)
    as_given = (keep_a & 1) + (keep_b >> 1 & 1)  # players in balance after: higher first ...
    swapped = (keep_a >> 1 & 1) + (keep_b & 1)   # ... or lower first
    if as_given != swapped:  # balance first, so the seat counts never drift two apart
        return (higher, lower) if as_given > swapped else (lower, higher)
    due_a, due_b = due_seat(a), due_seat(b)
    if abs(due_a) == 2 and not (abs(due_b) == 2 and due_b == due_a):
        return (higher, lower) if due_a > 0 else (lower, higher)
    if abs(due_b) == 2:
        return (lower, higher) if due_b > 0 else (higher, lower)
    if a.balance != b.balance:
        return (higher, lower) if a.balance < b.balance else (lower, higher)
    for seat_a, seat_b in zip(reversed(a.recent), reversed(b.recent)):
        if seat_a != seat_b:
            return (higher, lower) if seat_a == 1 else (lower, higher)
    if a.recent:
        return (higher, lower) if a.recent[-1] == 1 else (lower, higher)
    return (higher, lower) if board % 2 == 0 else (lower, higher)


def seat_table(players: Sequence[PlayerId], records: Mapping[PlayerId, SeatRecord]) -> tuple[PlayerId, ...]:
    """Seat order for a table: as many players as possible kept in balance, each seat to whoever
    is most owed it.

    Seats are filled from seat 0 on. Each goes to the player with the largest gap between
    fair share and count in that seat, among those whose taking it still lets the most
    players be seated in balance (`most_seated_in_balance`); ties go to the player given
    first (rank order).
    """
    if len(players) == 2:
        return seat_two(players[0], players[1], records, 0)
    size = len(players)
    owed = [records[p].owed(size) if p in records else [_share_step(size)] * size for p in players]
    masks = [balanced_seats(records.get(p), size) for p in players]
    target = most_seated_in_balance(tuple(masks), (1 << size) - 1)
    left = list(range(size))
    seated_well, order = 0, []
    for seat in range(size):
        bit = 1 << seat
        later = ((1 << size) - 1) & ~((bit << 1) - 1)  # seats after this one
        for index in sorted(left, key=lambda i: (not masks[i] & bit, -owed[i][seat], i)):
            gain = 1 if masks[index] & bit else 0
            rest = tuple(masks[i] for i in left if i != index)
            if seated_well + gain + most_seated_in_balance(rest, later) == target:
                break
        left.remove(index)
        seated_well += gain
        order.append(players[index])
    return tuple(order)


# --- table sizes ----------------------------------------------------------------------------


def table_sizes(count: int, target: int, low: int, high: int) -> list[int] | None:
    """Balanced table sizes for `count` players (largest first), or None if no split is legal.

    Sizes differ by at most one and stay in low..high; among legal table counts the
    one closest to the target size wins (summed distance), then fewer tables.
    Example: 17 players, target 4, range 2..5 → [5, 4, 4, 4].
    """
    if count == 0:
        return []
    best: tuple[int, int] | None = None
    for tables in range(max(1, -(-count // high)), count // low + 1):
        small, extra = divmod(count, tables)
        if small < low or small + (extra > 0) > high:
            continue
        cost = extra * abs(small + 1 - target) + (tables - extra) * abs(small - target)
        if best is None or cost < best[0]:
            best = (cost, tables)
    if best is None:
        return None
    small, extra = divmod(count, best[1])
    return [small + 1] * extra + [small] * (best[1] - extra)


def split_with_byes(count: int, target: int, low: int, high: int) -> tuple[list[int], int]:
    """Table sizes for `count` players and the fewest byes that make a legal split."""
    for byes in range(count):
        sizes = table_sizes(count - byes, target, low, high)
        if sizes:
            return sizes, byes
    return [], count


# --- maximum matching (Edmonds' blossom algorithm) ------------------------------------------


def augment_matching(count: int, allowed: Callable[[int, int], bool], mate: list[int],
                     order: Sequence[int] | None = None) -> list[int]:
    """Grows `mate` (mate[v] = partner or -1) to a maximum matching of the `allowed` graph.

    Vertices are 0..count-1; neighbours are tried nearest index first, so augmenting
    paths stay local and a near-complete matching changes little. Exposed vertices
    are tried in `order` (default: index order). O(V^3) worst case, so callers start
    on a small window of the field and widen it only when that fails.
    """
    mate = list(mate)
    for root in (order if order is not None else range(count)):
        if mate[root] == -1:
            end, parent = _find_augmenting_path(count, allowed, mate, root)
            while end != -1:  # flip the path root ... end
                previous = parent[end]
                after = mate[previous]
                mate[end], mate[previous] = previous, end
                end = after
    return mate


def by_distance(index: int, count: int, reach: int | None = None) -> Iterator[int]:
    """The indexes 0..count-1 other than `index`, nearest first (the one above before the one
    below), up to `reach` away."""
    for step in range(1, count if reach is None else min(count, reach + 1)):
        if index + step < count:
            yield index + step
        if index - step >= 0:
            yield index - step
        if index + step >= count and index - step < 0:
            return


def _find_augmenting_path(count: int, allowed: Callable[[int, int], bool], mate: list[int],
                          root: int) -> tuple[int, list[int]]:
    parent = [-1] * count
    base = list(range(count))
    used = [False] * count
    used[root] = True
    queue = [root]
    head = 0

    def lowest_common_ancestor(a: int, b: int) -> int:
        seen = [False] * count
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark_path(vertex: int, blossom_base: int, child: int, blossom: list[bool]) -> None:
        while base[vertex] != blossom_base:
            blossom[base[vertex]] = blossom[base[mate[vertex]]] = True
            parent[vertex] = child
            child = mate[vertex]
            vertex = parent[mate[vertex]]

    while head < len(queue):
        vertex = queue[head]
        head += 1
        for to in by_distance(vertex, count):
            if base[vertex] == base[to] or mate[vertex] == to or not allowed(vertex, to):
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                blossom_base = lowest_common_ancestor(vertex, to)
                blossom = [False] * count
                mark_path(vertex, blossom_base, to, blossom)
                mark_path(to, blossom_base, vertex, blossom)
                for other in range(count):
                    if blossom[base[other]]:
                        base[other] = blossom_base
                        if not used[other]:
                            used[other] = True
                            queue.append(other)
            elif parent[to] == -1:
                parent[to] = vertex
                if mate[to] == -1:
                    return to, parent
                used[mate[to]] = True
                queue.append(mate[to])
    return -1, parent


# --- small helpers --------------------------------------------------------------------------


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def ceil_log(count: int, base: int) -> int:
    """The smallest r ≥ 1 with base**r ≥ count (rounds for a knockout-like reduction)."""
    rounds, reach = 1, base
    while reach < count:
        rounds += 1
        reach *= base
    return rounds


def next_power_of_two(count: int) -> int:
    return 1 << max(0, math.ceil(math.log2(max(count, 1))))
