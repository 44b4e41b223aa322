"""Moves on PostgreSQL: the move service and the HTTP endpoint, beside a bare psycopg INSERT.

Everything runs in the same run on the same database server:
- baseline: one-row INSERT + COMMIT per transaction through psycopg (synchronous commit, as
  the event store has), from 1 and 8 connections;
- the move service (`games.services.move_submit`, no HTTP), from 1 and 8 threads;
- the move endpoint over HTTP through uvicorn, from N concurrent connections.
Each client plays its own 1-player tables of The Game, so moves never conflict.

Run: `python -m bench.moves [--moves N] [--http-connections N] [--uvicorn-workers N]`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import median, percentile, print_table  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench"


def ensure_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def run_threads(count: int, work) -> tuple[float, list[float]]:
    """Runs `work(i, latencies)` in `count` threads at once; returns wall time and all latencies."""
    latencies: list[list[float]] = [[] for _ in range(count)]
    barrier = threading.Barrier(count)

    def runner(i):
        barrier.wait()
        work(i, latencies[i])

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - start, [x for per in latencies for x in per]


def bare_insert(url: str, clients: int, rows: int) -> tuple[float, list[float]]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS bench_bare (id bigserial PRIMARY KEY, n int, data jsonb)")

    def work(i, latencies):
        with psycopg.connect(url) as conn:
            for n in range(rows // clients):
                start = time.perf_counter()
                conn.execute("INSERT INTO bench_bare (n, data) VALUES (%s, %s)", [n, '{"type": "CardPlayed"}'])
                conn.commit()
                latencies.append(time.perf_counter() - start)

    return run_threads(clients, work)


def service_moves(clients: int, moves: int) -> tuple[float, list[float]]:
    from django.db import connection

    from games import services
    from tests.conftest import make_user

    players = [make_user(f"bench-{clients}-{i}-{time.time_ns()}") for i in range(clients)]

    def work(i, latencies):
        user, rng = players[i], random.Random(i)
        try:
            legal: list = []
            match_id = None
            for _ in range(moves // clients):
                if not legal:
                    match_id = services.match_create(user=user, game="the-game", players=1, rated=False).pk
                    services.match_start(match_id=match_id, user=user)
                    legal = services_view_legal(match_id, user)
                start = time.perf_counter()
                answer = services.move_submit(match_id=match_id, user=user, move=rng.choice(legal))
                latencies.append(time.perf_counter() - start)
                legal = answer["legal_moves"]
        finally:
            connection.close()

    return run_threads(clients, work)


def services_view_legal(match_id: int, user) -> list:
    from games import selectors

    return selectors.match_view_for_user(selectors.match_get(match_id), user)["legal_moves"]


async def http_client(base: str, token: str, moves: int, latencies: list[float], seed: int) -> None:
    import httpx

    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base, headers={"Authorization": f"Token {token}"}, timeout=60) as client:
        legal: list = []
        match_id = None
        for _ in range(moves):
            if not legal:
                match_id = (await client.post("/api/matches", json={"game": "the-game", "players": 1, "rated": False})).json()["id"]
                await client.post(f"/api/matches/{match_id}/start")
                legal = (await client.get(f"/api/matches/{match_id}/view")).json()["legal_moves"]
            start = time.perf_counter()
            answer = await client.post(f"/api/matches/{match_id}/moves", json={"move": rng.choice(legal)})
            latencies.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text
            legal = answer.json()["legal_moves"]


def http_moves(url: str, connections: int, moves: int, workers: int) -> tuple[float, list[float]]:
    from accounts.services import user_token
    from tests.conftest import make_user

    tokens = [user_token(user=make_user(f"http-{i}-{time.time_ns()}")) for i in range(connections)]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, DATABASE_URL=url, DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING")
    env.pop("REDIS_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.asgi:application", "--port", str(port), "--workers", str(workers),
         "--no-access-log", "--log-level", "warning"],
        cwd=ROOT, env=env,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        import httpx

        for _ in range(100):
            try:
                httpx.get(f"{base}/api/games", timeout=1)
                break
            except httpx.TransportError:
                time.sleep(0.2)
        latencies: list[list[float]] = [[] for _ in range(connections)]

        async def all_clients():
            await asyncio.gather(*(http_client(base, t, moves // connections, latencies[i], i) for i, t in enumerate(tokens)))

        start = time.perf_counter()
        asyncio.run(all_clients())
        return time.perf_counter() - start, [x for per in latencies for x in per]
    finally:
        server.terminate()
        server.wait(timeout=30)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--http-connections", type=int, default=50)
    parser.add_argument("--uvicorn-workers", type=int, default=2)
    args = parser.parse_args(argv)

    ensure_database(args.database_url)
    os.environ["DATABASE_URL"] = args.database_url
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0)

    rows = []
    baseline = {}
    for clients in (1, 8):
        wall, lat = bare_insert(args.database_url, clients, args.moves)
        baseline[clients] = len(lat) / wall
        rows.append(["bare INSERT+COMMIT", clients, len(lat) / wall, median(lat) * 1e3, percentile(lat, 0.99) * 1e3, 1.0])
    for clients in (1, 8):
        wall, lat = service_moves(clients, args.moves)
        rate = len(lat) / wall
        rows.append(["move service", clients, rate, median(lat) * 1e3, percentile(lat, 0.99) * 1e3, baseline[clients] / rate])
    wall, lat = http_moves(args.database_url, args.http_connections, args.moves, args.uvicorn_workers)
    rate = len(lat) / wall
    rows.append([f"HTTP POST /moves ({args.uvicorn_workers} uvicorn workers)", args.http_connections, rate,
                 median(lat) * 1e3, percentile(lat, 0.99) * 1e3, baseline[8] / rate])
    print_table(
        "Moves on PostgreSQL (ratio = bare INSERT rate / this rate, same client count; HTTP vs 8 clients)",
        ["path", "clients", "moves/s", "p50 ms", "p99 ms", "cost × bare"],
        rows,
    )
    return [dict(zip(["path", "clients", "per_s", "p50_ms", "p99_ms", "ratio"], r)) for r in rows]


if __name__ == "__main__":
    main()
