"""What leaves a committed chat event: a hint to the table's sockets (`chat.consumers.TableConsumer`)."""
from __future__ import annotations

import logging

from games.notify import match_group
from server import live

log = logging.getLogger(__name__)


def match_chat_changed(match_id: int, chat_seq: int) -> None:
    """Tells the table's sockets that its chat is at `chat_seq`: each reads what its own reader
    may see of it (`chat.selectors`), so the hint carries no text."""
    try:
        live.send(match_group(match_id), {"type": "chat.changed", "chat_seq": chat_seq})
    except Exception:  # committed; sockets catch up on their next resync or reconnect
        log.warning("could not tell match %s's sockets about chat %s", match_id, chat_seq, exc_info=True)
