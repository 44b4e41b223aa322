"""Live frames: what a table's sockets are sent, built once per process for each head.

Every socket of a table hears of each change. When each socket built its own frame, a move
cost a read of the match, a read of the log, a view and an encoding per socket: a hundred of
each for a hundred spectators (bench/live.py). Here a move's hint carries the move (its new
head and engine events), so a process whose state is where the move started builds each
frame on the event loop without the database; a process that is behind reads the head, with
the engine events its cached state lacks, in one statement. Every other socket of the same
seat that last saw the same seq is sent the same text.

A socket is a person (or nobody), not a seat: the seat its frames show is read off the head
each frame is built on, so a socket opened before its user left the table, or before the
seat was taken by someone else, never receives that seat's hand.

A delayed table's spectator (`delay_moves`: `games.selectors.can_watch`) holding no seat at the
head is sent the table as it was that many moves before it (`selectors.moves_behind`): the frame's
`seq`, view and events all stop there, and its `deadline` is left out (the clock of a decision
they cannot see yet would tell when each move came). Such frames are built on a worker thread
(the position behind needs a read of the log), then kept with the head's other texts.

A socket that takes patches (`?patches=1`: `patch_from`, the seat of the view it was last sent) is
sent, in an update from the head just before this one, the changes to that view (`patches`)
instead of the view: each head keeps the views its frames showed, for the next head's patches.
"""
from __future__ import annotations

import enum
import json
import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from django.conf import settings

from games import store
from games.engines import ENGINES
from games.models import Event, Match
from games.patches import view_patch
from games.selectors import moves_behind, redacted_events
from games.shapes import FrameBody
from games.state import behind_cache, recent_engine_events, state_at_head, state_behind, state_cache, state_catch_up
from server.errors import match_not_found

_TEXTS_PER_HEAD = 64  # distinct (kind, seat, since) frames kept for one head


class MatchHead(NamedTuple):
    """A match's committed head and what a frame shows of it besides the engine's state."""

    match_id: int
    game: str
    status: str
    seq: int
    deadline: str | None
    seat_users: tuple[int | None, ...]  # the user id sitting in each seat (None: a bot, or empty)

    def seat_of(self, user_id: int | None) -> int | None:
        """The seat `user_id` holds at this head (None: a spectator)."""
        if user_id is None:
            return None
        return next((seat for seat, sitting in enumerate(self.seat_users) if sitting == user_id), None)


def frame(match_id: int, seat: int | None, *, since: int) -> FrameBody:
    """What a live socket of `seat` that has seen up to `since` is sent now."""
    return frame_at(_head_read(match_id), seat, since=since)


def frame_at(head: MatchHead, seat: int | None, *, since: int) -> FrameBody:
    """The frame at `head`: view, legal moves and log all name exactly the state at `head.seq`."""
    if head.status == Match.Status.OPEN:
        return _frame_built(head, seat, None, [])
    state = state_at_head(head.match_id, head.game, head.seq)
    rows = recent_engine_events(head.match_id, after=since, upto=head.seq)
    if rows is None:  # a socket far behind (or new): read the log
        rows = list(Event.objects.filter(
            match_id=head.match_id, kind=Event.Kind.ENGINE, seq__gt=since, seq__lte=head.seq
        ).order_by("seq").values_list("seq", "data"))
    return _frame_built(head, seat, state, rows)


def _frame_cached(head: MatchHead, seat: int | None, *, since: int) -> FrameBody | None:
    """`frame_at` from this process's caches alone, or None if it would need the database."""
    if head.status == Match.Status.OPEN:
        return None
    cached = state_cache.get(head.match_id)
    rows = recent_engine_events(head.match_id, after=since, upto=head.seq)
    if cached is None or cached.seq != head.seq or rows is None:
        return None
    return _frame_built(head, seat, cached.state, rows)


def _frame_built(head: MatchHead, seat: int | None, state: Any, rows) -> FrameBody:
    built: FrameBody = {
        "seq": head.seq, "status": head.status, "deadline": head.deadline, "view": None, "legal_moves": [], "events": [],
    }
    if state is not None:
        engine = ENGINES[head.game]
        built["view"] = engine.view(state, seat)
        if seat is not None:
            built["legal_moves"] = engine.legal_moves(state, seat)
        built["events"] = redacted_events(engine, rows, seat)
    return built


class _Memo:
    __slots__ = ("before", "behind", "head", "texts", "views")

    def __init__(self, head: MatchHead, before: tuple[int, dict] | None = None) -> None:
        self.head = head
        self.texts: dict[tuple, str] = {}
        self.behind: dict[int, int] = {}  # moves of delay -> the seq shown that far behind this head
        self.views: dict[int | None, dict] = {}  # seat -> its view at this head, as a frame showed it
        self.before = before  # (seq, views) of the head before this one: what patches are made from


_memos: OrderedDict[int, _Memo] = OrderedDict()
_lock = threading.Lock()


class NoPatch(enum.Enum):
    NO_PATCH = "no patch"


NO_PATCH = NoPatch.NO_PATCH  # a socket that takes whole views only (seat None is a spectator's)


class FrameText(NamedTuple):
    seq: int
    seat: int | None  # the seat the frame was built for: the viewer's at `seq`
    text: str | None  # None: an update with nothing new


def frame_text_known(
    match_id: int, viewer: int | None, *, kind: str, since: int, hint: int, delay_moves: int | None = None,
    patch_from: int | None | NoPatch = NO_PATCH,
) -> FrameText | None:
    """`frame_text`'s answer when this process can give it without the database (from the
    frames and states it holds: on the event loop), else None."""
    memo = _memos.get(match_id)
    if memo is None or memo.head.seq < hint:
        return None
    head = memo.head
    seat = head.seat_of(viewer)
    if _behind(head, seat, delay_moves):
        assert delay_moves is not None  # `_behind` says so
        shown = memo.behind.get(delay_moves)
        if shown is None:
            return None
        if kind == "update" and shown <= since:
            return FrameText(shown, None, None)
        text = memo.texts.get(("behind", delay_moves, kind, since))
        return None if text is None else FrameText(shown, None, text)
    if kind == "update" and head.seq <= since:
        return FrameText(head.seq, seat, None)
    base = _patch_base(memo, kind, seat, since, patch_from)
    text = memo.texts.get((kind, seat, since, base is not None))
    if text is None:
        built = _frame_cached(head, seat, since=since)
        if built is None:
            return None
        text = _text_kept(memo, kind, seat, since, built, base=base)
    return FrameText(head.seq, seat, text)


def frame_text(
    match_id: int, viewer: int | None, *, kind: str, since: int, hint: int | None = None, delay_moves: int | None = None,
    patch_from: int | None | NoPatch = NO_PATCH,
) -> FrameText:
    """The `kind` frame for a socket of user `viewer` (None: anonymous) that has seen up to
    `since`, for the seat `viewer` holds at the head it is built on; `delay_moves` moves behind
    it if `viewer` holds no seat there and the match runs (a delayed table's spectator).

    With `patch_from` (the seat whose view the socket was last sent, at `since`), an update
    carries `view_patch` (`view_patch`'s operations from that view, with the `base` seq they
    apply to) instead of `view`, whenever this process still holds that view; else the view.

    With `hint` (a seq the channel layer announced), a head this process has already read at or
    past it is used as it is: a change after it sends its own hint. Without one (a new socket, a
    resync, a ping), the head is read.
    """
    memo = _memos.get(match_id)
    if memo is None or hint is None or memo.head.seq < hint:
        memo = head_known(_head_read(match_id))
    head = memo.head
    seat = head.seat_of(viewer)
    if _behind(head, seat, delay_moves):
        assert delay_moves is not None  # `_behind` says so
        return _frame_text_behind(memo, kind, since, delay_moves)
    if kind == "update" and head.seq <= since:
        return FrameText(head.seq, seat, None)
    base = _patch_base(memo, kind, seat, since, patch_from)
    text = memo.texts.get((kind, seat, since, base is not None))
    if text is None:
        text = _text_kept(memo, kind, seat, since, frame_at(head, seat, since=since), base=base)
    return FrameText(head.seq, seat, text)


def _patch_base(memo: _Memo, kind: str, seat: int | None, since: int, patch_from: int | None | NoPatch) -> dict | None:
    """The view a patch for this frame is made from, if it can be: an update to a socket that
    holds this seat's view at `since`, the head just before this one, which this process kept."""
    if kind != "update" or patch_from is NO_PATCH or patch_from != seat or memo.before is None:
        return None
    seq, views = memo.before
    return views.get(seat) if seq == since else None


def _text_kept(
    memo: _Memo, kind: str, seat: int | None, since: int, built: FrameBody, key: tuple | None = None,
    base: dict | None = None,
) -> str:
    if key is None and built["view"] is not None:  # a frame of this head (not one behind it)
        memo.views.setdefault(seat, built["view"])
    if base is not None and built["view"] is not None:
        body: dict[str, Any] = {"type": kind, "seat": seat, **built, "base": since}
        body["view_patch"] = view_patch(base, body.pop("view"))
        text = json.dumps(body)
    else:
        text = json.dumps({"type": kind, "seat": seat, **built})
    if len(memo.texts) >= _TEXTS_PER_HEAD:
        memo.texts.clear()
    memo.texts[key or (kind, seat, since, base is not None)] = text
    return text


def _behind(head: MatchHead, seat: int | None, delay_moves: int | None) -> bool:
    """Whether a viewer with `seat` at `head` and `delay_moves` is shown the table behind it."""
    return seat is None and delay_moves is not None and head.status == Match.Status.RUNNING


def _frame_text_behind(memo: _Memo, kind: str, since: int, delay_moves: int) -> FrameText:
    """A delayed table's spectator's frame: the table `delay_moves` moves behind the memo's head,
    with no deadline (reads the log: never on the event loop)."""
    head = memo.head
    shown = memo.behind.get(delay_moves)
    if shown is None:
        shown = memo.behind[delay_moves] = moves_behind(head.match_id, head.seq, delay_moves)
    if kind == "update" and shown <= since:
        return FrameText(shown, None, None)
    key = ("behind", delay_moves, kind, since)
    text = memo.texts.get(key)
    if text is None:
        state = state_behind(head.match_id, head.game, shown)
        rows = recent_engine_events(head.match_id, after=since, upto=shown)
        if rows is None:
            rows = list(Event.objects.filter(
                match_id=head.match_id, kind=Event.Kind.ENGINE, seq__gt=since, seq__lte=shown
            ).order_by("seq").values_list("seq", "data"))
        then = head._replace(seq=shown, deadline=None)
        text = _text_kept(memo, kind, None, since, _frame_built(then, None, state, rows), key)
    return FrameText(shown, None, text)


def change_applied(match_id: int, change: dict) -> None:
    """A committed move as its hint carries it (`change_of`): this process's state and head move
    on without reading the database, if its cached state is where the move started."""
    game, status, seq, deadline, seat_users = change["head"]
    state_catch_up(match_id, game, head_seq=seq, after=change["after"], rows=[tuple(row) for row in change["events"]])
    cached = state_cache.get(match_id)
    if cached is not None and cached.seq == seq:
        head_known(MatchHead(match_id, game, status, seq, deadline, tuple(seat_users)))


def change_of(head: MatchHead, after: int, rows: list[tuple[int, dict]]) -> dict:
    """What a hint carries of a committed move: the new head (its seats with it) and the engine
    events after `after`."""
    return {"head": [head.game, head.status, head.seq, head.deadline, list(head.seat_users)], "after": after, "events": rows}


def _head_read(match_id: int) -> MatchHead:
    """The committed head with its seats, and into the state cache the engine events it lacks,
    in one read."""
    cached = state_cache.get(match_id)
    after = cached.seq if cached is not None else 0
    found = store.head_with_engine_events(match_id, after=after)
    if found is None:
        raise match_not_found(match_id)
    (game, status, seq, deadline, seat_users), rows = found
    if status != Match.Status.OPEN:
        state_catch_up(match_id, game, head_seq=seq, after=after, rows=rows)
    return MatchHead(match_id, game, status, seq, deadline, seat_users)


def head_known(head: MatchHead) -> _Memo:
    """Records a committed head (read, or just written by this process) for frames to use."""
    with _lock:
        memo = _memos.get(head.match_id)
        if memo is None or memo.head.seq < head.seq or (memo.head.seq == head.seq and memo.head != head):
            before = None if memo is None else (memo.head.seq, memo.views) if memo.head.seq < head.seq else memo.before
            memo = _memos[head.match_id] = _Memo(head, before)
        _memos.move_to_end(head.match_id)
        while len(_memos) > settings.MATCH_STATE_CACHE_SIZE:
            _memos.popitem(last=False)
        return memo


def forget_all() -> None:
    """Empties the memo (tests reuse database ids)."""
    with _lock:
        _memos.clear()
    behind_cache.clear()
