"""Appending to a match's stream: event rows hash-chained after its head (`_chain`), table facts
(`table_fact_append`), and what a committed change sends on (its state to this process's cache, a
hint to the table's sockets).

Every writer of the stream appends through here; the rooms above say what they append.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import frames, notify, schedule, store
from games.chain import canonical_time, event_hash
from games.models import (
    Event,
    Match,
)
from games.state import state_at_head, state_cache
from server.errors import ApplicationError, conflict

MAX_APPEND_ATTEMPTS = 50


@dataclass(frozen=True)
class NewEvent:
    kind: str
    data: dict
    actor: str


def user_actor(user: User) -> str:
    return user_actor_of(user.pk)


def user_actor_of(user_id: int) -> str:
    return f"user:{user_id}"


class _LostRace(Exception):
    """Another writer extended the stream first."""


def stale_seq(seq: int | None) -> ApplicationError:
    return conflict("stale_seq", _("The match has moved on since the state you saw."), seq=seq)


def table_busy() -> ApplicationError:
    return conflict("busy", _("The table is too busy; try again."))


def _after_commit(match_id: int, base_seq: int, rows: list[store.NewRow], state: Any) -> None:
    """What a change to a table (`rows` after `base_seq`) sends on once it commits."""
    transaction.on_commit(lambda: _changed(match_id, base_seq, rows, state))


def _changed(match_id: int, base_seq: int, rows: list[store.NewRow], state: Any, *, head: frames.MatchHead | None = None) -> None:
    """A committed change: its state to this process's cache and a hint to the table's sockets;
    with the new `head`, the hint carries the change (`frames.change_of`)."""
    engine_rows = _state_cached(match_id, base_seq, rows, state)
    if head is None:
        notify.match_changed(match_id, rows[-1].seq)
        return
    frames.head_known(head)
    notify.match_changed(match_id, head.seq, frames.change_of(head, base_seq, engine_rows))


def _state_cached(
    match_id: int, base_seq: int, rows: list[store.NewRow], state: Any
) -> list[tuple[int, dict]]:
    """Puts a committed change's state in this process's cache; returns its engine rows as (seq, data)."""
    engine_rows = [(row.seq, row.data) for row in rows if row.kind == Event.Kind.ENGINE]
    state_cache.put(match_id, rows[-1].seq, state, after=base_seq, events=engine_rows)
    return engine_rows


def table_fact_append(*, match_id: int, fact: dict, actor: str) -> int:
    """Appends a table fact (not an engine event) at the head, e.g. `SeatAbandoned`; returns its seq."""
    for _attempt in range(MAX_APPEND_ATTEMPTS):
        try:
            return _try_fact(match_id, fact, actor)
        except _LostRace:
            continue  # a move got there first: chain after it
    raise table_busy()


def _try_fact(match_id: int, fact: dict, actor: str) -> int:
    with transaction.atomic():
        match = Match.objects.get(pk=match_id)
        base_seq = match.last_seq
        rows = _chain(match, [NewEvent(Event.Kind.TABLE, fact, actor)])
        state = state_at_head(match.pk, match.game, base_seq)
        deadline, followups = (
            schedule.after_change(match, state, match.last_seq) if match.status == Match.Status.RUNNING else (None, [])
        )
        changes = {"last_seq": match.last_seq, "head_hash": match.head_hash, "deadline": deadline}
        if not store.head_claim(match_id, base_seq, changes, rows):
            raise _LostRace
        schedule.followups_on_commit(followups)
        _after_commit(match_id, base_seq, rows, state)
    return match.last_seq


def _chain(match: Match | store.MatchRow, new: list[NewEvent]) -> list[store.NewRow]:
    """Event rows after the match's head, hash-chained under its chain version; moves
    `match.last_seq`/`head_hash` in memory."""
    rows = []
    seq, previous, created = match.last_seq, match.head_hash, timezone.now()
    # The time is fixed here, hashed in this spelling and stored as this very value (both
    # databases keep its microseconds), so the stored row hashes as it did when written.
    created_text = canonical_time(created)
    for item in new:
        seq += 1
        type_ = item.data["type"]
        previous = event_hash(
            previous, version=match.chain_version, seq=seq, kind=item.kind, type=type_, actor=item.actor,
            data=item.data, created=created_text,
        )
        rows.append(store.NewRow(match.pk, seq, item.kind, type_, item.data, item.actor, created, previous))
    match.last_seq, match.head_hash = seq, previous
    return rows


def _events_create(match: Match, new: list[NewEvent]) -> list[store.NewRow]:
    """Appends a new stream's first events (nobody else can write to it yet)."""
    rows = _chain(match, new)
    Event.objects.bulk_create([Event(**row._asdict()) for row in rows])
    return rows
