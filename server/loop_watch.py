"""How late this process's event loop runs, and counts the code on it reports.

Everything a process serves (every socket, every move of the fast lane) waits while anything
holds its loop, so the loop's lag is the first figure to read when latency jumps while the
machine still has CPU to spare. A timer due every `TICK_SECONDS` measures it: how late it
fires is how long something held the loop; each tick's lag goes to the
`cardleague_event_loop_lag_seconds` histogram (`server/metrics.py`, served on /metrics). A lag
over `LOOP_LAG_WARN_MS` is logged as a warning. With `LOOP_STATS_DIR` set, each process appends a line a second to
`<dir>/<pid>.jsonl`: `{"time", "lag_ms": [every tick's lag], "counts": {name: {value: times}}}`
(the group commit's batch sizes are such a count); `bench/live.py` and `bench/moves.py` read
them for their windows.
"""
from __future__ import annotations

import asyncio
import gc
import json
import logging
import os
import time
from collections import Counter, defaultdict
from pathlib import Path

from django.conf import settings

from server import metrics

log = logging.getLogger(__name__)

TICK_SECONDS = 0.02

_counts: defaultdict[str, Counter] = defaultdict(Counter)
_watched: set[int] = set()  # ids of the loops watched, so each gets one watch


class _Collections:
    """Time spent in the garbage collector since last asked, and its oldest generation: the
    first suspect when the loop is held (a full collection walks every object of the process)."""

    def __init__(self) -> None:
        self.seconds, self.generation = 0.0, -1
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.generation = max(self.generation, info["generation"])

    def taken(self) -> tuple[float, int]:
        taken = self.seconds, self.generation
        self.seconds, self.generation = 0.0, -1
        return taken


_collections = _Collections()


def count(name: str, value: int) -> None:
    """Counts one `value` of `name` (for example a batch of that size)."""
    _counts[name][value] += 1


def counts(name: str) -> Counter:
    """The values of `name` counted since the last stats line (or the start)."""
    return Counter(_counts[name])


def watch(loop: asyncio.AbstractEventLoop) -> None:
    """Starts watching `loop` (once a loop; later calls do nothing)."""
    if id(loop) in _watched:
        return
    _watched.add(id(loop))
    if _collections not in gc.callbacks:
        gc.callbacks.append(_collections)
    task = loop.create_task(_watch(loop))
    task.add_done_callback(lambda _task: _watched.discard(id(loop)))


async def _watch(loop: asyncio.AbstractEventLoop) -> None:
    stats_dir = settings.LOOP_STATS_DIR
    path = Path(stats_dir) / f"{os.getpid()}.jsonl" if stats_dir else None
    warn_seconds = settings.LOOP_LAG_WARN_MS / 1e3
    lags: list[float] = []
    written = time.time()
    while True:
        # perf_counter, not loop.time(): uvloop's clock counts whole milliseconds.
        due = time.perf_counter() + TICK_SECONDS
        await asyncio.sleep(TICK_SECONDS)
        lag = max(0.0, time.perf_counter() - due)
        metrics.event_loop_lag.observe(lag)
        collected, generation = _collections.taken()
        if lag > warn_seconds:
            log.warning("the event loop was held for %.0f ms (%.0f ms of it collecting garbage, generation %s)",
                        lag * 1e3, collected * 1e3, generation)
        if path is None:
            continue
        lags.append(round(lag * 1e3, 2))
        if time.time() - written >= 1.0:
            written = time.time()
            counted = {name: dict(values) for name, values in _counts.items()}
            _counts.clear()
            with path.open("a") as stats:
                stats.write(json.dumps({"time": written, "lag_ms": lags, "counts": counted}) + "\n")
            lags = []


def stats_read(stats_dir: str | Path, start: float, stop: float) -> tuple[list[float], dict[str, Counter]]:
    """Every process's tick lags (ms) and counts written in seconds ending within [start, stop]
    (wall-clock time), from `LOOP_STATS_DIR`."""
    lags: list[float] = []
    counts: defaultdict[str, Counter] = defaultdict(Counter)
    for path in Path(stats_dir).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            second = json.loads(line)
            if start < second["time"] <= stop:
                lags += second["lag_ms"]
                for name, values in second["counts"].items():
                    counts[name].update({int(value): times for value, times in values.items()})
    return lags, counts
