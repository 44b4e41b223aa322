"""Read models of a tournament, written from its event stream (eventsourcing's `Tracking`).

`apply(tournament, event)` is the incremental projection, run in the appending transaction: each
event writes only the rows it touches (an entrant's row, a round's, a table's, the standing rows of
the players it seats), so registering or recording a result costs the same whatever the field's
size. `state_of(tournament)` reads back from those rows the dict that the pure fold
(`tournaments.fold`) gives (once per round, for pairing and the organiser's corrections), and
`rebuild` folds the log purely and writes every row again: it must give the same rows.
"""

from __future__ import annotations

import copy
import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from django.db import connection, transaction
from django.db.models import F
from django.utils.dateparse import parse_date, parse_datetime

from tournaments.fold import (
    JOINING,
    LEAVING,
    RANKED_AFTER,
    STANDING_FIELDS,
    Row,
    State,
    blank_row,
    empty_state,
    fold_in_place,
    fold_with_standings,
    no_show_result,
    result_counted,
    result_of,
    rounds_in_order,
    standings,
)
from tournaments.models import (
    Entrant,
    Round,
    RoundTable,
    StandingRow,
    Tournament,
    TournamentEvent,
    TournamentProjection,
)

# --- the rows, event by event (the incremental projection) -------------------------------------

# The tournament's own facts, kept whole in `TournamentProjection.state` (a few small values).
_TOURNAMENT_KEYS = ("status", "game", "format", "options", "organiser", "unpaired", "started_at",
                    "finished_at", "champion", "field_rules")


def event_dict(row: TournamentEvent) -> dict[str, Any]:
    """A stored `TournamentEvent` as the fold takes it."""
    return {"seq": row.seq, "type": row.type, "data": row.data, "created": row.created.isoformat()}


def apply(tournament: Tournament, event_row: TournamentEvent, state: State | None = None) -> None:
    """Writes the rows a newly appended event changes. Called inside the appending transaction,
    with the tournament's row locked. A projection that is behind (it never should be) is
    rebuilt from the log instead.

    `state`: the caller's `state_of` at the head before this event, if it has one; a re-ranking
    folds the event into it (it is changed) instead of reading every row back."""
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
        fold_in_place(facts, event)  # on the facts alone: these handlers touch nothing else kept
    projection.last_seq = event_row.seq
    projection.state = _tournament_facts(facts)
    projection.save(force_insert=projection._state.adding)
    if facts["status"] != before:
        _write_status(tournament, facts["status"])
    _write_event_rows(tournament, event, state)


def _write_event_rows(tournament: Tournament, event: dict, state: State | None) -> None:
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


def _table_before(tournament: Tournament, event: dict) -> Mapping[str, Any] | None:
    """A result event's table as it was before the event: its seats, and whether it had a result."""
    if event["type"] != "TableResult":
        return None
    data = event["data"]
    return (
        RoundTable.objects.filter(round__tournament=tournament, round__number=data["round"], number=data["table"])
        .values("seats", "result_seq")
        .first()
    )


def _on_registered(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk=event["data"]["entrant"]).update(status="active", seed_order=event["seq"])


def _on_withdrawn(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    if data["from_round"] is None:
        Entrant.objects.filter(pk=data["entrant"]).update(
            status="withdrawn", seed_order=None, waitlist_order=None, checked_in=False
        )
    else:
        Entrant.objects.filter(pk=data["entrant"]).update(
            status="withdrawn", withdrawn_from_round=data["from_round"]
        )


def _on_waitlisted(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk=event["data"]["entrant"]).update(
        status="waitlisted", seed_order=None, waitlist_order=event["seq"], checked_in=False
    )


def _on_checked_in(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk=event["data"]["entrant"]).update(checked_in=True)


def _on_promoted(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk=event["data"]["entrant"]).update(
        status="active", seed_order=event["seq"], waitlist_order=None
    )


def _on_waitlist_closed(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk__in=event["data"]["entrants"]).update(
        status="not_admitted", waitlist_order=None, checked_in=False
    )


def _on_late_entered(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    Entrant.objects.filter(pk=data["entrant"]).update(
        status="active", seed_order=event["seq"], seed_rating=data.get("rating"), waitlist_order=None,
        withdrawn_from_round=None,
    )
    if data.get("bye_round") is not None:
        rnd = Round.objects.select_for_update().get(tournament=tournament, number=data["bye_round"])
        rnd.byes = [*rnd.byes, data["entrant"]]
        rnd.save(update_fields=["byes"])


def _on_reentered(tournament: Tournament, event: dict) -> None:
    Entrant.objects.filter(pk=event["data"]["entrant"]).update(status="active", withdrawn_from_round=None)


def _on_no_shows(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    for forfeit in data["tables"]:
        RoundTable.objects.filter(
            round__tournament=tournament, round__number=data["round"], number=forfeit["table"]
        ).update(result=no_show_result(forfeit, data), result_seq=event["seq"])


def _on_disqualified(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    Entrant.objects.filter(pk=data["entrant"]).update(
        status="disqualified", disqualified_from_round=data["from_round"]
    )


def _on_started(tournament: Tournament, event: dict) -> None:
    ratings = event["data"]["ratings"]
    rows = [Entrant(pk=int(key), seed_rating=rating) for key, rating in ratings.items() if rating is not None]
    Entrant.objects.bulk_update(rows, ["seed_rating"], batch_size=1000)


def _on_paired(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    starts_at = when(data["starts_at"])
    assert starts_at is not None  # RoundPaired always carries its start (services.rounds._pair_next)
    rnd = Round.objects.create(
        tournament=tournament,
        number=data["round"],
        date=parse_date(data["date"]) if data.get("date") else None,
        starts_at=starts_at,
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


def _on_unpaired(tournament: Tournament, event: dict) -> None:
    Round.objects.filter(tournament=tournament, number=event["data"]["round"]).delete()


def _on_tables_started(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    rnd = Round.objects.get(tournament=tournament, number=data["round"])
    matches = {t["table"]: t["match"] for t in data["tables"]}
    tables = list(RoundTable.objects.filter(round=rnd, number__in=list(matches)).only("pk", "number"))
    for table in tables:
        table.match_id = matches[table.number]
    RoundTable.objects.bulk_update(tables, ["match"], batch_size=1000)
    if event["type"] == "RoundStarted":
        Round.objects.filter(pk=rnd.pk).update(started_at=when(event["created"]), deadline=when(data.get("deadline")))


def _on_result(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    RoundTable.objects.filter(
        round__tournament=tournament, round__number=data["round"], number=data["table"]
    ).update(result=result_of(event), result_seq=event["seq"])


def _on_deadline(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    rnd = Round.objects.get(tournament=tournament, number=data["round"])
    Round.objects.filter(pk=rnd.pk).update(deadline_passed_at=when(event["created"]))
    absent = {t["table"]: sorted(t["absent"]) for t in data["tables"]}
    tables = list(RoundTable.objects.filter(round=rnd, number__in=list(absent)).only("pk", "number"))
    for table in tables:
        table.absent = absent[table.number]
    RoundTable.objects.bulk_update(tables, ["absent"], batch_size=1000)


def _on_time_extended(tournament: Tournament, event: dict) -> None:
    data = event["data"]
    RoundTable.objects.filter(
        round__tournament=tournament, round__number=data["round"], number=data["table"]
    ).update(extra_seconds=data["extra_seconds"])


def _on_completed(tournament: Tournament, event: dict) -> None:
    Round.objects.filter(tournament=tournament, number=event["data"]["round"]).update(
        completed_at=when(event["created"])
    )


_WRITERS: dict[str, Callable[[Tournament, dict], None]] = {
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
    "TableTimeExtended": _on_time_extended,
    "RoundCompleted": _on_completed,
}



def _write_standing_rows(tournament: Tournament, event: dict, table: Mapping[str, Any] | None, state: State | None) -> None:
    """The standings rows after an event whose other rows are written (`standings_after`);
    `table`: a result's table as it was before it; `state`: see `apply`."""
    kind, data = event["type"], event["data"]
    first_result = table is not None and table["result_seq"] is None
    if kind in RANKED_AFTER or (kind == "TableResult" and not first_result):
        if state is None:
            state = state_of(tournament)
        else:
            fold_in_place(state, event)
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
        assert table is not None  # a first result (a later one went above): its table was found
        _results_counted(tournament, table["seats"], data)


# What a table's result changes in its players' rows (`result_counted`).
_COUNTED = ("points", "played", "wins", "draws", "losses", "forfeits", "mean_team_score", "team_score_sum")


def _results_counted(tournament: Tournament, seats: list[int], data: dict[str, Any]) -> None:
    """A table's result added to its players' rows: one read and one UPDATE ... FROM (VALUES),
    written by hand because the ORM's bulk update builds a CASE per column and row (the larger
    share of a result's cost)."""
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


def _standing_append(tournament: Tournament, entrant: int) -> None:
    """A blank row after the last one, in one statement (the position read in the INSERT itself)."""
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


def _standings_replace(tournament: Tournament, rows: list[Row]) -> None:
    """The whole table written again: on PostgreSQL one COPY (a tenth of the ORM's inserts at
    10,000 rows), elsewhere bulk inserts."""
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


def _write_status(tournament: Tournament, status: str) -> None:
    if status:
        Tournament.objects.filter(pk=tournament.pk).update(status=status)
        tournament.status = status


# --- reading the rows back, and rebuilding them -------------------------------------------------


def state_of(tournament: Tournament) -> State:
    """The fold's state read back from the rows (empty for a tournament without events): O(field),
    for decisions taken once a round (pairing, corrections, the end)."""
    projection = TournamentProjection.objects.filter(tournament=tournament).first()
    state = empty_state()
    if projection is None:
        return state
    state.update(copy.deepcopy(projection.state))
    state["last_seq"] = projection.last_seq
    entrants = list(
        Entrant.objects.filter(tournament=tournament).values_list(
            "pk", "user_id", "bot", "status", "seed_order", "seed_rating",
            "withdrawn_from_round", "disqualified_from_round", "waitlist_order", "checked_in",
        )
    )
    # No names: the fold keeps none (a person's is read from their entrant row where shown).
    for pk, user, bot, status, _, _, withdrawn, disqualified, _, checked_in in entrants:
        state["entrants"][str(pk)] = {"user": user, "bot": bot, "status": status}
        if checked_in:
            state["checked_in"].append(pk)
        if withdrawn is not None:
            state["withdrawn"][str(pk)] = withdrawn
        if disqualified is not None:
            state["disqualified"][str(pk)] = disqualified
    # (order, pk) pairs sorted by the order alone: the sort is stable, so ties keep the rows' order.
    seeded = sorted(((r[4], r[0]) for r in entrants if r[4] is not None), key=lambda p: p[0])
    waiting = sorted(((r[8], r[0]) for r in entrants if r[8] is not None), key=lambda p: p[0])
    state["order"] = [pk for _, pk in seeded]
    state["waitlist"] = [pk for _, pk in waiting]
    state["checked_in"].sort()
    if state["started_at"] is not None:
        state["field"] = list(state["order"])
        state["ratings"] = {str(row[0]): row[5] for row in entrants if row[4] is not None}
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
    # The tables of the rounds just read only: a round added since (its own statement, a later
    # snapshot) comes with the next read, not as tables without their round.
    tables = RoundTable.objects.filter(round_id__in=list(rounds)).order_by("round_id", "number").values_list(
        "round_id", "number", "seats", "bracket", "deal", "match_id", "absent", "result", "result_seq", "extra_seconds"
    )
    for round_id, number, seats, bracket, deal, match, absent, result, result_seq, extra in tables:
        rounds[round_id]["tables"].append(
            {"table": number, "seats": seats, "bracket": bracket, "deal": deal, "match": match,
             "absent": absent, "result": result, "result_seq": result_seq, "extra_seconds": extra}
        )
    return state


def _iso(moment: dt.datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def rebuild(tournament: Tournament) -> State:
    """Folds the whole stream from nothing and writes every derived row again."""
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


def _write_round(tournament: Tournament, rnd: dict[str, Any]) -> None:
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
            "extra_seconds": table.get("extra_seconds", 0),
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


def _write_entrants(tournament: Tournament, state: State, registered: dict[int, int], waiting: dict[int, int]) -> None:
    """Every entrant's row; `registered`: the seq of the last event that put each entrant in the
    order; `waiting`: the seq that put each on the waitlist."""
    order, waitlist, checked_in = set(state["order"]), set(state["waitlist"]), set(state["checked_in"])
    rows = list(Entrant.objects.filter(tournament=tournament))
    for row in rows:
        key = str(row.pk)
        row.status = state["entrants"].get(key, {}).get("status", row.status)
        row.seed_order = registered[row.pk] if row.pk in order else None
        row.waitlist_order = waiting[row.pk] if row.pk in waitlist else None
        row.checked_in = row.pk in checked_in
        row.seed_rating = state["ratings"].get(key)
        row.withdrawn_from_round = state["withdrawn"].get(key)
        row.disqualified_from_round = state["disqualified"].get(key)
    Entrant.objects.bulk_update(
        rows, ["status", "seed_order", "seed_rating", "withdrawn_from_round", "disqualified_from_round",
               "waitlist_order", "checked_in"],
        batch_size=1000,
    )


def when(text: str | None) -> dt.datetime | None:
    """A timestamp of the state (ISO text) as a datetime."""
    return parse_datetime(text) if text else None
