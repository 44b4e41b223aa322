"""The Prometheus metrics every process records (served by `server.metrics_endpoint`).

Labels stay bounded: a game's slug, a lane, an outcome, a task's or a throttle scope's name,
never a match, a user or an address. Where several processes serve (uvicorn workers, Celery's
prefork children), `PROMETHEUS_MULTIPROC_DIR` names a directory they all write their values to
(prometheus_client's multiprocess mode) and a scrape of any of them adds them up; unset, each
process keeps its own in memory (the embedded default).
"""
from __future__ import annotations

import os
import time

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

from server.errors import ApplicationError

# A `_created` sample beside every series doubles the scrape for what `resets()` already tells.
disable_created_metrics()

# prometheus_client reads the variable when the values are made; the directory must be there.
MULTIPROC_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROC_DIR:
    os.makedirs(MULTIPROC_DIR, exist_ok=True)

_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 1800.0)

moves = Counter(
    "cardleague_moves", "Moves asked for, by game, lane and outcome (played, repeated: an idempotent "
    "retry answered from its receipt, refused: an application error, failed: anything else)",
    ["game", "lane", "outcome"],
)
move_seconds = Histogram(
    "cardleague_move_seconds", "Seconds from a move's arrival at its service to its commit (played moves)",
    ["game", "lane"], buckets=_FAST,
)
group_commit_batch = Histogram(
    "cardleague_group_commit_batch_size", "Claims committed together by the fast lane's group commit",
    buckets=(1, 2, 3, 4, 6, 8, 12, 16, 32, 64),
)
sockets_open = Gauge(
    "cardleague_sockets_open", "WebSockets open now, by kind (match, notifications)", ["kind"],
    multiprocess_mode="livesum",
)
event_loop_lag = Histogram(
    "cardleague_event_loop_lag_seconds", "How late the event loop ran a timer due every 20 ms",
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5),
)
throttle_refusals = Counter(
    "cardleague_throttle_refusals", "Requests and socket frames refused by a throttle, by its scope", ["scope"],
)
bot_moves_delayed = Counter(
    "cardleague_bot_moves_delayed", "Bot moves of casual tables queued again for later: their creator's tables "
    "had played BOT_MOVES_PER_MINUTE_PER_USER bot moves that minute",
)
celery_task_seconds = Histogram(
    "cardleague_celery_task_seconds", "Seconds a Celery task ran, by task and outcome (success, failure, retry)",
    ["task", "outcome"], buckets=_FAST,
)
celery_task_wait_seconds = Histogram(
    "cardleague_celery_task_wait_seconds", "Seconds a Celery task waited from being sent (or its ETA) to starting",
    ["task"], buckets=_SLOW,
)
rating_lag_seconds = Histogram(
    "cardleague_rating_lag_seconds", "Seconds from a rated match's end to its rating's commit", ["game"], buckets=_SLOW,
)

# Read at scrape time by the web processes (`server.metrics_endpoint`), never recorded here.
SCRAPED = {
    "cardleague_celery_queue_length": "Messages waiting in a Celery queue of the broker, by queue",
    "cardleague_leaguelog_pending_facts": "Facts queued for the league log and not yet integrated",
    "cardleague_leaguelog_oldest_pending_seconds": "Age of the oldest fact not yet in the league log (0: none waits)",
}

LANES = ("fastlane", "django", "server")


class MoveMeasure:
    """Counts and times one move (`with MoveMeasure(lane) as measure:`). The service sets `game`
    once it has read the table, and `outcome` to "repeated" when a receipt answers."""

    def __init__(self, lane: str) -> None:
        self.lane, self.game, self.outcome = lane, "unknown", "played"
        self._started = 0.0

    def __enter__(self) -> MoveMeasure:
        self._started = time.perf_counter()
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if error is not None:
            self.outcome = "refused" if isinstance(error, ApplicationError) else "failed"
        moves.labels(self.game, self.lane, self.outcome).inc()
        if self.outcome == "played":
            move_seconds.labels(self.game, self.lane).observe(time.perf_counter() - self._started)
