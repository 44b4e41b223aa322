"""Reads that may lag go to a streaming replica; everything else to the primary.

Nothing goes to the replica unless asked: `replica_reads` marks the read-only GET views whose
pages tolerate a few seconds of staleness (replays, exports, lists, leaderboards, tournament
pages and the tournament feed). Writes, reads inside a transaction, the move path, services,
tasks and consumers never ask, so nothing a writer decides on is read stale. A client that has
just written (any unsafe request) is pinned to the primary for `REPLICA_PIN_SECONDS` by a
cookie, so it sees its own writes. A replica lagging by more than `REPLICA_MAX_LAG_SECONDS`, or
down, is passed over until it is back (each change of state logged once); a replica that fails
in the middle of a request has that request run again on the primary.

All of this is switched on by `DATABASE_REPLICA_URL` (server/settings.py); without it there is no
`replica` alias, no router and no middleware, and `replica_reads` changes nothing.
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, router

logger = logging.getLogger(__name__)

REPLICA = "replica"
PIN_COOKIE = "primary_until"
# How long one look at the replica's lag stands; a request never waits for a fresh one.
HEALTH_CHECK_SECONDS = 1.0
# A session is read lazily, often inside a view that reads from the replica; one just made (a
# login) may not be on the replica yet.
_PRIMARY_ONLY_APPS = frozenset({"sessions"})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_replica_wanted: ContextVar[bool] = ContextVar("replica_wanted", default=False)
_pinned: ContextVar[bool] = ContextVar("pinned_to_primary", default=False)

P = ParamSpec("P")
R = TypeVar("R")


class ReplicaRouter:
    """Reads to the replica only inside `replica_reads` and outside a transaction; the rest to the primary."""

    def db_for_read(self, model: Any, **hints: Any) -> str:
        if (_replica_wanted.get() and not connections[DEFAULT_DB_ALIAS].in_atomic_block
                and model._meta.app_label not in _PRIMARY_ONLY_APPS):
            return REPLICA
        # Not None: Django would then read an object's relations where the object came from.
        return DEFAULT_DB_ALIAS

    def db_for_write(self, model: Any, **hints: Any) -> str:
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        return True  # one database, two copies

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db == REPLICA else None


class ReplicaHealth:
    """This process's view of the replica: usable, lagging or down, looked at once a second."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._checked_at = float("-inf")
        self.state: str | None = None  # "ok", "lagging", "down"; None until first looked at

    def usable(self) -> bool:
        """Whether reads may go to the replica now; one thread looks again when the last look is old."""
        if time.monotonic() - self._checked_at >= HEALTH_CHECK_SECONDS and self._lock.acquire(blocking=False):
            try:
                self._look()
            finally:
                self._lock.release()
        return self.state == "ok"

    def mark_down(self, error: BaseException) -> None:
        """The replica failed: its reads go to the primary until a look finds it back."""
        self._checked_at = time.monotonic()
        self._change("down", f"{type(error).__name__}: {error}".strip())

    def _look(self) -> None:
        self._checked_at = time.monotonic()
        try:
            lag = replica_lag_seconds()
        except DatabaseError as error:
            connections[REPLICA].close()
            self.mark_down(error)
            return
        limit = settings.REPLICA_MAX_LAG_SECONDS
        if lag > limit:
            self._change("lagging", f"{lag:.1f} s behind (REPLICA_MAX_LAG_SECONDS={limit:g})")
        else:
            self._change("ok", f"{lag:.1f} s behind")

    def _change(self, state: str, detail: str) -> None:
        before, self.state = self.state, state
        if state == before or (before is None and state == "ok"):
            return
        if state == "ok":
            logger.warning("replica back (%s): lagging reads go to the replica again", detail)
        else:
            logger.warning("replica %s (%s): its reads go to the primary until it is back", state, detail)


health = ReplicaHealth()


def replica_lag_seconds() -> float:
    """How far the replica's data is behind the primary's, in seconds (0 when it has it all).

    Compared by WAL position first: a replica that has replayed everything the primary has written
    is not behind, however long ago the last commit was (the replay timestamp alone would call an
    idle primary's replica late). Behind, the lag is the age of the last transaction it replayed.
    A database that is not a standby (the tests' mirror of the primary) is never behind.
    """
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn()")
        primary_lsn = cursor.fetchone()[0]
    with connections[REPLICA].cursor() as cursor:
        cursor.execute(
            "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn() >= %s::pg_lsn,"
            " EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp())",
            [primary_lsn],
        )
        standby, caught_up, age = cursor.fetchone()
    if not standby or caught_up:
        return 0.0
    return float("inf") if age is None else max(float(age), 0.0)


@contextmanager
def reads_from_replica() -> Iterator[bool]:
    """Reads in this block may go to the replica; yields whether they do (a replica is configured,
    usable, and this client is not pinned to the primary)."""
    wanted = _routed() and not _pinned.get() and health.usable()
    token = _replica_wanted.set(wanted)
    try:
        yield wanted
    finally:
        _replica_wanted.reset(token)


def replica_reads(view: Callable[P, R]) -> Callable[P, R]:
    """Marks a read-only view (a function view, or an APIView's `get`) whose reads may lag.

    If the replica fails while the view runs (stopped, restarted, the connection cut), the view
    runs again on the primary: it only reads, so running it twice is harmless.
    """

    @functools.wraps(view)
    def wrapped(*args: P.args, **kwargs: P.kwargs) -> R:
        with reads_from_replica() as on_replica:
            try:
                return view(*args, **kwargs)
            except DatabaseError as error:
                if not on_replica or _replica_answers():
                    raise
                health.mark_down(error)
        return view(*args, **kwargs)

    return wrapped


def _routed() -> bool:
    """Whether this router is on (DATABASE_REPLICA_URL; the router's tests switch it on themselves)."""
    return any(isinstance(each, ReplicaRouter) for each in router.routers)


def _replica_answers() -> bool:
    """Whether the replica answers (if not, its connection is closed, to be made anew): a view's
    database error came from the primary if it does."""
    replica = connections[REPLICA]
    try:
        replica.ensure_connection()
        if replica.is_usable():
            return True
    except DatabaseError:
        pass
    replica.close()
    return False


class ReplicaPinMiddleware:
    """Read-your-writes: after an unsafe request, the client reads from the primary for
    `REPLICA_PIN_SECONDS` (a cookie holding until when), whichever process serves it."""

    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        token = _pinned.set(_pin_holds(request.COOKIES.get(PIN_COOKIE)))
        try:
            response = self.get_response(request)
        finally:
            _pinned.reset(token)
        if request.method not in _SAFE_METHODS:
            seconds = settings.REPLICA_PIN_SECONDS
            response.set_cookie(
                PIN_COOKIE, f"{time.time() + seconds:.3f}", max_age=seconds, httponly=True, samesite="Lax",
                secure=settings.SESSION_COOKIE_SECURE,
            )
        return response


def _pin_holds(value: str | None) -> bool:
    try:
        until = float(value or 0)
    except ValueError:
        return False
    # A client can only pin itself (to the primary, which it may read anyway), never for longer;
    # a second of slack, as the wall clock may step back a little between two requests.
    now = time.time()
    return now < until <= now + settings.REPLICA_PIN_SECONDS + 1
