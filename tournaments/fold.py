"""A tournament's event stream folded purely: no Django models, no database, so the offline
verifier (`leaguelog.verify`) folds a league's logged events as the server does.

`fold(events)` gives a JSON-ready dict holding the whole tournament. It decides nothing on the hot
path; it is what a rebuild starts from and what the tests compare with. The read models
(`tournaments.projections`) are written from the same events, event by event, and must agree.

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
  clock_seconds, rated, organiser, seed_sha256, contributed_shuffle?, field_rules?, spectator_policy?,
  spectator_delay_moves?}
  (field_rules: `field_rules.FieldRules`; spectator_policy: `games.models.SpectatorPolicy`, absent when open;
  spectator_delay_moves: a delayed one's delay)
- PlayerRegistered {entrant, user, bot, name?}   (a person by account id; a bot by `bot`, with its entrant
  `name`. Events written before issue #39 carry a person's `name` too, the name shown then: the fold
  keeps no names, which readers take from the entrant rows a deleted account's anonymisation rewrites)
- PlayerWithdrawn {entrant, from_round, rule?, why?}   (from_round null: before the start)
- TournamentStarted {field, ratings, start?, rounds?}   (field: entrant ids, organiser's order; start: the
  first matchday's date of a league created without one, the day it started; rounds: a Swiss open to
  late entry fixes its number of rounds from the field at the start)

The field's decisions (`field_rules`), each naming its `rule` (a key of `field_rules.RULES`) and `why`:

- PlayerWaitlisted {entrant, user, bot, name?, rule, why}   (registered past max_entrants; name: as above)
- PlayerCheckedIn {entrant, rule, why}
- PlayerPromoted {entrant, rule, why}             (from the waitlist into the field, before the start)
- CheckInMissed {entrant, rule, why}              (dropped at the start: out of the field)
- WaitlistClosed {entrants, rule, why}            (at the start: those still waiting are not admitted)
- PlayerLateEntered {entrant, user, bot, name?, first_round, rating, bye_round, rule, why}
  (joins the field of a running Swiss; bye_round: the missed round they score a bye in, or null; name: as above)
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
- TableTimeExtended {round, table, seconds, extra_seconds}   (a judge added `seconds`; the table plays on
  `extra_seconds` in all past the round's deadline: `services.judging`)
- RoundCompleted {round}
- TournamentFinished {standings: [{rank, place, entrant, points}], champion}
- TournamentCancelled {reason}
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from tournaments import standings as _standings
from tournaments.formats import FORMATS, Entrant, Format, History, Options, Result
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
        fold_in_place(new, event)
    return new


def fold_in_place(state: State, event: dict[str, Any]) -> None:
    handler = _HANDLERS.get(event["type"])
    if handler is not None:
        handler(state, event["data"], event)
    state["last_seq"] = event["seq"]


def _created(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state.update(
        status="registration",
        game=data["game"],
        format=data["format"],
        options=data["options"],
        organiser=data["organiser"],
        field_rules=dict(data.get("field_rules") or {}),
    )


def _registered(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    key = str(data["entrant"])
    state["entrants"][key] = {"user": data["user"], "bot": data["bot"], "status": "active"}
    if data["entrant"] not in state["order"]:
        state["order"].append(data["entrant"])


def _withdrawn(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
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


def _waitlisted(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state["entrants"][str(data["entrant"])] = {"user": data["user"], "bot": data["bot"], "status": "waitlisted"}
    _out_of(state, data["entrant"])
    state["waitlist"].append(data["entrant"])


def _checked_in(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    if data["entrant"] not in state["checked_in"]:
        state["checked_in"] = sorted([*state["checked_in"], data["entrant"]])


def _promoted(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state["entrants"][str(data["entrant"])]["status"] = "active"
    state["waitlist"].remove(data["entrant"])
    state["order"].append(data["entrant"])


def _waitlist_closed(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    for entrant in data["entrants"]:
        state["entrants"][str(entrant)]["status"] = "not_admitted"
        _out_of(state, entrant)


def _late_entered(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    key = str(data["entrant"])
    state["entrants"][key] = {"user": data["user"], "bot": data["bot"], "status": "active"}
    _out_of(state, data["entrant"])
    state["order"].append(data["entrant"])
    state["field"].append(data["entrant"])
    state["ratings"][key] = data.get("rating")
    if data.get("bye_round") is not None:
        state["rounds"][str(data["bye_round"])]["byes"].append(data["entrant"])


def _reentered(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "active"
    state["withdrawn"].pop(key, None)


def _no_shows_forfeited(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    for forfeit in data["tables"]:
        table = table_of(state, data["round"], forfeit["table"])
        table["result"] = no_show_result(forfeit, data)
        table["result_seq"] = event["seq"]


def no_show_result(forfeit: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """One table's result as NoShowsForfeited sets it (`result_of`'s shape)."""
    return {
        "ranks": forfeit.get("ranks"),
        "team_score": forfeit.get("team_score"),
        "forfeited": sorted(forfeit["forfeited"]),
        "source": "NoShowsForfeited",
        "reason": data.get("why", ""),
    }


def _disqualified(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "disqualified"
    state["disqualified"][key] = data["from_round"]


def _started(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    if data.get("start"):  # a league's first matchday, fixed at the start (services.start._start)
        state["options"] = {**state["options"], "start": data["start"]}
    if data.get("rounds"):  # a Swiss open to late entry: its length does not grow with the field
        state["options"] = {**state["options"], "rounds": data["rounds"]}
    state.update(
        status="running",
        field=list(data["field"]),
        ratings=dict(data["ratings"]),
        started_at=event["created"],
    )


def _paired(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
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
            "extra_seconds": 0,
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


def _unpaired(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    key = str(data["round"])
    state["rounds"].pop(key, None)
    state["unpaired"][key] = state["unpaired"].get(key, 0) + 1


def _tables_started(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    rnd = state["rounds"][str(data["round"])]
    matches = {t["table"]: t["match"] for t in data["tables"]}
    for table in rnd["tables"]:
        if table["table"] in matches:
            table["match"] = matches[table["table"]]


def _round_started(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    _tables_started(state, data, event)
    state["rounds"][str(data["round"])].update(started_at=event["created"], deadline=data.get("deadline"))


def _result(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    table = table_of(state, data["round"], data["table"])
    table["result"] = result_of(event)
    table["result_seq"] = event["seq"]


def result_of(event: dict[str, Any]) -> dict[str, Any]:
    """A table's result as a result event (TableResult, ForfeitAwarded, ResultCorrected) sets it."""
    data = event["data"]
    return {
        "ranks": data.get("ranks"),
        "team_score": data.get("team_score"),
        "forfeited": sorted(data.get("forfeited") or []),
        "source": event["type"],
        "reason": data.get("reason", ""),
    }


def _deadline_passed(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    rnd = state["rounds"][str(data["round"])]
    rnd["deadline_passed_at"] = event["created"]
    absent = {t["table"]: t["absent"] for t in data["tables"]}
    for table in rnd["tables"]:
        table["absent"] = sorted(absent.get(table["table"], []))


def _time_extended(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    table_of(state, data["round"], data["table"])["extra_seconds"] = data["extra_seconds"]


def _round_completed(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state["rounds"][str(data["round"])]["completed_at"] = event["created"]


def _finished(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state.update(status="finished", finished_at=event["created"], champion=data.get("champion"))


def _cancelled(state: State, data: dict[str, Any], event: dict[str, Any]) -> None:
    state.update(status="cancelled", finished_at=event["created"])


_HANDLERS: dict[str, Callable[[State, dict[str, Any], dict[str, Any]], None]] = {
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
    "TableTimeExtended": _time_extended,
    "RoundCompleted": _round_completed,
    "TournamentFinished": _finished,
    "TournamentCancelled": _cancelled,
}


# --- reading the state ------------------------------------------------------------------------


def table_of(state: State, round_number: int, table_number: int) -> dict[str, Any]:
    table: dict[str, Any]
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
        inner: Format = fmt.inner(options)  # type: ignore[attr-defined]  # only the league has one
        return inner
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
        places = dict(placing.placements(field, options, past))
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
    state = empty_state()
    rows: list[Row] = []
    for event in events:
        first = event["type"] == "TableResult" and _has_no_result(state, event["data"])
        fold_in_place(state, event)
        rows = standings_after(state, rows, event, first_result=first)
    return state, rows


def _has_no_result(state: State, data: dict[str, Any]) -> bool:
    return table_of(state, data["round"], data["table"])["result"] is None
