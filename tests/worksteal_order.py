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


# A rough cost of one test of each later tier, in CPU-seconds (an e2e test's processes and Sentinels,
# a sweep, a browser test with its server's share, a test that starts a server or a worker): only
# the ratios matter, to even the workers' shares out.
_TIER_COST = {"e2e": 120, "slow": 40, "browser": 30, "processes": 6}
_TIERS = tuple(_TIER_COST)  # the order a worker runs them in: the longest first


def _dealt_to_workers(items: list, workers: int) -> list:
    """The later tiers' tests dealt round the starts of the blocks xdist's worksteal hands out.

    worksteal gives each worker one contiguous block of the collection (the first len // n, then
    the rest split the same way) and idle workers steal from the end of the longest queue. Left
    in file order, the long tests (e2e, the sweeps, browsers, servers) sit in a few blocks and
    the run ends with one worker still in them; dealt, each worker starts with its share, the
    longest tiers first, and the fast tests behind them even the ends out. Every worker computes
    the same order, as xdist requires.

    A module's tests of one tier go to one worker together: its module fixtures (a finished
    tournament, a played match, a person) are made once, not once on each worker that gets one
    of its tests. Modules go longest first to the worker with the least so far."""
    def tier_of(item) -> str | None:
        return next((tier for tier in _TIERS if item.get_closest_marker(tier)), None)

    groups: dict[tuple[str, str], list] = {}
    fast = []
    for item in items:
        tier = tier_of(item)
        if tier is None:
            fast.append(item)
        else:
            groups.setdefault((tier, _module_of(item)), []).append(item)
    shares: list[list[tuple[str, list]]] = [[] for _ in range(workers)]
    load = [0] * workers
    for (tier, _), group in sorted(groups.items(), key=lambda entry: -_TIER_COST[entry[0][0]] * len(entry[1])):
        worker = load.index(min(load))
        shares[worker].append((tier, group))
        load[worker] += _TIER_COST[tier] * len(group)
    dealt, left, taken = [], len(items), 0
    for block in range(workers):
        size = left // (workers - block)
        left -= size
        mine = [item for _, group in sorted(shares[block], key=lambda share: _TIERS.index(share[0])) for item in group]
        rest = max(0, size - len(mine))
        dealt += mine + fast[taken:taken + rest]
        taken += rest
    return dealt + fast[taken:]


def _module_of(item) -> str:
    return item.nodeid.split("::", 1)[0]
