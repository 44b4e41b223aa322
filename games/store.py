"""The event store's hot path written out in SQL: read a table's head, append after it.

A move is the server's busiest write. Through the ORM it took eight statements and more time
building queries than the database spent running them (bench/moves.py); here it is one read
(the match, its seats and any idempotency receipt, in one snapshot) and, on PostgreSQL, one
statement that claims the head and appends the events (and the receipt), atomic on its own.
The statements are built apart from running them, so the event loop's own connections
(`games.fastlane`) run the very same SQL. On SQLite the claim is three statements in a
transaction.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from games.models import Event, Match, MoveReceipt, Seat


@dataclass(frozen=True)
class SeatRow:
    seat: int
    user_id: int | None
    bot: str
    abandoned: bool
    auto_pass: bool


@dataclass
class MatchRow:
    """The columns of a match a move is decided on (`deadline` as the driver gives it); never
    saved. Building a `Match` model for it cost more than reading it."""

    pk: int
    game: str
    status: str
    last_seq: int
    head_hash: str
    seed: int | None
    clock_seconds: int | None
    deadline: Any
    chain_version: int


@dataclass(frozen=True)
class Head:
    """What a move is decided on: the match as committed, its seats, and, if the move's
    idempotency key already has a receipt at this table, the digest of the request it answered."""

    match: MatchRow
    seats: dict[int, SeatRow]
    receipt_request: str | None

    def seat_of(self, user_id: int) -> int | None:
        return next((row.seat for row in self.seats.values() if row.user_id == user_id), None)

    def seat_users(self) -> tuple[int | None, ...]:
        return seat_users_of({row.seat: row.user_id for row in self.seats.values()})


_MATCH, _SEAT, _EVENT, _RECEIPT = (m._meta.db_table for m in (Match, Seat, Event, MoveReceipt))

HEAD_COLUMNS = """m.game, m.status, m.last_seq, m.head_hash, m.seed, m.clock_seconds, m.deadline, m.chain_version,
           s.seat, s.user_id, s.bot, s.abandoned, s.auto_pass"""
HEAD_SQL = f"""
    SELECT {HEAD_COLUMNS},
           (SELECT r.request_sha256 FROM {_RECEIPT} r WHERE r.user_id = %s AND r.key = %s AND r.match_id = m.id)
    FROM {_MATCH} m LEFT JOIN {_SEAT} s ON s.match_id = m.id
    WHERE m.id = %s
"""


def head_read(match_id: int, *, receipt: Receipt | None = None) -> Head | None:
    """The match's committed head with its seats (None if there is no such match).

    With `receipt`, also whether its key already has an answer at this table: read in the same
    statement, so a head that includes a twin request's move shows its receipt.
    """
    with connection.cursor() as cursor:
        cursor.execute(HEAD_SQL, head_params(match_id, receipt))
        return head_from_rows(match_id, cursor.fetchall())


def head_params(match_id: int, receipt: Receipt | None) -> list:
    user_id, key = (receipt.user_id, receipt.key) if receipt else (None, None)
    return [user_id, key, match_id]


def head_from_rows(match_id: int, rows: list[tuple]) -> Head | None:
    """`HEAD_COLUMNS` and the receipt's request digest, read by an outer join (the match's
    columns null: none)."""
    if not rows or rows[0][0] is None:
        return None
    match = MatchRow(match_id, *rows[0][:8])
    seats = {
        row[8]: SeatRow(row[8], row[9], row[10], bool(row[11]), bool(row[12])) for row in rows if row[8] is not None
    }
    return Head(match, seats, rows[0][13])


class Receipt(NamedTuple):
    """An idempotency key of a user's move request at one table, and the digest of that request."""

    user_id: int
    key: str
    request_sha256: str


class NewRow(NamedTuple):
    """An event row about to be appended (the model's columns, without building a model)."""

    match_id: int
    seq: int
    kind: str
    type: str
    data: dict
    actor: str
    created: datetime
    hash: str


_EVENT_COLUMNS = ("match_id", "seq", "kind", "type", "data", "actor", "created", "hash")
_RECEIPT_COLUMNS = ("user_id", "key", "match_id", "request_sha256", "response", "created")
_EVENT_COLUMN_LIST = ", ".join(f'"{name}"' for name in _EVENT_COLUMNS)
_RECEIPT_COLUMN_LIST = ", ".join(f'"{name}"' for name in _RECEIPT_COLUMNS)


def head_claim(
    match_id: int, base_seq: int, changes: dict, rows: list[NewRow], *, receipt: tuple[Receipt, dict] | None = None
) -> bool:
    """Moves the head from `base_seq` (with `changes` to the match), appends `rows` after it and,
    with `receipt` (the request's receipt and its response), records the answer to that key.

    All or nothing, and atomic on its own: on PostgreSQL one statement, so outside a transaction
    a move costs two round trips (this and `head_read`) where BEGIN/.../COMMIT took five. The
    update names the head it was decided on, so of two writers the second changes nothing and
    gets False (having waited for the first's commit on the row lock). A receipt whose key
    already answered another request fails the statement with IntegrityError.
    """
    if connection.vendor == "postgresql":
        sql, params = claim_statement(match_id, base_seq, changes, rows, receipt=receipt)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchone()[0] == 1
    with transaction.atomic(), connection.cursor() as cursor:
        sql, params = _update_statement(match_id, base_seq, changes)
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            return False
        cursor.execute(*_events_insert_statement(rows))
        if receipt is not None:
            values = ", ".join(["%s"] * len(_RECEIPT_COLUMNS))
            cursor.execute(
                f"INSERT INTO {_RECEIPT} ({_RECEIPT_COLUMN_LIST}) VALUES ({values})", _receipt_params(match_id, receipt)
            )
    return True


def events_insert(rows: list[NewRow]) -> None:
    """Inserts event rows as they are: new streams' first events, which nobody else can write
    to yet (`games.services.matches_start_seated`). One statement where the database takes it
    (SQLite limits a statement's parameters).

    Not `bulk_create`: on PostgreSQL it sends the columns as arrays, and quoting each event's
    JSON inside an array was most of a round's insert.
    """
    per_statement = max(1, connection.ops.bulk_batch_size(_EVENT_COLUMNS, rows))
    with connection.cursor() as cursor:
        for start in range(0, len(rows), per_statement):
            cursor.execute(*_events_insert_statement(rows[start : start + per_statement]))


def _events_insert_statement(rows: list[NewRow]) -> tuple[str, list]:
    values = ", ".join(["(" + ", ".join(["%s"] * len(_EVENT_COLUMNS)) + ")"] * len(rows))
    return f"INSERT INTO {_EVENT} ({_EVENT_COLUMN_LIST}) VALUES {values}", _event_params(rows)


def deadlines_set(deadlines: list[tuple[int, Any]]) -> None:
    """Sets matches' deadlines, (match id, deadline) each, in one statement where the database
    takes it. Not `bulk_update`: building its CASE of one branch per match cost more than the
    statement."""
    prepare = _PREPARED["deadline"]
    per_statement = max(1, connection.ops.bulk_batch_size(("id", "deadline"), deadlines))
    with connection.cursor() as cursor:
        for start in range(0, len(deadlines), per_statement):
            chunk = deadlines[start : start + per_statement]
            values = ", ".join(["(%s, %s)"] * len(chunk))
            params = [value for match_id, deadline in chunk for value in (match_id, prepare(deadline, connection))]
            # A VALUES list's columns are column1, column2... on PostgreSQL and SQLite alike.
            cursor.execute(
                f"UPDATE {_MATCH} SET deadline = v.column2 FROM (VALUES {values}) AS v WHERE {_MATCH}.id = v.column1",
                params,
            )


def claim_statement(
    match_id: int, base_seq: int, changes: dict, rows: list[NewRow], *, receipt: tuple[Receipt, dict] | None = None
) -> tuple[str, list]:
    """`head_claim` on PostgreSQL as one statement answering one row: 1 if the head was claimed.

    The inserts take their rows from the update's, so they add nothing when it matched none.
    """
    update, params = _update_statement(match_id, base_seq, changes)
    row = "(" + ", ".join(["%s"] * len(_EVENT_COLUMNS)) + ")"
    sql = (
        f"WITH claimed AS ({update} RETURNING id), "
        f"appended AS (INSERT INTO {_EVENT} ({_EVENT_COLUMN_LIST}) "
        f"SELECT v.match_id, v.seq, v.kind, v.type, v.data::jsonb, v.actor, v.created::timestamptz, v.hash "
        f"FROM claimed, (VALUES {', '.join([row] * len(rows))}) AS v({_EVENT_COLUMN_LIST}))"
    )
    params += _event_params(rows)
    if receipt is not None:
        sql += (
            f", answered AS (INSERT INTO {_RECEIPT} ({_RECEIPT_COLUMN_LIST}) "
            f"SELECT r.user_id, r.key, claimed.id, r.request_sha256, r.response::jsonb, r.created::timestamptz "
            f"FROM claimed, (VALUES (%s, %s, %s, %s, %s, %s)) AS r({_RECEIPT_COLUMN_LIST}))"
        )
        params += _receipt_params(match_id, receipt)
    return sql + " SELECT count(*) FROM claimed", params


def _update_statement(match_id: int, base_seq: int, changes: dict) -> tuple[str, list]:
    assignments = ", ".join(f"{name} = %s" for name in changes)
    values = [_PREPARED[name](value, connection) if name in _PREPARED else value for name, value in changes.items()]
    return f"UPDATE {_MATCH} SET {assignments} WHERE id = %s AND last_seq = %s", [*values, match_id, base_seq]


# The match's columns whose values the driver cannot take as they are (JSON, timestamps on SQLite).
_PREPARED = {
    field.name: field.get_db_prep_save
    for field in Match._meta.concrete_fields
    if field.get_internal_type() in ("JSONField", "DateTimeField")
}


_CREATED = Event._meta.get_field("created")


def _event_params(rows: list[NewRow]) -> list:
    # Plain values but the timestamp (SQLite stores it as the ORM writes it): preparing every
    # field through the ORM was a third of the claim's time.
    return [
        value
        for row in rows
        for value in (row.match_id, row.seq, row.kind, row.type, json.dumps(row.data), row.actor,
                      _CREATED.get_db_prep_save(row.created, connection), row.hash)
    ]


def _receipt_params(match_id: int, receipt: tuple[Receipt, dict]) -> list:
    """In `_RECEIPT_COLUMNS` order."""
    (user_id, key, request_sha256), response = receipt
    return [user_id, key, match_id, request_sha256, json.dumps(response), _CREATED.get_db_prep_save(timezone.now(), connection)]


_SEAT_USERS_SQL = {
    # Seat and user id pairs as one JSON value, so the head and its seats stay one statement.
    "postgresql": f"(SELECT json_agg(json_build_array(s.seat, s.user_id)) FROM {_SEAT} s WHERE s.match_id = m.id)",
    "sqlite": f"(SELECT json_group_array(json_array(s.seat, s.user_id)) FROM {_SEAT} s WHERE s.match_id = m.id)",
}
_HEAD_WITH_EVENTS_SQL = {
    vendor: f"""
    SELECT m.game, m.status, m.last_seq, m.deadline, {seat_users}, e.seq, e.data
    FROM {_MATCH} m LEFT JOIN {_EVENT} e
        ON e.match_id = m.id AND e.kind = %s AND e.seq > %s AND e.seq <= m.last_seq
    WHERE m.id = %s
    ORDER BY e.seq
"""
    for vendor, seat_users in _SEAT_USERS_SQL.items()
}


def head_with_engine_events(
    match_id: int, *, after: int
) -> tuple[tuple[str, str, int, str | None, tuple[int | None, ...]], list[tuple[int, dict]]] | None:
    """`((game, status, seq, deadline as ISO text, the user id in each seat), engine events after
    `after` up to seq)` in one statement (None if there is no such match): what a live frame
    needs to catch up."""
    with connection.cursor() as cursor:
        cursor.execute(_HEAD_WITH_EVENTS_SQL[connection.vendor], [Event.Kind.ENGINE, after, match_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    game, status, seq, deadline, seats = rows[0][:5]
    events = [(row[5], _json(row[6])) for row in rows if row[5] is not None]
    return (game, status, seq, iso(deadline), seat_users_of(dict(_json(seats) or []))), events


def seat_users_of(user_by_seat: dict[int, int | None]) -> tuple[int | None, ...]:
    """The user id in each seat, by seat number (None: a bot or an empty seat)."""
    return tuple(user_by_seat.get(seat) for seat in range(max(user_by_seat, default=-1) + 1))


def _json(value):
    return value if value is None or isinstance(value, (dict, list)) else json.loads(value)


def iso(value) -> str | None:
    """A timestamp column as the ORM would give it, in ISO form (SQLite returns naive UTC text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value.isoformat()
