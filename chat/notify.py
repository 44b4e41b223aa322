"""What leaves a committed chat event: a hint to the table's sockets (`chat.consumers.TableConsumer`)."""
from __future__ import annotations

from games import notify


def match_chat_changed(match_id: int, chat_seq: int) -> None:
    """Tells the table's sockets that its chat is at `chat_seq`: each reads what its own reader
    may see of it (`chat.selectors`), so the hint carries no text. A hint that cannot be sent is
    logged; sockets catch up on their next resync, ping or reconnect."""
    notify.groups_hint([notify.match_group(match_id)], {"type": "chat.changed", "chat_seq": chat_seq})
