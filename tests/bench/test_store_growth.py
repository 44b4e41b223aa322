"""The growing event store's benchmark runs end to end in its quick mode (10^4 then 10^5 events):
the table reaches each size, every move and read is timed (the figures themselves are the
benchmark's, never asserted here)."""
from __future__ import annotations

import pytest

from bench import store_growth

pytestmark = [pytest.mark.postgres, pytest.mark.processes]


def test_the_quick_run_grows_the_event_table_in_place_and_times_appends_and_reads_at_each_size(bench_database):
    results = store_growth.main(["--quick", "--moves", "50", "--reads", "20", "--database-url", bench_database])
    sizes = [row[0] for row in results["growth"]]
    assert [round(size, -3) for size in sizes] == [10_000, 100_000]
    assert [row[0] for row in results["appends"]] == sizes == [row[0] for row in results["reads"]]
    assert all(p50 > 0 and p99 >= p50 for _, p50, p99, *_ in results["appends"])
    assert all(load > 0 and rebuild > 0 for _, load, _, rebuild, *_ in results["reads"])
