"""Boards: leaderboard reads on ladders of 100,000 rated players, and the plan of each statement.

Two ladders of one game (ten): the people's pool (N people) and the bots' pool (the same N
people and a dozen bots, which have played far more), written directly, then VACUUM ANALYZE
(as autovacuum would have left them). For each read (the first page, a deep page at offset
N/2, one player's place near the bottom; on the bots' pool everyone, and `kind` alone), through
the whole HTTP stack in process: the latency, and for every statement the request sends to
ratings_rating its plan under EXPLAIN ANALYZE: the index it walks, whether it sorts, the rows
it read. The bots' pool is measured twice: with its board index (`rating_board_people_and_bots`)
and without it (as on `rating_board` alone), to show what the index is for.

Run: `python -m bench.boards [--players N] [--requests N] [--database-url URL]` (the database is
dropped and created).
"""
from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import median, percentile, print_table  # noqa: E402
from bench.ratings import fresh_database, settle, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_boards"
BOTS = 12
_PLAN_NODE = re.compile(r"(Index Only Scan|Index Scan|Bitmap Heap Scan|Bitmap Index Scan|Seq Scan|Sort|Merge Append|"
                        r"Incremental Sort)(?: using (\w+))?.*?actual time=[\d.]+\.\.[\d.]+ rows=(\d+)")


def make_users(count: int, prefix: str) -> list[int]:
    """`count` people, written in bulk (with the name keys `User.save` would set)."""
    from accounts.models import User
    from accounts.names import name_key

    User.objects.bulk_create(
        [User(username=f"{prefix}{i}", username_key=name_key(f"{prefix}{i}"), password="!") for i in range(count)],
        batch_size=5000,
    )
    return list(User.objects.filter(username__startswith=prefix).order_by("pk").values_list("pk", flat=True))


def make_ladders(count: int) -> dict[str, object]:
    """The two ladders, with the people's ratings drawn at random; returns a person near the bottom of each."""
    from ratings.models import Kind, Ladder, Pool, Rating

    users = make_users(count, "board")
    rng = random.Random(5)
    for pool in (Pool.PEOPLE, Pool.BOTS):
        ladder = Ladder.objects.create(game="ten", pool=pool, position=count)
        rows = [
            Rating(ladder=ladder, competitor=f"user:{u}", kind=Kind.USER, user_id=u, mu=rng.gauss(25, 5),
                   sigma=rng.uniform(1, 8.3), games=rng.randint(1, 60), wins=0, last_position=1)
            for u in users
        ]
        if pool == Pool.BOTS:
            rows += [
                Rating(ladder=ladder, competitor=f"bot:bench{b}", kind=Kind.BOT, mu=rng.gauss(25, 3),
                       sigma=rng.uniform(0.8, 1.5), games=rng.randint(5_000, 50_000), wins=0, last_position=1)
                for b in range(BOTS)
            ]
        Rating.objects.bulk_create(rows, batch_size=5000)
    settle()
    bottom = {}
    for pool in (Pool.PEOPLE, Pool.BOTS):
        rating = Rating.objects.filter(ladder__pool=pool, kind=Kind.USER).order_by("conservative").select_related("user")[5]
        bottom[pool] = rating.user.username
    return bottom


def plans(sqls: list[str]) -> list[str]:
    """Each statement's plan nodes in one line: `node [index] rows=N`, and its execution time."""
    from django.db import connection

    lines = []
    with connection.cursor() as cursor:
        for sql in sqls:
            cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {sql}")
            plan = [row[0] for row in cursor.fetchall()]
            nodes = []
            for line in plan:
                found = _PLAN_NODE.search(line)
                if found:
                    node, index, rows = found.groups()
                    nodes.append(f"{node}{f' {index}' if index else ''} rows={rows}")
            took = next((line.split(":")[1].strip() for line in plan if line.startswith("Execution Time")), "?")
            kind = "count" if sql.lstrip().upper().startswith("SELECT COUNT") else "rows"
            lines.append(f"{kind}: {' > '.join(nodes)} ({took})")
    return lines


def measure(count: int, requests: int) -> list[list[object]]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from rest_framework.test import APIClient

    bottom = make_ladders(count)
    client = APIClient()
    deep = count // 2
    cases = [
        ("people: first page", {"pool": "people"}),
        ("people: deep page", {"pool": "people", "offset": deep}),
        ("people: a player's place", {"pool": "people", "player": bottom["people"], "limit": 1}),
        ("people: first page, min_games=5", {"pool": "people", "min_games": 5}),
        ("bots' pool: first page", {"pool": "bots"}),
        ("bots' pool: deep page", {"pool": "bots", "offset": deep}),
        ("bots' pool: a player's place", {"pool": "bots", "player": bottom["bots"], "limit": 1}),
        ("bots' pool: kind=bot", {"pool": "bots", "kind": "bot"}),
        ("bots' pool: kind=user, a player's place", {"pool": "bots", "kind": "user", "player": bottom["bots"],
                                                     "limit": 1}),
    ]
    rows = []
    for index_state in ("with", "without"):
        if index_state == "without":
            with connection.cursor() as cursor:
                cursor.execute("DROP INDEX rating_board_people_and_bots")
        for label, params in cases:
            if index_state == "without" and not label.startswith("bots' pool"):
                continue
            latencies = []
            for _ in range(requests):
                start = time.perf_counter()
                answer = client.get("/api/ratings/ten/leaderboard", params)
                latencies.append(time.perf_counter() - start)
                assert answer.status_code == 200, answer.content
            with CaptureQueriesContext(connection) as captured:
                client.get("/api/ratings/ten/leaderboard", params)
            sqls = [q["sql"] for q in captured.captured_queries if '"ratings_rating"' in q["sql"].split(" WHERE ")[0]]
            rows.append([f"{label} ({index_state} the index)" if label.startswith("bots' pool") else label, count,
                         median(latencies) * 1e3, percentile(latencies, 0.95) * 1e3, " | ".join(plans(sqls))])
    return rows


def main(argv: list[str] | None = None) -> list[list[object]]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=DEFAULT_URL, help="postgres://… (dropped and created)")
    parser.add_argument("--players", type=int, default=100_000, help="rated people in each ladder")
    parser.add_argument("--requests", type=int, default=30, help="requests per case")
    args = parser.parse_args(argv)
    fresh_database(args.database_url)
    setup_django(args.database_url)
    rows = measure(args.players, args.requests)
    print_table(
        "Leaderboard GET /api/ratings/ten/leaderboard (in-process HTTP stack) and each statement's plan",
        ["request", "people", "median ms", "p95 ms", "plans (statements on ratings_rating)"],
        rows,
    )
    return rows


if __name__ == "__main__":
    main()
