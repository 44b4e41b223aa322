"""Live frames: what a table's sockets are sent, built once per process for each head.

Every socket of a table hears of each change. When each socket built its own frame, a move
cost a read of the match, a read of the log, a view and an encoding per socket: a hundred of
each for a hundred spectators (bench/live.py). Here the first socket of a process to hear of
a head reads it, with the engine events its cached state lacks, in one statement; every
other socket of the same seat that last saw the same seq is sent the same text, straight
from the event loop.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from django.conf import settings

from games import store
from games.engines import ENGINES
from games.models import Event, Match
from games.selectors import redacted_events
from games.state import recent_engine_events, state_at_head, state_cache, state_catch_up
from server.errors import not_found

_TEXTS_PER_HEAD = 64  # distinct (kind, seat, since) frames kept for one head


class MatchHead(NamedTuple):
    """A match's committed head and what a frame shows of it besides the engine's state."""

    match_id: int
    game: str
    status: str
    seq: int
    deadline: str | None


def frame(match_id: int, seat: int | None, *, since: int) -> dict[str, Any]:
    """What a live socket of `seat` that has seen up to `since` is sent now."""
    return frame_at(_head_read(match_id), seat, since=since)


def frame_at(head: MatchHead, seat: int | None, *, since: int) -> dict[str, Any]:
    """The frame at `head`: view, legal moves and log all name exactly the state at `head.seq`."""
    built: dict[str, Any] = {
        "seq": head.seq, "status": head.status, "deadline": head.deadline, "view": None, "legal_moves": [], "events": [],
    }
    if head.status == Match.Status.OPEN:
        return built
    engine = ENGINES[head.game]
    state = state_at_head(head.match_id, head.game, head.seq)
    built["view"] = engine.view(state, seat)
    if seat is not None:
        built["legal_moves"] = engine.legal_moves(state, seat)
    rows = recent_engine_events(head.match_id, after=since, upto=head.seq)
    if rows is None:  # a socket far behind (or new): read the log
        rows = Event.objects.filter(
            match_id=head.match_id, kind=Event.Kind.ENGINE, seq__gt=since, seq__lte=head.seq
        ).order_by("seq").values_list("seq", "data")
    built["events"] = redacted_events(engine, rows, seat)
    return built


class _Memo:
    __slots__ = ("head", "texts")

    def __init__(self, head: MatchHead) -> None:
        self.head = head
        self.texts: dict[tuple, str] = {}


_memos: OrderedDict[int, _Memo] = OrderedDict()
_lock = threading.Lock()


def frame_text_known(match_id: int, seat: int | None, *, kind: str, since: int, hint: int) -> tuple[int, str | None] | None:
    """`frame_text`'s answer when this process already has it (no database, no engine), else None."""
    memo = _memos.get(match_id)
    if memo is None or memo.head.seq < hint:
        return None
    if kind == "update" and memo.head.seq <= since:
        return memo.head.seq, None
    text = memo.texts.get((kind, seat, since))
    return (memo.head.seq, text) if text is not None else None


def frame_text(match_id: int, seat: int | None, *, kind: str, since: int, hint: int | None = None) -> tuple[int, str | None]:
    """`(seq, JSON text)` of the `kind` frame for a socket of `seat` that has seen up to `since`;
    the text is None for an update with nothing new.

    With `hint` (a seq the channel layer announced), a head this process has already read at or
    past it is used as it is: a change after it sends its own hint. Without one (a new socket, a
    resync, a ping), the head is read.
    """
    memo = _memos.get(match_id)
    if memo is None or hint is None or memo.head.seq < hint:
        memo = _remember(_head_read(match_id))
    head = memo.head
    if kind == "update" and head.seq <= since:
        return head.seq, None
    key = (kind, seat, since)
    text = memo.texts.get(key)
    if text is None:
        text = json.dumps({"type": kind, "seat": seat, **frame_at(head, seat, since=since)})
        if len(memo.texts) >= _TEXTS_PER_HEAD:
            memo.texts.clear()
        memo.texts[key] = text
    return head.seq, text


def _head_read(match_id: int) -> MatchHead:
    """The committed head, and into the state cache the engine events it lacks, in one read."""
    cached = state_cache.get(match_id)
    after = cached.seq if cached is not None else 0
    found = store.head_with_engine_events(match_id, after=after)
    if found is None:
        raise not_found("match_not_found", f"There is no match {match_id}.")
    (game, status, seq, deadline), rows = found
    if status != Match.Status.OPEN:
        state_catch_up(match_id, game, head_seq=seq, after=after, rows=rows)
    return MatchHead(match_id, game, status, seq, deadline)


def _remember(head: MatchHead) -> _Memo:
    with _lock:
        memo = _memos.get(head.match_id)
        if memo is None or memo.head.seq < head.seq or (memo.head.seq == head.seq and memo.head != head):
            memo = _memos[head.match_id] = _Memo(head)
        _memos.move_to_end(head.match_id)
        while len(_memos) > settings.MATCH_STATE_CACHE_SIZE:
            _memos.popitem(last=False)
        return memo


def forget_all() -> None:
    """Empties the memo (tests reuse database ids)."""
    with _lock:
        _memos.clear()
