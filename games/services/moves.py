"""Moves: a seated person's (`move_submit`) and one the server plays for a seat (`move_play`), each
decided on the committed head and appended only if the head is still that one.

`move_seat`, `move_decide`, the receipts and what follows a committed move are what the event
loop's own path (`games.fastlane`) shares with this module, so both decide a move alike.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import frames, notify, schedule, store
from games.chain import canonical_json
from games.engines import ENGINES, IllegalMove
from games.models import (
    Event,
    Match,
    MoveReceipt,
)
from games.move_messages import move_message
from games.services._append import (
    MAX_APPEND_ATTEMPTS,
    NewEvent,
    _chain,
    _changed,
    _LostRace,
    stale_seq,
    table_busy,
    user_actor,
    user_actor_of,
)
from games.state import state_at_head
from server import metrics
from server.errors import ApplicationError, bad_request, conflict, forbidden, match_not_found

# What the fast lane takes from here (`from games.services import moves`): this module's own, and
# the append's names it needs too, so that it never reaches into `_append` or the whole package.
__all__ = [
    "MAX_APPEND_ATTEMPTS",
    "MoveDecided",
    "match_committed",
    "move_decide",
    "move_play",
    "move_receipt",
    "move_seat",
    "move_submit",
    "move_tasks_send",
    "receipt_answer",
    "stale_seq",
    "table_busy",
    "user_actor_of",
]

_MAX_MOVE_BYTES = 4096


def move_submit(
    *,
    match_id: int,
    user: User,
    move: Any,
    expected_seq: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """A seated person plays a move; returns `{match, seq, events, view, legal_moves}` for their seat.

    With `expected_seq`, a match that has moved on refuses the move (`stale_seq`); without
    it the move is decided on the latest state, and decided again if it loses a race.
    With `idempotency_key`, a retry returns the first answer instead of playing twice; the same
    key with another move at this table is refused (422 `idempotency_key_reused`).
    """
    receipt = move_receipt(user.pk, idempotency_key, move, expected_seq)
    try:
        return _move_append(match_id, None, move, user_actor(user), expected_seq, receipt, user_id=user.pk)
    except IntegrityError:
        # The same key won a race in another request: give its answer.
        if receipt is not None and (stored := _receipt(match_id, receipt)) is not None:
            return receipt_answer(receipt, *stored)
        raise


def move_receipt(user_id: int, key: str | None, move: Any, expected_seq: int | None) -> store.Receipt | None:
    """The receipt a move request with idempotency key `key` is answered under (None: no key)."""
    if not key:
        return None
    request = canonical_json({"move": move, "expected_seq": expected_seq})
    return store.Receipt(user_id, key, hashlib.sha256(request.encode()).hexdigest())


def receipt_answer(receipt: store.Receipt, request_sha256: str, response: dict) -> dict:
    """A stored receipt's answer to a retry of its request; another request under its key is refused."""
    if request_sha256 != receipt.request_sha256:
        raise ApplicationError(
            "idempotency_key_reused",
            _("This Idempotency-Key already answered another move at this table: send a new key for a new move."),
        )
    return response


def _receipt(match_id: int, receipt: store.Receipt) -> tuple[str, dict] | None:
    return (
        MoveReceipt.objects.filter(user_id=receipt.user_id, match_id=match_id, key=receipt.key)
        .values_list("request_sha256", "response").first()
    )


def move_play(*, match_id: int, seat: int, move: Any, actor: str, expected_seq: int | None = None) -> dict:
    """Plays a move for a seat (a bot's, or the clock's for a person) and appends its events."""
    return _move_append(match_id, seat, move, actor, expected_seq, None)


def _move_append(
    match_id: int,
    seat: int | None,
    move: Any,
    actor: str,
    expected_seq: int | None,
    receipt: store.Receipt | None,
    *,
    user_id: int | None = None,
) -> dict:
    # A person's move (through Django: a view, or a socket without the fast lane), or one the
    # server plays for a seat (a bot, the clock, an automatic pass).
    with metrics.MoveMeasure("django" if user_id is not None else "server") as measure:
        for _attempt in range(MAX_APPEND_ATTEMPTS):
            try:
                return _try_move(match_id, seat, move, actor, expected_seq, receipt, user_id, measure)
            except _LostRace:
                if expected_seq is not None:
                    raise stale_seq(None) from None
        raise table_busy()


def _try_move(
    match_id: int,
    seat: int | None,
    move: Any,
    actor: str,
    expected_seq: int | None,
    receipt: store.Receipt | None,
    user_id: int | None,
    measure: metrics.MoveMeasure,
) -> dict:
    """One attempt: decide on the committed head, then claim it (`_LostRace` if another writer did).

    Outside a transaction this is two statements, each atomic on its own: the read, and the
    claim that appends the events (and the receipt) only if the head is still the one decided
    on. Inside a caller's transaction both join it, and what follows waits for its commit.
    """
    head = store.head_read(match_id, receipt=receipt)
    if head is not None:
        measure.game = head.match.game
    if head is not None and head.receipt_request is not None:
        assert receipt is not None  # the head reads a receipt only under one
        stored = _receipt(match_id, receipt)
        assert stored is not None  # the head found it
        measure.outcome = "repeated"
        return receipt_answer(receipt, *stored)
    seat = move_seat(head, match_id, seat, move, user_id=user_id, expected_seq=expected_seq)
    assert head is not None  # move_seat refuses a missing match
    state = state_at_head(match_id, head.match.game, head.match.last_seq)
    decided = move_decide(head, state, seat, move, actor)
    claimed = store.head_claim(
        match_id, decided.base_seq, decided.changes, decided.rows, receipt=receipt and (receipt, decided.response)
    )
    if not claimed:
        raise _LostRace
    transaction.on_commit(lambda: match_committed(match_id, decided))
    transaction.on_commit(lambda: move_tasks_send(match_id, decided))
    return decided.response


def move_seat(
    head: store.Head | None, match_id: int, seat: int | None, move: Any, *, user_id: int | None, expected_seq: int | None
) -> int:
    """The seat a move is for, once the move and the table may take it (else ApplicationError)."""
    if head is None:
        raise match_not_found(match_id)
    if seat is None:
        if user_id is None or (seat := head.seat_of(user_id)) is None:
            raise forbidden("not_seated", _("You do not sit at this table."))
        if head.seats[seat].abandoned:  # resigned, claimed or timed out: the bot plays it now
            raise conflict("seat_given_up", _("Your seat is played by the bot already."))
    if not isinstance(move, dict):
        raise bad_request("malformed_move", _("A move is a JSON object with an \"action\"."))
    if len(json.dumps(move)) > _MAX_MOVE_BYTES:
        raise bad_request(
            "move_too_large",
            _("A move is at most %(max_bytes)s bytes of JSON.") % {"max_bytes": _MAX_MOVE_BYTES},
        )
    if head.match.status == Match.Status.OPEN:
        raise conflict("match_not_started", _("The match has not started."))
    if expected_seq is not None and expected_seq != head.match.last_seq:
        raise stale_seq(head.match.last_seq)
    return seat


@dataclass
class MoveDecided:
    """What a legal move appends (`rows` after `base_seq`) and answers, not yet written."""

    base_seq: int
    rows: list[store.NewRow]
    changes: dict[str, Any]
    response: dict
    state: Any  # the engine state after the move
    game: str
    status: str  # the match's, after the move
    deadline: Any  # the decision's deadline after the move (datetime, ISO text from SQLite, None)
    finished: bool
    followups: list  # tasks for `move_tasks_send` once the move is committed
    seat_users: tuple[int | None, ...]  # who sits where, as the move was decided


def move_decide(head: store.Head, state: Any, seat: int, move: dict, actor: str) -> MoveDecided:
    """Decides a move on the head's `state`: its events, the head's changes and the mover's answer.

    Reads and writes nothing, so the event loop's own path (`games.fastlane`) decides moves
    exactly as this module does.
    """
    engine = ENGINES[head.match.game]
    try:
        produced = engine.decide(state, seat, move)
    except IllegalMove as exc:
        raise ApplicationError(exc.code, move_message(exc)) from None
    return _decided(head, state, seat, {"type": "MovePlayed", "seat": seat, "move": move}, produced, actor)


def _decided(head: store.Head, state: Any, seat: int, cause: dict, produced: list, actor: str) -> MoveDecided:
    """What the table fact `cause` and the engine events it `produced` append after the head, the
    match's end with them if they end it, and the answer for `seat`."""
    match = head.match
    engine = ENGINES[match.game]
    previous_to_act = engine.to_act(state)
    for event in produced:
        state = engine.evolve(state, event)
    new = [NewEvent(Event.Kind.TABLE, cause, actor)]
    new += [NewEvent(Event.Kind.ENGINE, e, actor) for e in produced]
    outcome = engine.outcome(state)
    if outcome is not None:
        new.append(NewEvent(Event.Kind.TABLE, {"type": "MatchFinished", "outcome": outcome, "seed": match.seed}, "server"))
    base_seq = match.last_seq
    rows = _chain(match, new)
    changes: dict[str, Any] = {"last_seq": match.last_seq, "head_hash": match.head_hash}
    followups: list = []
    if outcome is not None:
        changes.update(status=Match.Status.FINISHED, outcome=outcome, finished_at=timezone.now(), deadline=None)
    else:
        deadline, followups = schedule.after_change(
            match, state, match.last_seq, previous_to_act=previous_to_act, seats=head.seats
        )
        if deadline is not schedule.KEEP_DEADLINE:
            changes["deadline"] = deadline
    response = {
        "match": match.pk,
        "seq": match.last_seq,
        "events": [
            {"seq": row.seq, "event": red}
            for row in rows
            if row.kind == Event.Kind.ENGINE and (red := engine.redact(row.data, seat)) is not None
        ],
        "view": engine.view(state, seat),
        "legal_moves": engine.legal_moves(state, seat),
    }
    return MoveDecided(
        base_seq, rows, changes, response, state, match.game,
        changes.get("status", match.status), changes.get("deadline", match.deadline), outcome is not None, followups,
        head.seat_users(),
    )


def team_concede(*, match_id: int, fact: dict, actor: str) -> None:
    """Appends `fact`, the agreement that completes a cooperative team's concession (its `seat`'s),
    with the engine's end of the game (`concede`) after it: the match finishes as after a move
    that ends it (its result, ratings and tournaments follow from `move_tasks_send`)."""
    for _attempt in range(MAX_APPEND_ATTEMPTS):
        decided = _concession_decided(match_id, fact, actor)
        if store.head_claim(match_id, decided.base_seq, decided.changes, decided.rows):
            break
    else:
        raise table_busy()
    transaction.on_commit(lambda: match_committed(match_id, decided))
    transaction.on_commit(lambda: move_tasks_send(match_id, decided))


def _concession_decided(match_id: int, fact: dict, actor: str) -> MoveDecided:
    head = store.head_read(match_id)
    if head is None:
        raise match_not_found(match_id)
    if head.match.status != Match.Status.RUNNING:
        raise conflict("match_not_running", _("The match is not running."))
    state = state_at_head(match_id, head.match.game, head.match.last_seq)
    try:
        produced = ENGINES[head.match.game].concede(state)
    except IllegalMove as exc:
        raise ApplicationError(exc.code, move_message(exc)) from None
    return _decided(head, state, fact["seat"], fact, produced, actor)


def match_committed(match_id: int, decided: MoveDecided) -> None:
    """A committed move reaches this process's caches (state, and the head for live frames)
    and the table's sockets, so the sockets of this process need no read to follow it."""
    head = frames.MatchHead(
        match_id, decided.game, decided.status, decided.rows[-1].seq, store.iso(decided.deadline), decided.seat_users
    )
    _changed(match_id, decided.base_seq, decided.rows, decided.state, head=head)


def move_tasks_send(match_id: int, decided: MoveDecided) -> None:
    """A committed move's tasks: the next bot turn, clock or window, and the result's if it ended."""
    schedule.followups_send(decided.followups)
    if decided.finished:
        notify.match_finished(match_id)
