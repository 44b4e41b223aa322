"""Real uvicorn server processes for tests, on the test database and the run's Redis."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager

import httpx
from django.conf import settings

from tests.games.worker import ROOT, test_database_url


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def uvicorn_servers(count: int, *, database_url: str | None = None, redis_url: str | None = None, log_file=None,
                    **overrides: str):
    """Starts `count` uvicorn processes sharing the test database (or `database_url`'s) and Redis;
    yields their base URLs.

    `overrides` are environment variables (settings) for the servers; with `log_file` (an open
    file) they log at INFO, uvicorn's access lines included, into it.
    """
    env = dict(os.environ, DATABASE_URL=database_url or test_database_url(), REDIS_URL=redis_url or settings.REDIS_URL,
               LOG_LEVEL="WARNING", **overrides)
    level = "info" if log_file is not None else "warning"
    logs = log_file if log_file is not None else (None if os.environ.get("SERVER_LOGS") else subprocess.DEVNULL)
    ports = [free_port() for _ in range(count)]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "server.asgi:application", "--port", str(port), "--log-level", level,
             "--forwarded-allow-ips", env.get("TRUSTED_PROXIES", "")],  # as docker/Dockerfile
            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=logs,
        )
        for port in ports
    ]
    bases = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for base, process in zip(bases, processes):
            deadline = time.monotonic() + 60
            while True:
                try:
                    httpx.get(f"{base}/api/games", timeout=2)
                    break
                except httpx.TransportError:
                    assert process.poll() is None, "uvicorn exited"
                    assert time.monotonic() < deadline, "uvicorn did not come up"
                    time.sleep(0.2)
        yield bases
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=30)
