"""What leaves a committed transaction: a hint to the table's sockets, and bot turns for workers.

Both carry ids and a sequence number only. Channel-layer messages are hints (at most once):
sockets re-read what they need from the database and clients ask again on a gap.
"""
from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine

from asgiref.sync import SyncToAsync
from channels.layers import get_channel_layer
from django.conf import settings

from server.celery import send_now

log = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def match_changed(match_id: int, seq: int, change: dict | None = None) -> None:
    """Tells the table's sockets that it is at `seq`; `change` (`frames.change_of`) saves every
    process that holds the state before it a read of the database."""
    message = {"type": "match.changed", "seq": seq}
    if change is not None:
        message["change"] = change
    try:
        _publisher.send(match_group(match_id), message)
    except Exception:  # the move is committed; sockets catch up on their next frame, ping or reconnect
        log.warning("could not tell match %s's sockets about seq %s", match_id, seq, exc_info=True)


def matches_changed(heads: list[tuple[int, int]]) -> None:
    """`match_changed` for many tables at once, as (match id, seq): a round's tables starting.

    Handed to the publisher in one go, so the writer pays one hand-off, not one per table.
    """
    messages = [(match_group(match_id), {"type": "match.changed", "seq": seq}) for match_id, seq in heads]
    try:
        _publisher.send_many(messages)
    except Exception:  # committed, as above
        log.warning("could not tell %s matches' sockets that they started", len(messages), exc_info=True)


def match_seats_changed(match_id: int) -> None:
    """Tells an open table's sockets that someone sat down or left: each reads the seat its
    person holds now (a hint too; frames read the seats off the head they are built on anyway)."""
    try:
        _publisher.send(match_group(match_id), {"type": "seats.changed"})
    except Exception:
        log.warning("could not tell match %s's sockets that its seats changed", match_id, exc_info=True)


def groups_hint(groups: list[str], message: dict) -> None:
    """Sends one hint to each of many groups' sockets (people's notifications,
    `notifications.consumers`), in one hand-off."""
    try:
        _publisher.send_many([(group, message) for group in groups])
    except Exception:  # committed, as above: the sockets catch up on their next look
        log.warning("could not send a hint to %s groups", len(groups), exc_info=True)


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
        log.warning("could not send a hint to a match's sockets", exc_info=future.exception())


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


def match_finished(match_id: int) -> None:
    """A match ended: every task in `MATCH_FINISHED_TASKS` gets its id
    (ratings, tournaments, notifications)."""
    for path in settings.MATCH_FINISHED_TASKS:
        send_now(path, match_id)
