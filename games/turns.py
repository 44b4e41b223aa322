"""The server's own moves: bots in seats, turn clocks, and interrupt windows that close.

`games.schedule` sends the tasks that call these; each names the decision it was scheduled
for (the seq, or the deadline), so a late or repeated task finds the table moved on and does
nothing. `sweep` sends again what a lost task left behind.
"""
from __future__ import annotations

import random
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from games import schedule
from games.bot_budget import bot_move_postponed
from games.bots import BOTS, STRONG_BOT
from games.bots.search import SearchBot
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.services import concession_settle, move_play, table_fact_append
from games.state import state_at_head
from server.errors import ApplicationError

PASS = {"action": "pass"}


def bot_move(*, match_id: int, seat: int, expected_seq: int, postponed_token: str = "") -> bool:
    """A bot (or the fallback bot of an abandoned seat) plays from its own seat's view.

    Returns False and writes nothing when the match has moved on, ended, or a person holds
    the seat: another task (or nobody) owns that turn, so running this twice is harmless.
    Also when the table's creator has spent their budget of bot moves (`games.bot_budget`):
    then the task is queued again for later, carrying `postponed_token`, and plays the move then.
    """
    match = _running(match_id)
    if match is None or match.last_seq != expected_seq:
        return False
    row = Seat.objects.filter(match_id=match_id, seat=seat).first()
    bot_name = row.bot or (STRONG_BOT[match.game] if row.abandoned else "") if row else ""
    if not bot_name:
        return False
    postponed = bot_move_postponed(match, seat, token=postponed_token)
    if postponed is not None:
        if postponed.token:  # else another copy of this task holds the move
            schedule.followups_send([schedule.bot_turn_postponed(match_id, seat, expected_seq, postponed)])
        return False
    return _play_for(match, seat, bot_name, actor=f"bot:{bot_name}")


def clock_expire(*, match_id: int, seat: int, expected_seq: int) -> bool:
    """The seat's time ran out: the fallback bot plays for it, recorded with actor `clock`.

    After `CLOCK_TIMEOUTS_TO_ABANDON` timeouts in a row the seat is abandoned: the bot plays
    it to the end and it ranks last for ratings.
    """
    match = _running(match_id)
    if match is None or match.last_seq != expected_seq:
        return False
    if not _play_for(match, seat, STRONG_BOT[match.game], actor="clock"):
        return False
    if _timeouts_in_a_row(match_id, seat) >= settings.CLOCK_TIMEOUTS_TO_ABANDON:
        seat_abandon(match_id=match_id, seat=seat)
    return True


def seat_abandon(*, match_id: int, seat: int) -> None:
    """Marks a seat abandoned and records it; from now on the fallback bot plays it."""
    with transaction.atomic():
        if not Seat.objects.filter(match_id=match_id, seat=seat, abandoned=False).update(abandoned=True):
            return
        table_fact_append(match_id=match_id, fact={"type": "SeatAbandoned", "seat": seat}, actor="clock")
        concession_settle(match_id)  # everyone still playing may have agreed to concede already


def window_close(*, match_id: int, deadline: str) -> int:
    """An interrupt window's time is up: every person still asked passes. Returns the passes made."""
    match = _running(match_id)
    if match is None or match.deadline is None or match.deadline.isoformat() != deadline:
        return 0
    engine = ENGINES[match.game]
    state = state_at_head(match.pk, match.game, match.last_seq)
    people = Seat.objects.filter(match_id=match_id, seat__in=engine.to_act(state), bot="", abandoned=False)
    return sum(1 for row in people if window_pass(match_id=match_id, seat=row.seat))


def window_pass(*, match_id: int, seat: int) -> bool:
    """Passes for a seat in an interrupt window, if it is still asked and may pass."""
    try:
        move_play(match_id=match_id, seat=seat, move=dict(PASS), actor="clock")
    except ApplicationError:
        return False  # the window closed, or the seat answered, in the meantime
    return True


def _play_for(match: Match, seat: int, bot_name: str, *, actor: str) -> bool:
    engine = ENGINES[match.game]
    state = state_at_head(match.pk, match.game, match.last_seq)
    legal = engine.legal_moves(state, seat)
    if not legal:
        return False
    # Seeded by the hidden seed and the position, so a replayed task makes the same choice.
    rng = random.Random(f"{match.seed}:{seat}:{match.last_seq}")
    bot = BOTS[match.game][bot_name]
    view = engine.view(state, seat)
    if isinstance(bot, SearchBot):  # it thinks as long as the server allows a move
        move = bot.choose(view, legal, rng, cap_seconds=settings.BOT_MOVE_BUDGET_MS / 1000)
    else:
        move = bot.choose(view, legal, rng)
    try:
        move_play(match_id=match.pk, seat=seat, move=move, actor=actor, expected_seq=match.last_seq)
    except ApplicationError as exc:
        if exc.code == "stale_seq":
            return False
        raise
    return True


def _running(match_id: int) -> Match | None:
    return Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).first()


def _timeouts_in_a_row(match_id: int, seat: int) -> int:
    actors = Event.objects.filter(match_id=match_id, type="MovePlayed", data__seat=seat).order_by("-seq")
    count = 0
    for actor in actors.values_list("actor", flat=True):
        if actor != "clock":
            break
        count += 1
    return count


def sweep(*, stale_after: float | None = None) -> dict[str, int]:
    """Catches what a lost task left behind: re-sends each overdue clock, window or bot turn.

    Every task it sends names the decision it is for, so one that is no longer needed (or
    that its first copy already did) does nothing. Run periodically by Celery beat.
    """
    now = timezone.now()
    grace = timedelta(seconds=settings.SWEEP_STALE_AFTER if stale_after is None else stale_after)
    resent = {"clocks": 0, "windows": 0, "bots": 0}
    for match in Match.objects.filter(status=Match.Status.RUNNING, deadline__lt=now - grace):
        to_act = ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))
        assert match.deadline is not None  # the query matched it on its deadline
        if len(to_act) > 1 or match.clock_seconds is None:
            schedule.followups_send([schedule.window_close(match.pk, match.deadline)])
            resent["windows"] += 1
        elif to_act:
            schedule.followups_send([schedule.clock(match.pk, to_act[0], match.last_seq, now)])
            resent["clocks"] += 1
    quiet = (
        Match.objects.filter(status=Match.Status.RUNNING)
        .annotate(last_change=Max("events__created"))
        .filter(last_change__lt=now - grace)
    )
    for match in quiet:
        to_act = ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))
        played_by_bots = Seat.objects.filter(match=match, seat__in=to_act).exclude(bot="", abandoned=False)
        for seat in played_by_bots.values_list("seat", flat=True):
            schedule.followups_send([schedule.bot_turn(match.pk, seat, match.last_seq)])
            resent["bots"] += 1
    return resent


def match_play_out(*, match_id: int, max_moves: int = 20_000) -> bool:
    """Finishes a running match now: bots play their own seats, the fallback bot plays people's
    (actor `clock`), move after move, as the turn clock would. For a tournament round's deadline.

    Safe beside other writers: each move names the head it was decided on and a lost race is
    decided again. Returns True once the match has ended.
    """
    for _ in range(max_moves):
        match = _running(match_id)
        if match is None:
            return True
        to_act = ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))
        if not to_act:
            return False
        row = Seat.objects.filter(match_id=match_id, seat=to_act[0]).first()
        if row is None:
            return False
        bot_name = row.bot or STRONG_BOT[match.game]
        _play_for(match, row.seat, bot_name, actor=f"bot:{row.bot}" if row.bot else "clock")
    return _running(match_id) is None
