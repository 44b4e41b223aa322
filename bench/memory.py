"""Memory: the RSS of a server process holding 500 live tables, beside a bare echo holding as many sockets.

One uvicorn process (one worker: the server runs in it) on the production settings, PostgreSQL +
Redis. Its RSS is read right after start (idle), then with every table's two seat sockets open
(1,000 WebSockets) and a few moves played on every table, so that each table's state sits in
the process's caches: current RSS (VmRSS) and peak (VmHWM, the high-water mark since start).
The baseline is the bare Channels echo (`bench.echo`) in one uvicorn process holding the same
1,000 sockets in 500 groups and passing the same number of "moves". Target: under 500 MB.

Run: `python -m bench.memory [--tables 500] [--moves 4]`.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import print_table  # noqa: E402
from bench.live import (  # noqa: E402
    DEFAULT_DATABASE_URL,
    DEFAULT_REDIS_URL,
    PLAYERS,
    Server,
    TablePlay,
    make_tables,
    open_tables,
    run_client,
    setup_django,
    start_server,
    status_kib,
    wait_idle,
)

TARGET_MB = 500


async def hold(server: Server, tables: list[tuple[int, list[str | None]]], moves: int) -> dict[str, float]:
    """Opens every seat socket of `tables`, plays `moves` on each, and reads the RSS while they are open."""
    pid = server.process.pid
    nonce = f"m{time.time_ns() % 10**12:x}"
    plays = [TablePlay(server, [(table, tokens)], 0, random.Random(table), nonce) for table, tokens in tables]
    opened = time.perf_counter()
    await open_tables(plays)
    opened = time.perf_counter() - opened
    start = time.perf_counter()
    await asyncio.gather(*(p.drive(start, start + 600, 0.0, max_moves=moves) for p in plays))
    await asyncio.gather(*(p.settle(time.perf_counter() + 30) for p in plays))
    await wait_idle(server)
    figures = {
        "rss_mb": status_kib(pid, "VmRSS") / 1024,
        "peak_mb": status_kib(pid, "VmHWM") / 1024,
        "open_s": opened,
        "moves": sum(len(p.latencies) for p in plays),
    }
    await asyncio.gather(*(p.close() for p in plays))
    return figures


def measure(server: Server, tables: list[tuple[int, list[str | None]]], moves: int) -> dict[str, float]:
    time.sleep(1.0)  # let the process finish starting
    idle = status_kib(server.process.pid, "VmRSS") / 1024
    return {"idle_mb": idle, **run_client(hold(server, tables, moves))}


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--tables", type=int, default=500)
    parser.add_argument("--moves", type=int, default=4,
                        help="moves played on every table while its sockets are open")
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    tables = make_tables(args.tables)
    results = {}
    for echo in (True, False):
        server = start_server(echo=echo, database_url=args.database_url, redis_url=args.redis_url, workers=1)
        try:
            chosen = [(i, [None] * PLAYERS) for i in range(args.tables)] if echo else tables
            results[server.label] = measure(server, chosen, args.moves)
        finally:
            server.stop()
    rows, returned = [], []
    sockets = args.tables * PLAYERS
    for label, name in (("echo", "bare Channels echo (baseline)"), ("real", "server.asgi (real)")):
        got = results[label]
        per_socket = (got["rss_mb"] - got["idle_mb"]) * 1024 / sockets
        rows.append([name, sockets, got["moves"], got["idle_mb"], got["rss_mb"], got["peak_mb"], per_socket])
        returned.append({"server": label, "sockets": sockets, "tables": args.tables, "moves": got["moves"],
                         "idle_rss_mb": got["idle_mb"], "rss_mb": got["rss_mb"],
                         "peak_rss_mb": got["peak_mb"],
                         "kib_per_socket": per_socket, "open_seconds": got["open_s"], "target_mb": TARGET_MB})
    print_table(
        f"Memory of one uvicorn process holding {args.tables} live tables ({PLAYERS} seat sockets each, "
        f"{args.moves} moves played on each), beside the bare echo; target: peak under {TARGET_MB} MB",
        ["server", "sockets", "moves", "idle RSS MB", "RSS MB", "peak RSS MB", "KiB per socket over idle"],
        rows,
    )
    real, echo = results["real"], results["echo"]
    print(f"\nReal peak {real['peak_mb']:,.0f} MB ({real['peak_mb'] / TARGET_MB:.0%} of the target); "
          f"the echo's {echo['peak_mb']:,.0f} MB (real / echo: {real['peak_mb'] / echo['peak_mb']:.1f}x). "
          f"Opening the sockets took {real['open_s']:.1f} s (echo {echo['open_s']:.1f} s).")
    return returned


if __name__ == "__main__":
    main()
