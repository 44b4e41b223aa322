"""Read models of a tournament, folded from its event stream (eventsourcing's `Tracking`).

`evolve(state, event)` is the pure fold: the state is a JSON-ready dict, so the incremental
projection stores it as it goes (`TournamentProjection.state`, tracking `last_seq`). After
each appended event, `apply` folds it in and writes the rows derived from the state (rounds,
tables, entrants' status, standings) in the same transaction as the append. `rebuild` folds
the whole stream from nothing and writes every row again; it must give the same result.

Event types and their data:

- TournamentCreated {name, game, format, options, match_options, starts_at, round_seconds,
  clock_seconds, rated, organiser, seed_sha256}
- PlayerRegistered {entrant, name, user, bot}
- PlayerWithdrawn {entrant, from_round}          (from_round null: before the start)
- TournamentStarted {field, ratings}              (field: entrant ids, organiser's order)
- RoundPaired {round, tables: [{table, seats, bracket, deal}], byes, starts_at, date}
- RoundUnpaired {round, reason}                   (a round not started is paired again)
- RoundStarted {round, tables: [{table, match}], deadline}
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

from django.db import transaction
from django.utils.dateparse import parse_date, parse_datetime

from tournaments.formats import FORMATS, Entrant, Format, History, Options, Result
from tournaments.formats import Bye as _Bye

State = dict[str, Any]
RESULT_TYPES = frozenset({"TableResult", "ForfeitAwarded", "ResultCorrected"})


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
        handler = _HANDLERS.get(event["type"])
        if handler is not None:
            handler(new, event["data"], event)
        new["last_seq"] = event["seq"]
    return new


def _created(state: State, data: dict, event: dict) -> None:
    state.update(
        status="registration",
        game=data["game"],
        format=data["format"],
        options=data["options"],
        organiser=data["organiser"],
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
    if data["from_round"] is None:  # before the start: simply not in the field
        state["order"].remove(data["entrant"])
    else:
        state["withdrawn"][key] = data["from_round"]


def _disqualified(state: State, data: dict, event: dict) -> None:
    key = str(data["entrant"])
    state["entrants"][key]["status"] = "disqualified"
    state["disqualified"][key] = data["from_round"]


def _started(state: State, data: dict, event: dict) -> None:
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
        "started_at": None,
        "deadline": None,
        "deadline_passed_at": None,
        "completed_at": None,
    }


def _unpaired(state: State, data: dict, event: dict) -> None:
    key = str(data["round"])
    del state["rounds"][key]
    state["unpaired"][key] = state["unpaired"].get(key, 0) + 1


def _round_started(state: State, data: dict, event: dict) -> None:
    rnd = state["rounds"][str(data["round"])]
    rnd.update(started_at=event["created"], deadline=data.get("deadline"))
    matches = {t["table"]: t["match"] for t in data["tables"]}
    for table in rnd["tables"]:
        table["match"] = matches.get(table["table"])


def _result(state: State, data: dict, event: dict) -> None:
    table = table_of(state, data["round"], data["table"])
    table["result"] = {
        "ranks": data.get("ranks"),
        "team_score": data.get("team_score"),
        "forfeited": sorted(data.get("forfeited") or []),
        "source": event["type"],
        "reason": data.get("reason", ""),
    }
    table["result_seq"] = event["seq"]


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
    "PlayerDisqualified": _disqualified,
    "TournamentStarted": _started,
    "RoundPaired": _paired,
    "RoundUnpaired": _unpaired,
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


def latest_round(state: State) -> dict[str, Any] | None:
    rounds = rounds_in_order(state)
    return rounds[-1] if rounds else None


def round_complete(rnd: dict[str, Any]) -> bool:
    """Every table of the round has a result (a round of byes only is complete at once)."""
    return all(table["result"] is not None for table in rnd["tables"])


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
            "withdrawn": row.withdrawn,
            "disqualified": row.disqualified,
        }
        for row in rows
    ]


def as_fraction(text: str) -> Fraction:
    return Fraction(text)


# --- the rows derived from the state (same transaction as the append) -------------------------


def event_dict(row: Any) -> dict[str, Any]:
    """A stored `TournamentEvent` as the fold takes it."""
    return {"seq": row.seq, "type": row.type, "data": row.data, "created": row.created.isoformat()}


def apply(tournament: Any, event_row: Any) -> State:
    """Folds a newly appended event into the stored projection and rewrites the rows it touches.

    Called inside the appending transaction, with the tournament row locked. A projection
    that is behind (it never should be) catches up from the log first.
    """
    from tournaments.models import TournamentEvent, TournamentProjection

    projection, _ = TournamentProjection.objects.get_or_create(
        tournament=tournament, defaults={"state": empty_state()}
    )
    if event_row.seq <= projection.last_seq:
        return projection.state
    state = projection.state or empty_state()
    if event_row.seq > projection.last_seq + 1:
        missing = TournamentEvent.objects.filter(
            tournament=tournament, seq__gt=projection.last_seq, seq__lt=event_row.seq
        ).order_by("seq")
        state = fold((event_dict(row) for row in missing), state)
    before = state
    state = evolve(state, event_dict(event_row))
    projection.state, projection.last_seq = state, event_row.seq
    projection.save(update_fields=["state", "last_seq"])
    _write_rows(tournament, before, state, event_row.type, event_row.data)
    return state


def rebuild(tournament: Any) -> State:
    """Folds the whole stream from nothing and writes every derived row again."""
    from tournaments.models import Round, TournamentEvent, TournamentProjection

    with transaction.atomic():
        events = TournamentEvent.objects.filter(tournament=tournament).order_by("seq")
        state = fold(event_dict(row) for row in events)
        TournamentProjection.objects.update_or_create(
            tournament=tournament, defaults={"state": state, "last_seq": state["last_seq"]}
        )
        Round.objects.filter(tournament=tournament).exclude(
            number__in=[int(k) for k in state["rounds"]]
        ).delete()
        for rnd in rounds_in_order(state):
            _write_round(tournament, rnd)
        _write_entrants(tournament, state, None)
        _write_standings(tournament, state)
        _write_status(tournament, state)
    return state


def state_of(tournament: Any) -> State:
    """The projection's state at the head (empty for a tournament without events)."""
    from tournaments.models import TournamentProjection

    state = TournamentProjection.objects.filter(tournament=tournament).values_list("state", flat=True).first()
    return state or empty_state()


def _write_rows(tournament: Any, before: State, state: State, kind: str, data: dict) -> None:
    from tournaments.models import Round

    if "round" in data and str(data["round"]) in state["rounds"]:
        _write_round(tournament, state["rounds"][str(data["round"])])
    if kind == "RoundUnpaired":
        Round.objects.filter(tournament=tournament, number=data["round"]).delete()
    if "entrant" in data:
        _write_entrants(tournament, state, [data["entrant"]])
    if kind in ("TournamentStarted",):
        _write_entrants(tournament, state, None)
    if state["status"] != before["status"]:
        _write_status(tournament, state)
    if kind not in ("RoundStarted", "RoundDeadlinePassed", "RoundCompleted", "TournamentCreated"):
        _write_standings(tournament, state)


def _write_status(tournament: Any, state: State) -> None:
    from tournaments.models import Tournament

    if state["status"]:
        Tournament.objects.filter(pk=tournament.pk).update(status=state["status"])
        tournament.status = state["status"]


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


def _write_entrants(tournament: Any, state: State, ids: list[int] | None) -> None:
    from tournaments.models import Entrant as EntrantRow

    keys = [str(i) for i in ids] if ids is not None else list(state["entrants"])
    for key in keys:
        status = state["entrants"].get(key, {}).get("status")
        if status:
            EntrantRow.objects.filter(pk=int(key), tournament=tournament).exclude(status=status).update(
                status=status
            )


def _write_standings(tournament: Any, state: State) -> None:
    from tournaments.models import StandingRow

    StandingRow.objects.filter(tournament=tournament).delete()
    StandingRow.objects.bulk_create(
        [
            StandingRow(
                tournament=tournament,
                entrant_id=row["entrant"],
                position=position,
                **{key: value for key, value in row.items() if key != "entrant"},
            )
            for position, row in enumerate(standings(state), start=1)
        ]
    )


def when(text: str | None) -> dt.datetime | None:
    """A timestamp of the state (ISO text) as a datetime."""
    return parse_datetime(text) if text else None
