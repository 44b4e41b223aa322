"""Bot moves and the tables' clocks (issue #44 item 3): a search's move time, and a clock beside searching bots.

1. Each search level's move time on one core (this process pins itself to core 0, as
   `taskset -c 0` would), on positions of heuristic games of every game at 2 and 4 players, with
   the server's cap (`--budget-ms`, BOT_MOVE_BUDGET_MS's default, by the wall clock): p50 and p99
   of the wall time and of the processor time, and the share of moves over 300 ms (the issue's
   p99 target). Baseline: the game's heuristic bot on the same positions.
2. A clock beside searching bots, with real workers on PostgreSQL and Redis: `--bot-tables`
   tables of search-hard bots play on (each always has a bot move queued or under way), and
   people's tables with a one-second clock start one after another; each clock's lateness is the
   time from its deadline to the clock's move in the database. Three rows in the same run: the
   workers of `manage.py serve` (one for the bots' queue alone) with the bots searching; the same
   workers idle (the baseline); and one worker of two processes taking every queue, as before the
   bots had a queue of their own, with the bots searching.
Run: `python -m bench.bot_latency [--positions 40] [--clocks 12] [--bot-tables 12] [--database-url URL]
[--redis-url URL]` (`--no-workers`: part 1 alone). Part 2 runs in a child interpreter, so Django
is set up on the bench's own database only.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import in_child_process, percentile, print_table  # noqa: E402
from games.bots import BOTS, STRONG_BOT  # noqa: E402
from games.bots.search import LEVELS, SearchBot  # noqa: E402
from games.engines import ENGINES  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_bot_latency"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/3"
TARGET_MS = 300


def positions(game: str, players: int, count: int, seed: int) -> list[tuple[dict, list[dict], int]]:
    """`count` decisions (view, legal moves, seed) met in heuristic games, spread over each game."""
    engine = ENGINES[game]
    strong = BOTS[game][STRONG_BOT[game]]
    found: list[tuple[dict, list[dict], int]] = []
    game_seed = seed
    while len(found) < count:
        rng = random.Random(game_seed)
        state = engine.replay(engine.start(players, game_seed))
        seen = []
        while engine.outcome(state) is None:
            seat = rng.choice(engine.to_act(state))
            view, legal = engine.view(state, seat), engine.legal_moves(state, seat)
            if len(legal) > 1:
                seen.append((view, legal, rng.getrandbits(32)))
            for event in engine.decide(state, seat, strong.choose(view, legal, rng)):
                state = engine.evolve(state, event)
        found += random.Random(game_seed).sample(seen, min(len(seen), max(1, count // 3)))
        game_seed += 1
    return found[:count]


def move_times(count: int, budget_ms: int) -> list[list]:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {0})  # one core, as `taskset -c 0`
    decisions = [(game, p) for game in sorted(ENGINES) for p in (2, 4)
                 if ENGINES[game].min_players <= p <= ENGINES[game].max_players]
    by_bot: dict[str, tuple[list[float], list[float]]] = {}
    for game, players in decisions:
        for view, legal, seed in positions(game, players, count, seed=players * 1000):
            for name in [STRONG_BOT[game], *(level.name for level in LEVELS)]:
                bot = BOTS[game][name]
                key = "heuristic (baseline)" if name == STRONG_BOT[game] else name
                wall, cpu = by_bot.setdefault(key, ([], []))
                started_wall, started_cpu = time.perf_counter(), time.process_time()
                if isinstance(bot, SearchBot):
                    bot.choose(view, legal, random.Random(seed), cap_seconds=budget_ms / 1000)
                else:
                    bot.choose(view, legal, random.Random(seed))
                wall.append(time.perf_counter() - started_wall)
                cpu.append(time.process_time() - started_cpu)
    rows = []
    for name, (wall, cpu) in by_bot.items():
        over = sum(w * 1000 > TARGET_MS for w in wall)
        rows.append([name, len(wall), f"{1000 * percentile(wall, 0.5):.0f}", f"{1000 * percentile(wall, 0.99):.0f}",
                     f"{1000 * max(wall):.0f}", f"{1000 * percentile(cpu, 0.5):.0f}", f"{1000 * percentile(cpu, 0.99):.0f}",
                     f"{over / len(wall):.1%}",
                     "-" if name.startswith("heuristic") else
                     ("met" if 1000 * percentile(wall, 0.99) < TARGET_MS else "NOT met")])
    print_table(
        f"A bot's move on one core (core 0, as taskset -c 0), cap {budget_ms} ms by the wall clock; positions of "
        f"heuristic games of every game at 2 and 4 players ({count} each); target: p99 under {TARGET_MS} ms",
        ["bot", "moves", "wall p50 ms", "wall p99 ms", "wall max ms", "cpu p50 ms", "cpu p99 ms",
         f"over {TARGET_MS} ms", "target"],
        rows,
    )
    return rows


# --- part 2: a clock beside searching bots (in a child interpreter) -------------------------------


def _setup_django(database_url: str, redis_url: str) -> None:
    import psycopg  # noqa: PLC0415

    name = database_url.rsplit("/", 1)[1]
    with psycopg.connect(database_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as admin:
        # A fresh database each run: an earlier run's tables (ended by their status alone) stay behind.
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0", SECRET_KEY="bench",
                      ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING", BOT_MOVE_DELAY="0",
                      BOT_MOVES_PER_MINUTE_PER_USER="1000000", DJANGO_SETTINGS_MODULE="server.settings")
    import django  # noqa: PLC0415

    django.setup()
    from django.core.management import call_command  # noqa: PLC0415

    call_command("migrate", verbosity=0)


def _workers(layout: str, folder: Path) -> list[subprocess.Popen]:
    from django.conf import settings  # noqa: PLC0415

    from games.management.commands.serve import worker_commands  # noqa: PLC0415
    from server.celery import app  # noqa: PLC0415

    env = {**os.environ, "DEMO": "0", "BOT_WORKER_CONCURRENCY": "2"}
    # Without beat: the bench ends its tables by their status alone, which the league log's
    # integration (a beat task) would find short of an outcome.
    if layout == "serve":
        commands = [command[: command.index("-B")] if "-B" in command else command
                    for command in worker_commands(schedule=folder / "beat-schedule")]
    else:  # before: one worker of two processes takes every queue
        commands = [[sys.executable, "-m", "celery", "-A", "server", "--quiet", "worker", "--pool=prefork",
                     "--concurrency=2", "-Q", f"{app.conf.task_default_queue},{settings.BOTS_QUEUE}",
                     "--loglevel=warning", "--without-gossip", "--without-mingle", "--without-heartbeat"]]
    processes = [subprocess.Popen(command, cwd=ROOT, env=env, stdout=sys.stderr) for command in commands]
    deadline = time.monotonic() + 120
    while len(app.control.ping(timeout=0.5)) < len(commands):
        if time.monotonic() > deadline or any(p.poll() is not None for p in processes):
            raise RuntimeError("the workers did not come up")
    return processes


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        process.terminate()
    for process in processes:
        process.wait(timeout=60)


def _clock_lateness(clocks: int, bot_tables: int, user, other) -> tuple[list[float], int]:
    """Starts `bot_tables` search-hard tables, then one people's table after another with a
    one-second clock: each clock's lateness (its move's time less its deadline), and the bot moves
    played meanwhile."""
    from games.models import Event, Match  # noqa: PLC0415
    from games.services import match_start_seated  # noqa: PLC0415

    bots = [match_start_seated(game="ten", seats=["search-hard"] * 4, created_by=user, rated=False)
            for _ in range(bot_tables)]
    started = time.time()
    late = []
    for _ in range(clocks):
        table = match_start_seated(game="ten", seats=[user, other], created_by=user, rated=False, clock_seconds=1)
        deadline = time.monotonic() + 120
        while not (played := Event.objects.filter(match_id=table.pk, actor="clock").order_by("seq").first()):
            assert time.monotonic() < deadline, f"no clock ran out: {_queues()}"
            time.sleep(0.05)
        assert table.deadline is not None
        late.append((played.created - table.deadline).total_seconds())
        # No clock from its next decision on (the one already queued plays once more, then nothing).
        Match.objects.filter(pk=table.pk).update(clock_seconds=None)
    moved = Event.objects.filter(match_id__in=[m.pk for m in bots], type="MovePlayed",
                                 created__gte=_aware(started)).count()
    # The bot tables stop where they are: their queued moves are purged and no beat sweeps for them.
    return late, moved


def _queues() -> dict:
    """What waits in the broker, for a run that went wrong."""
    from server.redis_clients import redis_client  # noqa: PLC0415

    client = redis_client()
    return {key.decode(): client.type(key).decode() for key in client.keys("*")} | {
        "celery": client.llen("celery"), "bots": client.llen("bots"), "unacked": client.hlen("unacked")}


def _aware(seconds: float):
    from datetime import UTC, datetime  # noqa: PLC0415

    return datetime.fromtimestamp(seconds, UTC)


def clock_child(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--redis-url", required=True)
    parser.add_argument("--clocks", type=int, required=True)
    parser.add_argument("--bot-tables", type=int, required=True)
    parser.add_argument("--results", required=True)
    args = parser.parse_args(argv)
    _setup_django(args.database_url, args.redis_url)
    from django.contrib.auth import get_user_model  # noqa: PLC0415

    from server.celery import app  # noqa: PLC0415

    app.control.purge()
    user, _ = get_user_model().objects.get_or_create(username="bench-clocks")
    other, _ = get_user_model().objects.get_or_create(username="bench-clocks-2")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for layout, bot_tables, label in (
            ("serve", 0, "serve's two workers, no bots searching (baseline)"),
            ("serve", args.bot_tables, f"serve's two workers, {args.bot_tables} tables of search-hard bots"),
            ("one", args.bot_tables, f"one worker ×2 for every queue (before), {args.bot_tables} tables of search-hard bots"),
        ):
            workers = _workers(layout, Path(folder))
            try:
                late, moved = _clock_lateness(args.clocks, bot_tables, user, other)
            finally:
                _stop(workers)
                app.control.purge()
            rows.append([label, len(late), f"{1000 * percentile(late, 0.5):.0f}", f"{1000 * percentile(late, 0.99):.0f}",
                         f"{1000 * max(late):.0f}", moved])
    print_table(
        "A person's clock beside searching bots: its move's time less its deadline (ms), with real workers on "
        "PostgreSQL and Redis; bot moves = the search bots' moves played meanwhile",
        ["workers", "clocks", "late p50 ms", "late p99 ms", "late max ms", "bot moves"],
        rows,
    )
    Path(args.results).write_text(json.dumps(rows))


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--positions", type=int, default=40, help="positions per game and player count")
    parser.add_argument("--budget-ms", type=int, default=200)
    parser.add_argument("--clocks", type=int, default=12)
    parser.add_argument("--bot-tables", type=int, default=12)
    parser.add_argument("--no-workers", action="store_true", help="part 1 alone")
    parser.add_argument("--no-moves", action="store_true", help="part 2 alone")
    parser.add_argument("--database-url", default=os.environ.get("BENCH_BOT_LATENCY_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    args = parser.parse_args(argv)
    result: dict = {} if args.no_moves else {"moves": move_times(args.positions, args.budget_ms)}
    if not args.no_workers:
        if hasattr(os, "sched_setaffinity"):  # the workers of part 2 (children inherit it) on every core
            os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
        result["clocks"] = in_child_process("bench.bot_latency", [
            "--child", "--database-url", args.database_url, "--redis-url", args.redis_url,
            "--clocks", str(args.clocks), "--bot-tables", str(args.bot_tables),
        ])
    return result


if __name__ == "__main__":
    if "--child" in sys.argv:
        clock_child([a for a in sys.argv[1:] if a != "--child"])
    else:
        main()
