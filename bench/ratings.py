"""Ratings: rebuilding from the event log against a bare `trueskill.rate` loop, the task, the leaderboard.

Everything runs in the same run on the same database (PostgreSQL by default, a fresh database
each run because the ledger and the event log are append-only):
- input: N finished matches written directly (match row, seats, a MovePlayed fact of each seat's
  own, since a match where a person never moved is not rated, and the MatchFinished fact), outcomes
  drawn from hidden skills so ratings have something to find; then VACUUM ANALYZE, as
  autovacuum would have left a live database (else the first reader alone pays for setting the
  fresh rows' hint bits, and plans its joins without statistics);
- baseline: a bare loop of `env.rate` over the same matches, ratings kept in a dict;
- `rebuild_ratings`: from an empty ledger (appends every ledger row; the database is put back
  as it was before each try), then with the ledger present (checks the ledger and rewrites
  current ratings only); matches/s, and beside each the bare loop and the ratio to it. Every
  figure is the best of `--repeats` tries, interleaved with the bare loop: the machine is shared;
- the incremental task (`match_rate`) on the rebuilt ladder: latency per finished match, as the
  schema is and with the index on games_match it would like (bench database only);
- leaderboard reads with 100,000 rated players: first page, a deep page, one player's place.

Run: `python -m bench.ratings [--two N] [--five N] [--players N] [--board-players N] [--repeats N]
[--database-url URL]`
(the measuring runs in a child interpreter, so Django is set up on this bench's own database only).
"""
from __future__ import annotations

import argparse
import gc
import io
import json
import os
import random
import shutil
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import in_child_process, median, percentile, print_table  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_ratings"


def fresh_database(url: str) -> None:
    """Drops and creates the bench database (PostgreSQL) or removes the file (SQLite)."""
    if url.startswith("sqlite"):
        path = Path(url.split("///", 1)[1])
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        return
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def settle() -> None:
    """What autovacuum does to freshly written tables: hint bits set, statistics taken."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE" if connection.vendor == "postgresql" else "ANALYZE")


class Snapshot:
    """A copy of the bench database as it was when taken, to put back before each try of a
    rebuild from an empty ledger. PostgreSQL: a template database; SQLite: a copy of the file."""

    def __init__(self, url: str) -> None:
        self.url = url
        if url.startswith("sqlite"):
            self.path = Path(url.split("///", 1)[1])
            self.copy = self.path.with_name(self.path.name + ".snapshot")
            self._disconnect()
            shutil.copyfile(self.path, self.copy)
        else:
            self.server, self.name = url.rsplit("/", 1)
            self.copy_name = f"{self.name}_snapshot"
            self._disconnect()
            self._admin(f'DROP DATABASE IF EXISTS "{self.copy_name}"',
                        f'CREATE DATABASE "{self.copy_name}" TEMPLATE "{self.name}"')

    def put_back(self) -> None:
        self._disconnect()
        if self.url.startswith("sqlite"):
            shutil.copyfile(self.copy, self.path)
        else:
            self._admin(f'DROP DATABASE "{self.name}" WITH (FORCE)',
                        f'CREATE DATABASE "{self.name}" TEMPLATE "{self.copy_name}"')

    def discard(self) -> None:
        if self.url.startswith("sqlite"):
            self.copy.unlink()
        else:
            self._admin(f'DROP DATABASE "{self.copy_name}"')

    @staticmethod
    def _disconnect() -> None:
        from django.db import connection

        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()

    def _admin(self, *statements: str) -> None:
        import psycopg

        with psycopg.connect(f"{self.server}/postgres", autocommit=True) as admin:
            for statement in statements:
                admin.execute(statement)


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL" if not url.startswith("sqlite") else "SQLITE_PATH"] = (
        url if not url.startswith("sqlite") else url.split("///", 1)[1]
    )
    if url.startswith("sqlite"):
        os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ.update(DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="testserver", LOG_LEVEL="WARNING")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_users(count: int, prefix: str) -> list[int]:
    from accounts.models import User
    from accounts.names import name_key

    # bulk_create skips `User.save()`, which keeps the name keys the unique constraint is on.
    names = [(f"{prefix}{i}", f"{prefix.title()} {i}") for i in range(count)]
    User.objects.bulk_create(
        [
            User(username=username, password="!", display_name=shown, username_key=name_key(username),
                 display_key=name_key(shown))
            for username, shown in names
        ],
        batch_size=5000,
    )
    return list(User.objects.filter(username__startswith=prefix).order_by("pk").values_list("pk", flat=True))


def generate_matches(
    game: str, seats: int, count: int, players: list[int], seed: int, *, after: int = 0
) -> list[tuple[list[int], list[int]]]:
    """Writes `count` finished matches of `game`; returns (user ids per seat, ranks) per match, in end order.

    Each player has a hidden skill; a seat's result is skill plus noise, rounded so some tie.
    """
    from django.db import transaction
    from django.utils import timezone

    from games.chain import canonical_time, event_hash, seed_sha256
    from games.models import Event, Match, Seat

    rng = random.Random(seed)
    skill = {p: rng.gauss(0, 1) for p in players}
    start = timezone.now() - timedelta(days=365)
    played = []
    batch = 2000
    for first in range(0, count, batch):
        rows, tables = [], []
        for index in range(after + first, after + min(count, first + batch)):
            table = rng.sample(players, seats)
            scores = [round(skill[p] + rng.gauss(0, 1.5), 1) for p in table]
            ranks = [1 + sum(1 for other in scores if other > mine) for mine in scores]
            outcome = {"finished": True, "ranks": ranks, "scores": scores, "winners": [], "cooperative": False}
            finished_at = start + timedelta(milliseconds=index)
            rows.append(
                Match(game=game, players=seats, rated=True, created_by_id=table[0], status=Match.Status.FINISHED,
                      started_at=finished_at, finished_at=finished_at, seed=index, seed_sha256=seed_sha256(index),
                      outcome=outcome, last_seq=seats + 1)
            )
            tables.append((table, ranks, outcome))
        with transaction.atomic():
            matches = Match.objects.bulk_create(rows)
            Seat.objects.bulk_create(
                [Seat(match=m, seat=s, user_id=u) for m, (table, _, _) in zip(matches, tables) for s, u in enumerate(table)]
            )
            events = []
            for match, (table, _, outcome) in zip(matches, tables):
                facts = [
                    ({"type": "MovePlayed", "seat": s, "move": {"action": "pass"}}, f"user:{u}") for s, u in enumerate(table)
                ]
                facts.append(({"type": "MatchFinished", "outcome": outcome, "seed": match.seed}, "server"))
                previous = ""
                for seq, (data, actor) in enumerate(facts, start=1):
                    previous = event_hash(previous, version=match.chain_version, seq=seq, kind="table", type=data["type"],
                                          actor=actor, data=data, created=canonical_time(match.finished_at))
                    events.append(Event(match=match, seq=seq, kind=Event.Kind.TABLE, type=data["type"], data=data,
                                        actor=actor, created=match.finished_at, hash=previous))
            Event.objects.bulk_create(events, batch_size=5000)
        played.extend((table, ranks) for table, ranks, _ in tables)
    return played


def bare_loop(game: str, played: list[tuple[list[int], list[int]]]) -> None:
    """trueskill.rate over the same matches with the same environment, ratings kept in a dict."""
    from ratings import math as rmath
    from ratings.selectors import game_params

    env = rmath.environment(game_params(game))
    ratings: dict = {}
    fresh = env.create_rating()
    for table, ranks in played:
        rated = env.rate([(ratings.get(p, fresh),) for p in table], ranks=ranks)
        for p, (rating,) in zip(table, rated):
            ratings[p] = rating


def rebuild(game: str) -> str:
    from django.core.management import call_command

    out = io.StringIO()
    call_command("rebuild_ratings", "--game", game, stdout=out, verbosity=0)
    return out.getvalue().strip()


def timed(run) -> tuple[float, float, object]:
    """Wall seconds, this process's CPU seconds, and the result of `run()`, from a settled collector.

    The collector is emptied and everything alive frozen first: the bench's own copy of the
    matches is not the loop's work, and the rebuild unfreezes everything when it ends.
    """
    gc.collect()
    gc.freeze()
    wall, cpu = time.perf_counter(), time.process_time()
    result = run()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def measure_rebuild(
    game: str, seats: int, count: int, players: list[int], *, url: str, repeats: int
) -> list[list[object]]:
    played = generate_matches(game, seats, count, players, seed=seats)
    settle()
    before_rebuilds = Snapshot(url)
    bare = empty = again = (float("inf"), float("inf"))
    # Interleaved with the bare loop, best of `repeats` each: the machine is shared.
    for attempt in range(repeats):
        if attempt:
            before_rebuilds.put_back()
        bare = min(bare, timed(lambda: bare_loop(game, played))[:2])
        wall, cpu, empty_out = timed(lambda: rebuild(game))
        empty = min(empty, (wall, cpu))
    before_rebuilds.discard()  # the ledger present below is the one the last try wrote
    for _ in range(repeats):
        bare = min(bare, timed(lambda: bare_loop(game, played))[:2])
        wall, cpu, again_out = timed(lambda: rebuild(game))
        again = min(again, (wall, cpu))
    gc.unfreeze()
    print(f"  {empty_out}\n  {again_out}")
    label = f"{game}, {seats} players"
    return [
        [label, "bare trueskill.rate loop", count, count / bare[0], bare[0], bare[0], 1.0, bare[1], bare[1], 1.0],
        [label, "rebuild_ratings, empty ledger", count, count / empty[0], empty[0], bare[0], empty[0] / bare[0],
         empty[1], bare[1], empty[1] / bare[1]],
        [label, "rebuild_ratings, ledger present", count, count / again[0], again[0], bare[0], again[0] / bare[0],
         again[1], bare[1], again[1] / bare[1]],
    ]


def measure_task(game: str, seats: int, players: list[int], count: int) -> list[object]:
    """Latency of the incremental task for matches that end one after the other on a big ladder."""
    from games.models import Match
    from ratings.services import match_rate

    generate_matches(game, seats, count, players, seed=99, after=Match.objects.filter(game=game).count())
    ids = list(Match.objects.filter(game=game).order_by("-finished_at").values_list("pk", flat=True)[:count])[::-1]
    latencies = []
    for match_id in ids:
        start = time.perf_counter()
        match_rate(match_id=match_id)
        latencies.append(time.perf_counter() - start)
    return [f"{game}, {seats} players", count, median(latencies) * 1e3, percentile(latencies, 0.99) * 1e3]


def measure_leaderboard(count: int, requests: int) -> list[list[object]]:
    """Leaderboard reads through the whole HTTP stack (in process) with `count` rated players."""
    from rest_framework.test import APIClient

    from ratings.models import Kind, Ladder, Pool, Rating

    users = make_users(count, "board")
    ladder = Ladder.objects.create(game="the-game", pool=Pool.PEOPLE, position=count)
    rng = random.Random(5)
    Rating.objects.bulk_create(
        [
            Rating(ladder=ladder, competitor=f"user:{u}", kind=Kind.USER, user_id=u, mu=rng.gauss(25, 5),
                   sigma=rng.uniform(1, 8.3), games=rng.randint(1, 60), wins=0, last_position=1)
            for u in users
        ],
        batch_size=5000,
    )
    from django.db import connection

    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE ratings_rating")
    client = APIClient()
    bottom = Rating.objects.filter(ladder=ladder, games__gte=5).order_by("conservative").select_related("user").first()
    cases = [
        ("first page (50 rows)", {"min_games": 5}),
        ("deep page (offset 50,000)", {"min_games": 5, "offset": 50_000}),
        ("first page + a player's place (near the bottom)", {"min_games": 5, "player": bottom.user.username}),
    ]
    rows = []
    for label, params in cases:
        latencies = []
        for _ in range(requests):
            start = time.perf_counter()
            answer = client.get("/api/ratings/the-game/leaderboard", params)
            latencies.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.content
        rows.append([label, count, median(latencies) * 1e3, percentile(latencies, 0.95) * 1e3])
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_RATINGS_DATABASE_URL", DEFAULT_URL),
                        help="postgres://… (dropped and created) or sqlite:////path (removed first)")
    parser.add_argument("--two", type=int, default=100_000, help="two-player matches to rebuild")
    parser.add_argument("--five", type=int, default=20_000, help="five-player matches to rebuild")
    parser.add_argument("--players", type=int, default=10_000, help="players those matches are drawn from")
    parser.add_argument("--board-players", type=int, default=100_000, help="rated players on the leaderboard")
    parser.add_argument("--repeats", type=int, default=2, help="tries of each rebuild and of the bare loop")
    parser.add_argument("--requests", type=int, default=50, help="requests per leaderboard case")
    parser.add_argument("--task-matches", type=int, default=200, help="matches rated by the incremental task")
    parser.add_argument("--results", help=argparse.SUPPRESS)  # set on the child process: where to write
    args = parser.parse_args(argv)
    if args.results is None:
        return in_child_process("bench.ratings", sys.argv[1:] if argv is None else argv)
    results = measure(args)
    Path(args.results).write_text(json.dumps(results))
    return results



def measure(args: argparse.Namespace) -> dict:
    fresh_database(args.database_url)
    setup_django(args.database_url)
    from django.db import connection

    print(f"ratings bench on {connection.vendor} ({args.database_url})")
    players = make_users(args.players, "p")
    rebuild_rows = []
    rebuild_rows += measure_rebuild("ten", 2, args.two, players, url=args.database_url, repeats=args.repeats)
    rebuild_rows += measure_rebuild("split", 5, args.five, players, url=args.database_url, repeats=args.repeats)
    print_table(
        f"Rebuild from the event log vs a bare trueskill.rate loop (same matches, same run, best of {args.repeats}; "
        "CPU: this process only, the database server's work is not in it)",
        ["ladder", "what", "matches", "matches/s", "wall s", "bare wall s", "wall × bare", "CPU s", "bare CPU s",
         "CPU × bare"],
        rebuild_rows,
    )
    task_rows = [
        ["as is", *measure_task("ten", 2, players, args.task_matches)],
        ["as is", *measure_task("split", 5, players, args.task_matches)],
    ]
    # The task looks for unrated matches by match end; games_match has no index on finished_at.
    with connection.cursor() as cursor:
        cursor.execute("CREATE INDEX bench_match_end ON games_match (game, status, finished_at)")
    task_rows += [
        ["+ index games_match(game, status, finished_at)", *measure_task("ten", 2, players, args.task_matches)],
        ["+ index games_match(game, status, finished_at)", *measure_task("split", 5, players, args.task_matches)],
    ]
    print_table(
        "Incremental task (match_rate) per finished match, on the rebuilt ladders",
        ["schema", "ladder", "matches", "median ms", "p99 ms"],
        task_rows,
    )
    board_rows = measure_leaderboard(args.board_players, args.requests)
    print_table(
        "Leaderboard GET /api/ratings/{game}/leaderboard (in-process HTTP stack)",
        ["request", "rated players", "median ms", "p95 ms"],
        board_rows,
    )
    return {"rebuild": rebuild_rows, "task": task_rows, "leaderboard": board_rows}


if __name__ == "__main__":
    main()
