"""Standings across a series of tournaments (a circuit, a grand prix). Pure: no Django, no I/O.

A series reads the final placings of its finished events and gives each player points by
finishing place, from a points table per tier (sendou-ink#2243's circuit: 1000/600/400/200 for
tier 1, lower for smaller tiers). The rules, where the issue (#46) leaves the choice to us:

- Places past the end of a tier's table score 0.
- Shared places: k players sharing place p cover places p … p + k − 1 and each scores the mean
  of those places' points (two sharing 2nd of 1000/600/400/200 score 500 each), so a tie hands
  out exactly what the places would have. Places follow competition ranking (1, 2, 2, 4): the
  places a tie covers are given to nobody else.
- Field size (`field_scaling`, off unless set): a place's points are multiplied by
  min(1, rounds(field) / rounds(field_scaling)), where rounds(n) = ⌈log₂ n⌉ is the number of
  won rounds it takes to come first among n (a single-elimination bracket's rounds, Swiss's
  rounds to single out a winner). Winning twice the field takes one more won round, not twice
  the work, so the scale grows with the doublings; it stays a ratio of integers, so totals are
  exact; and it never goes above 1, so a table's numbers are the most an event of its tier
  gives. An event of one player scores nothing scaled (it took no won round).
- Withdrawals: a player who left an event before its end (withdrew, or was dropped after
  playing) keeps the final place the event gave them and scores it, as an event's own
  standings keep withdrawn players in place (tournaments/standings.py). A player forfeited out
  without playing a game (a no-show) or disqualified scores nothing for that event: their
  result is listed as void, is not an event played and never counts. Places are the event's:
  the series does not move anyone up around them.
- Best N (`best`): each player's N highest-scoring results count and the rest are dropped
  (all count when `best` is None); of equal points the lower event id counts, so the marks do
  not depend on the order events come in.
- Corrections: an event may come more than once, each with a `revision` (its position in the
  league log, say); the highest revision replaces the others whole (placings, tier and field).
- Ties in the series, in order: more counting points; then countback, every played result's
  points best first, compared one by one (a better dropped result breaks a tie: the same
  totals, but one player did more); then head-to-head among the players still tied, each
  scoring +1 for every (event, other tied player) they finished ahead of and −1 behind, in
  events where both have a played result. Players still equal share a rank (1, 2, 2, 4) and are
  listed by player id, so the rows are the same whatever the order of the events.

Points are exact `Fraction`s (`str()` them for JSON, as `standings_json` does). Player ids and
event ids are ints or strings, of one kind within a series.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal, TypedDict

# Ids are opaque to the series, but full ties and equal results are ordered by them, so the ids of
# one series must be of one kind (all ints, or all strings).
PlayerId = int | str
EventId = int | str
Status = Literal["finished", "withdrawn", "forfeited", "disqualified"]
Mark = Literal["counting", "dropped", "void"]

_STATUSES: frozenset[str] = frozenset({"finished", "withdrawn", "forfeited", "disqualified"})
# Statuses whose result scores nothing and is no event played (see the module docstring).
_VOID: frozenset[str] = frozenset({"forfeited", "disqualified"})

# A circuit's table after sendou-ink#2243 (its tiers 1 to 3): a series created without a table
# of its own starts from this one.
CIRCUIT_POINTS: Mapping[int, tuple[int, ...]] = {
    1: (1000, 600, 400, 200),
    2: (500, 300, 200, 100),
    3: (250, 150, 100, 50),
}


# --- inputs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeriesRules:
    """A series' points table by tier, how many results count, and the field-size scaling.

    `points[tier][i]` is what place i + 1 scores at an event of that tier. `best`: the number of
    results that count (None: all). `field_scaling`: the field size from which places score in
    full (None: no scaling).
    """

    points: Mapping[int, tuple[int, ...]] = field(default_factory=lambda: dict(CIRCUIT_POINTS))
    best: int | None = None
    field_scaling: int | None = None

    def __post_init__(self) -> None:
        table = {tier: tuple(row) for tier, row in dict(self.points).items()}
        object.__setattr__(self, "points", table)
        if not table:
            raise ValueError("a series' points table needs at least one tier")
        for tier, row in table.items():
            if not _is_int(tier) or tier < 1:
                raise ValueError(f"a tier is a positive integer, not {tier!r}")
            if not row or not all(_is_int(value) and value >= 0 for value in row):
                raise ValueError(f"tier {tier}'s points must be one or more whole numbers, none negative: {row!r}")
            if any(later > earlier for earlier, later in zip(row, row[1:])):
                raise ValueError(f"tier {tier}'s points rise with a worse place: {row!r}")
        if self.best is not None and (not _is_int(self.best) or self.best < 1):
            raise ValueError(f"best N must be a positive integer (or None: all results count), not {self.best!r}")
        if self.field_scaling is not None and (not _is_int(self.field_scaling) or self.field_scaling < 2):
            raise ValueError(f"field_scaling is the field size of full points, at least 2, not {self.field_scaling!r}")


@dataclass(frozen=True)
class Placing:
    """One player's final place at an event, and how they left it (see the module docstring)."""

    player: PlayerId
    place: int
    status: Status = "finished"


@dataclass(frozen=True)
class EventPlacings:
    """A finished event's final placings as the series reads them.

    `field_size`: players in the event (the placings may name fewer). `revision`: a correction
    comes again with a higher revision and replaces this one.
    """

    event: EventId
    tier: int
    field_size: int
    placings: tuple[Placing, ...]
    revision: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "placings", tuple(self.placings))
        if not _is_int(self.field_size) or self.field_size < 1:
            raise ValueError(f"event {self.event!r}: the field size must be a positive integer, not {self.field_size!r}")
        if not _is_int(self.revision) or self.revision < 0:
            raise ValueError(f"event {self.event!r}: a revision is a whole number, not {self.revision!r}")
        if len(self.placings) > self.field_size:
            raise ValueError(f"event {self.event!r} places {len(self.placings)} players in a field of {self.field_size}")
        players = [placing.player for placing in self.placings]
        if len(set(players)) != len(players):
            raise ValueError(f"event {self.event!r} places a player twice")
        for placing in self.placings:
            if placing.status not in _STATUSES:
                raise ValueError(f"event {self.event!r}: unknown status {placing.status!r} for {placing.player!r}")
            if not _is_int(placing.place) or not 1 <= placing.place <= self.field_size:
                raise ValueError(f"event {self.event!r}: place {placing.place!r} for {placing.player!r} is not "
                                 f"within the field of {self.field_size}")
        sharing = self.sharing()
        taken = set(sharing)
        for place, count in sharing.items():
            if place + count - 1 > self.field_size:
                raise ValueError(f"event {self.event!r}: {count} players sharing place {place} run past the field of "
                                 f"{self.field_size}")
            covered = taken.intersection(range(place + 1, place + count))
            if covered:
                raise ValueError(f"event {self.event!r}: {count} players share place {place}, so place "
                                 f"{min(covered)} is theirs (competition ranking: 1, 2, 2, 4)")

    def sharing(self) -> dict[int, int]:
        """How many players hold each place given."""
        counts: dict[int, int] = {}
        for placing in self.placings:
            counts[placing.place] = counts.get(placing.place, 0) + 1
        return counts


def placings(event: EventId, tier: int, field_size: int, places: Mapping[PlayerId, int], *,
             status: Mapping[PlayerId, Status] | None = None, revision: int = 0) -> EventPlacings:
    """Builder: `placings("spring", 1, 8, {"a": 1, "b": 2})`; `status` names the players not "finished"."""
    given = status or {}
    unknown = set(given) - set(places)
    if unknown:
        raise ValueError(f"event {event!r}: a status for players not placed: {sorted(map(repr, unknown))}")
    rows = tuple(Placing(player, place, given.get(player, "finished")) for player, place in places.items())
    return EventPlacings(event, tier, field_size, rows, revision)


class SeriesRulesJson(TypedDict):
    points: dict[str, list[int]]
    best: int | None
    field_scaling: int | None


def rules_json(rules: SeriesRules) -> SeriesRulesJson:
    """The rules as stored and logged: tiers as JSON's string keys, in order."""
    return {"points": {str(tier): list(rules.points[tier]) for tier in sorted(rules.points)},
            "best": rules.best, "field_scaling": rules.field_scaling}


def rules_from_json(data: object) -> SeriesRules:
    """`rules_json`'s shape read back and checked (ValueError naming what is wrong); keys left
    out take their defaults (the circuit's table, all results counting, no scaling)."""
    if not isinstance(data, Mapping):
        raise ValueError("the rules are an object with points, best and field_scaling")
    unknown = sorted(set(map(str, data)) - {"points", "best", "field_scaling"})
    if unknown:
        raise ValueError(f"the rules have no {', '.join(unknown)}: only points, best and field_scaling")
    points: Mapping[int, tuple[int, ...]] = CIRCUIT_POINTS
    if "points" in data:
        raw = data["points"]
        if not isinstance(raw, Mapping):
            raise ValueError("points: an object of tiers, each a list of points by place")
        table: dict[int, tuple[int, ...]] = {}
        for tier, row in raw.items():
            key = str(tier)
            if not key.isdigit() or not isinstance(row, list | tuple):
                raise ValueError(f"points: tier {tier!r} is not a whole number with a list of points")
            table[int(key)] = tuple(row)
        points = table
    return SeriesRules(points=points, best=data.get("best"), field_scaling=data.get("field_scaling"))


class StandingFacts(TypedDict):
    """What `event_placings` reads of an event's standings row (`tournaments.fold.standings` and
    the standings projection both have it)."""

    entrant: int
    rank: int
    place: int | None
    played: int
    forfeits: int
    withdrawn: bool
    disqualified: bool


def event_placings(event: EventId, tier: int, rows: Sequence[StandingFacts], players: Mapping[int, PlayerId], *,
                   revision: int = 0) -> EventPlacings:
    """A finished tournament's final standings as the series reads them: every row of the field
    (`players` names each entrant as the series does), placed by the bracket's place where the
    format has one, else by rank. Disqualified: void. A player who played no game (every table
    they had went against them by forfeit, or they left before their first) was forfeited out:
    void. Withdrawn after playing: keeps the place. Everyone else finished."""
    placed = []
    for row in rows:
        status: Status = "finished"
        if row["disqualified"]:
            status = "disqualified"
        elif row["played"] == row["forfeits"] and (row["withdrawn"] or row["played"] > 0):
            status = "forfeited"
        elif row["withdrawn"]:
            status = "withdrawn"
        place = row["place"] if row["place"] is not None else row["rank"]
        placed.append(Placing(players[row["entrant"]], place, status))
    return EventPlacings(event, tier, max(1, len(rows)), tuple(placed), revision)


# --- outputs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeriesResult:
    """One event's result in a player's row: their place, its points, and whether it counts."""

    event: EventId
    tier: int
    field_size: int
    place: int
    shared: int  # players holding this place (1: alone)
    status: Status
    points: Fraction
    mark: Mark


@dataclass(frozen=True)
class SeriesStanding:
    """One row of the series standings: results best first (void ones last)."""

    rank: int
    player: PlayerId
    total: Fraction
    played: int
    counting: int
    head_to_head: int  # the tie-break's score among the players tied before it (0 when untied)
    results: tuple[SeriesResult, ...]


class SeriesResultJson(TypedDict):
    event: EventId
    tier: int
    field_size: int
    place: int
    shared: int
    status: str
    points: str
    mark: str


class SeriesStandingJson(TypedDict):
    rank: int
    player: PlayerId
    total: str
    played: int
    counting: int
    head_to_head: int
    results: list[SeriesResultJson]


# --- the standings --------------------------------------------------------------------------


def place_points(rules: SeriesRules, tier: int, field_size: int, place: int, shared: int = 1) -> Fraction:
    """What `shared` players holding `place` at an event of `tier` and `field_size` each score."""
    table = _table(rules, tier)
    covered = [table[index] if index < len(table) else 0 for index in range(place - 1, place - 1 + shared)]
    return Fraction(sum(covered), shared) * field_scale(rules, field_size)


def field_scale(rules: SeriesRules, field_size: int) -> Fraction:
    """min(1, ⌈log₂ field⌉ / ⌈log₂ field_scaling⌉), or 1 without scaling (see the module docstring)."""
    if rules.field_scaling is None:
        return Fraction(1)
    return min(Fraction(1), Fraction(_rounds_to_win(field_size), _rounds_to_win(rules.field_scaling)))


def latest(events: Iterable[EventPlacings]) -> dict[EventId, EventPlacings]:
    """Each event's highest revision (a correction replaces what it corrects)."""
    chosen: dict[EventId, EventPlacings] = {}
    for placed in events:
        held = chosen.get(placed.event)
        if held is not None and held.revision == placed.revision:
            raise ValueError(f"event {placed.event!r} comes twice as revision {placed.revision}: which one counts?")
        if held is None or placed.revision > held.revision:
            chosen[placed.event] = placed
    return chosen


def series_standings(rules: SeriesRules, events: Iterable[EventPlacings]) -> list[SeriesStanding]:
    """The series standings, best first; players equal on every tie-break share a rank (1, 2, 2, 4)."""
    current = latest(events)
    _orderable("event ids", current)
    scored: dict[PlayerId, list[SeriesResult]] = {}
    places: dict[EventId, dict[PlayerId, int]] = {}
    for event_id, placed in current.items():
        _table(rules, placed.tier)  # an unknown tier is refused even with no placings
        sharing = placed.sharing()
        places[event_id] = {p.player: p.place for p in placed.placings if p.status not in _VOID}
        for placing in placed.placings:
            shared = sharing[placing.place]
            points = (Fraction(0) if placing.status in _VOID
                      else place_points(rules, placed.tier, placed.field_size, placing.place, shared))
            # Marked "void" for now: `_marked` marks the played ones once a player's results are all in.
            scored.setdefault(placing.player, []).append(SeriesResult(
                event_id, placed.tier, placed.field_size, placing.place, shared, placing.status, points, "void"))
    _orderable("player ids", scored)
    rows = {player: _marked(rules, results) for player, results in scored.items()}
    merit = {player: (_total(results), _countback(results)) for player, results in rows.items()}
    duels = _head_to_head(merit, places)
    ranking = {player: (*merit[player], duels[player]) for player in rows}
    # Full ties by player id: a stable order that no event order can change.
    ordered = sorted(rows, key=lambda player: (_Descending(ranking[player]), player))
    standings: list[SeriesStanding] = []
    for position, player in enumerate(ordered, start=1):
        results = rows[player]
        tied = bool(standings) and ranking[player] == ranking[standings[-1].player]
        standings.append(SeriesStanding(
            rank=standings[-1].rank if tied else position, player=player, total=merit[player][0],
            played=sum(1 for res in results if res.mark != "void"),
            counting=sum(1 for res in results if res.mark == "counting"),
            head_to_head=duels[player], results=results,
        ))
    return standings


def standings_json(standings: Sequence[SeriesStanding]) -> list[SeriesStandingJson]:
    """The standings as JSON-ready rows (points as exact fraction strings, as the event standings)."""
    return [
        {
            "rank": row.rank, "player": row.player, "total": str(row.total), "played": row.played,
            "counting": row.counting, "head_to_head": row.head_to_head,
            "results": [
                {"event": res.event, "tier": res.tier, "field_size": res.field_size, "place": res.place,
                 "shared": res.shared, "status": res.status, "points": str(res.points), "mark": res.mark}
                for res in row.results
            ],
        }
        for row in standings
    ]


# --- helpers --------------------------------------------------------------------------------


class _Descending:
    """Wraps a sort key so that larger sorts first (tuples of Fractions and tuples can't be negated)."""

    __slots__ = ("key",)

    def __init__(self, key: tuple[Any, ...]) -> None:
        self.key = key

    def __lt__(self, other: _Descending) -> bool:
        return bool(self.key > other.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Descending) and bool(self.key == other.key)

    def __hash__(self) -> int:
        return hash(self.key)


def _table(rules: SeriesRules, tier: int) -> tuple[int, ...]:
    try:
        return rules.points[tier]
    except KeyError:
        known = ", ".join(str(known) for known in sorted(rules.points))
        raise ValueError(f"unknown tier {tier!r} (the series' points table has tiers {known})") from None


def _rounds_to_win(field_size: int) -> int:
    """⌈log₂ n⌉ in integers: 0 for a field of one, 1 for two, 2 for three or four, ..."""
    return (field_size - 1).bit_length()


def _marked(rules: SeriesRules, results: list[SeriesResult]) -> tuple[SeriesResult, ...]:
    """A player's results best first, the best N marked counting, the other played ones dropped."""
    played = sorted((res for res in results if res.status not in _VOID), key=lambda res: (-res.points, res.event))
    void = sorted((res for res in results if res.status in _VOID), key=lambda res: res.event)
    keep = len(played) if rules.best is None else rules.best
    return tuple(
        [replace(res, mark="counting" if index < keep else "dropped") for index, res in enumerate(played)] + void
    )


def _total(results: Sequence[SeriesResult]) -> Fraction:
    return sum((res.points for res in results if res.mark == "counting"), Fraction(0))


def _countback(results: Sequence[SeriesResult]) -> tuple[Fraction, ...]:
    """Played results' points best first, trailing zeros cut so that a scoreless result adds nothing."""
    points = [res.points for res in results if res.mark != "void"]
    while points and points[-1] == 0:
        points.pop()
    return tuple(points)


def _head_to_head(merit: Mapping[PlayerId, tuple[Fraction, tuple[Fraction, ...]]],
                  places: Mapping[EventId, Mapping[PlayerId, int]]) -> dict[PlayerId, int]:
    """Each player's score against the others tied with them on total and countback (0 if alone)."""
    groups: dict[tuple[Fraction, tuple[Fraction, ...]], list[PlayerId]] = {}
    for player, key in merit.items():
        groups.setdefault(key, []).append(player)
    duels = dict.fromkeys(merit, 0)
    for group in groups.values():
        if len(group) < 2:
            continue
        for placed in places.values():
            present = [player for player in group if player in placed]
            for player in present:
                mine = placed[player]
                duels[player] += sum((mine < placed[other]) - (mine > placed[other]) for other in present)
    return duels


def _orderable(what: str, ids: Iterable[PlayerId]) -> None:
    try:
        sorted(ids)  # mixed kinds raise here
    except TypeError:
        raise ValueError(f"{what} must be of one kind (all ints, or all strings)") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
