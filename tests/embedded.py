"""`manage.py serve` as `make run` starts it, on the embedded default (a fresh SQLite file, no
services), for the tests that need the real process tree: the console, the demo, a whole match."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def serve(var_dir: Path, *arguments: str, **env: str):
    """`manage.py serve` as `make run` starts it, on a fresh SQLite file in `var_dir`; yields its
    base URL and the path of its console (stdout and stderr)."""
    port = free_port()
    own = ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE", "SITE_URL")  # the suite's, not a newcomer's
    base_env = {k: v for k, v in os.environ.items() if k not in own}
    console = var_dir / "console.log"
    with open(console, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "manage.py", "serve", "--port", str(port), *arguments], cwd=ROOT,
            env={**base_env, "VAR_DIR": str(var_dir), **env}, stdout=out, stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{base}/api/games", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                assert process.poll() is None, console.read_text()
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.3)
            yield base, console
        finally:
            process.terminate()
            process.wait(timeout=60)
