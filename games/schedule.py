"""What keeps a table from stalling, scheduled as data: after every change to a match,
`after_change` (called inside the writing transaction) works out who the game waits on and
returns the tasks to send once the change commits, which the caller sends
(`followups_on_commit`, `followups_send`): a bot's move, a clock that plays for a person who ran
out of time, or the end of an interrupt window (several seats may answer at once, e.g. a Block)
with a pass for everyone who has not answered. `games.turns` holds what those tasks do.

Each task names the decision it was scheduled for (the seq, or the deadline), so a late or
repeated task finds the table moved on and does nothing. Tasks are bound by name
(`games.tasks.*`): the tasks import `games.turns`, which imports the services, which import this.
"""
from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, overload

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from games.engines import ENGINES
from games.models import Match, Seat
from server.celery import app, send_now

if TYPE_CHECKING:
    from games.bot_budget import Postponed
    from games.store import MatchRow

log = logging.getLogger(__name__)

KEEP_DEADLINE = object()  # `after_change`'s answer when the decision awaited keeps its deadline


@dataclass(frozen=True)
class FollowUp:
    """A task to send once a change commits: its dotted path, its arguments, `apply_async`'s options."""

    task: str
    args: tuple
    options: dict = field(default_factory=dict)


Deadline = TypeVar("Deadline")


class Scheduled(NamedTuple, Generic[Deadline]):
    """`after_change`'s answer: the deadline of the decision now awaited, and the tasks that keep
    the table going, to send once the change commits."""

    deadline: Deadline
    followups: list[FollowUp]


@overload
def after_change(
    match: Match | MatchRow,
    state: Any,
    head: int,
    *,
    previous_to_act: None = None,
    seats: Mapping[int, Any] | None = None,
) -> Scheduled[datetime | None]: ...  # without the decision before, never KEEP_DEADLINE


@overload
def after_change(
    match: Match | MatchRow,
    state: Any,
    head: int,
    *,
    previous_to_act: list[int] | None,
    seats: Mapping[int, Any] | None = None,
) -> Scheduled[datetime | None | object]: ...


def after_change(
    match: Match | MatchRow,
    state: Any,
    head: int,
    *,
    previous_to_act: list[int] | None = None,
    seats: Mapping[int, Any] | None = None,
) -> Scheduled[Any]:
    """The follow-ups of the decision now awaited, and its deadline (or None). Sends nothing:
    the caller sends them once its change commits, alone (`followups_on_commit`) or with the
    rest of a batch (`followups_send`).

    A window that only shrank (some seats answered) keeps its deadline and its closing task:
    then the deadline is `KEEP_DEADLINE`. `seats` (rows by seat number, as the caller read them
    with the match) saves reading them again.
    """
    followups: list[FollowUp] = []
    to_act = ENGINES[match.game].to_act(state)
    if not to_act:
        return Scheduled(None, followups)
    if seats is None:
        seats = {s.seat: s for s in Seat.objects.filter(match_id=match.pk, seat__in=to_act)}
    window = len(to_act) > 1
    continuing = previous_to_act is not None and len(previous_to_act) > 1 and set(to_act) < set(previous_to_act)
    people = []
    for seat in to_act:
        row = seats[seat]
        if row.bot or row.abandoned:
            followups.append(bot_turn(match.pk, seat, head))
        else:
            people.append(row)
    if continuing:
        return Scheduled(KEEP_DEADLINE, followups)
    if window and people:
        for row in people:
            if row.auto_pass:
                followups.append(window_pass(match.pk, row.seat))
        deadline = timezone.now() + timedelta(seconds=settings.INTERRUPT_WINDOW_SECONDS)
        followups.append(window_close(match.pk, deadline))
        return Scheduled(deadline, followups)
    if people and match.clock_seconds:
        deadline = timezone.now() + timedelta(seconds=match.clock_seconds)
        followups.append(clock(match.pk, people[0].seat, head, deadline))
        return Scheduled(deadline, followups)
    return Scheduled(None, followups)


def followups_on_commit(followups: list[FollowUp]) -> None:
    """Sends `followups` once the current transaction commits (none if it rolls back)."""
    if followups:
        transaction.on_commit(lambda: followups_send(followups))


def followups_send(followups: list[FollowUp]) -> None:
    """Sends follow-ups whose change has committed. Several (a round's first bot moves and
    clocks) go through one producer rather than one taken from the pool for each task."""
    if len(followups) < 2:
        for followup in followups:
            send_now(followup.task, *followup.args, **followup.options)
        return
    try:
        with app.producer_or_acquire() as producer:
            for followup in followups:
                send_now(followup.task, *followup.args, producer=producer, **followup.options)
    except Exception:  # noqa: BLE001 - no producer at all: each task is lost as send_now would lose it
        log.warning("could not queue %s tasks; the sweep will send them again", len(followups), exc_info=True)


def bot_turn(match_id: int, seat: int, seq: int) -> FollowUp:
    # No countdown at all when there is no delay: an ETA task waits in the worker's timer.
    return FollowUp("games.tasks.bot_move_task", (match_id, seat, seq), {"countdown": settings.BOT_MOVE_DELAY or None})


def bot_turn_postponed(match_id: int, seat: int, seq: int, postponed: Postponed) -> FollowUp:
    """A bot's move put off by its table creator's budget (`games.bot_budget`), tried again later."""
    return FollowUp(
        "games.tasks.bot_move_task", (match_id, seat, seq),
        {"countdown": postponed.countdown, "kwargs": {"postponed_token": postponed.token}},
    )


def window_pass(match_id: int, seat: int) -> FollowUp:
    return FollowUp("games.tasks.window_pass_task", (match_id, seat))


def window_close(match_id: int, deadline: datetime) -> FollowUp:
    return FollowUp("games.tasks.window_close_task", (match_id, deadline.isoformat()), {"eta": deadline})


def clock(match_id: int, seat: int, seq: int, deadline: datetime) -> FollowUp:
    return FollowUp("games.tasks.clock_expire_task", (match_id, seat, seq), {"eta": deadline})
