"""The test tiers (tests/conftest.py): a fast test that starts a process fails, a test of a
process tier may start one, and every xdist worker has Redis of its own."""
from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys

import pytest

from server import settings_test
from tests.untraced import untraced
from tests.worksteal_order import _dealt_to_workers


def test_a_fast_test_that_starts_a_command_fails_naming_the_tier():
    with pytest.raises(pytest.fail.Exception, match="mark it `processes`"):
        subprocess.run(["true"], check=False)


def test_a_fast_test_that_starts_a_process_pool_or_forks_fails():
    with pytest.raises(pytest.fail.Exception, match="mark it `processes`"):
        multiprocessing.get_context("spawn").Process(target=print).start()
    with pytest.raises(pytest.fail.Exception, match="mark it `processes`"):
        os.fork()


def test_a_fast_test_carries_the_fast_marker(request):
    assert request.node.get_closest_marker("fast") is not None


@pytest.mark.processes
def test_a_test_of_the_processes_tier_may_start_one(request):
    assert request.node.get_closest_marker("fast") is None
    assert subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True).stdout == "42\n"


@pytest.mark.parametrize(
    ("url", "worker", "expected"),
    [
        ("redis://127.0.0.1:6379/1", "gw0", "redis://127.0.0.1:6379/1"),
        ("redis://127.0.0.1:6379/1", "gw3", "redis://127.0.0.1:6379/4"),
        ("redis://cache:6379", "gw2", "redis://cache:6379/2"),
    ],
)
def test_each_xdist_worker_takes_its_own_redis_database_once(monkeypatch, url, worker, expected):
    monkeypatch.setenv("REDIS_URL", url)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", worker)
    monkeypatch.delenv("TEST_REDIS_WORKER", raising=False)
    settings_test._redis_url_of_this_worker()
    assert os.environ["REDIS_URL"] == expected
    # A server process the worker starts inherits the URL and keeps it.
    settings_test._redis_url_of_this_worker()
    assert os.environ["REDIS_URL"] == expected


def test_a_worker_past_redis_s_sixteen_databases_is_refused(monkeypatch):
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:6379/9")
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw7")
    monkeypatch.delenv("TEST_REDIS_WORKER", raising=False)
    with pytest.raises(RuntimeError, match="database 16"):
        settings_test._redis_url_of_this_worker()


class _Item:
    """As much of a pytest item as the dealing reads: its node id (module and name) and its markers."""

    def __init__(self, name: str, tier: str | None = None, module: str = "test_a.py"):
        self.name, self.tier, self.nodeid = name, tier, f"{module}::{name}"

    def get_closest_marker(self, name: str):
        return name if name == self.tier else None


def test_each_worker_starts_with_its_share_of_the_later_tiers_longest_first():
    fast = [_Item(f"f{n}") for n in range(20)]
    heavy = [_Item("p1", "processes", "p.py"), _Item("b1", "browser", "b.py"), _Item("e1", "e2e", "e1.py"),
             _Item("s1", "slow", "s.py"), _Item("p2", "processes", "p.py"), _Item("e2", "e2e", "e2.py")]
    items = fast[:5] + heavy[:3] + fast[5:] + heavy[3:]
    dealt = _dealt_to_workers(items, 3)
    assert sorted(item.name for item in dealt) == sorted(item.name for item in items)  # each test once
    blocks = [dealt[0:8], dealt[8:17], dealt[17:26]]  # worksteal sends 26 as 26 // 3, then 18 // 2, then 9
    assert [block[0].name for block in blocks] == ["e1", "e2", "s1"]  # the longest first
    assert [[item.name for item in block if item.tier] for block in blocks] == [["e1"], ["e2"], ["s1", "b1", "p1", "p2"]]
    assert [item.name for item in dealt if not item.tier] == [item.name for item in fast]  # in file order


def test_a_module_s_tests_of_a_tier_go_to_one_worker_and_the_shares_even_out():
    browser = [_Item(f"{module}{n}", "browser", f"{module}.py") for module, count in (("a", 6), ("b", 3), ("c", 3))
               for n in range(count)]
    fast = [_Item(f"f{n}") for n in range(60)]
    dealt = _dealt_to_workers(fast[:30] + browser + fast[30:], 2)
    blocks = [dealt[:36], dealt[36:]]
    assert [[item.name for item in block if item.tier] for block in blocks] == [
        ["a0", "a1", "a2", "a3", "a4", "a5"], ["b0", "b1", "b2", "c0", "c1", "c2"]]


def test_the_untraced_helper_removes_the_tracer_and_puts_it_back():
    def tracer(frame, event, arg):
        return None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with untraced():
            assert sys.gettrace() is None
        assert sys.gettrace() is tracer
    finally:
        sys.settrace(previous)
