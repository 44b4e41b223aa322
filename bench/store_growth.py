"""The event store as it grows: a move's append and a match's read at 10^5, 10^6 and 10^7 events.

`games_event` is filled in place, 10^5 → 10^6 → 10^7 rows, and measured at each size:
- append: moves through the move service (`games.services.move_submit`: the head read and the
  one statement that claims the head and appends the move's events, `games.store.head_claim`),
  on fresh 1-player tables of The Game, one client; p50 and p99, and p99 as a multiple of its
  value at the first size. Baseline in the same run, at each size: a bare one-row INSERT +
  COMMIT through psycopg into a small plain table (`bench.moves.bare_insert`), what any commit
  costs on the machine at that moment.
- read: a random stored match's events loaded and its state rebuilt as a replay does
  (`games.replay.replay_position`: one query for the events up to the head, `ENGINE.replay`).
The fill is set-based SQL into the migrated schema, every constraint and trigger in place
(the append-only trigger lets inserts through): each new match is a copy of one of a few real
matches played to the end through the move service (Ten, Split and Sequence Stacks, two people,
random legal moves), with its seats and its first 100 events (real payloads), their hashes
fresh SHA-256 values. Matches are written 500 at a time with their events interleaved by seq,
as tables played side by side write them, so a match's events lie on many heap pages.
VACUUM ANALYZE and a CHECKPOINT after each fill.

Run: `python -m bench.store_growth [--quick] [--sizes 100000,1000000,10000000] [--moves N]
[--reads N] [--database-url URL]` (the database is dropped and created; PostgreSQL). `--quick`:
sizes 10^4 and 10^5.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import in_child_process, median, percentile, print_table  # noqa: E402
from bench.ratings import fresh_database, settle, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_store_growth"
SIZES = "100000,1000000,10000000"
QUICK_SIZES = "10000,100000"
EVENTS_PER_MATCH = 100
TEMPLATE_GAMES = ("ten", "split", "sequence-stacks")
MATCHES_A_STATEMENT = 10_000  # 10^6 events: each statement's deferred foreign-key checks stay small
PLAYED_SIDE_BY_SIDE = 500  # matches whose events are interleaved on the heap


def template_matches() -> list[int]:
    """One real match of each template game, played to the end through the move service by two
    people choosing random legal moves; each holds more than `EVENTS_PER_MATCH` events."""
    from games import selectors, services
    from games.models import Match
    from tests.conftest import make_user

    rng, played = random.Random(29), []
    for game in TEMPLATE_GAMES:
        for attempt in itertools.count():
            users = [make_user(f"growth-{game}-{attempt}-{seat}") for seat in range(2)]
            match = services.match_create(user=users[0], game=game, players=2, rated=False)
            services.match_join(match_id=match.pk, user=users[1])
            match = services.match_start(match_id=match.pk, user=users[0])
            while match.status == Match.Status.RUNNING:
                views = [selectors.match_view_for_user(match, user) for user in users]
                mover = next(seat for seat, view in enumerate(views) if view["legal_moves"])
                services.move_submit(match_id=match.pk, user=users[mover], move=rng.choice(views[mover]["legal_moves"]))
                match = selectors.match_get(match.pk)
            if match.last_seq > EVENTS_PER_MATCH:
                played.append(match.pk)
                break
    return played


def _copy_statement(model, overrides: dict[str, str], source: str, tail: str) -> str:
    """INSERT of `model`'s columns (but its id) selected from `source`, where the copied row is
    `t`; `overrides` give some columns another expression."""
    columns = [f.column for f in model._meta.concrete_fields if not f.primary_key]
    values = ", ".join(overrides.get(column, f"t.{column}") for column in columns)
    return f"INSERT INTO {model._meta.db_table} ({', '.join(columns)}) SELECT {values} FROM {source} {tail}"


def fill(templates: list[int], target: int) -> None:
    """New matches, each a copy of a template match's seats and first `EVENTS_PER_MATCH` events,
    until `games_event` holds about `target` rows. Copies keep their template's seed, which
    leads each of their rows back to it."""
    from django.db import connection, transaction

    from games.models import Event, Match, Seat

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM games_event")
        matches = (target - cursor.fetchone()[0]) // EVENTS_PER_MATCH
        copies = "games_match m JOIN games_match template ON template.id = ANY(%s) AND template.seed = m.seed"
        for start in range(0, matches, MATCHES_A_STATEMENT):
            count = min(MATCHES_A_STATEMENT, matches - start)
            with transaction.atomic():
                cursor.execute("SELECT coalesce(max(id), 0) FROM games_match")
                after = cursor.fetchone()[0]
                cursor.execute(
                    _copy_statement(
                        Match,
                        {"status": "'running'", "last_seq": str(EVENTS_PER_MATCH), "outcome": "NULL",
                         "finished_at": "NULL", "shuffle_id": "NULL", "rematch_of_id": "NULL"},
                        "generate_series(0, %s) g JOIN games_match t ON t.id = (%s::bigint[])[1 + g %% %s]",
                        "ORDER BY g",
                    ),
                    [count - 1, templates, len(templates)],
                )
                cursor.execute(
                    _copy_statement(Seat, {"match_id": "m.id"}, f"{copies} JOIN games_seat t ON t.match_id = template.id",
                                    "WHERE m.id > %s"),
                    [templates, after],
                )
                cursor.execute(
                    _copy_statement(
                        Event,
                        {"match_id": "m.id", "hash": "encode(sha256(convert_to(m.id || ':' || t.hash, 'UTF8')), 'hex')"},
                        f"{copies} JOIN games_event t ON t.match_id = template.id",
                        f"WHERE m.id > %s AND t.seq <= {EVENTS_PER_MATCH} ORDER BY m.id / {PLAYED_SIDE_BY_SIDE}, t.seq, m.id",
                    ),
                    [templates, after],
                )
                cursor.execute(
                    "UPDATE games_match m SET head_hash = e.hash FROM games_event e "
                    "WHERE m.id > %s AND e.match_id = m.id AND e.seq = m.last_seq",
                    [after],
                )


def checkpoint() -> None:
    """Writes the fill's dirty pages out now, so the timings that follow do not pay for them."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")


def table_size() -> tuple[int, int, int, int]:
    """Rows, matches, and the megabytes of `games_event`'s heap (with TOAST) and of its indexes."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM games_event), (SELECT count(*) FROM games_match), "
            "pg_table_size('games_event') / 1000000, pg_indexes_size('games_event') / 1000000"
        )
        return cursor.fetchone()


def measure_reads(count: int, seed: int) -> tuple[list[float], list[float]]:
    """Seconds to load each of `count` random matches' events (as `replay_position` does) and to
    rebuild their state from them."""
    from django.db import connection

    from games.engines import ENGINES
    from games.models import Event, Match

    with connection.cursor() as cursor:
        cursor.execute("SELECT min(id), max(id) FROM games_match")
        first, last = cursor.fetchone()
    copies = Match.objects.filter(last_seq=EVENTS_PER_MATCH, status=Match.Status.RUNNING).order_by("pk")
    rng, loads, rebuilds = random.Random(seed), [], []
    for _ in range(count):
        match = copies.filter(pk__gte=rng.randint(first, last)).first() or copies.last()
        assert match is not None
        start = time.perf_counter()
        rows = list(Event.objects.filter(match=match, seq__lte=match.last_seq).order_by("seq")
                    .values_list("seq", "kind", "data", "actor"))
        loaded = time.perf_counter()
        state = ENGINES[match.game].replay(data for _, kind, data, _ in rows if kind == Event.Kind.ENGINE)
        rebuilds.append(time.perf_counter() - loaded)
        loads.append(loaded - start)
        assert state is not None and len(rows) == match.last_seq
    return loads, rebuilds


def measure(args: argparse.Namespace) -> dict:
    from django.conf import settings

    from bench.moves import bare_insert, service_moves

    fresh_database(args.database_url)
    setup_django(args.database_url)
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    templates = template_matches()
    growth, appends, reads = [], [], []
    for size in args.sizes:
        started = time.perf_counter()
        fill(templates, size)
        filled = time.perf_counter() - started
        settle()
        checkpoint()
        settled = time.perf_counter() - started - filled
        rows, matches, heap_mb, index_mb = table_size()
        growth.append([rows, matches, filled, settled, heap_mb, index_mb])
        _, bare = bare_insert(args.database_url, 1, args.moves)
        _, moves = service_moves(1, args.moves)
        appends.append([rows, percentile(moves, 0.5) * 1e3, percentile(moves, 0.99) * 1e3,
                        percentile(bare, 0.5) * 1e3, percentile(bare, 0.99) * 1e3])
        loads, rebuilds = measure_reads(args.reads, size)
        reads.append([rows, median(loads) * 1e3, percentile(loads, 0.99) * 1e3,
                      median(rebuilds) * 1e3, percentile(rebuilds, 0.99) * 1e3])
    p99_first, read_first = appends[0][2], reads[0][1]
    for row in appends:
        row[5:] = [row[2] / row[4], row[2] / p99_first]
    for row in reads:
        row.append(row[1] / read_first)
    print_table(
        f"games_event grown in place: each new match a copy of a real one's seats and first {EVENTS_PER_MATCH} "
        f"events ({', '.join(TEMPLATE_GAMES)}), set-based SQL into the migrated schema",
        ["events", "matches", "fill s", "VACUUM ANALYZE + CHECKPOINT s", "heap+TOAST MB", "indexes MB"], growth,
    )
    print_table(
        f"A move's append at each size (move service, 1 client, {args.moves:,} moves on fresh 1-player tables of "
        "The Game); baseline: a bare one-row INSERT+COMMIT into a small plain table, same size, same run",
        ["events", "p50 ms", "p99 ms", "bare p50 ms", "bare p99 ms", "p99 × bare p99", "p99 × first size's"], appends,
    )
    print_table(
        f"A match's read at each size ({args.reads} random matches of {EVENTS_PER_MATCH} events: the events loaded "
        "as a replay loads them, the state rebuilt by ENGINE.replay); baseline: the load at the first size",
        ["events", "load p50 ms", "load p99 ms", "rebuild p50 ms", "rebuild p99 ms", "load p50 × first size's"], reads,
    )
    growth_ratio = appends[-1][2] / p99_first
    print(f"\nAppend p99 at {appends[-1][0]:,} events is {growth_ratio:.2f}× its value at {appends[0][0]:,} "
          f"(the event table is partitioned only past 2×).")
    return {"growth": growth, "appends": appends, "reads": reads, "append_p99_growth": growth_ratio}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_STORE_GROWTH_DATABASE_URL", DEFAULT_URL),
                        help="postgres://… (dropped and created)")
    parser.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}")
    parser.add_argument("--sizes", help=f"events in games_event at each measurement (default {SIZES})")
    parser.add_argument("--moves", type=int, default=2000, help="moves timed at each size")
    parser.add_argument("--reads", type=int, default=300, help="matches read at each size")
    parser.add_argument("--results", help=argparse.SUPPRESS)  # set on the child process: where to write
    args = parser.parse_args(argv)
    if args.results is None:
        return in_child_process("bench.store_growth", sys.argv[1:] if argv is None else argv)
    args.sizes = [int(size) for size in (args.sizes or (QUICK_SIZES if args.quick else SIZES)).split(",")]
    results = measure(args)
    Path(args.results).write_text(json.dumps(results))
    return results


if __name__ == "__main__":
    main()
