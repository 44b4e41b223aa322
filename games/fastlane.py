"""Moves played on the event loop: from sockets, and from `POST /api/matches/<id>/moves` with an
API token, without a thread or Django's request machinery.

A move through Django's handler cost about 3.4 ms of server CPU, most of it the request
path around the service (a view with no database at all served 1,400-1,900 requests/s on the
whole 2-core machine); a socket's move also hopped to a thread and back (bench/moves.py,
bench/live.py). Here the same decisions (`moves.move_seat`, `moves.move_decide`) and the
very same statements (`store.HEAD_SQL`, `store.claim_statement`) run on connections of this
process's own async pool: one read and one claim, each atomic on its own, as in the service.

The lane takes only requests it answers exactly as the REST view would. Anything else (no
token, a refused token, a throttled client, a body or header the view would refuse or read
another way) goes to Django unchanged, which gives the one canonical answer. It runs only
on PostgreSQL with Redis (`FASTLANE`); elsewhere callers use the service in a thread.
"""
from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import time
import uuid
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

import psycopg
import redis.asyncio as redis
from csp.utils import build_policy
from django.conf import settings
from django.db import connections
from django.http import parse_cookie
from django.http.request import split_domain_port, validate_host
from django.utils import translation
from psycopg.errors import UniqueViolation
from psycopg_pool import AsyncConnectionPool

from accounts.models import ApiToken, User
from accounts.tokens import key_hash
from games import store
from games.models import Event, Match, MoveReceipt, Seat
from games.services import moves
from games.state import state_cache, state_from_rows
from server import languages, logs, loop_watch, metrics
from server.errors import ApplicationError
from server.limits import ScopedThrottle, json_depth, json_has_nul
from server.redis_clients import redis_async_client

log = logging.getLogger(__name__)


def enabled() -> bool:
    return settings.FASTLANE


# --- the move --------------------------------------------------------------------------


class _Pool:
    """This process's async connections, made on the loop that first asks (tests run several);
    `size()` of them, all opened at once, each first running `setup` if given."""

    def __init__(self, size, setup: str | None = None) -> None:
        self._size, self._setup = size, setup
        self._pool = None
        self._opening: asyncio.Future | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opened: weakref.WeakSet = weakref.WeakSet()

    async def connection(self):
        loop = asyncio.get_running_loop()
        if self._pool is None or self._loop is not loop:
            db = connections["default"].settings_dict
            conninfo = " ".join(
                f"{key}={value}" for key, value in (
                    ("dbname", db["NAME"]), ("user", db["USER"]), ("password", db["PASSWORD"]),
                    ("host", db["HOST"]), ("port", db["PORT"]),
                ) if value
            )
            # Server-side binding: psycopg prepares a statement run five times on a connection, so
            # the database parses and plans each of the few statements here once per connection
            # (Django's connections bind on the client and plan every statement again). All of them
            # open at once: one opened on demand kept its request waiting in a busy process.
            self._pool = AsyncConnectionPool(
                conninfo, min_size=self._size(), max_size=self._size(), open=False,
                kwargs={"autocommit": True, "application_name": "fastlane"},
                configure=self._opened_add,
            )
            self._loop = loop
            self._opening = asyncio.ensure_future(self._pool.open())  # once, however many ask meanwhile
        await self._opening
        return self._pool.connection()

    async def _opened_add(self, conn) -> None:
        self._opened.add(conn)
        if self._setup:
            await conn.execute(self._setup, prepare=False)

    def discard(self) -> None:
        """Drops the pool and closes its connections, from outside its loop (tests: a loop each)."""
        if self._pool is not None and not self._loop.is_closed() and not self._loop.is_running():
            self._loop.run_until_complete(self._pool.close())
        for conn in list(self._opened):
            conn.pgconn.finish()
        self._pool = self._opening = self._loop = None


pool = _Pool(lambda: settings.FASTLANE_POOL_MAX)  # the moves' reads
# The group commit's one connection (`_GroupCommit`): it never waits long for a row.
commit_pool = _Pool(lambda: 1, "SET lock_timeout = '100ms'")


def pools_discard() -> None:
    """Both pools' connections closed (`_Pool.discard`)."""
    pool.discard()
    commit_pool.discard()

_ENGINE_ROWS_SQL = (
    f"SELECT seq, data FROM {Event._meta.db_table} WHERE match_id = %s AND kind = %s AND seq > %s AND seq <= %s ORDER BY seq"
)
_RECEIPT_SQL = (
    f"SELECT request_sha256, response FROM {MoveReceipt._meta.db_table} WHERE user_id = %s AND match_id = %s AND key = %s"
)


async def move_submit(*, match_id: int, user_id: int, move: Any, expected_seq: int | None = None,
                      idempotency_key: str | None = None) -> dict:
    """`moves.move_submit` for a user known by id, on the event loop."""
    return await _move(match_id, user_id, None, move, expected_seq, idempotency_key)


async def _move(match_id: int, user_id: int, head: store.Head | None, move: Any, expected_seq: int | None,
                idempotency_key: str | None) -> dict:
    """`moves._move_append` on the loop, counted and timed (`metrics.MoveMeasure`)."""
    with metrics.MoveMeasure("fastlane") as measure:
        return await _move_attempts(measure, match_id, user_id, head, move, expected_seq, idempotency_key)


async def _move_attempts(measure: metrics.MoveMeasure, match_id: int, user_id: int, head: store.Head | None, move: Any,
                         expected_seq: int | None, idempotency_key: str | None) -> dict:
    """`head`, if given, is the first attempt's (read with the caller's token and the same receipt
    key). The reads hold a connection of `pool` only while they run: the claim waits for the
    group commit without one."""
    receipt = moves.move_receipt(user_id, idempotency_key, move, expected_seq)
    for _ in range(moves.MAX_APPEND_ATTEMPTS):
        async with await pool.connection() as conn:
            if head is None:
                cursor = await conn.execute(store.HEAD_SQL, store.head_params(match_id, receipt))
                head = store.head_from_rows(match_id, await cursor.fetchall())
            if head is not None:
                measure.game = head.match.game
            if head is not None and head.receipt_request is not None:
                assert receipt is not None  # the head reads a receipt only under one
                stored = await _receipt(conn, match_id, receipt)
                assert stored is not None  # the head found it
                measure.outcome = "repeated"
                return moves.receipt_answer(receipt, *stored)
            seat = moves.move_seat(head, match_id, None, move, user_id=user_id, expected_seq=expected_seq)
            assert head is not None  # move_seat refuses a missing match
            state = await _state(conn, head.match)
        decided = moves.move_decide(head, state, seat, move, moves.user_actor_of(user_id))
        claim = store.claim_statement(
            match_id, decided.base_seq, decided.changes, decided.rows, receipt=receipt and (receipt, decided.response)
        )
        try:
            claimed = await group_commit.claim(match_id, claim, functools.partial(_committed, match_id, decided))
        except UniqueViolation:
            # The same key won a race in another request: give its answer.
            if receipt is not None:
                async with await pool.connection() as conn:
                    stored = await _receipt(conn, match_id, receipt)
                if stored is not None:
                    measure.outcome = "repeated"
                    return moves.receipt_answer(receipt, *stored)
            raise
        if claimed:
            return decided.response
        if expected_seq is not None:
            raise moves.stale_seq(None)
        head = None
    raise moves.table_busy()


class _Waiting(NamedTuple):
    match_id: int
    claim: tuple[str, list]  # `store.claim_statement`'s (sql, params)
    on_claimed: Callable[[], None]
    answer: asyncio.Future


class _GroupCommit:
    """Commits the claims of this process's moves: alone when nothing is committing, and
    together, in one transaction sent as one pipeline, the claims that arrived while a commit
    was in flight: one flush of the WAL for many moves, as databases and logs do it (measured
    in bench/live.py at saturation: batches of 2-3, 729 moves/s before, 791-861 after).

    Each claim stays conditional on its own table's head (`store.claim_statement`), so a stale
    one answers 0 and changes nothing while the rest commit. A lone move waits for no company:
    what waits is only what arrived during someone else's commit. Claims go in order of match,
    so two processes' batches take their rows' locks in one order.

    The commit connection is one for the whole process, so it never waits on another writer:
    a claim or a batch waits at most 100 ms for a row someone else holds (a round's deadlines
    being set, a seat being abandoned). That, or any failed statement of a batch (an
    idempotency key that won a race elsewhere), sends each of its claims to be committed alone
    on a connection of `pool`, beside the next batches, where it may wait as a move always
    could, and gets its own answer.
    """

    def __init__(self) -> None:
        self._waiting: list[_Waiting] = []
        self._committing: asyncio.Task | None = None
        self._alone: set[asyncio.Task] = set()  # the loop keeps only weak references to tasks
        self._loop: asyncio.AbstractEventLoop | None = None

    async def claim(self, match_id: int, claim: tuple[str, list], on_claimed: Callable[[], None]) -> bool:
        """Whether the claim `(sql, params)` of `store.claim_statement` took the head.
        `on_claimed` runs as soon as it committed, even if the caller is cancelled by then (a
        closed socket): a committed move always reaches its table's sockets."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # a new loop (tests run several): nothing of the old one is left
            self._waiting, self._committing, self._alone, self._loop = [], None, set(), loop
        answer = loop.create_future()
        self._waiting.append(_Waiting(match_id, claim, on_claimed, answer))
        if self._committing is None or self._committing.done():
            self._committing = loop.create_task(self._commit_while_waiting())
        return await answer

    async def _commit_while_waiting(self) -> None:
        while self._waiting:
            batch, self._waiting = sorted(self._waiting, key=lambda waiting: waiting.match_id), []
            loop_watch.count("group_commit_batch", len(batch))
            metrics.group_commit_batch.observe(len(batch))
            try:
                async with await commit_pool.connection() as conn:
                    outcomes = await _committed_together(conn, [waiting.claim for waiting in batch])
            except Exception as exc:  # noqa: BLE001 - every waiter hears it; the loop goes on
                outcomes = [exc] * len(batch)
            for waiting, outcome in zip(batch, outcomes, strict=True):
                if outcome is _ALONE:
                    task = asyncio.get_running_loop().create_task(_claimed_alone(waiting))
                    self._alone.add(task)
                    task.add_done_callback(self._alone.discard)
                else:
                    _settled(waiting, outcome)


_ALONE = object()  # a claim to commit on its own


async def _committed_together(conn, claims: list[tuple[str, list]]) -> list:
    """Each claim's outcome (claimed or not): a lone one as one statement, as a move always
    was, several in one transaction; `_ALONE` for each claim to commit on its own instead."""
    if len(claims) == 1:
        try:
            return [await _claimed(conn, claims[0])]
        except psycopg.errors.LockNotAvailable:
            return [_ALONE]
    try:
        async with conn.pipeline() as pipeline, conn.transaction():
            # The connection's own lock timeout again, for this transaction: a pooler in
            # transaction mode may have handed it a server connection that never had it.
            await conn.execute(_BATCH_LOCK_TIMEOUT_SQL, prepare=False)
            cursors = [await conn.execute(*claim) for claim in claims]
            await pipeline.sync()
            return [(await cursor.fetchone())[0] == 1 for cursor in cursors]
    except psycopg.errors.Error:
        if conn.broken:
            raise
        return [_ALONE] * len(claims)


_BATCH_LOCK_TIMEOUT_SQL = "SET LOCAL lock_timeout = '100ms'"


async def _claimed(conn, claim: tuple[str, list]) -> bool:
    return (await (await conn.execute(*claim)).fetchone())[0] == 1


async def _claimed_alone(waiting: _Waiting) -> None:
    try:
        async with await pool.connection() as conn:
            outcome: Any = await _claimed(conn, waiting.claim)
    except Exception as exc:  # noqa: BLE001 - its waiter hears it
        outcome = exc
    _settled(waiting, outcome)


def _settled(waiting: _Waiting, outcome: Any) -> None:
    """Tells the claim's waiter its outcome; a committed claim's move reaches its sockets."""
    if outcome is True:
        try:
            waiting.on_claimed()
        except Exception:  # committed: its sockets catch up on their next frame or resync
            log.exception("a committed move of match %s did not reach its caches and sockets", waiting.match_id)
    if waiting.answer.done():  # its caller was cancelled
        return
    if isinstance(outcome, BaseException):
        waiting.answer.set_exception(outcome)
    else:
        waiting.answer.set_result(outcome)


group_commit = _GroupCommit()


async def _receipt(conn, match_id: int, receipt: store.Receipt) -> tuple[str, dict] | None:
    row = await (await conn.execute(_RECEIPT_SQL, [receipt.user_id, match_id, receipt.key])).fetchone()
    return tuple(row) if row else None


async def _state(conn, match) -> Any:
    """The engine state at the head, from this process's cache, brought up to it if behind."""
    cached = state_cache.get(match.pk)
    if cached is not None and cached.seq == match.last_seq:
        return cached.state
    base = cached if cached is not None and cached.seq < match.last_seq else None
    after = base.seq if base is not None else 0
    cursor = await conn.execute(_ENGINE_ROWS_SQL, [match.pk, Event.Kind.ENGINE, after, match.last_seq])
    return state_from_rows(match.pk, match.game, match.last_seq, base=base, rows=await cursor.fetchall())


def _committed(match_id: int, decided: moves.MoveDecided) -> None:
    moves.match_committed(match_id, decided)
    if decided.followups or decided.finished:
        # Queueing tasks talks to the broker: not on the loop.
        asyncio.get_running_loop().run_in_executor(None, moves.move_tasks_send, match_id, decided)


# --- the REST endpoint -----------------------------------------------------------------

_MOVES_PATH = re.compile(r"^/api/matches/(\d+)/moves$")
_VALID_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


def handles(scope) -> bool:
    """Whether an HTTP request is a move this lane may take (it may still hand it to Django)."""
    return settings.FASTLANE and scope["method"] == "POST" and _MOVES_PATH.match(scope["path"]) is not None


async def http_move(scope, receive, send, django) -> None:
    """Answers a move request as `games.api.MoveSubmitApi` would, or hands it to `django`."""
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
    if len(headers) != len(scope["headers"]):
        return await django(scope, receive, send)  # a repeated header: how Django joins them is its own
    try:
        length = int(headers.get("content-length", ""))
    except ValueError:
        length = -1
    if not 0 <= length <= settings.MAX_BODY_BYTES:
        return await django(scope, receive, send)  # chunked, or too large: Django's own answers
    body, receive = await _body_read(receive)
    request = _request_parsed(scope, headers, body)
    if request is None:
        return await django(scope, receive, send)
    match_id, token, key, move, expected_seq = request
    if settings.SESSION_COOKIE_NAME in parse_cookie(headers.get("cookie", "")):
        # With a session too, the language may be the session account's: Django's to choose.
        return await django(scope, receive, send)
    request_id = headers.get("x-request-id", "")
    request_id = request_id if _VALID_REQUEST_ID.match(request_id) else uuid.uuid4().hex
    logs.request_id.set(request_id)
    logs.match_id.set(match_id)
    answer = status = None
    async with await pool.connection() as conn:
        cursor = await conn.execute(_HEAD_BY_TOKEN_SQL, [key, key_hash(token), match_id])
        rows = await cursor.fetchall()
    user_id, user_language = rows[0][:2] if rows else (None, "")
    # The API's rule (server.languages), for this task alone: a context variable.
    language = languages.chosen(
        user_language=user_language, cookie=parse_cookie(headers.get("cookie", "")).get(settings.LANGUAGE_COOKIE_NAME),
        accept_language=headers.get("accept-language", ""), api=True,
    )
    if user_id is not None and await _throttle.allows(user_id):
        head = store.head_from_rows(match_id, [row[2:] for row in rows])
        with translation.override(language):
            try:
                answer, status = await _move(match_id, user_id, head, move, expected_seq, key), 200
            except ApplicationError as exc:
                answer, status = {"error": exc.as_dict()}, exc.status
    if status is None:
        return await django(scope, receive, send)  # no such token (401) or throttled (429), as Django words them
    assert answer is not None  # set with the status
    await _respond(send, status, answer, request_id, secure=_is_secure(scope), language=language)


async def _body_read(receive):
    chunks, more = [], True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        more = message.get("more_body", False)
    body = b"".join(chunks)
    sent = False

    async def replay():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


def _request_parsed(scope, headers: dict[str, str], body: bytes):
    """`(match id, token, idempotency key, move, expected_seq)` of a request the view would
    accept as it is, else None."""
    if scope.get("query_string") or not _host_allowed(headers.get("host", "")):
        return None
    if settings.SECURE_SSL_REDIRECT and not _is_secure(scope):
        return None
    if _media_type(headers.get("content-type")) not in ("application/json", "application/json;charset=utf-8"):
        return None
    if _media_type(headers.get("accept")) not in ("", "*/*", "application/json"):
        return None  # another renderer (the browsable API), or none (406): the view's choice
    scheme, _, token = headers.get("authorization", "").partition(" ")
    if scheme.lower() != "token" or not token or " " in token:
        return None
    key = headers.get("idempotency-key") or None
    if key is not None and len(key) > 128:
        return None
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_refused)
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return None
    if not isinstance(data, dict) or data.get("move") is None:
        return None
    if json_depth(data, settings.MAX_JSON_DEPTH) > settings.MAX_JSON_DEPTH or json_has_nul(data):
        return None
    expected_seq = data.get("expected_seq")
    if expected_seq is not None and (type(expected_seq) is not int or expected_seq < 0):
        return None
    path = _MOVES_PATH.match(scope["path"])
    assert path is not None  # `handles` let only this path in
    return int(path[1]), token, key, data["move"], expected_seq


def _media_type(header: str | None) -> str:
    return (header or "").replace(" ", "").lower()


def _refused(constant: str):
    raise ValueError(f"{constant} is not JSON")  # as DRF's strict parser


def _host_allowed(host: str) -> bool:
    allowed = settings.ALLOWED_HOSTS
    if settings.DEBUG and not allowed:
        allowed = [".localhost", "127.0.0.1", "[::1]"]
    domain, _ = split_domain_port(host)
    return bool(domain) and validate_host(domain, allowed)


def _is_secure(scope) -> bool:
    """As Django's `request.is_secure()`: the scheme uvicorn found (a trusted proxy's word for it)."""
    return scope.get("scheme") == "https"


# `store.HEAD_SQL` for the owner of an API token (no row: no such token, an expired one, or its
# user is not active), read anew for every request so a revoked token fails at once.
_HEAD_BY_TOKEN_SQL = f"""
    SELECT who.id, who.language, {store.HEAD_COLUMNS},
           (SELECT r.request_sha256 FROM {MoveReceipt._meta.db_table} r
            WHERE r.user_id = who.id AND r.key = %s AND r.match_id = m.id)
    FROM (SELECT u.id, u.language FROM {User._meta.db_table} u JOIN {ApiToken._meta.db_table} t ON t.user_id = u.id
          WHERE t.key_hash = %s AND t.expires > now() AND u.is_active) who
    LEFT JOIN {Match._meta.db_table} m ON m.id = %s LEFT JOIN {Seat._meta.db_table} s ON s.match_id = m.id
"""


class _Throttle:
    """The moves throttle's counter (`server.limits.ScopedThrottle`, same keys), on the loop."""

    def __init__(self) -> None:
        self._redis: redis.Redis | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    async def allows(self, user_id: int) -> bool:
        throttle = ScopedThrottle()
        throttle.scope = "moves"
        limit, duration = throttle.parse_rate(throttle.get_rate())
        assert limit is not None and duration is not None  # get_rate gives a rate or raises
        loop = asyncio.get_running_loop()
        if self._redis is None or self._loop is not loop:
            self._redis, self._loop = redis_async_client(), loop
        window_key = ScopedThrottle.window_key(f"throttle_moves_{user_id}", int(time.time() // duration))
        key = throttle.cache.make_key(window_key)
        try:
            count = await self._redis.incr(key)
            if count == 1:  # the window's first request; a key left without expiry is never read again
                await self._redis.expire(key, duration + 1)
        except Exception:  # noqa: BLE001 - as the view's throttle: a move must commit while Redis is away
            log.warning("throttle cache unavailable; letting a move through", exc_info=True)
            return True
        return count <= limit  # a refusal goes on to Django, whose throttle refuses (and counts) it again


_throttle = _Throttle()


def _json_bytes(data: Any) -> bytes:
    """As DRF's JSONRenderer with the project's settings (compact, UTF-8, strict)."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029").encode("utf-8")


@functools.cache
def _content_security_policy() -> bytes:
    """The header csp.middleware.CSPMiddleware gives the view's answers, built once."""
    return build_policy().encode()


async def _respond(send, status: int, answer: dict, request_id: str, *, secure: bool, language: str) -> None:
    body = _json_bytes(answer)
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"vary", b"Accept, Accept-Language, Cookie"),  # as server.middleware.LanguageMiddleware's
        (b"content-language", language.encode()),
        (b"allow", b"POST, OPTIONS"),
        (b"x-request-id", request_id.encode()),
        (b"x-frame-options", b"DENY"),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", settings.SECURE_REFERRER_POLICY.encode()),
        (b"cross-origin-opener-policy", settings.SECURE_CROSS_ORIGIN_OPENER_POLICY.encode()),
        (b"content-security-policy", _content_security_policy()),
    ]
    if secure and settings.SECURE_HSTS_SECONDS:
        value = f"max-age={settings.SECURE_HSTS_SECONDS}"
        value += "; includeSubDomains" if settings.SECURE_HSTS_INCLUDE_SUBDOMAINS else ""
        headers.append((b"strict-transport-security", value.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})

