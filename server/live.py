"""Hints to open sockets, sent from sync code without waiting: the channel layer's publisher.

The apps say what changed (`games.notify`: a table; `chat.notify`: its chat; notifications: a
person's list) and hand it here by group. Channel-layer messages are hints (at most once) that
carry ids and sequence numbers only: sockets re-read what they need from the database, and
clients ask again on a gap, so a writer never waits for one and a hint that fails is logged.
"""
from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Awaitable, Callable, Coroutine

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

# A socket that could not join its groups (the channel layer away) tries again after about this
# long, twice as long each time after, up to the longest.
JOIN_RETRY_FIRST_SECONDS = 1.0
JOIN_RETRY_LONGEST_SECONDS = 15.0


def send(group: str, message: dict) -> None:
    """Hands one hint to `group`'s sockets; raises only if it cannot be handed over (the caller,
    whose change is committed, logs what it was)."""
    _publisher.send(group, message)


def send_many(messages: list[tuple[str, dict]]) -> None:
    """Hands (group, message) pairs over in one go, sent in order: one hand-off for all of them."""
    _publisher.send_many(messages)


def groups_hint(groups: list[str], message: dict) -> None:
    """Sends one hint to each of many groups' sockets (people's notifications,
    `notifications.consumers`), in one hand-off."""
    try:
        _publisher.send_many([(group, message) for group in groups])
    except Exception:  # committed: the sockets catch up on their next look
        log.warning("could not send a hint to %s groups", len(groups), exc_info=True)


async def joined(join: Callable[[], Awaitable[object]], group: str, *, again: bool = False) -> bool:
    """Runs `join` (a socket joining `group` and whatever else it hears through the channel
    layer); False if the layer is away, logged (at debug level when it is `again`)."""
    try:
        await join()
    except Exception:  # noqa: BLE001 - the client library's own connection errors
        log.log(logging.DEBUG if again else logging.WARNING, "could not join group %s; trying again, and "
                "meanwhile this socket catches up on each ping", group, exc_info=not again)
        return False
    return True


async def join_retried(join: Callable[[], Awaitable[object]], group: str) -> None:
    """Runs `join` until it holds (`joined`). A socket that connected during a Redis outage or
    failover would otherwise never hear a hint again, only its pings' answers (tests/FLAKES.md).
    The waits are jittered, so that the sockets of a process that failed together do not all try
    again together."""
    delay = JOIN_RETRY_FIRST_SECONDS
    while True:
        await asyncio.sleep(delay * random.uniform(0.5, 1.0))
        if await joined(join, group, again=True):
            return
        delay = min(2 * delay, JOIN_RETRY_LONGEST_SECONDS)


class _Publisher:
    """Sends group messages from sync code without waiting for them.

    In a server process the send is handed to the server's own event loop (where an in-memory
    layer lives); elsewhere to one event loop of this process's own, in a thread, because
    `async_to_sync` outside a server makes a new event loop per call, and a channel layer a new
    Redis connection per loop. Either way the writer does not wait: a hint that fails is logged,
    and sockets catch up on their next frame.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()
        self._tasks: set[asyncio.Task] = set()

    def send(self, group: str, message: dict) -> None:
        layer = get_channel_layer()
        if layer is not None:
            self._hand_off(layer.group_send(group, message))

    def send_many(self, messages: list[tuple[str, dict]]) -> None:
        """Sends (group, message) pairs in order, from one task: one hand-off for all of them."""
        layer = get_channel_layer()
        if layer is not None and messages:
            self._hand_off(_group_send_each(layer, messages))

    def _hand_off(self, sending: Coroutine) -> None:
        loop = _server_loop() or self._own_loop()
        if _running_loop() is loop:  # a move played on the loop itself (games.fastlane)
            task = loop.create_task(sending)
            self._tasks.add(task)  # the loop keeps only a weak reference to a task
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(_log_failure)
        else:
            asyncio.run_coroutine_threadsafe(sending, loop).add_done_callback(_log_failure)

    def _own_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="channel-layer-publisher", daemon=True).start()
            return self._loop


async def _group_send_each(layer, messages: list[tuple[str, dict]]) -> None:
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # one lost hint does not lose the rest
            log.warning("could not send a hint to %s", group, exc_info=True)


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _log_failure(future) -> None:
    if not future.cancelled() and future.exception() is not None:
        log.warning("could not send a hint to a group's sockets", exc_info=future.exception())


_server_loop_of_process: asyncio.AbstractEventLoop | None = None


def server_loop_set(loop: asyncio.AbstractEventLoop) -> None:
    """Called by the ASGI application: the loop this process serves sockets on."""
    global _server_loop_of_process
    _server_loop_of_process = loop


def _server_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop of the server this process runs, if it runs one."""
    loop = _server_loop_of_process or getattr(SyncToAsync.threadlocal, "main_event_loop", None)
    return loop if loop is not None and loop.is_running() else None


_publisher = _Publisher()
