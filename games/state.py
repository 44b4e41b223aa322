"""Engine states of live matches, cached per process so a move never replays a whole match.

A cached entry is `(seq, state)`: the state after every engine event up to `seq`. Entries
are only stored after their transaction commits, and a reader always brings an entry up
to the database's head by folding the events after it, so a stale entry costs a short
read, never a wrong state.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.conf import settings

from games.engines import ENGINES
from games.models import Event


class _StateCache:
    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[int, tuple[int, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, match_id: int) -> tuple[int, Any] | None:
        with self._lock:
            entry = self._entries.get(match_id)
            if entry is not None:
                self._entries.move_to_end(match_id)
            return entry

    def put(self, match_id: int, seq: int, state: Any) -> None:
        with self._lock:
            current = self._entries.get(match_id)
            if current is not None and current[0] > seq:
                return  # a newer state is already here
            self._entries[match_id] = (seq, state)
            self._entries.move_to_end(match_id)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


state_cache = _StateCache(settings.MATCH_STATE_CACHE_SIZE)


def engine_events(match_id: int, *, after: int = 0, upto: int | None = None) -> list[dict]:
    """The engine's events of a match with `after < seq <= upto`, in order."""
    rows = Event.objects.filter(match_id=match_id, kind=Event.Kind.ENGINE, seq__gt=after)
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return list(rows.order_by("seq").values_list("data", flat=True))


def state_at_head(match_id: int, game: str, head_seq: int) -> Any:
    """The engine state after every event up to `head_seq` (the match's committed head)."""
    engine = ENGINES[game]
    cached = state_cache.get(match_id)
    if cached is not None and cached[0] == head_seq:
        return cached[1]
    if cached is not None and cached[0] < head_seq:
        state = cached[1]
        for event in engine_events(match_id, after=cached[0], upto=head_seq):
            state = engine.evolve(state, event)
    else:
        state = engine.replay(engine_events(match_id, upto=head_seq))
    state_cache.put(match_id, head_seq, state)
    return state


def state_at(match_id: int, game: str, seq: int) -> Any:
    """The engine state as it was at `seq` (for replays); not cached."""
    return ENGINES[game].replay(engine_events(match_id, upto=seq))
