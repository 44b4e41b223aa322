"""What leaves a committed transaction: a hint to the table's sockets, and bot turns for workers.

Both carry ids and a sequence number only. Channel-layer messages are hints (at most once):
sockets re-read what they need from the database and clients ask again on a gap.
"""
from __future__ import annotations

import asyncio
import logging
import threading

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def match_changed(match_id: int, seq: int) -> None:
    try:
        _publisher.send(match_group(match_id), {"type": "match.changed", "seq": seq})
    except Exception:  # the move is committed; sockets catch up on their next frame, ping or reconnect
        log.warning("could not tell match %s's sockets about seq %s", match_id, seq, exc_info=True)


class _Publisher:
    """Sends group messages from sync code through one event loop of its own, in a thread.

    `async_to_sync` outside a server makes a new event loop per call, and a channel layer
    makes a new Redis connection per loop: a worker would open one per move. One loop here
    means one layer and one connection per process.
    """

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def send(self, group: str, message: dict, timeout: float = 5.0) -> None:
        layer = get_channel_layer()
        if layer is None:
            return
        if _in_event_loop():  # an in-memory layer lives in the server's loop: stay on it
            async_to_sync(layer.group_send)(group, message)
            return
        asyncio.run_coroutine_threadsafe(layer.group_send(group, message), self._running_loop()).result(timeout)

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                self._loop = asyncio.new_event_loop()
                threading.Thread(target=self._loop.run_forever, name="channel-layer-publisher", daemon=True).start()
            return self._loop


def _in_event_loop() -> bool:
    """True in a server process, where sync code runs beside the event loop that async_to_sync reaches."""
    from asgiref.sync import SyncToAsync

    return getattr(SyncToAsync.threadlocal, "main_event_loop", None) is not None


_publisher = _Publisher()


def match_finished(match_id: int) -> None:
    """A match ended: every task in `MATCH_FINISHED_TASKS` (ratings, tournaments) gets its id."""
    for path in settings.MATCH_FINISHED_TASKS:
        try:
            import_string(path).delay(match_id)
        except Exception:  # the result is committed; each task's own sweep catches up with it
            log.warning("could not queue %s for match %s", path, match_id, exc_info=True)
