"""The event loop's lag: something that holds the loop is measured, warned about, and written
with the counts of the second for the benchmarks to read."""
from __future__ import annotations

import asyncio
import logging
import time

from server import loop_watch


async def test_a_held_loop_is_measured_warned_about_and_written_with_the_seconds_counts(tmp_path, settings, caplog):
    settings.LOOP_STATS_DIR = str(tmp_path)
    settings.LOOP_LAG_WARN_MS = 80
    start = time.time()
    loop_watch.watch(asyncio.get_running_loop())
    await asyncio.sleep(0.1)
    with caplog.at_level(logging.WARNING, logger="server.loop_watch"):
        time.sleep(0.2)  # something holds the loop
        loop_watch.count("test_batch", 3)
        loop_watch.count("test_batch", 3)
        loop_watch.count("test_batch", 1)
        await asyncio.sleep(1.2)

    lags, counts = loop_watch.stats_read(tmp_path, start, time.time())
    assert max(lags) >= 150
    assert sorted(lags)[len(lags) // 2] < 80  # the ticks before and after it are on time
    assert counts["test_batch"] == {3: 2, 1: 1}
    assert any("held for" in record.getMessage() for record in caplog.records)
    assert not loop_watch.stats_read(tmp_path, time.time() + 5, time.time() + 10)[0]  # outside the window: nothing


async def test_a_loop_is_watched_once_however_often_it_is_asked():
    loop = asyncio.get_running_loop()
    before = len(asyncio.all_tasks(loop))
    loop_watch.watch(loop)
    loop_watch.watch(loop)
    assert len(asyncio.all_tasks(loop)) == before + 1
