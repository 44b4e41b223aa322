"""Live tables over WebSockets: N tables played by a separate client process through uvicorn.

The server: uvicorn on PostgreSQL + Redis (the production shape). This process is the client:
one socket per seat, each seat playing a random legal move when its frame says it may, each
table moving at most `--rate` times a second. It prints moves/s and the latency from a move
sent to the last seat's frame received (p50/p99), then the fan-out from one table's moves to
100 spectators.

Run: `python -m bench.live [--tables 50 200] [--seconds 20] [--rate 1]`.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import median, percentile, print_table  # noqa: E402
from bench.moves import DEFAULT_URL, ensure_database  # noqa: E402

GAME, PLAYERS = "ten", 2


def setup_django(database_url: str) -> None:
    ensure_database(database_url)
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-not-secret")
    os.environ["LOG_LEVEL"] = "WARNING"
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0)


def make_tables(count: int) -> list[tuple[int, list[str]]]:
    """`count` running tables of two people each; returns (match id, seat tokens)."""
    from accounts.services import user_token
    from games import services
    from tests.conftest import make_user

    stamp = time.time_ns()
    tables = []
    for t in range(count):
        users = [make_user(f"live-{stamp}-{t}-{s}") for s in range(PLAYERS)]
        match = services.match_create(user=users[0], game=GAME, players=PLAYERS, rated=False)
        for user in users[1:]:
            services.match_join(match_id=match.pk, user=user)
        services.match_start(match_id=match.pk, user=users[0])
        tables.append((match.pk, [user_token(user=u) for u in users]))
    return tables


class Table:
    def __init__(self, match_id: int, interval: float, rng: random.Random) -> None:
        self.match_id, self.interval, self.rng = match_id, interval, rng
        self.sent_at: float | None = None
        self.base_seq = 0
        self.arrived: set[int] = set()
        self.last_move = 0.0
        self.latencies: list[float] = []
        self.moves = 0
        self.finished = False


async def seat_loop(ws_base: str, table: Table, seat: int, token: str, stop: float, seats: int) -> None:
    import websockets

    async with websockets.connect(f"{ws_base}/ws/matches/{table.match_id}/?token={token}", max_size=2**22) as ws:
        while time.perf_counter() < stop and not table.finished:
            try:
                frame = json.loads(await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop - time.perf_counter())))
            except asyncio.TimeoutError:
                break
            if frame["type"] not in ("snapshot", "update"):
                continue
            now = time.perf_counter()
            if table.sent_at is not None and frame["seq"] > table.base_seq:
                table.arrived.add(seat)
                if len(table.arrived) == seats:
                    table.latencies.append(now - table.sent_at)
                    table.sent_at = None
            if frame["view"] and frame["view"]["finished"]:
                table.finished = True
                break
            if frame["legal_moves"] and table.sent_at is None:
                wait = table.last_move + table.interval - time.perf_counter()
                if wait > 0:
                    await asyncio.sleep(wait)
                table.base_seq, table.arrived = frame["seq"], set()
                table.sent_at = table.last_move = time.perf_counter()
                table.moves += 1
                await ws.send(json.dumps({"type": "move", "move": table.rng.choice(frame["legal_moves"]),
                                          "id": f"{seat}-{table.moves}"}))


async def run_tables(ws_base: str, tables: list[tuple[int, list[str]]], seconds: float, rate: float) -> tuple[float, list[float]]:
    stop = time.perf_counter() + seconds
    interval = 1.0 / rate if rate > 0 else 0.0
    state = [Table(match_id, interval, random.Random(match_id)) for match_id, _ in tables]
    start = time.perf_counter()
    await asyncio.gather(
        *(seat_loop(ws_base, table, seat, token, stop, PLAYERS)
          for table, (_, tokens) in zip(state, tables) for seat, token in enumerate(tokens)),
        return_exceptions=False,
    )
    wall = time.perf_counter() - start
    return sum(t.moves for t in state) / wall, [x for t in state for x in t.latencies]


async def spectator_fanout(ws_base: str, table: tuple[int, list[str]], spectators: int, moves: int) -> list[float]:
    """Latency from a move sent to the last of `spectators` sockets receiving its frame."""
    import websockets

    match_id, tokens = table
    watchers = [await websockets.connect(f"{ws_base}/ws/matches/{match_id}/", max_size=2**22) for _ in range(spectators)]
    players = [await websockets.connect(f"{ws_base}/ws/matches/{match_id}/?token={t}", max_size=2**22) for t in tokens]
    rng, latencies = random.Random(1), []

    async def next_frame(ws, kinds=("snapshot", "update")):
        while True:
            frame = json.loads(await ws.recv())
            if frame["type"] in kinds:
                return frame

    async def drain_to(ws, seq):
        while True:
            frame = await next_frame(ws)
            if frame["seq"] >= seq:
                return time.perf_counter()

    frames = [await next_frame(p) for p in players]
    for w in watchers:
        await next_frame(w)
    for _ in range(moves):
        mover = next((i for i, f in enumerate(frames) if f["legal_moves"]), None)
        if mover is None:
            break
        sent = time.perf_counter()
        await players[mover].send(json.dumps({"type": "move", "move": rng.choice(frames[mover]["legal_moves"]), "id": f"f{_}"}))
        target = frames[mover]["seq"] + 1
        arrivals = await asyncio.gather(*(drain_to(w, target) for w in watchers))
        latencies.append(max(arrivals) - sent)
        frames = []
        for p in players:
            frame = await next_frame(p)
            while frame["seq"] < target:
                frame = await next_frame(p)
            frames.append(frame)
        if frames[0]["view"]["finished"]:
            break
    for ws in watchers + players:
        await ws.close()
    return latencies


def start_server(database_url: str, redis_url: str, workers: int) -> tuple[subprocess.Popen, str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = dict(os.environ, DATABASE_URL=database_url, REDIS_URL=redis_url, LOG_LEVEL="WARNING",
               DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="127.0.0.1")
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "server.asgi:application", "--port", str(port), "--workers", str(workers),
         "--no-access-log", "--log-level", "warning"], cwd=ROOT, env=env,
    )
    import httpx

    for _ in range(150):
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/games", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    return server, f"ws://127.0.0.1:{port}"


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/2"))
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--rate", type=float, default=1.0, help="moves per second per table (0: as fast as possible)")
    parser.add_argument("--uvicorn-workers", type=int, default=2)
    parser.add_argument("--spectators", type=int, default=100)
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    server, ws_base = start_server(args.database_url, args.redis_url, args.uvicorn_workers)
    rows = []
    try:
        for count in args.tables:
            tables = make_tables(count)
            rate, lat = asyncio.run(run_tables(ws_base, tables, args.seconds, args.rate))
            rows.append([f"{count} tables, {args.rate:g} move/s each", count * PLAYERS, rate,
                         median(lat) * 1e3, percentile(lat, 0.99) * 1e3])
        lat = asyncio.run(spectator_fanout(ws_base, make_tables(1)[0], args.spectators, 60))
        rows.append([f"1 table, {args.spectators} spectators", args.spectators + PLAYERS, len(lat) / max(sum(lat), 1e-9),
                     median(lat) * 1e3, percentile(lat, 0.99) * 1e3])
    finally:
        server.terminate()
        server.wait(timeout=30)
    print_table(
        f"Live tables over WebSockets ({GAME}, uvicorn ×{args.uvicorn_workers}, PostgreSQL + Redis); "
        "latency = move sent -> last seat's (or spectator's) frame",
        ["load", "sockets", "moves/s", "p50 ms", "p99 ms"], rows,
    )
    return [dict(zip(["load", "sockets", "moves_per_s", "p50_ms", "p99_ms"], r)) for r in rows]


if __name__ == "__main__":
    main()
