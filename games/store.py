"""The event store's hot path written out in SQL: read a table's head, append after it.

A move is the server's busiest write. Through the ORM it took eight statements and more time
building queries than the database spent running them (bench/moves.py); here it is one read
(the match, its seats and any idempotency receipt, in one snapshot) and one conditional
update plus one insert, in the caller's transaction. Values still go through the model
fields' own preparation, so the same code runs on PostgreSQL and SQLite.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timezone as dt_timezone

from django.db import connection
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


@dataclass(frozen=True)
class Head:
    """What a move is decided on: the match as committed, its seats, and a receipt if one exists.

    `match` is an unsaved `Match` carrying only the columns read here (not `deadline`, `outcome`
    or `options`); it is for deciding and chaining, never for saving.
    """

    match: Match
    seats: dict[int, SeatRow]
    receipt_id: int | None

    def seat_of(self, user_id: int) -> int | None:
        return next((row.seat for row in self.seats.values() if row.user_id == user_id), None)


_MATCH, _SEAT, _EVENT, _RECEIPT = (m._meta.db_table for m in (Match, Seat, Event, MoveReceipt))

_HEAD_SQL = f"""
    SELECT m.game, m.status, m.players, m.last_seq, m.head_hash, m.seed, m.clock_seconds,
           s.seat, s.user_id, s.bot, s.abandoned, s.auto_pass,
           (SELECT r.id FROM {_RECEIPT} r WHERE r.user_id = %s AND r.key = %s) AS receipt_id
    FROM {_MATCH} m LEFT JOIN {_SEAT} s ON s.match_id = m.id
    WHERE m.id = %s
"""


def head_read(match_id: int, *, receipt: tuple[int, str] | None = None) -> Head | None:
    """The match's committed head with its seats (None if there is no such match).

    With `receipt` (user id, idempotency key), also whether that key already has an answer:
    read in the same statement, so a head that includes a twin request's move shows its receipt.
    """
    user_id, key = receipt or (None, None)
    with connection.cursor() as cursor:
        cursor.execute(_HEAD_SQL, [user_id, key, match_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    game, status, players, last_seq, head_hash, seed, clock_seconds = rows[0][:7]
    match = Match(
        id=match_id, game=game, status=status, players=players, last_seq=last_seq, head_hash=head_hash,
        seed=seed, clock_seconds=clock_seconds,
    )
    seats = {
        row[7]: SeatRow(row[7], row[8], row[9], bool(row[10]), bool(row[11])) for row in rows if row[7] is not None
    }
    return Head(match, seats, rows[0][12])


_EVENT_FIELDS = [Event._meta.get_field(name) for name in ("match", "seq", "kind", "type", "data", "actor", "created", "hash")]


def head_claim(match_id: int, base_seq: int, changes: dict, rows: list[Event]) -> bool:
    """Moves the head from `base_seq` (with `changes` to the match) and appends `rows` after it.

    The update names the head it was decided on, so of two writers the second changes nothing
    and gets False (having waited for the first's commit on the row lock); nothing is appended.
    """
    fields = [Match._meta.get_field(name) for name in changes]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in fields)
    values = [f.get_db_prep_save(changes[f.name], connection) for f in fields]
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {_MATCH} SET {assignments} WHERE id = %s AND last_seq = %s", [*values, match_id, base_seq])
        if cursor.rowcount != 1:
            return False
        columns = ", ".join(connection.ops.quote_name(f.column) for f in _EVENT_FIELDS)
        placeholders = ", ".join(["(" + ", ".join(["%s"] * len(_EVENT_FIELDS)) + ")"] * len(rows))
        # Plain values but the timestamp (SQLite stores it as the ORM writes it): preparing every
        # field through the ORM was a third of this function's time.
        created = _EVENT_FIELDS[6]
        params = [
            value
            for row in rows
            for value in (match_id, row.seq, row.kind, row.type, json.dumps(row.data), row.actor,
                          created.get_db_prep_save(row.created, connection), row.hash)
        ]
        cursor.execute(f"INSERT INTO {_EVENT} ({columns}) VALUES {placeholders}", params)
    return True


_RECEIPT_FIELDS = [MoveReceipt._meta.get_field(name) for name in ("user", "key", "match", "response", "created")]


def receipt_append(user_id: int, key: str, match_id: int, response: dict) -> None:
    """Records the answer to an idempotency key (a twin's insert fails on the unique key)."""
    values = {"user_id": user_id, "key": key, "match_id": match_id, "response": response, "created": timezone.now()}
    columns = ", ".join(connection.ops.quote_name(f.column) for f in _RECEIPT_FIELDS)
    params = [f.get_db_prep_save(values[f.attname], connection) for f in _RECEIPT_FIELDS]
    with connection.cursor() as cursor:
        cursor.execute(f"INSERT INTO {_RECEIPT} ({columns}) VALUES ({', '.join(['%s'] * len(params))})", params)


_HEAD_WITH_EVENTS_SQL = f"""
    SELECT m.game, m.status, m.last_seq, m.deadline, e.seq, e.data
    FROM {_MATCH} m LEFT JOIN {_EVENT} e
        ON e.match_id = m.id AND e.kind = %s AND e.seq > %s AND e.seq <= m.last_seq
    WHERE m.id = %s
    ORDER BY e.seq
"""


def head_with_engine_events(match_id: int, *, after: int) -> tuple[tuple[str, str, int, str | None], list[tuple[int, dict]]] | None:
    """`((game, status, seq, deadline as ISO text), engine events after `after` up to seq)` in one
    statement (None if there is no such match): what a live frame needs to catch up."""
    with connection.cursor() as cursor:
        cursor.execute(_HEAD_WITH_EVENTS_SQL, [Event.Kind.ENGINE, after, match_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    game, status, seq, deadline = rows[0][:4]
    events = [(row[4], row[5] if isinstance(row[5], dict) else json.loads(row[5])) for row in rows if row[4] is not None]
    return (game, status, seq, _iso(deadline)), events


def _iso(value) -> str | None:
    """A timestamp column as the ORM would give it, in ISO form (SQLite returns naive UTC text)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = parse_datetime(value)
    if timezone.is_naive(value):
        value = timezone.make_aware(value, dt_timezone.utc)
    return value.isoformat()
