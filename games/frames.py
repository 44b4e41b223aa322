"""Live frames, encoded once per process for each head of a table and each way of seeing it.

Every socket of a table hears of each change. When each socket built its own frame, a move
cost a read of the match, a read of the log, a view and an encoding per socket: a hundred
of each for a hundred spectators (bench/live.py). Here the first socket to hear of a head
reads it; every other socket of the same seat that last saw the same seq is sent the same
text.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict

from django.conf import settings

from games import selectors

_TEXTS_PER_HEAD = 64  # distinct (kind, seat, since) frames kept for one head


class _Memo:
    __slots__ = ("head", "texts")

    def __init__(self, head: selectors.MatchHead) -> None:
        self.head = head
        self.texts: dict[tuple, str] = {}


_memos: OrderedDict[int, _Memo] = OrderedDict()
_lock = threading.Lock()


def frame_text(match_id: int, seat: int | None, *, kind: str, since: int, hint: int | None = None) -> tuple[int, str | None]:
    """`(seq, JSON text)` of the `kind` frame for a socket of `seat` that has seen up to `since`;
    the text is None for an update with nothing new.

    With `hint` (a seq the channel layer announced), a head this process has already read at or
    past it is used without asking the database: the change after it sends its own hint. Without
    one (a new socket, a resync, a ping), the head is read.
    """
    with _lock:
        memo = _memos.get(match_id)
    if memo is None or hint is None or memo.head.seq < hint:
        memo = _remember(match_id, selectors.match_head_read(match_id))
    head = memo.head
    if kind == "update" and head.seq <= since:
        return head.seq, None
    key = (kind, seat, since)
    text = memo.texts.get(key)
    if text is None:
        text = json.dumps({"type": kind, "seat": seat, **selectors.frame_at(head, seat, since=since)})
        if len(memo.texts) >= _TEXTS_PER_HEAD:
            memo.texts.clear()
        memo.texts[key] = text
    return head.seq, text


def _remember(match_id: int, head: selectors.MatchHead) -> _Memo:
    with _lock:
        memo = _memos.get(match_id)
        if memo is None or memo.head.seq < head.seq or (memo.head.seq == head.seq and memo.head != head):
            memo = _memos[match_id] = _Memo(head)
        _memos.move_to_end(match_id)
        while len(_memos) > settings.MATCH_STATE_CACHE_SIZE:
            _memos.popitem(last=False)
        return memo


def forget_all() -> None:
    """Empties the memo (tests reuse database ids)."""
    with _lock:
        _memos.clear()
