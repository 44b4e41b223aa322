"""The order a parallel run hands tests to its workers (a plugin of tests/conftest.py's).

In a module of its own because tests/conftest.py already implements this hook (tryfirst: the
tiers), and a module holds one function of a name.
"""
from __future__ import annotations

import os

import pytest


@pytest.hookimpl(trylast=True)  # after `-m` has deselected: the order of what will run
def pytest_collection_modifyitems(config, items):
    # In a worker, which collects: xdist sets its `dist` option to "no", so the mode cannot be
    # read there. Both Makefile runs use worksteal; under `load` the longest first is right too.
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1 and hasattr(config, "workerinput"):
        items[:] = _dealt_to_workers(items, workers)


def _dealt_to_workers(items: list, workers: int) -> list:
    """The later tiers' tests dealt round the starts of the blocks xdist's worksteal hands out.

    worksteal gives each worker one contiguous block of the collection (the first len // n, then
    the rest split the same way) and idle workers steal from the end of the longest queue. Left
    in file order, the long tests (e2e, the sweeps, browsers, servers) sit in a few blocks and
    the run ends with one worker still in them; dealt, each worker starts with its share, the
    longest tiers first, and the fast tests behind them even the ends out. Every worker computes
    the same order, as xdist requires."""
    rank = {tier: index for index, tier in enumerate(("e2e", "slow", "browser", "processes"))}

    def tier_of(item) -> int | None:
        return min((rank[tier] for tier in rank if item.get_closest_marker(tier)), default=None)

    heavy = sorted((item for item in items if tier_of(item) is not None), key=tier_of)
    fast = [item for item in items if tier_of(item) is None]
    dealt, left, taken = [], len(items), 0
    for block in range(workers):
        size = left // (workers - block)
        left -= size
        mine = heavy[block::workers]
        rest = max(0, size - len(mine))
        dealt += mine + fast[taken:taken + rest]
        taken += rest
    return dealt + fast[taken:]
