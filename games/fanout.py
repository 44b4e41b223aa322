"""A table's moves, heard once per process and handed to each of its sockets here.

Each socket of a table used to hear every move's hint from the channel layer itself: at a final
watched by a thousand people, the layer decoded the hint a thousand times, Channels dispatched it
to a thousand consumers and each moved the process's state on again (bench/live.py: 0.16 ms of
server CPU per spectator per move, most of it that machinery). Now one subscription per table per
process hears the table's moves (`notify.match_moves_group`), moves this process's state and head
on once (`frames.change_applied`), and wakes each of the table's sockets here, which sends the
frame `frames` built once for its seat. A socket woken while it still sends its last frame sends
one frame for both: frames carry everything since the socket's `seq`.

The table's presence entries are refreshed here too, for all of its sockets in this process at
once, rather than by a thread hop per socket.
"""
from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from channels.layers import get_channel_layer

from games import frames, notify
from games.presence import TTL, presence

log = logging.getLogger(__name__)
PRESENCE_REFRESH_SECONDS = TTL / 3


class Watcher(Protocol):
    """A socket of the table: woken with each new head's seq; its presence entry by its id."""

    socket_id: str
    entry: dict

    def hinted(self, seq: int) -> None: ...


class _Table:
    __slots__ = ("hearing", "ready", "refreshing", "watchers")

    def __init__(self, match_id: int, loop: asyncio.AbstractEventLoop) -> None:
        self.watchers: set[Watcher] = set()
        self.ready: asyncio.Future = loop.create_future()  # done once the subscription holds
        self.hearing = loop.create_task(_hear(match_id, self))
        self.refreshing = loop.create_task(_refresh_presence(match_id, self))

    def end(self) -> None:
        self.hearing.cancel()
        self.refreshing.cancel()


_tables: dict[int, _Table] = {}  # match id -> its sockets in this process (on this process's loop)


async def watch(match_id: int, watcher: Watcher) -> None:
    """Adds a socket to its table, once the table's moves are heard in this process: a move
    committed after this returns wakes it. Raises if the channel layer cannot subscribe (the socket
    then catches up only on its pings and resyncs, as with a lost hint)."""
    loop = asyncio.get_running_loop()
    table = _tables.get(match_id)
    if table is None or table.ready.get_loop() is not loop:  # a loop gone (tests run several)
        table = _tables[match_id] = _Table(match_id, loop)
    table.watchers.add(watcher)
    await asyncio.shield(table.ready)


def unwatch(match_id: int, watcher: Watcher) -> None:
    """Takes a socket off its table; the last one off ends the table's subscription here."""
    table = _tables.get(match_id)
    if table is None:
        return
    table.watchers.discard(watcher)
    if not table.watchers:
        del _tables[match_id]
        table.end()


def watched() -> dict[int, int]:
    """How many sockets of each table this process holds."""
    return {match_id: len(table.watchers) for match_id, table in _tables.items()}


async def _hear(match_id: int, table: _Table) -> None:
    layer = get_channel_layer()
    group = notify.match_moves_group(match_id)
    try:
        channel = await layer.new_channel()
        await layer.group_add(group, channel)
    except Exception as exc:  # noqa: BLE001 - given to every socket that waits on it
        if _tables.get(match_id) is table:
            del _tables[match_id]  # the next socket tries again
        table.ready.set_exception(exc)
        table.refreshing.cancel()
        return
    table.ready.set_result(None)
    try:
        while True:
            message = await layer.receive(channel)
            try:
                _heard(match_id, table, message)
            except Exception:  # noqa: BLE001 - one bad hint must not deafen the table
                log.exception("could not hand match %s's hint to its sockets", match_id)
    finally:
        with contextlib.suppress(Exception):  # the layer may be away; the subscription goes with it
            await asyncio.shield(layer.group_discard(group, channel))


def _heard(match_id: int, table: _Table, message: dict) -> None:
    if message.get("type") != "match.changed":
        return
    if "change" in message:
        frames.change_applied(match_id, message["change"])
    seq = message["seq"]
    for watcher in tuple(table.watchers):
        watcher.hinted(seq)


async def _refresh_presence(match_id: int, table: _Table) -> None:
    """Keeps the entries of the table's sockets here alive (`presence.TTL`), all in one write."""
    while True:
        await asyncio.sleep(PRESENCE_REFRESH_SECONDS)
        entries = {watcher.socket_id: watcher.entry for watcher in table.watchers}
        if not entries:
            continue
        try:
            await asyncio.to_thread(presence().join_many, match_id, entries)
        except Exception:  # noqa: BLE001 - presence is a courtesy: the table plays on without it
            log.warning("could not refresh presence for match %s", match_id, exc_info=True)
