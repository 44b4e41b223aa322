"""The league log: how fast facts are integrated, and what proofs cost as the log grows.

1. Integration: N rating ledger rows are written in bulk (their triggers queue them), then
   `log_integrate` runs until nothing is pending: entries per second, beside a bare baseline in
   the same run (the same bodies bulk-inserted into a table of the same shape, in the same
   batches, each batch its own commit: what appending costs before any hashing or signing).
2. verify_league's reading of that log (the tree and every entry), beside a bare hashing loop.
3. Proofs at 10^4, 10^5 and 10^6 entries: a log of synthetic leaves whose stored hashes are
   copied in with COPY, then inclusion and consistency proofs served the way the API serves
   them (`selectors.inclusion_proof`, one query, and the JSON the endpoint answers): hashes per
   proof (must grow as log2 n), bytes of the JSON, and time per proof, beside GET /healthz on the
   same in-process stack (what any request costs there).

Run: `python -m bench.log [--entries N] [--sizes 10000,100000,1000000] [--database-url URL]`
(the database is dropped and created; PostgreSQL).
"""
from __future__ import annotations

import argparse
import base64
import json
import math
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import in_child_process, median, percentile, print_table  # noqa: E402
from bench.ratings import fresh_database, settle, setup_django  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_log"
PROOFS = 300


def ledger_rows(count: int) -> None:
    """`count` rating ledger rows, as the rating task writes them (two per two-player match)."""
    from accounts.models import User
    from games.models import Match
    from ratings.models import Kind, Ladder, Pool, RatingEntry

    user = User.objects.create(username="bench-log", username_key="bench-log", password="!")
    match = Match.objects.create(game="ten", players=2, created_by=user, status=Match.Status.FINISHED)
    ladder = Ladder.objects.create(game="ten", pool=Pool.PEOPLE)
    rng = random.Random(7)
    RatingEntry.objects.bulk_create(
        [
            RatingEntry(
                ladder=ladder, epoch=1, position=1 + i // 2, match=match, competitor=f"user:{i}", kind=Kind.USER,
                seat=i % 2, rank=1 + i % 2, mu_before=rng.gauss(25, 3), sigma_before=rng.uniform(1, 8),
                mu_after=rng.gauss(25, 3), sigma_after=rng.uniform(1, 8), revision=i // 2,
            )
            for i in range(count)
        ],
        batch_size=5000,
    )


def measure_integration(count: int) -> list[object]:
    from django.db import connection, transaction

    from leaguelog import services
    from leaguelog.models import LogEntry

    ledger_rows(count)
    settle()
    started = time.perf_counter()
    while services.log_integrate():
        pass
    took = time.perf_counter() - started
    assert LogEntry.objects.count() == count
    bodies = [bytes(b) for b in LogEntry.objects.order_by("index").values_list("body", flat=True)]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE bench_bare (index bigint PRIMARY KEY, kind varchar(24), source_id bigint, "
                       "part integer, body bytea)")
    started = time.perf_counter()
    for start in range(0, count, services.INTEGRATE_BATCH):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(
                "INSERT INTO bench_bare VALUES (%s, 'rating_entry', %s, 0, %s)",
                [(i, i, bodies[i]) for i in range(start, min(count, start + services.INTEGRATE_BATCH))],
            )
    bare = time.perf_counter() - started
    size = sum(map(len, bodies)) / count
    return [count, round(size), count / took, count / bare, took / bare]


def measure_verify(count: int) -> list[object]:
    """verify_league's reading of the integrated log (every bundle fetched through the in-process
    HTTP stack, each entry parsed and hashed, the root checked against the signed checkpoint and
    the hash tiles), beside a bare loop that only leaf-hashes the same bodies."""
    import hashlib

    from django.test import Client

    from leaguelog import verify
    from leaguelog.checkpoint import open_checkpoint
    from leaguelog.models import LogEntry
    from leaguelog.notes import parse_verifier_key

    client = Client()
    fetch = lambda path: client.get(f"/log/{path}").content  # noqa: E731
    log_key = parse_verifier_key(client.get("/log/key").content.decode().strip())
    started = time.perf_counter()
    checkpoint, _ = open_checkpoint(fetch("checkpoint").decode(), [log_key])
    hashes = verify.TreeHashes()
    facts = verify.facts_of(verify.log_entries(fetch, checkpoint.size, hashes, {checkpoint.size // 256}, verify.no_progress))
    verify.tree_checked(fetch, checkpoint, hashes)
    took = time.perf_counter() - started
    assert facts.count == count
    bodies = [bytes(b) for b in LogEntry.objects.order_by("index").values_list("body", flat=True)]
    started = time.perf_counter()
    for body in bodies:
        hashlib.sha256(b"\x00" + body).digest()
    bare = time.perf_counter() - started
    return [count, count / took, count / bare, 1_000_000 / (count / took) / 60]


def synthetic_log(size: int) -> None:
    """A log of `size` entries' stored hashes (synthetic leaves), copied in, and its checkpoint."""
    from django.db import connection

    from leaguelog import merkle, services
    from leaguelog.models import LogCheckpoint, LogHead

    stored: dict[tuple[int, int], bytes] = {}
    for index in range(size):
        leaf = merkle.leaf_hash(index.to_bytes(8, "big"))
        for h in merkle.stored_hashes_for_leaf(index, leaf, lambda level, i: stored[(level, i)]):
            stored[(h.level, h.index)] = h.hash
    with connection.cursor() as cursor:
        # The bench's own database, as the tables' owner: the integration part's log goes first.
        tables = ("leaguelog_loghash", "leaguelog_logcosignature", "leaguelog_logcheckpoint")
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        cursor.execute(f"TRUNCATE {', '.join(tables)}")
        for table in tables:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
        with cursor.copy("COPY leaguelog_loghash (level, index, hash) FROM STDIN") as copy:
            for (level, index), value in stored.items():
                copy.write_row((level, index, value))
    root = merkle.tree_hash(size, lambda level, i: stored[(level, i)])
    LogHead.objects.filter(pk=1).update(size=size)
    LogCheckpoint.objects.create(size=size, root_hash=root, note=services.checkpoint_note(size, root))
    settle()


def measure_proofs(size: int) -> list[list[object]]:
    from django.test import Client

    rng = random.Random(size)
    client = Client()
    latencies = []
    for _ in range(PROOFS):
        started = time.perf_counter()
        assert client.get("/healthz").status_code == 200
        latencies.append(time.perf_counter() - started)
    rows: list[list[object]] = [
        ["baseline: GET /healthz", size, "-", "-", "-", median(latencies) * 1e3, percentile(latencies, 0.99) * 1e3]
    ]
    cases = {
        "inclusion": ("/api/log/proofs/inclusion", lambda: {"index": rng.randrange(size), "size": size}),
        "consistency": ("/api/log/proofs/consistency", lambda: {"old": rng.randrange(1, size), "new": size}),
    }
    for kind, (path, query) in cases.items():
        hashes, sizes, latencies = [], [], []
        for _ in range(PROOFS):
            started = time.perf_counter()
            answer = client.get(path, query())
            latencies.append(time.perf_counter() - started)
            assert answer.status_code == 200, answer.content
            proof = answer.json()["proof"]
            hashes.append(len(proof))
            sizes.append(len(answer.content))
            assert all(len(base64.b64decode(h)) == 32 for h in proof)
        rows.append([kind, size, max(hashes), math.ceil(math.log2(size)) * (2 if kind == "consistency" else 1),
                     median(sizes), median(latencies) * 1e3, percentile(latencies, 0.99) * 1e3])
    return rows


def measure(args: argparse.Namespace) -> dict:
    fresh_database(args.database_url)
    setup_django(args.database_url)
    integration = measure_integration(args.entries)
    print_table(
        f"Integrating {args.entries:,} queued rating ledger rows into the league log (log_integrate, "
        f"{2000:,} a transaction, with hashes and a signed checkpoint each); baseline: the same bodies bare-INSERTed "
        "in the same batches, a commit each",
        ["entries", "bytes/entry", "entries/s", "bare entries/s", "× bare"],
        [integration],
    )
    verifying = measure_verify(args.entries)
    print_table(
        f"verify_league reading the {args.entries:,} entries above on one core (bundles over the in-process HTTP "
        "stack, entries parsed and hashed, root and hash tiles checked against the signed checkpoint); baseline: "
        "a bare loop leaf-hashing the same bodies. Target: 1 M entries in ≤ 10 minutes",
        ["entries", "entries/s", "bare hashes/s", "minutes for 1 M (extrapolated)"],
        [verifying],
    )
    proofs = []
    for size in args.sizes:
        synthetic_log(size)
        proofs += measure_proofs(size)
    print_table(
        f"Proofs over HTTP (in-process stack, {PROOFS} random proofs a row): hashes per proof beside the bound "
        "(⌈log2 n⌉ for inclusion, 2⌈log2 n⌉ for consistency), the JSON's bytes, time",
        ["proof", "entries", "max hashes", "bound", "median bytes", "median ms", "p99 ms"],
        proofs,
    )
    return {"integration": integration, "verify": verifying, "proofs": proofs}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=DEFAULT_URL, help="postgres://… (dropped and created)")
    parser.add_argument("--entries", type=int, default=20_000, help="facts to integrate")
    parser.add_argument("--sizes", default="10000,100000,1000000", help="log sizes for the proofs")
    parser.add_argument("--results", help=argparse.SUPPRESS)  # set on the child process: where to write
    args = parser.parse_args(argv)
    args.sizes = [int(size) for size in args.sizes.split(",")]
    if args.results is None:
        return in_child_process("bench.log", sys.argv[1:] if argv is None else argv)
    results = measure(args)
    Path(args.results).write_text(json.dumps(results))
    return results



if __name__ == "__main__":
    main()
