"""The production shape as processes: web servers, workers and beat on the test database and Redis."""
from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx
import redis
from channels.layers import get_channel_layer
from django.conf import settings
from django.test import override_settings

from tests.games.servers import free_port
from tests.games.worker import _wait_until_ready, test_database_url

ROOT = Path(__file__).resolve().parents[2]


def env(**overrides: str) -> dict[str, str]:
    """The test run's environment for a process, `overrides` (any of these too) on top."""
    return {**os.environ, "DATABASE_URL": test_database_url(), "REDIS_URL": settings.REDIS_URL, "BOT_MOVE_DELAY": "0",
            "LOG_LEVEL": "WARNING", **overrides}


def start_worker(**overrides: str) -> subprocess.Popen:
    process = subprocess.Popen(
        # Both queues: the bots' moves have a queue of their own (settings.BOTS_QUEUE).
        [sys.executable, "-m", "celery", "-A", "server", "worker", "--pool=prefork", "--concurrency=2",
         "-Q", f"celery,{settings.BOTS_QUEUE}",
         "--loglevel=" + os.environ.get("WORKER_LOG_LEVEL", "warning"),
         "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env(**overrides), stdout=subprocess.DEVNULL, stderr=_logs(),
    )
    _wait_until_ready(process)
    return process


def start_beat(schedule_file: Path, **overrides: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "server", "beat", "--loglevel=warning", "--schedule", str(schedule_file)],
        cwd=ROOT, env=env(**overrides), stdout=subprocess.DEVNULL, stderr=_logs(),
    )


def _logs():
    """Processes' logs go to the test's stderr with SERVER_LOGS=1, else nowhere."""
    return None if os.environ.get("SERVER_LOGS") else subprocess.DEVNULL


def kill(process: subprocess.Popen) -> None:
    """As a crash would: no warning, no clean-up."""
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            kill(process)


def start_web(log: IO | None = None, **overrides: str) -> tuple[subprocess.Popen, str]:
    """A uvicorn process (its log into `log`, an open file, if given); returns it and its base URL once it answers."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.asgi:application", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT, env=env(**overrides), stdout=subprocess.DEVNULL, stderr=log or _logs(),
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            httpx.get(f"{base}/healthz", timeout=2)
            return process, base
        except httpx.TransportError:
            assert process.poll() is None, "uvicorn exited"
            assert time.monotonic() < deadline, "uvicorn did not come up"
            time.sleep(0.2)


def start_witness(base: str, *, key: str, log_key: str, state: Path) -> subprocess.Popen:
    """A witness of the league log at `base`, as compose runs it: its own key, the log's verifier key."""
    return subprocess.Popen(
        [sys.executable, "manage.py", "log_witness", "--server", base, "--key", key, "--log-key", log_key,
         "--state", str(state), "--interval", "0.5"],
        cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=_logs(),
    )


def redis_server(port: int, *arguments: str) -> subprocess.Popen:
    """A redis-server of the test's own on `port`, without persistence; `arguments` are more of
    its options (`--replicaof`, or a config file and `--sentinel`)."""
    process = subprocess.Popen(
        ["redis-server", *arguments, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL, stderr=_logs(),
    )
    for _ in range(100):
        if subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0:
            return process
        assert process.poll() is None, "redis-server exited"
        time.sleep(0.05)
    raise AssertionError("redis-server did not start")


class OwnRedis:
    """A redis-server of the test's own, to stop and start again on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        self.process = redis_server(self.port)

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None

    async def stop_seen_by_the_layer(self) -> None:
        """Stops it, and returns once this process's channel layer fails to subscribe: until the
        layer has seen its connection close, a subscription is written into it and looks made."""
        self.stop()
        layer = get_channel_layer()
        while True:
            try:
                await layer.new_channel()  # which subscribes to it
            except redis.ConnectionError:
                return
            await asyncio.sleep(0.01)


@contextmanager
def channel_layer_on_its_own_redis() -> Iterator[OwnRedis]:
    """This process's channel layer on a Redis of its own, which the test may stop and start."""
    redis = OwnRedis()
    redis.start()
    layer = {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
             "CONFIG": {"hosts": [f"redis://127.0.0.1:{redis.port}/0"]}}
    try:
        with override_settings(CHANNEL_LAYERS={"default": layer}):
            yield redis
    finally:
        redis.stop()
