"""A budget of bot moves per user (issue #39, finding 6): the worker that plays casual tables' bots
also plays tournament bots and turn clocks, so nobody's casual tables may keep it busy.

A casual table's bot moves are charged to the table's creator, `BOT_MOVES_PER_MINUTE_PER_USER` a
minute over all their tables together. A bot move past it is not played and not dropped: its task
is queued again for a moment of the next minute (spread over it, so the put-off moves do not all
come back at once), and is charged then. Each minute the budget plays that many, so every table
moves on; it only goes slower. A tournament's tables are not charged: their bots are the
organiser's field (`MAX_BOT_ENTRANTS_PER_TOURNAMENT` caps a non-staff organiser's) and the round's
deadline needs them played.

Counted in the cache: Redis with `REDIS_URL` (one count for every worker), else the process's own
memory (the embedded default runs one worker). One move put off at a time per decision: a copy of
the task the sweep sends meanwhile (it sees a quiet table) finds the decision put off already and
ends, unless the put-off copy is overdue (then it may have been lost, and this copy takes over).
"""
from __future__ import annotations

import logging
import random
import secrets
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.cache import cache

from games.models import Match
from server import metrics

log = logging.getLogger(__name__)

_WINDOW_SECONDS = 60
# How long a put-off move's mark outlives its planned time before another copy may take over.
_OVERDUE_GRACE_SECONDS = 60


@dataclass(frozen=True)
class Postponed:
    """A bot move put off: queue its task again after `countdown` seconds, carrying `token`."""

    countdown: float
    token: str


def bot_move_postponed(match: Match, seat: int, *, token: str = "") -> Postponed | None:
    """None when the bot may move now (charged to the table's creator, if a casual table); else
    when to try again. Past the budget, a copy of the task that finds this move put off by another
    copy (not overdue) gets a Postponed without a token: it ends, and the other copy plays it."""
    if _is_tournament_table(match):
        return None
    now = _now()
    window = int(now // _WINDOW_SECONDS)
    if _spend(f"bot_moves:{match.created_by_id}:{window}") <= settings.BOT_MOVES_PER_MINUTE_PER_USER:
        return None
    mark = f"bot_move_postponed:{match.pk}:{match.last_seq}:{seat}"
    held = cache.get(mark)  # (token, when the copy holding the move is due)
    if held is not None and held[0] != token and now < held[1] + _OVERDUE_GRACE_SECONDS:
        return Postponed(countdown=0, token="")
    countdown = (window + 1) * _WINDOW_SECONDS - now + random.uniform(0, _WINDOW_SECONDS)
    postponed = Postponed(countdown=countdown, token=secrets.token_hex(8))
    cache.set(mark, (postponed.token, now + countdown), timeout=int(countdown) + _OVERDUE_GRACE_SECONDS)
    metrics.bot_moves_delayed.inc()
    return postponed


def _now() -> float:
    return time.time()


def _is_tournament_table(match: Match) -> bool:
    return Match.objects.filter(pk=match.pk, tournament_table__isnull=False).exists()


def _spend(key: str) -> int:
    """One more move in the window `key` names; returns how many it has now."""
    for _attempt in range(2):
        cache.add(key, 0, timeout=_WINDOW_SECONDS * 2)
        try:
            return cache.incr(key)
        except ValueError:  # the key expired between add and incr: add it again
            continue
    log.warning("could not count a bot move in %s; letting it through", key)
    return 0
