"""Read models of a tournament, folded from its event stream (eventsourcing's `Tracking`).

Two folds of one stream, which must agree:

- `fold(events)` is the pure fold: a JSON-ready dict holding the whole tournament. It decides
  nothing on the hot path; it is what a rebuild starts from and what the tests compare with.
- `apply(tournament, event)` is the incremental projection, run in the appending transaction:
  each event writes only the rows it touches (an entrant's row, a round's, a table's, the
  standing rows of the players it seats), so registering or recording a result costs the same
  whatever the field's size. `state_of(tournament)` reads the same dict back from those rows
  (once per round, for pairing and the organiser's corrections).

The standings rows follow one rule in both folds (`standings_after`): a registration (or a
promotion from the waitlist), a withdrawal (or a missed check-in, or a drop by the no-show rule)
and a table's first result change only the rows of the players concerned (their points, games
and flags); every other event that changes the standings (the start, a pairing
with its byes, a round completed, a correction, a disqualification, the end) ranks the whole
table again, tie-breaks that depend on opponents (Buchholz, Sonneborn–Berger) included. So
between two of those, positions and tie-breaks are those of the last ranking and points are
live; when a round completes the table is exact. `rebuild` folds the log purely and writes
every row again: it must give the same rows.

Event types and their data:

- TournamentCreated {name, game, format, options, match_options, starts_at, round_seconds,
  clock_seconds, rated, organiser, seed_sha256, contributed_shuffle?, field_rules?}
  (field_rules: `field_rules.FieldRules`)
- PlayerRegistered {entrant, name, user, bot}
- PlayerWithdrawn {entrant, from_round, rule?, why?}   (from_round null: before the start)
- TournamentStarted {field, ratings, start?, rounds?}   (field: entrant ids, organiser's order; start: the
  first matchday's date of a league created without one, the day it started; rounds: a Swiss open to
  late entry fixes its number of rounds from the field at the start)

The field's decisions (`field_rules`), each naming its `rule` (a key of `field_rules.RULES`) and `why`:

- PlayerWaitlisted {entrant, name, user, bot, rule, why}   (registered past max_entrants)
- PlayerCheckedIn {entrant, rule, why}
- PlayerPromoted {entrant, rule, why}             (from the waitlist into the field, before the start)
- CheckInMissed {entrant, rule, why}              (dropped at the start: out of the field)
- WaitlistClosed {entrants, rule, why}            (at the start: those still waiting are not admitted)
- PlayerLateEntered {entrant, name, user, bot, first_round, rating, bye_round, rule, why}
  (joins the field of a running Swiss; bye_round: the missed round they score a bye in, or null)
- PlayerReentered {entrant, from_round, rule, why}   (a dropped player is paired again from from_round)
- PlayerDropped {entrant, from_round, rule, why}  (dropped by a rule: the no-show limit)
- NoShowsForfeited {round, tables: [{table, ranks | team_score, forfeited}], rule, why}
- RoundPaired {round, tables: [{table, seats, bracket, deal, seed_sha256?}], byes, starts_at, date, quality}
  (`seed_sha256`: a contributed shuffle's commitment, in tournaments that have them)
  (quality: the round's pairing-quality report, `pairing_check.round_report`; absent in older events)
- RoundUnpaired {round, reason}                   (a round not started is paired again)
- TablesStarted {round, tables: [{table, match}]}    (a batch of a big round's tables opened)
- RoundStarted {round, tables: [{table, match}], deadline}   (the last batch: the round is on)
- TableResult {round, table, match, ranks | team_score, forfeited}   (from the match)
- ForfeitAwarded {round, table, ranks, forfeited, reason}           (by the organiser)
- ResultCorrected {round, table, ranks | team_score, forfeited, reason}
- PlayerDisqualified {entrant, from_round, reason}
- RoundDeadlinePassed {round, tables: [{table, absent}]}
- RoundCompleted {round}
- TournamentFinished {standings: [{rank, place, entrant, points}], champion}
- TournamentCancelled {reason}
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.utils.dateparse import parse_date, parse_datetime

from tournaments.formats import FORMATS, Entrant, Format, History, Options, Result
from tournaments import standings as _standings
from tournaments.formats import Bye as _Bye

State = dict[str, Any]


# --- the pure fold ----------------------------------------------------------------------------


def empty_state() -> State:
    return {
        "status": "registration",
        "game": "",
        "format": "",
        "options": {},
        "organiser": None,
        "entrants": {},
        "order": [],
        "field": [],
        "ratings": {},
        "withdrawn": {},
        "disqualified": {},
        "waitlist": [],
        "checked_in": [],
        "field_rules": {},
        "rounds": {},
        "unpaired": {},
        "started_at": None,
        "finished_at": None,
        "champion": None,
        "last_seq": 0,
    }


def evolve(state: State, event: dict[str, Any]) -> State:
    """The state after one event (`{seq, type, data, created}`); the input is not changed."""
    return fold([event], state)


def fold(events: Iterable[dict[str, Any]], state: State | None = None) -> State:
    """The state after these events, in order; the input is not changed."""
    new = copy.deepcopy(state) if state else empty_state()
    for event in events:
        _fold_in_place(new, event)
    return new


def _fold_in_place(state: State, event: dict[str, Any]) -> None:
    handler = _HANDLERS.get(event["type"])
    if handler is not None:
        handler(state, event["data"], event)
    state["last_seq"] = event["seq"]


def _created(state: State, data: dict, event: dict) -> None:
    state.update(
        status="registration",
        game=data["game"],
        format=data["format"],
        options=data["options"],
        organiser=data["organiser"],
        field_rules=dict(data.get("field_rules") or {}),
    )


def _registered(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key] = {
        "name": data["name"],
        "user": data["user"],
        "bot": data["bot"],
        "status": "active",
    }
    if data["entrant"] not in state["order"]:
        state["order"].append(data["entrant"])


def _withdrawn(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "withdrawn"
    if data["from_round"] is None:  # before the start: simply not in the field (nor waiting)
        _out_of(state, data["entrant"])
    else:
        state["withdrawn"][key] = data["from_round"]


def _out_of(state: State, entrant: int) -> None:
    for name in ("order", "waitlist", "checked_in"):
        if entrant in state[name]:
            state[name].remove(entrant)


def _waitlisted(state: State, data: dict, event: dict) -> None:
    state["entrants"][str(data["entrant"])] = {
        "name": data["name"], "user": data["user"], "bot": data["bot"], "status": "waitlisted",
    }
    _out_of(state, data["entrant"])
    state["waitlist"].append(data["entrant"])


def _checked_in(state: State, data: dict, event: dict) -> None:
    if data["entrant"] not in state["checked_in"]:
        state["checked_in"] = sorted([*state["checked_in"], data["entrant"]])


def _promoted(state: State, data: dict, event: dict) -> None:
    state["entrants"][str(data["entrant"])]["status"] = "active"
    state["waitlist"].remove(data["entrant"])
    state["order"].append(data["entrant"])


def _waitlist_closed(state: State, data: dict, event: dict) -> None:
    for entrant in data["entrants"]:
        state["entrants"][str(entrant)]["status"] = "not_admitted"
        _out_of(state, entrant)


def _late_entered(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key] = {"name": data["name"], "user": data["user"], "bot": data["bot"], "status": "active"}
    _out_of(state, data["entrant"])
    state["order"].append(data["entrant"])
    state["field"].append(data["entrant"])
    state["ratings"][key] = data.get("rating")
    if data.get("bye_round") is not None:
        state["rounds"][str(data["bye_round"])]["byes"].append(data["entrant"])


def _reentered(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "active"
    state["withdrawn"].pop(key, None)


def _no_shows_forfeited(state: State, data: dict, event: dict) -> None:
    for forfeit in data["tables"]:
        table = table_of(state, data["round"], forfeit["table"])
        table["result"] = no_show_result(forfeit, data)
        table["result_seq"] = event["seq"]


def no_show_result(forfeit: dict, data: dict) -> dict[str, Any]:
    """One table's result as NoShowsForfeited sets it (`result_of`'s shape)."""
    return {
        "ranks": forfeit.get("ranks"),
        "team_score": forfeit.get("team_score"),
        "forfeited": sorted(forfeit["forfeited"]),
        "source": "NoShowsForfeited",
        "reason": data.get("why", ""),
    }


def _disqualified(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "disqualified"
    state["disqualified"][key] = data["from_round"]


def _started(state: State, data: dict, event: dict) -> None:
    if data.get("start"):  # a league's first matchday, fixed at the start (services._start)
        state["options"] = {**state["options"], "start": data["start"]}
    if data.get("rounds"):  # a Swiss open to late entry: its length does not grow with the field
        state["options"] = {**state["options"], "rounds": data["rounds"]}
    state.update(
        status="running",
        field=list(data["field"]),
        ratings=dict(data["ratings"]),
        started_at=event["created"],
    )


def _paired(state: State, data: dict, event: dict) -> None:
    tables = [
        {
            "table": t["table"],
            "seats": list(t["seats"]),
            "bracket": t.get("bracket") or "",
            "deal": t.get("deal"),
            "match": None,
            "absent": [],
            "result": None,
            "result_seq": None,
        }
        for t in data["tables"]
    ]
    state["rounds"][str(data["round"])] = {
        "number": data["round"],
        "tables": tables,
        "byes": list(data["byes"]),
        "starts_at": data["starts_at"],
        "date": data.get("date"),
        "quality": data.get("quality"),
        "started_at": None,
        "deadline": None,
        "deadline_passed_at": None,
        "completed_at": None,
    }


def _unpaired(state: State, data: dict, event: dict) -> None:
    key = str(data["round"])
    state["rounds"].pop(key, None)
    state["unpaired"][key] = state["unpaired"].get(key, 0) + 1


def _tables_started(state: State, data: dict, event: dict) -> None:
    rnd = state["rounds"][str(data["round"])]
    matches = {t["table"]: t["match"] for t in data["tables"]}
    for table in rnd["tables"]:
        if table["table"] in matches:
            table["match"] = matches[table["table"]]


def _round_started(state: State, data: dict, event: dict) -> None:
    _tables_started(state, data, event)
    state["rounds"][str(data["round"])].update(started_at=event["created"], deadline=data.get("deadline"))


def _result(state: State, data: dict, event: dict) -> None:
    table = table_of(state, data["round"], data["table"])
    table["result"] = result_of(event)
    table["result_seq"] = event["seq"]


def result_of(event: dict) -> dict[str, Any]:
    """A table's result as a result event (TableResult, ForfeitAwarded, ResultCorrected) sets it."""
    data = event["data"]
    return {
        "ranks": data.get("ranks"),
        "team_score": data.get("team_score"),
        "forfeited": sorted(data.get("forfeited") or []),
        "source": event["type"],
        "reason": data.get("reason", ""),
    }


def _deadline_passed(state: State, data: dict, event: dict) -> None:
    rnd = state["rounds"][str(data["round"])]
    rnd["deadline_passed_at"] = event["created"]
    absent = {t["table"]: t["absent"] for t in data["tables"]}
    for table in rnd["tables"]:
        table["absent"] = sorted(absent.get(table["table"], []))


def _round_completed(state: State, data: dict, event: dict) -> None:
    state["rounds"][str(data["round"])]["completed_at"] = event["created"]


def _finished(state: State, data: dict, event: dict) -> None:
    state.update(status="finished", finished_at=event["created"], champion=data.get("champion"))


def _cancelled(state: State, data: dict, event: dict) -> None:
    state.update(status="cancelled", finished_at=event["created"])


_HANDLERS: dict[str, Callable[[State, dict, dict], None]] = {
    "TournamentCreated": _created,
    "PlayerRegistered": _registered,
    "PlayerWithdrawn": _withdrawn,
    "PlayerWaitlisted": _waitlisted,
    "PlayerCheckedIn": _checked_in,
    "PlayerPromoted": _promoted,
    "CheckInMissed": _withdrawn,
    "WaitlistClosed": _waitlist_closed,
    "PlayerLateEntered": _late_entered,
    "PlayerReentered": _reentered,
    "PlayerDropped": _withdrawn,
    "NoShowsForfeited": _no_shows_forfeited,
    "PlayerDisqualified": _disqualified,
    "TournamentStarted": _started,
    "RoundPaired": _paired,
    "RoundUnpaired": _unpaired,
    "TablesStarted": _tables_started,
    "RoundStarted": _round_started,
    "TableResult": _result,
    "ForfeitAwarded": _result,
    "ResultCorrected": _result,
    "RoundDeadlinePassed": _deadline_passed,
    "RoundCompleted": _round_completed,
    "TournamentFinished": _finished,
    "TournamentCancelled": _cancelled,
}


# --- reading the state ------------------------------------------------------------------------


def table_of(state: State, round_number: int, table_number: int) -> dict[str, Any]:
    for table in state["rounds"][str(round_number)]["tables"]:
        if table["table"] == table_number:
            return table
    raise KeyError((round_number, table_number))


def rounds_in_order(state: State) -> list[dict[str, Any]]:
    return [state["rounds"][key] for key in sorted(state["rounds"], key=int)]


def format_of(state: State) -> Format:
    return FORMATS[state["format"]]


def format_options(state: State, *, seed: int | None = None) -> Options:
    """The validated options the format is called with (the tournament's seed for pairing)."""
    raw = dict(state["options"])
    if seed is not None:
        raw["seed"] = seed
    return format_of(state).options(raw)


def bracket_format(state: State, options: Options) -> Format:
    """The format that draws a bracket or places players: the league's inner format for a league."""
    fmt = format_of(state)
    if fmt.slug == "league":
        return fmt.inner(options)  # type: ignore[attr-defined]
    return fmt


def entrants(state: State) -> list[Entrant]:
    """The field in the organiser's order, with the ratings frozen at the start."""
    ids = state["field"] if state["status"] != "registration" else state["order"]
    return [Entrant(entrant, state["ratings"].get(str(entrant))) for entrant in ids]


def history(state: State, *, upto_round: int | None = None) -> History:
    """The formats' History: every recorded result, the byes given, who left and from when."""
    results, byes = [], []
    for rnd in rounds_in_order(state):
        if upto_round is not None and rnd["number"] > upto_round:
            continue
        for player in rnd["byes"]:
            byes.append(_Bye(rnd["number"], player))
        for table in rnd["tables"]:
            res = table["result"]
            if res is None:
                continue
            results.append(
                Result(
                    rnd["number"],
                    tuple(table["seats"]),
                    None if res["ranks"] is None else tuple(res["ranks"]),
                    res["team_score"],
                    frozenset(res["forfeited"]),
                    table["bracket"] or None,
                )
            )
    return History(
        results=tuple(results),
        byes=tuple(byes),
        withdrawn={int(k): v for k, v in state["withdrawn"].items()},
        disqualified={int(k): v for k, v in state["disqualified"].items()},
    )


def standings(state: State) -> list[dict[str, Any]]:
    """The standings table as rows (best first); bracket formats add each player's place."""
    field = entrants(state)
    if not field:
        return []
    fmt, options = format_of(state), format_options(state)
    past = history(state)
    rows = fmt.standings(field, options, past)
    places: dict[Any, int] = {}
    placing = bracket_format(state, options)
    if state["status"] != "registration" and len(field) >= 2 and hasattr(placing, "placements"):
        places = dict(placing.placements(field, options, past))  # type: ignore[attr-defined]
    order = {row.player: index for index, row in enumerate(rows)}
    ranks = {row.player: row.rank for row in rows}
    team_sums: dict[Any, float] = {}
    for res in past.results:  # summed in the order results come, as `standings_after` adds them
        if res.team_score is not None:
            for player in res.seats:
                team_sums[player] = team_sums.get(player, 0) + res.team_score
    if places:
        # A bracket ranks by how far each player got: players still in are ahead of everyone out
        # (rank 1 until they are placed); points and tie-breaks only order the rows within a place.
        rows = sorted(rows, key=lambda row: (places.get(row.player, 0), order[row.player]))
        ranks = {row.player: places.get(row.player, 1) for row in rows}
    return [
        {
            "entrant": row.player,
            "rank": ranks[row.player],
            "place": places.get(row.player),
            "points": str(row.points),
            "played": row.played,
            "wins": row.wins,
            "draws": row.draws,
            "losses": row.losses,
            "byes": row.byes,
            "forfeits": row.forfeits,
            "buchholz": str(row.buchholz),
            "sonneborn_berger": str(row.sonneborn_berger),
            "rating": row.rating,
            "mean_team_score": row.mean_team_score,
            "team_score_sum": team_sums.get(row.player),
            "withdrawn": row.withdrawn,
            "disqualified": row.disqualified,
        }
        for row in rows
    ]


def as_fraction(text: str) -> Fraction:
    return Fraction(text)


# --- the standings rows, event by event (one rule for both folds) ----------------------------

# Events after which the whole table is ranked again; the others change a few rows or none.
RANKED_AFTER = frozenset(
    {
        "TournamentStarted",
        "PlayerDisqualified",
        "RoundPaired",
        "RoundUnpaired",
        "ForfeitAwarded",
        "ResultCorrected",
        "RoundCompleted",
        "TournamentFinished",
        "TournamentCancelled",
        "PlayerLateEntered",
        "PlayerReentered",
        "NoShowsForfeited",
    }
)
# Events by which a player leaves (`PlayerWithdrawn`'s data): before the start their row goes,
# after it their row is marked withdrawn.
LEAVING = frozenset({"PlayerWithdrawn", "CheckInMissed", "PlayerDropped"})
# Events by which a player comes into the field before the start: a blank row at the end.
JOINING = frozenset({"PlayerRegistered", "PlayerPromoted"})
Row = dict[str, Any]


def blank_row(entrant: int) -> Row:
    """A new entrant's row: no games yet, ranked with everyone else before the start (rank 1)."""
    return {
        "entrant": entrant,
        "rank": 1,
        "place": None,
        "points": "0",
        "played": 0,
        "wins": 0,
        "draws": 0,
        "losses": 0,
        "byes": 0,
        "forfeits": 0,
        "buchholz": "0",
        "sonneborn_berger": "0",
        "rating": None,
        "mean_team_score": None,
        "team_score_sum": None,
        "withdrawn": False,
        "disqualified": False,
    }


# A standings row's values, after the entrant it belongs to.
STANDING_FIELDS = tuple(key for key in blank_row(0) if key != "entrant")


def result_counted(row: Row, seat: int, data: dict[str, Any]) -> None:
    """Adds a table's result to the row of the player in `seat` (their points, games, W/D/L)."""
    row["played"] += 1
    if row["entrant"] in (data.get("forfeited") or ()):
        row["forfeits"] += 1
    if data.get("team_score") is not None:
        total = (row["team_score_sum"] or 0) + data["team_score"]
        row["team_score_sum"], row["mean_team_score"] = total, total / row["played"]
        return
    ranks = data["ranks"]
    row["points"] = str(Fraction(row["points"]) + _standings.table_points(ranks)[seat])
    best = min(ranks)
    if ranks[seat] != best:
        row["losses"] += 1
    elif ranks.count(best) == 1:
        row["wins"] += 1
    else:
        row["draws"] += 1


def standings_after(state: State, rows: list[Row], event: dict[str, Any], *, first_result: bool) -> list[Row]:
    """The standings rows after `event`, already folded into `state` (see the module docstring).

    `first_result`: a result event found its table without a result before it."""
    kind, data = event["type"], event["data"]
    if kind in RANKED_AFTER or (kind == "TableResult" and not first_result):
        return standings(state)
    if kind in JOINING:
        return [*rows, blank_row(data["entrant"])]
    if kind in LEAVING:
        if data["from_round"] is None:
            return [row for row in rows if row["entrant"] != data["entrant"]]
        return [{**row, "withdrawn": True} if row["entrant"] == data["entrant"] else row for row in rows]
    if kind == "TableResult":
        seats = {entrant: seat for seat, entrant in enumerate(table_of(state, data["round"], data["table"])["seats"])}
        changed = []
        for row in rows:
            if row["entrant"] in seats:
                row = dict(row)
                result_counted(row, seats[row["entrant"]], data)
            changed.append(row)
        return changed
    return rows


def fold_with_standings(events: Iterable[dict[str, Any]]) -> tuple[State, list[Row]]:
    """The pure fold of the whole stream with its standings rows, as `apply` keeps them."""
    state, rows = empty_state(), []
    for event in events:
        first = event["type"] == "TableResult" and _has_no_result(state, event["data"])
        _fold_in_place(state, event)
        rows = standings_after(state, rows, event, first_result=first)
    return state, rows


def _has_no_result(state: State, data: dict[str, Any]) -> bool:
    return table_of(state, data["round"], data["table"])["result"] is None


# --- the rows, event by event (the incremental projection) -------------------------------------

# The tournament's own facts, kept whole in `TournamentProjection.state` (a few small values).
_TOURNAMENT_KEYS = ("status", "game", "format", "options", "organiser", "unpaired", "started_at",
                    "finished_at", "champion", "field_rules")


def event_dict(row: Any) -> dict[str, Any]:
    """A stored `TournamentEvent` as the fold takes it."""
    return {"seq": row.seq, "type": row.type, "data": row.data, "created": row.created.isoformat()}


def apply(tournament: Any, event_row: Any, state: State | None = None) -> None:
    """Writes the rows a newly appended event changes. Called inside the appending transaction,
    with the tournament's row locked. A projection that is behind (it never should be) is
    rebuilt from the log instead.

    `state`: the caller's `state_of` at the head before this event, if it has one; a re-ranking
    folds the event into it (it is changed) instead of reading every row back."""
    from tournaments.models import TournamentProjection

    event = event_dict(event_row)
    if event["type"] not in _CHANGE_FACTS and TournamentProjection.objects.filter(
        tournament=tournament, last_seq=event_row.seq - 1
    ).update(last_seq=event_row.seq):
        _write_event_rows(tournament, event, state)  # the usual case: one statement to track it
        return
    projection = TournamentProjection.objects.filter(tournament=tournament).first()
    if projection is None:
        projection = TournamentProjection(tournament=tournament, last_seq=0, state={})
    if event_row.seq <= projection.last_seq:
        return
    if event_row.seq > projection.last_seq + 1:
        rebuild(tournament)
        return
    facts = {**empty_state(), **projection.state}
    before = facts["status"]
    if event["type"] in _CHANGE_FACTS:
        _fold_in_place(facts, event)  # on the facts alone: these handlers touch nothing else kept
    projection.last_seq = event_row.seq
    projection.state = _tournament_facts(facts)
    projection.save(force_insert=projection._state.adding)
    if facts["status"] != before:
        _write_status(tournament, facts["status"])
    _write_event_rows(tournament, event, state)


def _write_event_rows(tournament: Any, event: dict, state: State | None) -> None:
    table = _table_before(tournament, event)
    writer = _WRITERS.get(event["type"])
    if writer is not None:
        writer(tournament, event)
    _write_standing_rows(tournament, event, table, state)


def _tournament_facts(state: State) -> State:
    return {key: copy.deepcopy(state[key]) for key in _TOURNAMENT_KEYS}


# Events that change the tournament's own facts: the projection row is read and written whole.
_CHANGE_FACTS = frozenset(
    {"TournamentCreated", "TournamentStarted", "RoundUnpaired", "TournamentFinished", "TournamentCancelled"}
)


def _table_before(tournament: Any, event: dict) -> dict[str, Any] | None:
    """A result event's table as it was before the event: its seats, and whether it had a result."""
    from tournaments.models import RoundTable

    if event["type"] != "TableResult":
        return None
    data = event["data"]
    return (
        RoundTable.objects.filter(round__tournament=tournament, round__number=data["round"], number=data["table"])
        .values("seats", "result_seq")
        .first()
    )


def _on_registered(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk=event["data"]["entrant"]).update(status="active", seed_order=event["seq"])


def _on_withdrawn(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    data = event["data"]
    if data["from_round"] is None:
        Entrant.objects.filter(pk=data["entrant"]).update(
            status="withdrawn", seed_order=None, waitlist_order=None, checked_in=False
        )
    else:
        Entrant.objects.filter(pk=data["entrant"]).update(
            status="withdrawn", withdrawn_from_round=data["from_round"]
        )


def _on_waitlisted(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk=event["data"]["entrant"]).update(
        status="waitlisted", seed_order=None, waitlist_order=event["seq"], checked_in=False
    )


def _on_checked_in(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk=event["data"]["entrant"]).update(checked_in=True)


def _on_promoted(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk=event["data"]["entrant"]).update(
        status="active", seed_order=event["seq"], waitlist_order=None
    )


def _on_waitlist_closed(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk__in=event["data"]["entrants"]).update(
        status="not_admitted", waitlist_order=None, checked_in=False
    )


def _on_late_entered(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant, Round

    data = event["data"]
    Entrant.objects.filter(pk=data["entrant"]).update(
        status="active", seed_order=event["seq"], seed_rating=data.get("rating"), waitlist_order=None,
        withdrawn_from_round=None,
    )
    if data.get("bye_round") is not None:
        rnd = Round.objects.select_for_update().get(tournament=tournament, number=data["bye_round"])
        rnd.byes = [*rnd.byes, data["entrant"]]
        rnd.save(update_fields=["byes"])


def _on_reentered(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    Entrant.objects.filter(pk=event["data"]["entrant"]).update(status="active", withdrawn_from_round=None)


def _on_no_shows(tournament: Any, event: dict) -> None:
    from tournaments.models import RoundTable

    data = event["data"]
    for forfeit in data["tables"]:
        RoundTable.objects.filter(
            round__tournament=tournament, round__number=data["round"], number=forfeit["table"]
        ).update(result=no_show_result(forfeit, data), result_seq=event["seq"])


def _on_disqualified(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    data = event["data"]
    Entrant.objects.filter(pk=data["entrant"]).update(
        status="disqualified", disqualified_from_round=data["from_round"]
    )


def _on_started(tournament: Any, event: dict) -> None:
    from tournaments.models import Entrant

    ratings = event["data"]["ratings"]
    rows = [Entrant(pk=int(key), seed_rating=rating) for key, rating in ratings.items() if rating is not None]
    Entrant.objects.bulk_update(rows, ["seed_rating"], batch_size=1000)


def _on_paired(tournament: Any, event: dict) -> None:
    from tournaments.models import Round, RoundTable

    data = event["data"]
    rnd = Round.objects.create(
        tournament=tournament,
        number=data["round"],
        date=parse_date(data["date"]) if data.get("date") else None,
        starts_at=when(data["starts_at"]),
        byes=list(data["byes"]),
        quality=data.get("quality"),
    )
    RoundTable.objects.bulk_create(
        [
            RoundTable(
                round=rnd, number=t["table"], seats=list(t["seats"]), bracket=t.get("bracket") or "",
                deal=t.get("deal"), seed_sha256=t.get("seed_sha256", ""),
            )
            for t in data["tables"]
        ],
        batch_size=1000,
    )


def _on_unpaired(tournament: Any, event: dict) -> None:
    from tournaments.models import Round

    Round.objects.filter(tournament=tournament, number=event["data"]["round"]).delete()


def _on_tables_started(tournament: Any, event: dict) -> None:
    from tournaments.models import Round, RoundTable

    data = event["data"]
    rnd = Round.objects.get(tournament=tournament, number=data["round"])
    matches = {t["table"]: t["match"] for t in data["tables"]}
    tables = list(RoundTable.objects.filter(round=rnd, number__in=list(matches)).only("pk", "number"))
    for table in tables:
        table.match_id = matches[table.number]
    RoundTable.objects.bulk_update(tables, ["match"], batch_size=1000)
    if event["type"] == "RoundStarted":
        Round.objects.filter(pk=rnd.pk).update(started_at=when(event["created"]), deadline=when(data.get("deadline")))


def _on_result(tournament: Any, event: dict) -> None:
    from tournaments.models import RoundTable

    data = event["data"]
    RoundTable.objects.filter(
        round__tournament=tournament, round__number=data["round"], number=data["table"]
    ).update(result=result_of(event), result_seq=event["seq"])


def _on_deadline(tournament: Any, event: dict) -> None:
    from tournaments.models import Round, RoundTable

    data = event["data"]
    rnd = Round.objects.get(tournament=tournament, number=data["round"])
    Round.objects.filter(pk=rnd.pk).update(deadline_passed_at=when(event["created"]))
    absent = {t["table"]: sorted(t["absent"]) for t in data["tables"]}
    tables = list(RoundTable.objects.filter(round=rnd, number__in=list(absent)).only("pk", "number"))
    for table in tables:
        table.absent = absent[table.number]
    RoundTable.objects.bulk_update(tables, ["absent"], batch_size=1000)


def _on_completed(tournament: Any, event: dict) -> None:
    from tournaments.models import Round

    Round.objects.filter(tournament=tournament, number=event["data"]["round"]).update(
        completed_at=when(event["created"])
    )


_WRITERS: dict[str, Callable[[Any, dict], None]] = {
    "PlayerRegistered": _on_registered,
    "PlayerWithdrawn": _on_withdrawn,
    "PlayerWaitlisted": _on_waitlisted,
    "PlayerCheckedIn": _on_checked_in,
    "PlayerPromoted": _on_promoted,
    "CheckInMissed": _on_withdrawn,
    "WaitlistClosed": _on_waitlist_closed,
    "PlayerLateEntered": _on_late_entered,
    "PlayerReentered": _on_reentered,
    "PlayerDropped": _on_withdrawn,
    "NoShowsForfeited": _on_no_shows,
    "PlayerDisqualified": _on_disqualified,
    "TournamentStarted": _on_started,
    "RoundPaired": _on_paired,
    "RoundUnpaired": _on_unpaired,
    "TablesStarted": _on_tables_started,
    "RoundStarted": _on_tables_started,
    "TableResult": _on_result,
    "ForfeitAwarded": _on_result,
    "ResultCorrected": _on_result,
    "RoundDeadlinePassed": _on_deadline,
    "RoundCompleted": _on_completed,
}



def _write_standing_rows(tournament: Any, event: dict, table: dict[str, Any] | None, state: State | None) -> None:
    """The standings rows after an event whose other rows are written (`standings_after`);
    `table`: a result's table as it was before it; `state`: see `apply`."""
    from tournaments.models import StandingRow

    kind, data = event["type"], event["data"]
    first_result = table is not None and table["result_seq"] is None
    if kind in RANKED_AFTER or (kind == "TableResult" and not first_result):
        if state is None:
            state = state_of(tournament)
        else:
            _fold_in_place(state, event)
        _standings_replace(tournament, standings(state))
    elif kind in JOINING:
        _standing_append(tournament, data["entrant"])
    elif kind in LEAVING:
        rows = StandingRow.objects.filter(tournament=tournament)
        if data["from_round"] is None:
            position = rows.filter(entrant_id=data["entrant"]).values_list("position", flat=True).first()
            rows.filter(entrant_id=data["entrant"]).delete()
            if position is not None:
                rows.filter(position__gt=position).update(position=F("position") - 1)
        else:
            rows.filter(entrant_id=data["entrant"]).update(withdrawn=True)
    elif kind == "TableResult":
        _results_counted(tournament, table["seats"], data)


# What a table's result changes in its players' rows (`result_counted`).
_COUNTED = ("points", "played", "wins", "draws", "losses", "forfeits", "mean_team_score", "team_score_sum")


def _results_counted(tournament: Any, seats: list[int], data: dict[str, Any]) -> None:
    """A table's result added to its players' rows: one read and one UPDATE ... FROM (VALUES),
    written by hand because the ORM's bulk update builds a CASE per column and row (the larger
    share of a result's cost)."""
    from tournaments.models import StandingRow

    seat_of = {entrant: seat for seat, entrant in enumerate(seats)}
    found = StandingRow.objects.filter(tournament=tournament, entrant_id__in=seats).values_list(
        "entrant_id", *_COUNTED
    )
    values = []
    for entrant, *counted in found:
        row = {"entrant": entrant, **dict(zip(_COUNTED, counted))}
        result_counted(row, seat_of[entrant], data)
        values.append([entrant, *[row[key] for key in _COUNTED]])
    if connection.vendor != "postgresql":  # the embedded default: a row at a time
        for entrant, *counted in values:
            StandingRow.objects.filter(tournament=tournament, entrant_id=entrant).update(**dict(zip(_COUNTED, counted)))
        return
    if not values:
        return
    table = StandingRow._meta.db_table
    casts = ["integer", "text", "integer", "integer", "integer", "integer", "integer", "double precision",
             "double precision"]
    rows = ", ".join("(" + ", ".join(f"%s::{cast}" for cast in casts) + ")" for _ in values)
    assignments = ", ".join(f"{key} = v.{key}" for key in _COUNTED)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {table} AS s SET {assignments} FROM (VALUES {rows}) AS v (entrant_id, {', '.join(_COUNTED)}) "
            "WHERE s.tournament_id = %s AND s.entrant_id = v.entrant_id",
            [value for row in values for value in row] + [tournament.pk],
        )


def _standing_append(tournament: Any, entrant: int) -> None:
    """A blank row after the last one, in one statement (the position read in the INSERT itself)."""
    from tournaments.models import StandingRow

    row = blank_row(entrant)
    columns = [key for key in row if key != "entrant"]
    table = StandingRow._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {table} (tournament_id, entrant_id, position, {', '.join(columns)}) "
            f"SELECT %s, %s, coalesce(max(position), 0) + 1, {', '.join(['%s'] * len(columns))} "
            f"FROM {table} WHERE tournament_id = %s",
            [tournament.pk, entrant, *[row[key] for key in columns], tournament.pk],
        )


def _standings_replace(tournament: Any, rows: list[Row]) -> None:
    """The whole table written again: on PostgreSQL one COPY (a tenth of the ORM's inserts at
    10,000 rows), elsewhere bulk inserts."""
    from tournaments.models import StandingRow

    StandingRow.objects.filter(tournament=tournament).delete()
    if connection.vendor == "postgresql":
        columns = ["tournament_id", "entrant_id", "position", *STANDING_FIELDS]
        with connection.cursor() as cursor, cursor.cursor.copy(
            f"COPY {StandingRow._meta.db_table} ({', '.join(columns)}) FROM STDIN"
        ) as copy:
            for position, row in enumerate(rows, start=1):
                copy.write_row([tournament.pk, row["entrant"], position, *[row[key] for key in STANDING_FIELDS]])
        return
    StandingRow.objects.bulk_create(
        [
            StandingRow(
                tournament=tournament,
                entrant_id=row["entrant"],
                position=position,
                **{key: value for key, value in row.items() if key != "entrant"},
            )
            for position, row in enumerate(rows, start=1)
        ],
        batch_size=2000,
    )


def _write_status(tournament: Any, status: str) -> None:
    from tournaments.models import Tournament

    if status:
        Tournament.objects.filter(pk=tournament.pk).update(status=status)
        tournament.status = status


# --- reading the rows back, and rebuilding them -------------------------------------------------


def state_of(tournament: Any) -> State:
    """The fold's state read back from the rows (empty for a tournament without events): O(field),
    for decisions taken once a round (pairing, corrections, the end)."""
    from tournaments.models import Entrant, Round, RoundTable, TournamentProjection

    projection = TournamentProjection.objects.filter(tournament=tournament).first()
    state = empty_state()
    if projection is None:
        return state
    state.update(copy.deepcopy(projection.state))
    state["last_seq"] = projection.last_seq
    entrants = list(
        Entrant.objects.filter(tournament=tournament).values_list(
            "pk", "name", "user_id", "bot", "status", "seed_order", "seed_rating",
            "withdrawn_from_round", "disqualified_from_round", "waitlist_order", "checked_in",
        )
    )
    for pk, name, user, bot, status, _, _, withdrawn, disqualified, _, checked_in in entrants:
        state["entrants"][str(pk)] = {"name": name, "user": user, "bot": bot, "status": status}
        if checked_in:
            state["checked_in"].append(pk)
        if withdrawn is not None:
            state["withdrawn"][str(pk)] = withdrawn
        if disqualified is not None:
            state["disqualified"][str(pk)] = disqualified
    state["order"] = [row[0] for row in sorted((r for r in entrants if r[5] is not None), key=lambda r: r[5])]
    state["waitlist"] = [row[0] for row in sorted((r for r in entrants if r[9] is not None), key=lambda r: r[9])]
    state["checked_in"].sort()
    if state["started_at"] is not None:
        state["field"] = list(state["order"])
        state["ratings"] = {str(row[0]): row[6] for row in entrants if row[5] is not None}
    rounds = {}
    for rnd in Round.objects.filter(tournament=tournament).order_by("number"):
        rounds[rnd.pk] = state["rounds"][str(rnd.number)] = {
            "number": rnd.number,
            "tables": [],
            "byes": rnd.byes,
            "starts_at": _iso(rnd.starts_at),
            "date": rnd.date.isoformat() if rnd.date else None,
            "quality": rnd.quality,
            "started_at": _iso(rnd.started_at),
            "deadline": _iso(rnd.deadline),
            "deadline_passed_at": _iso(rnd.deadline_passed_at),
            "completed_at": _iso(rnd.completed_at),
        }
    tables = RoundTable.objects.filter(round__tournament=tournament).order_by("round_id", "number").values_list(
        "round_id", "number", "seats", "bracket", "deal", "match_id", "absent", "result", "result_seq"
    )
    for round_id, number, seats, bracket, deal, match, absent, result, result_seq in tables:
        rounds[round_id]["tables"].append(
            {"table": number, "seats": seats, "bracket": bracket, "deal": deal, "match": match,
             "absent": absent, "result": result, "result_seq": result_seq}
        )
    return state


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def rebuild(tournament: Any) -> State:
    """Folds the whole stream from nothing and writes every derived row again."""
    from tournaments.models import Round, TournamentEvent, TournamentProjection

    with transaction.atomic():
        events = [event_dict(row) for row in TournamentEvent.objects.filter(tournament=tournament).order_by("seq")]
        state, rows = fold_with_standings(events)
        TournamentProjection.objects.update_or_create(
            tournament=tournament, defaults={"state": _tournament_facts(state), "last_seq": state["last_seq"]}
        )
        Round.objects.filter(tournament=tournament).exclude(
            number__in=[int(k) for k in state["rounds"]]
        ).delete()
        for rnd in rounds_in_order(state):
            _write_round(tournament, rnd)
        registered = {e["data"]["entrant"]: e["seq"] for e in events if e["type"] in _ENTERING}
        waiting = {e["data"]["entrant"]: e["seq"] for e in events if e["type"] == "PlayerWaitlisted"}
        _write_entrants(tournament, state, registered, waiting)
        _standings_replace(tournament, rows)
        _write_status(tournament, state["status"])
    return state


def _write_round(tournament: Any, rnd: dict[str, Any]) -> None:
    from tournaments.models import Round, RoundTable

    row, _ = Round.objects.update_or_create(
        tournament=tournament,
        number=rnd["number"],
        defaults={
            "date": parse_date(rnd["date"]) if rnd["date"] else None,
            "starts_at": when(rnd["starts_at"]),
            "started_at": when(rnd["started_at"]),
            "deadline": when(rnd["deadline"]),
            "deadline_passed_at": when(rnd["deadline_passed_at"]),
            "completed_at": when(rnd["completed_at"]),
            "byes": rnd["byes"],
            "quality": rnd["quality"],
        },
    )
    existing = {t.number: t for t in RoundTable.objects.filter(round=row)}
    for table in rnd["tables"]:
        values = {
            "seats": table["seats"],
            "bracket": table["bracket"],
            "deal": table["deal"],
            "match_id": table["match"],
            "absent": table["absent"],
            "result": table["result"],
            "result_seq": table["result_seq"],
        }
        current = existing.pop(table["table"], None)
        if current is None:
            RoundTable.objects.create(round=row, number=table["table"], **values)
        elif any(getattr(current, name) != value for name, value in values.items()):
            for name, value in values.items():
                setattr(current, name, value)
            current.save(
                update_fields=[name.removesuffix("_id") if name == "match_id" else name for name in values]
            )
    if existing:
        RoundTable.objects.filter(pk__in=[t.pk for t in existing.values()]).delete()


# Events that put a player in the order (their seq is the entrant's `seed_order`).
_ENTERING = frozenset({"PlayerRegistered", "PlayerPromoted", "PlayerLateEntered"})


def _write_entrants(tournament: Any, state: State, registered: dict[int, int], waiting: dict[int, int]) -> None:
    """Every entrant's row; `registered`: the seq of the last event that put each entrant in the
    order; `waiting`: the seq that put each on the waitlist."""
    from tournaments.models import Entrant as EntrantRow

    order, waitlist, checked_in = set(state["order"]), set(state["waitlist"]), set(state["checked_in"])
    rows = list(EntrantRow.objects.filter(tournament=tournament))
    for row in rows:
        key = str(row.pk)
        row.status = state["entrants"].get(key, {}).get("status", row.status)
        row.seed_order = registered[row.pk] if row.pk in order else None
        row.waitlist_order = waiting[row.pk] if row.pk in waitlist else None
        row.checked_in = row.pk in checked_in
        row.seed_rating = state["ratings"].get(key)
        row.withdrawn_from_round = state["withdrawn"].get(key)
        row.disqualified_from_round = state["disqualified"].get(key)
    EntrantRow.objects.bulk_update(
        rows, ["status", "seed_order", "seed_rating", "withdrawn_from_round", "disqualified_from_round",
               "waitlist_order", "checked_in"],
        batch_size=1000,
    )


def when(text: str | None) -> dt.datetime | None:
    """A timestamp of the state (ISO text) as a datetime."""
    return parse_datetime(text) if text else None
