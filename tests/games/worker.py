"""A real Celery worker process for tests, on the test database and the run's broker."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

from server.celery import app

ROOT = Path(__file__).resolve().parents[2]


# The server processes the tests start connect as this role, which owns nothing: the suite's
# session setup (tests/conftest.py) grants it what `manage.py db_runtime_role` grants in production.
RUNTIME_ROLE = "cardleague_runtime"


def test_database_url() -> str:
    db = connection.settings_dict
    return f"postgres://{RUNTIME_ROLE}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


@contextmanager
def celery_worker(*, pool: str = "prefork", concurrency: int = 2, **env_overrides: str):
    """Starts `celery worker` against the test database; stops it on exit."""
    env = dict(os.environ, DATABASE_URL=test_database_url(), REDIS_URL=settings.REDIS_URL, BOT_MOVE_DELAY="0")
    env.update(env_overrides)
    process = subprocess.Popen(
        # Both queues: the bots' moves have a queue of their own (settings.BOTS_QUEUE).
        [sys.executable, "-m", "celery", "-A", "server", "worker", f"--pool={pool}", f"--concurrency={concurrency}",
         "-Q", f"{app.conf.task_default_queue},{settings.BOTS_QUEUE}",
         "--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        _wait_until_ready(process)
        yield process
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_for(condition, *, timeout: float = 60.0, what: str = "the condition", progress=None) -> None:
    """Polls `condition` until it holds. With `progress` (a callable whose value changes as the
    work advances), `timeout` is how long nothing may advance, not how long the whole may take:
    a long run on a busy machine is slow, not stuck."""
    deadline = time.monotonic() + timeout
    seen = progress() if progress else None
    while not condition():
        if progress and (now := progress()) != seen:
            seen, deadline = now, time.monotonic() + timeout
        assert time.monotonic() < deadline, f"timed out waiting for {what}" + (f" (stuck at {seen})" if progress else "")
        time.sleep(0.1)


def _wait_until_ready(process: subprocess.Popen, timeout: float = 90.0) -> None:
    """Waits until the worker answers a ping, so timings in tests do not include its start."""

    deadline = time.monotonic() + timeout
    while not app.control.ping(timeout=0.5):
        assert process.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, "the worker did not come up"
