"""Engine states of live matches, cached per process so a move never replays a whole match.

A cached entry holds the state after every engine event up to `seq`, and the last engine
events before it (so a live socket's frame needs no read of the log). Entries are only
stored after their transaction commits, and a reader always brings an entry up to the
database's head by folding the events after it, so a stale entry costs a short read, never
a wrong state.

The recent events are kept as JSON text, as the log stores them. As dicts and lists they were
about 300 objects a match for the garbage collector to walk: with a thousand matches cached,
every full collection took 30 ms on a quiet machine and held the event loop 60-150 ms under 500
live tables (bench/live.py, `server.loop_watch`); as text they are none.
"""
from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, NamedTuple

from django.conf import settings

from games.engines import ENGINES
from games.models import Event

RECENT_EVENTS = 128  # engine events kept with each cached state


class CachedState(NamedTuple):
    seq: int
    state: Any
    # Every engine event with `complete_after < seq <= self.seq`, as (seq, its data as JSON), in order.
    events: tuple[tuple[int, str], ...]
    complete_after: int


class _StateCache:
    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[int, CachedState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: int) -> CachedState | None:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None:
                self._entries.move_to_end(match_id)
            return entry

    def put(self, match_id: int, seq: int, state: Any, *, after: int, events: list[tuple[int, dict]]) -> None:
        """Stores the state at `seq`; `events` are every engine event with `after < seq`."""
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current.seq > seq:
                return  # a newer state is already here
            # One more than is kept: the cut below takes `complete_after` from it.
            added = tuple((seq, json.dumps(data)) for seq, data in events[-RECENT_EVENTS - 1:])
            if current is not None and current.seq == after:
                kept, complete_after = current.events + added, current.complete_after
            else:
                kept, complete_after = added, after
            if len(kept) > RECENT_EVENTS:
                complete_after = kept[-RECENT_EVENTS - 1][0]
                kept = kept[-RECENT_EVENTS:]
            self._entries[match_id] = CachedState(seq, state, kept, complete_after)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


state_cache = _StateCache(settings.MATCH_STATE_CACHE_SIZE)


def engine_events(match_id: int, *, after: int = 0, upto: int | None = None) -> list[dict]:
    """The engine's events of a match with `after < seq <= upto`, in order."""
    return [data for _, data in _engine_rows(match_id, after=after, upto=upto)]


def _engine_rows(match_id: int, *, after: int = 0, upto: int | None = None) -> list[tuple[int, dict]]:
    rows = Event.objects.filter(match_id=match_id, kind=Event.Kind.ENGINE, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return list(rows.order_by("seq").values_list("seq", "data"))


def state_at_head(match_id: int, game: str, head_seq: int) -> Any:
    """The engine state after every event up to `head_seq` (the match's committed head)."""
    cached = state_cache.get(match_id)
    if cached is not None and cached.seq == head_seq:
        return cached.state
    base = cached if cached is not None and cached.seq < head_seq else None
    rows = _engine_rows(match_id, after=base.seq if base is not None else 0, upto=head_seq)
    return state_from_rows(match_id, game, head_seq, base=base, rows=rows)


def state_from_rows(match_id: int, game: str, head_seq: int, *, base: CachedState | None, rows: list[tuple[int, dict]]) -> Any:
    """The state at `head_seq` from `base` (or from the start) and every engine event after it
    up to `head_seq` (`rows`, as (seq, data)); cached."""
    engine = ENGINES[game]
    if base is not None:
        state = base.state
        for _, event in rows:
            state = engine.evolve(state, event)
    else:
        state = engine.replay([data for _, data in rows])
    state_cache.put(match_id, head_seq, state, after=base.seq if base is not None else 0, events=rows)
    return state


def state_catch_up(match_id: int, game: str, *, head_seq: int, after: int, rows: list[tuple[int, dict]]) -> None:
    """Brings the cached state up to `head_seq` with engine events read elsewhere (`rows`: every
    one after `after`); with nothing cached and `after == 0`, builds it from them."""
    engine = ENGINES[game]
    cached = state_cache.get(match_id)
    if cached is not None and cached.seq == after < head_seq:
        state = cached.state
        for _, event in rows:
            state = engine.evolve(state, event)
    elif cached is None and after == 0:
        state = engine.replay([data for _, data in rows])
    else:
        return
    state_cache.put(match_id, head_seq, state, after=after, events=rows)


def recent_engine_events(match_id: int, *, after: int, upto: int) -> list[tuple[int, dict]] | None:
    """The engine events with `after < seq <= upto` from the cache, or None if it lacks some."""
    cached = state_cache.get(match_id)
    if cached is None or cached.seq < upto or after < cached.complete_after:
        return None
    return [(seq, json.loads(data)) for seq, data in cached.events if after < seq <= upto]


class _BehindCache:
    """States behind their match's head, for a delayed table's spectators (`state_behind`): one per
    match, carried forward as the match moves on, apart from `state_cache` (whose entries only ever
    move forward to the head)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[int, tuple[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: int) -> tuple[int, Any] | None:
        with self._lock:
            return self._entries.get(match_id)

    def put(self, match_id: int, seq: int, state: Any) -> None:
        with self._lock:
            self._entries[match_id] = (seq, state)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


behind_cache = _BehindCache(settings.MATCH_STATE_CACHE_SIZE)


def state_behind(match_id: int, game: str, seq: int) -> Any:
    """The engine state after every engine event up to `seq`, a position behind the head (what a
    delayed table's spectators are shown): from this process's last such state of the match if it
    is not past `seq`, else replayed from the start."""
    cached = behind_cache.get(match_id)
    if cached is not None and cached[0] == seq:
        return cached[1]
    engine = ENGINES[game]
    after = cached[0] if cached is not None and cached[0] < seq else 0
    rows = recent_engine_events(match_id, after=after, upto=seq)
    if rows is None:
        rows = _engine_rows(match_id, after=after, upto=seq)
    if after:
        assert cached is not None  # `after` is its seq
        state = cached[1]
        for _, event in rows:
            state = engine.evolve(state, event)
    else:
        state = engine.replay([data for _, data in rows])
    behind_cache.put(match_id, seq, state)
    return state


def state_at(match_id: int, game: str, seq: int) -> Any:
    """The engine state as it was at `seq` (for replays); not cached."""
    return ENGINES[game].replay(engine_events(match_id, upto=seq))
