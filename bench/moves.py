"""Moves on PostgreSQL: the move service and the HTTP endpoint, beside a bare psycopg INSERT.

Everything runs in the same run on the same database server:
- baseline: one-row INSERT + COMMIT per transaction through psycopg (synchronous commit, as
  the event store has), from 1 and 8 connections;
- the move service (`games.services.move_submit`, no HTTP), from 1 and 8 threads;
- the same on the event loop (`games.fastlane.move_submit`, what sockets and API-token
  requests use), from 1 and 8 tasks;
- the move endpoint over HTTP through uvicorn, from N concurrent connections.
Each client plays its own 1-player tables of The Game, so moves never conflict. The event-loop
and HTTP rows also give the group commit's batches (claims committed together: mean / largest)
and the serving loop's lag (`server.loop_watch`: p99 / max of its 20 ms ticks).

Run: `python -m bench.moves [--moves N] [--http-connections N] [--uvicorn-workers N]`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import UVICORN_OPTIONS, LoopFigures, loop_figures, median, percentile, print_table  # noqa: E402

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


def tables_ready(users: list, per_user: int) -> dict[int, list[tuple[int, list]]]:
    """`per_user` started 1-player tables of The Game for each user, with their first legal
    moves: made before the clock starts, so the timed loops only play moves."""
    from games import selectors, services

    ready = {}
    for user in users:
        ready[user.pk] = []
        for _ in range(per_user):
            created = services.match_create(user=user, game="the-game", players=1, rated=False)
            match = services.match_start(match_id=created.pk, user=user)
            ready[user.pk].append((match.pk, selectors.match_view_for_user(match, user)["legal_moves"]))
    return ready


def tables_needed(moves: int) -> int:
    return moves // 12 + 2  # a random 1-player game of The Game lasts at least 12 moves, most ~30


def service_moves(clients: int, moves: int) -> tuple[float, list[float]]:
    from django.db import connection

    from games import services
    from tests.conftest import make_user

    players = [make_user(f"bench-{clients}-{i}-{time.time_ns()}") for i in range(clients)]
    ready = tables_ready(players, tables_needed(moves // clients))
    connection.close()

    def work(i, latencies):
        user, rng = players[i], random.Random(i)
        tables = iter(ready[user.pk])
        try:
            match_id, legal = next(tables)
            for _ in range(moves // clients):
                if not legal:
                    match_id, legal = next(tables)
                start = time.perf_counter()
                answer = services.move_submit(match_id=match_id, user=user, move=rng.choice(legal))
                latencies.append(time.perf_counter() - start)
                legal = answer["legal_moves"]
        finally:
            connection.close()

    return run_threads(clients, work)


def loop_moves(clients: int, moves: int) -> tuple[float, list[float], LoopFigures]:
    """The same moves through `games.fastlane.move_submit` (what sockets and token requests
    use), from `clients` tasks on one event loop; with the loop's lag and group commits."""
    from django.conf import settings
    from django.db import connection

    from games import fastlane
    from server import loop_watch
    from tests.conftest import make_user

    players = [make_user(f"loop-{clients}-{i}-{time.time_ns()}") for i in range(clients)]
    ready = tables_ready(players, tables_needed(moves // clients))
    connection.close()
    latencies: list[list[float]] = [[] for _ in range(clients)]

    async def client(i):
        user, rng = players[i], random.Random(i)
        tables = iter(ready[user.pk])
        match_id, legal = next(tables)
        for _ in range(moves // clients):
            if not legal:
                match_id, legal = next(tables)
            start = time.perf_counter()
            answer = await fastlane.move_submit(match_id=match_id, user_id=user.pk, move=rng.choice(legal))
            latencies[i].append(time.perf_counter() - start)
            legal = answer["legal_moves"]

    async def all_clients():
        await fastlane.pool.connection()  # open the pools before the clock starts
        await fastlane.commit_pool.connection()
        loop_watch.watch(asyncio.get_running_loop())
        start = time.perf_counter()
        await asyncio.gather(*(client(i) for i in range(clients)))
        wall = time.perf_counter() - start
        await asyncio.sleep(1.1)  # the loop's last line of figures
        return wall

    with tempfile.TemporaryDirectory() as stats_dir:
        settings.LOOP_STATS_DIR = stats_dir
        wall_start = time.time()
        wall = asyncio.run(all_clients())
        figures = loop_figures(stats_dir, wall_start, wall_start + wall)
        settings.LOOP_STATS_DIR = ""
    fastlane.pools_discard()
    return wall, [x for per in latencies for x in per], figures


def long_match_growth(moves: int = 300, window: int = 10) -> list[list[object]]:
    """Move cost early and late in one long match (Split, two people): the state is never
    rebuilt from the start, so moves 290-300 cost what moves 1-10 do. Beside it, what a
    rebuild from every event would cost at the same point."""
    from games import selectors, services
    from games.state import state_at
    from tests.conftest import make_user

    stamp = time.time_ns()
    for attempt in range(20):
        users = [make_user(f"long-{stamp}-{attempt}-{s}") for s in range(2)]
        match = services.match_create(user=users[0], game="split", players=2, rated=False)
        services.match_join(match_id=match.pk, user=users[1])
        match = services.match_start(match_id=match.pk, user=users[0])
        rng, latencies = random.Random(attempt), []
        while len(latencies) < moves:
            match = selectors.match_get(match.pk)
            if match.status != match.Status.RUNNING:
                break
            views = [selectors.match_view_for_user(match, u) for u in users]
            mover = next(i for i, v in enumerate(views) if v["legal_moves"])
            start = time.perf_counter()
            services.move_submit(match_id=match.pk, user=users[mover], move=rng.choice(views[mover]["legal_moves"]))
            latencies.append(time.perf_counter() - start)
        if len(latencies) < moves:
            continue  # this deal ended early: deal again
        match = selectors.match_get(match.pk)
        # Timed right here, so the lambda sees this deal's `match`.
        rebuild = min(_timed(lambda: state_at(match.pk, match.game, match.last_seq)) for _ in range(5))  # noqa: B023
        early, late = latencies[:window], latencies[moves - window:moves]
        return [
            [f"moves 1-{window}", median(early) * 1e3, max(early) * 1e3],
            [f"moves {moves - window + 1}-{moves}", median(late) * 1e3, max(late) * 1e3],
            [f"rebuilding the state from all {match.last_seq} events (not done per move)", rebuild * 1e3, rebuild * 1e3],
        ]
    raise RuntimeError("no deal of Split lasted 300 moves")


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


async def http_client(
    port: int, token: str, tables: list[tuple[int, list]], moves: int, latencies: list[float], seed: int
) -> None:
    from bench._http import Connection

    rng, tables = random.Random(seed), iter(tables)
    async with Connection("127.0.0.1", port, {"Authorization": f"Token {token}"}) as conn:
        match_id, legal = next(tables)
        for _ in range(moves):
            if not legal:
                match_id, legal = next(tables)
            start = time.perf_counter()
            status, answer = await conn.request("POST", f"/api/matches/{match_id}/moves", {"move": rng.choice(legal)})
            latencies.append(time.perf_counter() - start)
            assert status == 200, answer
            legal = answer["legal_moves"]


async def http_baseline_client(port: int, requests: int, latencies: list[float]) -> None:
    from bench._http import Connection

    async with Connection("127.0.0.1", port) as conn:
        for _ in range(requests):
            start = time.perf_counter()
            status, _ = await conn.request("GET", "/healthz")
            latencies.append(time.perf_counter() - start)
            assert status == 200


def start_server(url: str, workers: int, extra_env: dict | None = None) -> tuple[subprocess.Popen, int]:
    """uvicorn serving the project as the Dockerfile does, with `workers` processes, on a free port."""
    import httpx

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, DATABASE_URL=url, DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="127.0.0.1",
               LOG_LEVEL="WARNING", **(extra_env or {}))
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.asgi:application", "--port", str(port), "--workers", str(workers),
         *UVICORN_OPTIONS],
        cwd=ROOT, env=env,
    )
    for _ in range(150):
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    return server, port


def http_moves(url: str, redis_url: str, connections: int, moves: int,
               workers: int) -> dict[str, tuple[float, list[float], LoopFigures]]:
    """The move endpoint from `connections` keep-alive connections, and beside it a no-database
    endpoint (`/healthz`) on the same server: the serving stack's own ceiling in this run."""
    from accounts.services import user_token
    from tests.conftest import make_user

    users = [make_user(f"http-{i}-{time.time_ns()}") for i in range(connections)]
    tokens = [user_token(user=u) for u in users]
    ready = tables_ready(users, tables_needed(moves // connections))
    per_client = moves // connections
    # 50 clients at the target rate play 20 moves a second each: above a person's limit.
    stats_dir = tempfile.mkdtemp(prefix="loop-stats-")
    server, port = start_server(url, workers, {"REDIS_URL": redis_url, "THROTTLE_MOVES": "100000/minute",
                                               "LOOP_STATS_DIR": stats_dir})

    def timed(make_client) -> tuple[float, list[float], LoopFigures]:
        latencies: list[list[float]] = [[] for _ in range(connections)]

        async def all_clients():
            await asyncio.gather(*(make_client(i, latencies[i]) for i in range(connections)))

        start, wall_start = time.perf_counter(), time.time()
        asyncio.run(all_clients())
        wall = time.perf_counter() - start
        time.sleep(1.1)  # the servers' last line of figures
        return wall, [x for per in latencies for x in per], loop_figures(stats_dir, wall_start, wall_start + wall)

    try:
        return {
            "healthz": timed(lambda i, lat: http_baseline_client(port, per_client, lat)),
            "moves": timed(lambda i, lat: http_client(port, tokens[i], ready[users[i].pk], per_client, lat, i)),
        }
    finally:
        server.terminate()
        server.wait(timeout=30)
        shutil.rmtree(stats_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/2"))
    parser.add_argument("--moves", type=int, default=4000)
    parser.add_argument("--http-connections", type=int, default=50)
    parser.add_argument("--uvicorn-workers", type=int, nargs="+", default=[2])
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

    def row(path, clients, wall, lat, baseline_rate, loop: LoopFigures | None = None):
        rate = len(lat) / wall
        return [path, clients, rate, median(lat) * 1e3, percentile(lat, 0.99) * 1e3, baseline_rate, baseline_rate / rate,
                loop.batch_text() if loop else "-", loop.lag_text() if loop else "-"]

    rows, baseline = [], {}
    for clients in (1, 8):
        wall, lat = bare_insert(args.database_url, clients, args.moves)
        baseline[clients] = len(lat) / wall
        rows.append(row("bare INSERT+COMMIT (baseline)", clients, wall, lat, baseline[clients]))
    for clients in (1, 8):
        rows.append(row("move service (threads)", clients, *service_moves(clients, args.moves), baseline[clients]))
    for clients in (1, 8):
        wall, lat, loop = loop_moves(clients, args.moves)
        rows.append(row("move service on the event loop", clients, wall, lat, baseline[clients], loop))
    for workers in args.uvicorn_workers:
        measured = http_moves(args.database_url, args.redis_url, args.http_connections, args.moves, workers)
        served = f"uvicorn ×{workers}"
        for path, measure in (("HTTP GET /healthz, no database", "healthz"), ("HTTP POST /moves", "moves")):
            wall, lat, loop = measured[measure]
            rows.append(row(f"{path} ({served})", args.http_connections, wall, lat, baseline[8], loop))
    header = ["path", "clients", "per s", "p50 ms", "p99 ms", "bare INSERT per s", "cost × bare",
              "commit batch mean / max", "loop lag p99 / max ms"]
    print_table(
        "Moves on PostgreSQL (cost × bare = bare INSERT rate / this rate; HTTP against the 8-connection INSERT)",
        header, rows,
    )
    growth = long_match_growth()
    print_table("One long match (Split, 2 people): move service cost early and late", ["moves", "p50 ms", "max ms"], growth)
    return {
        "moves": [dict(zip(["path", "clients", "per_s", "p50_ms", "p99_ms", "baseline_per_s", "ratio",
                            "commit_batch", "loop_lag_ms"], r)) for r in rows],
        "long_match": [dict(zip(["moves", "p50_ms", "max_ms"], r)) for r in growth],
    }


if __name__ == "__main__":
    main()
