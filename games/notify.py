"""What a committed change of a table tells the rest of the house: a hint to the table's sockets
(through `server.live`), and a finished match's id to each of `MATCH_FINISHED_TASKS`.

Both carry ids and a sequence number only. Channel-layer messages are hints (at most once):
sockets re-read what they need from the database and clients ask again on a gap. (The chat's
own hint is `chat.notify`'s; the follow-ups of a move, such as a bot's turn, are
`games.schedule`'s.)
"""
from __future__ import annotations

import logging

from django.conf import settings

from server import live
from server.celery import send_now

log = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def match_moves_group(match_id: int) -> str:
    """Where a table's new heads are told: one subscriber per process that holds its sockets
    (`games.fanout`), not every socket, since every socket hears each of them."""
    return f"match.{match_id}.moves"


def match_changed(match_id: int, seq: int, change: dict | None = None) -> None:
    """Tells the table's sockets that it is at `seq`; `change` (`frames.change_of`) saves every
    process that holds the state before it a read of the database."""
    message = {"type": "match.changed", "seq": seq}
    if change is not None:
        message["change"] = change
    try:
        live.send(match_moves_group(match_id), message)
    except Exception:  # the move is committed; sockets catch up on their next frame, ping or reconnect
        log.warning("could not tell match %s's sockets about seq %s", match_id, seq, exc_info=True)


def matches_changed(heads: list[tuple[int, int]]) -> None:
    """`match_changed` for many tables at once, as (match id, seq): a round's tables starting.

    Handed to the publisher in one go, so the writer pays one hand-off, not one per table.
    """
    messages = [(match_moves_group(match_id), {"type": "match.changed", "seq": seq}) for match_id, seq in heads]
    try:
        live.send_many(messages)
    except Exception:  # committed, as above
        log.warning("could not tell %s matches' sockets that they started", len(messages), exc_info=True)


def match_seats_changed(match_id: int) -> None:
    """Tells an open table's sockets that someone sat down or left: each reads the seat its
    person holds now (a hint too; frames read the seats off the head they are built on anyway)."""
    try:
        live.send(match_group(match_id), {"type": "seats.changed"})
    except Exception:
        log.warning("could not tell match %s's sockets that its seats changed", match_id, exc_info=True)


def match_finished(match_id: int) -> None:
    """A match ended: every task in `MATCH_FINISHED_TASKS` gets its id
    (ratings, tournaments, notifications)."""
    for path in settings.MATCH_FINISHED_TASKS:
        send_now(path, match_id)
