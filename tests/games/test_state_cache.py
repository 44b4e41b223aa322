"""The per-process state cache: the recent events it keeps for live frames, what it says it
lacks, and that it gives the garbage collector nothing to walk for them."""
from __future__ import annotations

import gc

from games import state
from games.state import RECENT_EVENTS, _StateCache


def _events(first: int, last: int) -> list[tuple[int, dict]]:
    return [(seq, {"type": "CardPlayed", "seat": seq % 2, "cards": [seq, seq + 1], "pile": {"top": [seq]}})
            for seq in range(first, last + 1)]


def test_recent_events_come_back_as_they_went_in_and_only_the_last_ones_are_kept():
    cache = _StateCache(10)
    cache.put(1, 10, "state at 10", after=0, events=_events(1, 10))
    cache.put(1, 12, "state at 12", after=10, events=_events(11, 12))  # one move on: appended
    entry = cache.get(1)
    assert entry is not None and entry.seq == 12 and entry.complete_after == 0
    assert [seq for seq, _ in entry.events] == list(range(1, 13))

    cache.put(1, 12 + RECENT_EVENTS, "later", after=12, events=_events(13, 12 + RECENT_EVENTS))
    entry = cache.get(1)
    assert entry.complete_after == 12  # events up to 12 were let go
    assert [seq for seq, _ in entry.events] == list(range(13, 13 + RECENT_EVENTS))


def test_a_long_first_put_keeps_the_last_events_and_knows_where_they_start():
    cache = _StateCache(10)
    cache.put(1, 600, "state", after=0, events=_events(1, 600))
    entry = cache.get(1)
    assert entry.complete_after == 600 - RECENT_EVENTS
    assert [seq for seq, _ in entry.events] == list(range(601 - RECENT_EVENTS, 601))


def test_the_kept_events_read_back_equal_and_are_nothing_for_the_collector(monkeypatch):
    cache = _StateCache(10)
    monkeypatch.setattr(state, "state_cache", cache)
    rows = _events(1, 50)
    cache.put(7, 50, "state", after=0, events=rows)
    assert state.recent_engine_events(7, after=40, upto=50) == rows[40:]
    assert state.recent_engine_events(7, after=0, upto=51) is None  # the cache is behind the head asked for
    gc.collect()  # tuples of text and numbers are untracked by the collection that sees them
    assert not any(gc.is_tracked(kept) for kept in cache.get(7).events)
