"""What leaves a committed transaction: a hint to the table's sockets, and bot turns for workers.

Both carry ids and a sequence number only. Channel-layer messages are hints (at most once):
sockets re-read what they need from the database and clients ask again on a gap.
"""
from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.utils.module_loading import import_string

log = logging.getLogger(__name__)


def match_group(match_id: int) -> str:
    return f"match.{match_id}"


def match_changed(match_id: int, seq: int) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(match_group(match_id), {"type": "match.changed", "seq": seq})
    except Exception:  # the move is committed; sockets catch up on their next frame or reconnect
        log.warning("could not tell match %s's sockets about seq %s", match_id, seq, exc_info=True)


def match_finished(match_id: int) -> None:
    """A match ended: every task in `MATCH_FINISHED_TASKS` (ratings, tournaments) gets its id."""
    for path in settings.MATCH_FINISHED_TASKS:
        try:
            import_string(path).delay(match_id)
        except Exception:  # the result is committed; each task's own sweep catches up with it
            log.warning("could not queue %s for match %s", path, match_id, exc_info=True)
