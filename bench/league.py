"""League nights (issue 19): a Swiss of 10,000 on one machine, on PostgreSQL and Redis with real workers.

Everything runs in the same run on a fresh database (dropped and created) and the bench's Redis,
each figure beside a baseline measured in the same run and the target it is held to:
- registration of N entrants (`--sizes`): bots through `entrant_bot_add`, people through
  `entrant_register` (users made in bulk beforehand, not timed), people over HTTP
  (`POST /api/tournaments/<id>/register` from `--http-connections` keep-alive connections, each
  request with its own user's API token, made in bulk beforehand); entrants/s and the cost per
  entrant at the largest size over the smallest. Baselines: a bare one-row INSERT + COMMIT
  through psycopg; `GET /healthz` (no database) on the same server from as many connections;
- starting round 1 of the bots' Swiss (N/2 two-player tables of `SCALE_GAME`): `tournament_start`
  until every table has a running match (a service that starts tables in batches may return first: the
  figure waits for the last), and the longest single hold of the tournament's lock. Baseline:
  `games.services.match_start_seated`, the table alone without a tournament;
- recording results: each table's match is brought to its end, then `tournament_match_finished`
  alone is timed (p50/p99 over the round's tables but its last). Baseline: the bare INSERT;
- round turnover: from the round's last `tournament_match_finished` to every table of round 2
  running. Baseline: that many bare `match_start_seated`;
- standings at each size after round 1, over HTTP: the first page, and one entrant's own row
  (`GET /api/tournaments/<id>/standings/<entrant>`, "not available" where the server has no such
  route). Baseline: `GET /healthz` on the same connection;
- a whole league night: `--night-entrants` bots, `--night-rounds` Swiss rounds (rated, as a
  league's are, unless `--no-night-rated`) played out by a real `celery worker` (prefork,
  BOT_MOVE_DELAY=0) and `celery beat` as in production: wall time of each round and the turnover
  between rounds, from the database's own timestamps. Baseline: as many bare bot tables (no
  tournament) played by the same worker. It runs first: the scale part leaves tables running,
  which beat's sweep would hand to a worker;
- the incremental rating task per match beside a bare `trueskill.rate` loop on the same matches
  (`bench.league_rating`), on `--rating-matches` rated bot matches of Ten stored for it.

How the tables of the scale figures get finished (setup, not timed). They are tables of the
scale game (`SCALE_GAME`, four moves); the worker would play them, but then it would also
record them, and nothing of the recording could be timed on its own. So here bots' move tasks go to a queue no worker reads
(`PARKED_QUEUE`, emptied as the bench goes) and processes of this bench play every table of the
round up to the one move that would end it, choosing each move as `games.turns` does; then, table
after table, that last move is played (`turns.match_play_out`) and the tournament is told
(`tournament_match_finished`, timed). At any moment one table alone has ended unrecorded, so a
call records one result whatever the service does with the other tables. The match-finished tasks
the last moves send are parked too: this process plays the task's part, to time it. The worker
runs everything else (tasks the tournament sends, e.g. a round started in batches); bots' moves
are parked in it as well, so no table ends behind the bench's back. The night is not parked.

The lock: every connection of this process and of the scale part's worker times each hold of a
tournament's lock (a statement that locks a `tournaments_tournament` row, or takes an advisory
transaction lock) until the commit that releases it.

Run: `python -m bench.league [--sizes 100,1000,10000] [--night-entrants 1000] [--night-rounds 5]
[--http-connections 50] [--worker-pool prefork] [--worker-concurrency 4] [--play-processes 2]
[--database-url URL] [--redis-url URL]`.
At the full sizes this takes hours on the code of issue 19's start (registration is O(n) per
entrant there): develop at `--sizes 100,1000 --night-entrants 64 --night-rounds 2`.
(The measuring runs in a child interpreter, so Django is set up on this bench's own database only.)
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import in_child_process, median, percentile, print_table  # noqa: E402
from bench._http import Connection  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/cardleague_bench_league"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/2"
GAME, BOT = "ten", "run_builder"  # the night: the strong bot of Ten (games.bots.STRONG_BOT)
# The scale figures: tables of 2-player Sequence Stacks cut to four moves (as the tournament
# tests play them), so that 5,000 tables can be brought to their end as setup in minutes (a table
# of Ten is about 160 moves: hours for 5,000). What is timed is the tournament's work, whatever
# the game; the night plays Ten in full.
SCALE_GAME, SCALE_BOT, SCALE_OPTIONS = "sequence-stacks", "random", {"turn_limit": 2}
PARKED_QUEUE = "bench-league-parked"
BOT_MOVE_TASK = "games.tasks.bot_move_task"
POLL_SECONDS = 0.05

# Targets of issue 19 (the full run: sizes 100, 1,000 and 10,000).
TARGET_ENTRANTS_PER_S = 500
TARGET_COST_GROWTH = 1.5  # cost per entrant at 10,000 over the cost at 100
TARGET_START_S_PER_TABLE = 10 / 5000  # 5,000 tables in 10 s
TARGET_RECORD_P99_MS = 5.0  # at 10,000, flat across sizes
TARGET_TURNOVER_S = 15.0  # at 10,000
TARGET_STANDINGS_P99_MS = 50.0  # at 10,000
TARGET_SIZE = 10_000


# --- parked tasks and the lock's holds (this process, its play processes, the scale worker) ------

_parked: set[str] = set()


def route_parked(name, args, kwargs, options, task=None, **extra):
    """Celery router: the tasks named in `_parked` go to a queue no worker reads."""
    return {"queue": PARKED_QUEUE} if name in _parked else None


def parking_install(names: set[str]) -> None:
    from server.celery import app

    _parked.clear()
    _parked.update(names)
    if route_parked not in (app.conf.task_routes or ()):
        app.conf.task_routes = (route_parked,)
        app.amqp.flush_routes()
        app.amqp.__dict__.pop("router", None)  # built from the routes the first time a task was sent


def parked_discard(redis_url: str) -> None:
    """Empties the parked queue: the moves in it are stale the moment the bench plays the table."""
    import redis

    redis.Redis.from_url(redis_url).delete(PARKED_QUEUE)


_TOURNAMENT_LOCK = re.compile(
    r'^\s*(SELECT\b.*\bFROM "tournaments_tournament"\s.*\bFOR (NO KEY )?UPDATE\b'
    r'|UPDATE "tournaments_tournament"\s)'
    r"|pg_(try_)?advisory_xact_lock",
    re.DOTALL,
)


class LockHolds:
    """Times each hold of a tournament's lock on this process's connections: from the statement
    that takes it to the commit that releases it (a rolled-back hold is not counted)."""

    def __init__(self, sink) -> None:
        self.sink = sink  # called with (wall-clock start, seconds held)

    def install(self) -> None:
        from django.db import connection
        from django.db.backends.signals import connection_created

        connection_created.connect(self._on_connection, weak=False)
        self._on_connection(None, connection)

    def _on_connection(self, sender, connection, **kwargs) -> None:
        if self not in connection.execute_wrappers:
            connection.execute_wrappers.append(self)

    def __call__(self, execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        db = context["connection"]
        if db.in_atomic_block and _TOURNAMENT_LOCK.search(sql) and not _hold_timed(db):
            started, wall = time.perf_counter(), time.time()

            def released() -> None:
                self.sink(wall, time.perf_counter() - started)

            released.lock_hold = True
            db.on_commit(released)
        return result


def _hold_timed(db) -> bool:
    return any(getattr(callback, "lock_hold", False) for _, callback, _ in db.run_on_commit)


def parking_worker_main() -> None:
    """A `celery worker` of the project, with bots' moves parked and its lock holds written to
    BENCH_LOCK_LOG: `python -c "from bench.league import parking_worker_main; ..." <worker args>`."""
    from server.celery import app

    log_path = os.environ["BENCH_LOCK_LOG"]

    def write(wall: float, held: float) -> None:
        with open(log_path, "a") as log:
            log.write(f"{wall:.6f} {held:.6f}\n")

    LockHolds(write).install()
    app.conf.task_routes = (route_parked,)
    _parked.update(os.environ["BENCH_PARKED_TASKS"].split(","))
    app.worker_main(["worker", *sys.argv[1:]])


class Worker:
    """A celery worker process (and beat, for the night) on the bench's database and Redis."""

    def __init__(self, *, concurrency: int, parked: bool, beat: bool, pool: str = "prefork") -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="bench-league-"))
        self.lock_log = self.folder / "lock-holds"
        self.lock_log.touch()
        env = dict(os.environ, BOT_MOVE_DELAY="0", LOG_LEVEL="WARNING")
        # Both queues (the bots' moves have their own, settings.BOTS_QUEUE): one pool plays the night.
        options = [f"--concurrency={concurrency}", f"--pool={pool}", "-Q", "celery,bots", "--loglevel=warning",
                   "--without-gossip", "--without-mingle", "--without-heartbeat"]
        if parked:
            env.update(BENCH_LOCK_LOG=str(self.lock_log), BENCH_PARKED_TASKS=BOT_MOVE_TASK)
            entry = "from bench.league import parking_worker_main; parking_worker_main()"
            command = [sys.executable, "-c", entry]
        else:
            command = [sys.executable, "-m", "celery", "-A", "server", "worker"]
        # Their banners and logs go to stderr: this process's stdout is the report.
        self.processes = [subprocess.Popen([*command, *options], cwd=ROOT, env=env, stdout=sys.stderr)]
        if beat:
            self.processes.append(subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "server", "beat", "--loglevel=warning",
                 "--schedule", str(self.folder / "beat-schedule")], cwd=ROOT, env=env, stdout=sys.stderr))
        self._wait_until_ready()

    def _wait_until_ready(self, timeout: float = 90) -> None:
        from server.celery import app

        deadline = time.monotonic() + timeout
        while not app.control.ping(timeout=0.5):
            if self.processes[0].poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the celery worker did not come up")

    def lock_holds(self) -> list[tuple[float, float]]:
        return [tuple(map(float, line.split())) for line in self.lock_log.read_text().splitlines() if line]

    def stop(self) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


class Holds:
    """Every lock hold timed so far, by this process and by a worker's."""

    def __init__(self) -> None:
        self.here: list[tuple[float, float]] = []
        self.worker: Worker | None = None

    def longest_since(self, wall: float) -> float | None:
        holds = self.here + (self.worker.lock_holds() if self.worker else [])
        found = [held for started, held in holds if started >= wall]
        return max(found) if found else None


# --- setup ---------------------------------------------------------------------------------------


def setup_django(database_url: str, redis_url: str) -> None:
    os.environ.update(DATABASE_URL=database_url, REDIS_URL=redis_url, DEBUG="0", SECRET_KEY="bench",
                      ALLOWED_HOSTS="127.0.0.1", LOG_LEVEL="WARNING", BOT_MOVE_DELAY="0",
                      DJANGO_SETTINGS_MODULE="server.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    # Nobody logs in with a password here (HTTP clients send API tokens): a fast hasher.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    call_command("migrate", verbosity=0)


def queue_purged(redis_url: str) -> None:
    """Tasks left in the bench's Redis by an earlier run name rows of a database that is gone."""
    from server.celery import app

    app.control.purge()
    parked_discard(redis_url)


def people_made(count: int, stamp: str) -> list[tuple[object, str]]:
    """`count` users, each with an API token (key returned), written in bulk: setup, not timed."""
    from datetime import timedelta

    from django.conf import settings
    from django.contrib.auth.hashers import make_password
    from django.utils import timezone

    from accounts.models import ApiToken, User
    from accounts.names import name_key
    from accounts.tokens import key_hash, key_new

    unusable = make_password(None)
    users = []
    for i in range(count):
        username, shown = f"league{stamp}p{i}", f"League {stamp} player {i}"
        users.append(User(username=username, display_name=shown, password=unusable,
                          username_key=name_key(username), display_key=name_key(shown)))
    users = User.objects.bulk_create(users, batch_size=2000)
    keys = [key_new() for _ in users]
    expires = timezone.now() + timedelta(days=settings.API_TOKEN_DAYS)
    ApiToken.objects.bulk_create(
        [ApiToken(user=user, key_hash=key_hash(key), expires=expires) for user, key in zip(users, keys)],
        batch_size=2000,
    )
    return list(zip(users, keys))


def organiser_made(stamp: str):
    """The league's organiser, staff: only staff enter more than MAX_BOT_ENTRANTS_PER_TOURNAMENT
    bots (issue #39), and the bench's fields of bots run to 10,000."""
    organiser = people_made(1, f"{stamp}org")[0][0]
    organiser.is_staff = True
    organiser.save(update_fields=["is_staff"])
    return organiser


def swiss_created(organiser, name: str, *, rounds: int, rated: bool = False, deadline: bool = False,
                  night: bool = False):
    """A Swiss open for registration (the night's of Ten, else the scale figures' game); without
    `deadline`, its rounds have none (nothing is played out by the clock while the bench holds tables)."""
    from tournaments import services

    extra = {} if deadline else {"round_seconds": None}
    game, options = (GAME, {}) if night else (SCALE_GAME, SCALE_OPTIONS)
    return services.tournament_create(organiser=organiser, name=name, game=game, format="swiss",
                                      options={"rounds": rounds}, match_options=options, rated=rated, **extra)


# --- registration ----------------------------------------------------------------------------------


def register_bots(organiser, count: int) -> tuple[object, float]:
    from tournaments import services

    tournament = swiss_created(organiser, f"bots {count}", rounds=2)
    started = time.perf_counter()
    for _ in range(count):
        services.entrant_bot_add(tournament_id=tournament.pk, user=organiser, bot=SCALE_BOT)
    return tournament, time.perf_counter() - started


def register_people(organiser, people: list) -> float:
    from tournaments import services

    tournament = swiss_created(organiser, f"people {len(people)}", rounds=2)
    started = time.perf_counter()
    for user, _ in people:
        services.entrant_register(tournament_id=tournament.pk, user=user)
    return time.perf_counter() - started


class TokenConnection(Connection):
    """A keep-alive connection that sends each request as the user whose token it is given."""

    async def request_as(self, token: str, method: str, path: str, body: object | None = None):
        self.headers = f"Authorization: Token {token}\r\n"
        return await self.request(method, path, body)


def register_people_http(organiser, people: list, port: int, connections: int) -> tuple[float, int]:
    """Returns the wall time and the number of requests not answered 201."""
    tournament = swiss_created(organiser, f"people over HTTP {len(people)}", rounds=2)
    path = f"/api/tournaments/{tournament.pk}/register"
    todo = iter(people)
    refused = 0

    async def client() -> None:
        nonlocal refused
        async with TokenConnection("127.0.0.1", port) as conn:
            for _, token in todo:  # the connections share one iterator: each user registers once
                status, _ = await conn.request_as(token, "POST", path)
                refused += status != 201

    async def all_clients() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(connections)))
        return time.perf_counter() - started

    return asyncio.run(all_clients()), refused


def healthz(port: int, connections: int, requests: int) -> tuple[float, list[float]]:
    from bench.moves import http_baseline_client

    latencies: list[list[float]] = [[] for _ in range(connections)]

    async def all_clients() -> float:
        started = time.perf_counter()
        await asyncio.gather(*(http_baseline_client(port, requests, per) for per in latencies))
        return time.perf_counter() - started

    wall = asyncio.run(all_clients())
    return wall, [x for per in latencies for x in per]


# --- rounds: start, the tables' play, results, turnover -------------------------------------------


def tables_of(tournament_id: int, number: int) -> list[int]:
    from tournaments.models import RoundTable

    return list(RoundTable.objects.filter(round__tournament_id=tournament_id, round__number=number)
                .exclude(match=None).order_by("number").values_list("match_id", flat=True))


def all_tables_running(tournament_id: int, number: int, tables: int, *, timeout: float = 3600) -> float:
    """Waits until round `number` has `tables` tables each with a started match; returns when it saw that."""
    from games.models import Match
    from tournaments.models import RoundTable

    deadline = time.perf_counter() + timeout
    while True:
        started = RoundTable.objects.filter(
            round__tournament_id=tournament_id, round__number=number,
            match__status__in=[Match.Status.RUNNING, Match.Status.FINISHED],
        ).count()
        if started >= tables:
            return time.perf_counter()
        if time.perf_counter() > deadline:
            raise RuntimeError(f"round {number} of tournament {tournament_id}: {started} of {tables} "
                               "tables started")
        time.sleep(POLL_SECONDS)


def bare_tables_started(organiser, count: int, *, rated: bool = False, night: bool = False) -> tuple[list[int], float]:
    """`count` 2-bot tables started one by one outside any tournament (of the night's game, or
    the scale figures'); their ids and the wall time."""
    from games import services

    game, bot, options = (GAME, BOT, {}) if night else (SCALE_GAME, SCALE_BOT, SCALE_OPTIONS)
    started = time.perf_counter()
    ids = [services.match_start_seated(game=game, seats=[bot, bot], created_by=organiser, rated=rated,
                                       options=dict(options)).pk
           for _ in range(count)]
    return ids, time.perf_counter() - started


def _play_process_ready(parked: list[str]) -> None:
    import django

    django.setup()
    parking_install(set(parked))


def _table_held(match_id: int) -> bool:
    held = hold_before_last_move(match_id)
    # Each move parked a bot's task (about 1 KB): 160 a table, 800,000 for a round of 5,000.
    parked_discard(os.environ["REDIS_URL"])
    return held


def hold_before_last_move(match_id: int) -> bool:
    """Plays a bot table up to the move that would end it, not making that one: True when it is
    held there. Each move is the one `games.turns` would make (same bot, same seeded choice)."""
    from games import services
    from games.bots import BOTS
    from games.engines import ENGINES
    from games.models import Match, Seat
    from games.state import state_at_head

    bots = dict(Seat.objects.filter(match_id=match_id).values_list("seat", "bot"))
    while True:
        match = Match.objects.filter(pk=match_id, status=Match.Status.RUNNING).first()
        if match is None:
            return False
        engine = ENGINES[match.game]
        state = state_at_head(match.pk, match.game, match.last_seq)
        seat = engine.to_act(state)[0]
        rng = random.Random(f"{match.seed}:{seat}:{match.last_seq}")  # as games.turns._play_for seeds it
        legal = engine.legal_moves(state, seat)
        move = BOTS[match.game][bots[seat]].choose(engine.view(state, seat), legal, rng)
        after = state
        for event in engine.decide(state, seat, move):
            after = engine.evolve(after, event)
        if engine.outcome(after) is not None:
            return True
        services.move_play(match_id=match_id, seat=seat, move=move, actor=f"bot:{bots[seat]}",
                           expected_seq=match.last_seq)


def tables_held(match_ids: list[int], processes: int, redis_url: str) -> None:
    """Every table one move from its end, played by `processes` processes (setup, not timed)."""
    from django.db import connection

    connection.close()
    context = multiprocessing.get_context("spawn")  # fresh interpreters: no connection shared with this one
    with context.Pool(processes, initializer=_play_process_ready, initargs=(sorted(_parked),)) as pool:
        held = pool.map(_table_held, match_ids, chunksize=max(1, len(match_ids) // (processes * 8)))
    parked_discard(redis_url)
    if not all(held):
        raise RuntimeError(f"{held.count(False)} tables ended before the bench could hold them")


def results_recorded(match_ids: list[int]) -> tuple[list[float], list[int]]:
    """Each table's last move (untimed), then `tournament_match_finished` (timed), table after
    table; the round's last table is left to `turnover`. Returns the latencies and the events
    each call appended."""
    from tournaments import services

    latencies, appended = [], []
    for match_id in match_ids[:-1]:
        last_move_played(match_id)
        before = events_head(match_id)
        started = time.perf_counter()
        services.tournament_match_finished(match_id=match_id)
        latencies.append(time.perf_counter() - started)
        appended.append(events_head(match_id) - before)
    return latencies, appended


def last_move_played(match_id: int) -> None:
    """The move a held table was kept from (as a worker's bot would play it): the match ends."""
    from games import turns

    if not turns.match_play_out(match_id=match_id):
        raise RuntimeError(f"match {match_id} did not end")


def events_head(match_id: int) -> int:
    from django.db.models import Max

    from tournaments.models import RoundTable, TournamentEvent

    table = RoundTable.objects.filter(match_id=match_id)
    tournament_id = table.values_list("round__tournament_id", flat=True)[0]
    return TournamentEvent.objects.filter(tournament_id=tournament_id).aggregate(head=Max("seq"))["head"] or 0


def turnover(tournament_id: int, last_match: int, tables: int) -> tuple[float, float]:
    """The round's last result, then every table of round 2 running: (whole turnover, the call's part)."""
    from tournaments import services

    last_move_played(last_match)
    started = time.perf_counter()
    services.tournament_match_finished(match_id=last_match)
    returned = time.perf_counter()
    seen = all_tables_running(tournament_id, 2, tables)
    return seen - started, returned - started


# --- standings -------------------------------------------------------------------------------------


def standings_latencies(port: int, tournament_id: int, entrant_ids: list[int],
                        requests: int) -> tuple[dict[str, list[float]], int | str]:
    """Latencies of the first page, of random entrants' own rows (when the route answers 200: its
    answer to the first request is returned beside) and of /healthz, interleaved."""
    rng = random.Random(tournament_id)
    base = f"/api/tournaments/{tournament_id}/standings"

    async def measure() -> tuple[dict[str, list[float]], int | str]:
        found: dict[str, list[float]] = {"page": [], "own": [], "healthz": []}
        async with Connection("127.0.0.1", port) as conn:
            try:
                own_status: int | str = (await conn.request("GET", f"{base}/{entrant_ids[0]}"))[0]
            except ValueError:  # not JSON: whatever answered, it is not the standings
                own_status = "not JSON"
            for _ in range(requests):
                paths = [("page", base), ("own", f"{base}/{rng.choice(entrant_ids)}"), ("healthz", "/healthz")]
                for kind, path in paths:
                    if kind == "own" and own_status != 200:
                        continue
                    started = time.perf_counter()
                    status, _ = await conn.request("GET", path)
                    found[kind].append(time.perf_counter() - started)
                    if status != 200:
                        raise RuntimeError(f"GET {path} answered {status}")
        return found, own_status

    return asyncio.run(measure())


# --- the night ---------------------------------------------------------------------------------------


def wait_until(condition, *, timeout: float, what: str, progress=None) -> None:
    deadline, shown = time.perf_counter() + timeout, time.perf_counter()
    while not condition():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        if progress is not None and time.perf_counter() - shown > 15:
            print(f"  {progress()}", file=sys.stderr, flush=True)
            shown = time.perf_counter()
        time.sleep(0.5)


def night_played(organiser, entrants: int, rounds: int, rated: bool) -> tuple[object, float]:
    from tournaments import services
    from tournaments.models import RoundTable, Tournament

    night = swiss_created(organiser, f"league night of {entrants}", rounds=rounds, rated=rated, deadline=True,
                          night=True)
    for _ in range(entrants):
        services.entrant_bot_add(tournament_id=night.pk, user=organiser, bot=BOT)
    started = time.perf_counter()
    services.tournament_start(tournament_id=night.pk, user=organiser)

    def progress() -> str:
        done = RoundTable.objects.filter(round__tournament=night, result__isnull=False).count()
        return f"night: {done} of {rounds * (entrants // 2)} tables recorded"

    wait_until(lambda: Tournament.objects.get(pk=night.pk).status == Tournament.Status.FINISHED,
               timeout=24 * 3600, what="the night to finish", progress=progress)
    return night, time.perf_counter() - started


def bare_round_played(organiser, tables: int, *, rated: bool) -> float:
    """As many bot tables as a round, outside any tournament, played by the same worker: the wall time."""
    from games.models import Match

    ids, _ = bare_tables_started(organiser, tables, rated=rated, night=True)
    first = Match.objects.filter(pk__in=ids).order_by("started_at").values_list("started_at", flat=True)[0]
    wait_until(lambda: not Match.objects.filter(pk__in=ids).exclude(status=Match.Status.FINISHED).exists(),
               timeout=24 * 3600, what="the bare tables to finish")
    last = Match.objects.filter(pk__in=ids).order_by("-finished_at").values_list("finished_at", flat=True)[0]
    return (last - first).total_seconds()


def night_rounds(night) -> list[dict]:
    """Per round, from the database's timestamps: tables, first table started -> last result
    recorded, and last result -> every table of the next round started."""
    from django.db.models import Max, Min

    from games.models import Match
    from tournaments.models import TournamentEvent

    found = []
    results = TournamentEvent.objects.filter(tournament=night, type="TableResult")
    for number in sorted({data["round"] for data in results.values_list("data", flat=True)}):
        matches = Match.objects.filter(tournament_table__round__tournament=night,
                                       tournament_table__round__number=number)
        spans = matches.aggregate(first=Min("started_at"), last=Max("started_at"))
        found.append({"round": number, "tables": matches.count(), "first_started": spans["first"],
                      "all_started": spans["last"],
                      "last_result": results.filter(data__round=number).aggregate(at=Max("created"))["at"]})
    rows = []
    for rnd, following in zip(found, [*found[1:], None]):
        turnover_s = (following["all_started"] - rnd["last_result"]).total_seconds() if following else None
        rows.append({"round": rnd["round"], "tables": rnd["tables"], "turnover_s": turnover_s,
                     "wall_s": (rnd["last_result"] - rnd["first_started"]).total_seconds()})
    return rows


def rating_figure(organiser, count: int) -> dict:
    """The rating task per match beside a bare trueskill.rate loop on the same matches
    (`bench.league_rating`): `count` rated 2-bot matches of Ten played in memory by the night's
    bot and stored by `match_record` (setup), then rated as a round's tasks come (the first rates
    the round, the others find theirs rated) and, on as many ended before them, one task at a time."""
    from bench.league_rating import rating_one_by_one, rating_round
    from games.bots import BOTS
    from games.engines import ENGINES
    from games.services import match_record

    engine, bot = ENGINES[GAME], BOTS[GAME][BOT]
    ids = []
    for seed in random.Random(19).sample(range(1, 2**40), 2 * count):
        rng, state, moves = random.Random(seed), engine.replay(engine.start(2, seed)), []
        while engine.outcome(state) is None:
            seat = engine.to_act(state)[0]
            move = bot.choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
            for event in engine.decide(state, seat, move):
                state = engine.evolve(state, event)
            moves.append((seat, move))
        ids.append(match_record(game=GAME, seats=[BOT, BOT], created_by=organiser, seed=seed, moves=moves,
                                rated=True).pk)
    # One by one first, on the matches that ended first: a round's task rates every match pending.
    one_by_one = rating_one_by_one(ids[:count])
    costs = [rating_round(ids[count:]), one_by_one]
    rows = [[c.how, c.matches, f"{c.task_ms:.3f}", f"{c.rating_ms:.3f}", f"{c.bare_ms:.3f}", f"{c.ratio:.1f}×",
             f"{c.rating_ms / c.bare_ms:.1f}×"] for c in costs]
    print_table(f"The incremental rating task per match ({GAME}, 2 bots, the bots' ladder) beside a bare "
                "trueskill.rate loop on the same matches; target ≤ 3× the bare rate, write included",
                ["tasks", "matches", "all tasks ms/match", "rating task ms/match", "bare ms/match",
                 "all tasks / bare", "rating / bare"], rows)
    print("(round: the first task rates the round's matches in one transaction under the ladder's lock; "
          "each other task then finds its match rated in one read, without the lock)")
    return {"round": costs[0].as_dict(), "one_by_one": costs[1].as_dict()}


# --- the run ---------------------------------------------------------------------------------------------


def verdict(met: bool | None) -> str:
    return "n/a" if met is None else ("met" if met else "NOT met")


def measure(args: argparse.Namespace) -> dict:
    from bench.moves import bare_insert, start_server
    from bench.ratings import fresh_database

    fresh_database(args.database_url)
    setup_django(args.database_url, args.redis_url)
    queue_purged(args.redis_url)
    parking_install(set())
    holds = Holds()
    LockHolds(lambda wall, held: holds.here.append((wall, held))).install()
    from django.conf import settings

    stamp = f"{time.time_ns() % 10**9:x}"
    organiser = organiser_made(stamp)
    results: dict = {}

    insert_wall, insert_lat = bare_insert(args.database_url, 1, 2000)
    bare = {"per_s": len(insert_lat) / insert_wall, "p50_ms": median(insert_lat) * 1e3,
            "p99_ms": percentile(insert_lat, 0.99) * 1e3}
    print(f"league bench on {args.database_url}, Redis {args.redis_url}; bare INSERT+COMMIT "
          f"{bare['per_s']:,.0f}/s, p50 {bare['p50_ms']:.2f} ms, p99 {bare['p99_ms']:.2f} ms", flush=True)

    if args.night_entrants:
        results["night"] = measure_night(args, organiser)
        queue_purged(args.redis_url)
        results["night"].pop("match_ids")
    if args.rating_matches:
        results["rating"] = rating_figure(organiser, args.rating_matches)
    if args.sizes:
        # Bots' moves and the match-finished tasks of the tables this process ends are parked.
        parking_install({BOT_MOVE_TASK, *settings.MATCH_FINISHED_TASKS})
        holds.worker = Worker(concurrency=2, parked=True, beat=False)
        server = None
        try:
            server, port = start_server(args.database_url, args.uvicorn_workers,
                                        {"REDIS_URL": args.redis_url})
            results.update(measure_sizes(args, organiser, stamp, port, bare, holds))
        finally:
            if server is not None:
                server.terminate()
                server.wait(timeout=30)
            holds.worker.stop()
            parked_discard(args.redis_url)
    return results


def measure_night(args: argparse.Namespace, organiser) -> dict:
    tables = args.night_entrants // 2
    worker = Worker(concurrency=args.worker_concurrency, parked=False, beat=True, pool=args.worker_pool)
    try:
        bare_s = bare_round_played(organiser, tables, rated=args.night_rated)
        night, wall = night_played(organiser, args.night_entrants, args.night_rounds, rated=args.night_rated)
    finally:
        worker.stop()
    from games.models import Match

    rounds = night_rounds(night)
    rows = [[r["round"], r["tables"], r["wall_s"], bare_s, r["wall_s"] / bare_s,
             "-" if r["turnover_s"] is None else r["turnover_s"]] for r in rounds]
    print_table(
        f"A league night: {args.night_entrants} bots, {args.night_rounds} Swiss rounds of 2-player {GAME} "
        f"({'rated' if args.night_rated else 'unrated'}), played by a celery worker ({args.worker_pool} ×"
        f"{args.worker_concurrency}, BOT_MOVE_DELAY=0) and beat; {wall:,.0f} s from tournament_start to "
        "the end. Round = first table started -> last result recorded; turnover = last result -> every "
        "table of the next round started (database timestamps). Baseline: as many bare bot tables, no "
        "tournament, same worker",
        ["round", "tables", "round s", "bare tables s", "× bare", "turnover to next s"],
        rows,
    )
    matches = Match.objects.filter(tournament_table__round__tournament=night)
    match_ids = list(matches.values_list("pk", flat=True))
    return {"entrants": args.night_entrants, "rounds": rounds, "bare_tables_s": bare_s, "wall_s": wall,
            "match_ids": match_ids}


@dataclass
class Scale:
    """What every size of the scale part shares: the run's options, the organiser, the people and
    their tokens, the HTTP server's port, the baselines and the lock holds seen."""

    args: argparse.Namespace
    organiser: object
    people: list
    port: int
    bare: dict
    holds: Holds
    healthz_per_s: float = 0.0


def measure_sizes(args, organiser, stamp: str, port: int, bare: dict, holds: Holds) -> dict:
    scale = Scale(args, organiser, people_made(max(args.sizes), stamp), port, bare, holds)
    wall, latencies = healthz(port, args.http_connections, 40)
    scale.healthz_per_s = len(latencies) / wall
    found: dict[str, list] = {"registration": [], "round_start": [], "recording": [], "turnover": [],
                              "standings": []}
    for size in args.sizes:
        for kind, rows in measure_size(scale, size).items():
            found[kind] += rows
    print_sizes(args, found["registration"], found["round_start"], found["recording"], found["turnover"],
                found["standings"])
    return found


def measure_size(scale: Scale, size: int) -> dict[str, list[dict]]:
    """Every scale figure at one size, on the bots' tournament its registration filled."""
    tournament, registration = measure_registration(scale, size)
    start = measure_round_start(scale, tournament.pk, size)
    step(size, "playing round 1 to one move before each table's end (setup)")
    match_ids = tables_of(tournament.pk, 1)
    tables_held(match_ids, scale.args.play_processes, scale.args.redis_url)
    recording = measure_recording(scale, match_ids, size)
    turned = measure_turnover(scale, tournament.pk, match_ids[-1], size, start["bare_ms_per_table"])
    step(size, "standings")
    standings = measure_standings(scale, tournament.pk, size)
    return {"registration": registration, "round_start": [start], "recording": [recording],
            "turnover": [turned], "standings": [standings]}


def step(size: int, what: str) -> None:
    print(f"size {size}: {what}", file=sys.stderr, flush=True)


def measure_registration(scale: Scale, size: int) -> tuple[object, list[dict]]:
    step(size, "registration")
    people = scale.people[:size]
    tournament, bots_s = register_bots(scale.organiser, size)
    people_s = register_people(scale.organiser, people)
    http_s, refused = register_people_http(scale.organiser, people, scale.port, scale.args.http_connections)
    per_s = scale.bare["per_s"]
    return tournament, [
        {"path": "bots, entrant_bot_add", "entrants": size, "seconds": bots_s, "baseline_per_s": per_s},
        {"path": "people, entrant_register", "entrants": size, "seconds": people_s, "baseline_per_s": per_s},
        {"path": f"people, HTTP ×{scale.args.http_connections}", "entrants": size, "seconds": http_s,
         "baseline_per_s": scale.healthz_per_s, "refused": refused},
    ]


def measure_round_start(scale: Scale, tournament_id: int, size: int) -> dict:
    from tournaments import services

    step(size, "round 1 start")
    tables = size // 2
    sample = min(tables, 200)
    _, bare_s = bare_tables_started(scale.organiser, sample)
    wall, started = time.time(), time.perf_counter()
    services.tournament_start(tournament_id=tournament_id, user=scale.organiser)
    returned = time.perf_counter() - started
    seen = all_tables_running(tournament_id, 1, tables) - started
    return {"entrants": size, "tables": tables, "returned_s": returned, "seconds": seen,
            "ms_per_table": seen * 1e3 / tables, "bare_ms_per_table": bare_s * 1e3 / sample,
            "longest_lock_s": scale.holds.longest_since(wall)}


def measure_recording(scale: Scale, match_ids: list[int], size: int) -> dict:
    step(size, "recording round 1")
    wall = time.time()
    latencies, appended = results_recorded(match_ids)
    return {"entrants": size, "results": len(latencies), "p50_ms": median(latencies) * 1e3,
            "p99_ms": percentile(latencies, 0.99) * 1e3, "max_ms": max(latencies) * 1e3,
            "events_per_call_max": max(appended), "calls_without_event": appended.count(0),
            "bare_p50_ms": scale.bare["p50_ms"], "bare_p99_ms": scale.bare["p99_ms"],
            "longest_lock_s": scale.holds.longest_since(wall)}


def measure_turnover(scale: Scale, tournament_id: int, last_match: int, size: int,
                     bare_ms_per_table: float) -> dict:
    tables = size // 2
    wall = time.time()
    whole, call = turnover(tournament_id, last_match, tables)
    parked_discard(scale.args.redis_url)
    return {"entrants": size, "tables": tables, "seconds": whole, "call_s": call,
            "bare_s": bare_ms_per_table * tables / 1e3, "longest_lock_s": scale.holds.longest_since(wall)}


def measure_standings(scale: Scale, tournament_id: int, size: int) -> dict:
    from tournaments.models import Entrant

    entrant_ids = list(Entrant.objects.filter(tournament_id=tournament_id).values_list("pk", flat=True))
    requests = scale.args.standings_requests
    found, own_status = standings_latencies(scale.port, tournament_id, entrant_ids, requests)
    row: dict = {"entrants": size, "own_status": own_status}
    for kind in ("page", "own", "healthz"):
        for name, q in (("p50", 0.5), ("p99", 0.99)):
            row[f"{kind}_{name}_ms"] = percentile(found[kind], q) * 1e3 if found[kind] else None
    return row


def print_sizes(args, registration, starts, records, turnovers, standings) -> None:
    print_registration(args, registration)
    print_round_start(starts)
    print_recording(records)
    print_turnover(turnovers)
    print_standings(args, standings)
    print("\nLock holds are timed in this process and in the scale part's worker, from the statement that "
          "locks a tournaments_tournament row (or takes an advisory transaction lock) to its commit.")


def at_target_size(row: dict, met: bool) -> bool | None:
    """A target of issue 19 set at 10,000 entrants is judged there only."""
    return met if row["entrants"] == TARGET_SIZE else None


def print_registration(args, registration: list[dict]) -> None:
    smallest = min(r["entrants"] for r in registration)
    rows = []
    for row in registration:
        first = next(r for r in registration if r["path"] == row["path"] and r["entrants"] == smallest)
        row["per_s"] = row["entrants"] / row["seconds"]
        row["ms_per_entrant"] = row["seconds"] * 1e3 / row["entrants"]
        row["growth"] = row["ms_per_entrant"] / (first["seconds"] * 1e3 / first["entrants"])
        growth_met = at_target_size(row, row["growth"] <= TARGET_COST_GROWTH) if smallest == 100 else None
        rows.append([
            row["path"], row["entrants"], row["per_s"], row["ms_per_entrant"], row["growth"],
            row["baseline_per_s"], row["baseline_per_s"] / row["per_s"],
            f"≥ {TARGET_ENTRANTS_PER_S}/s: {verdict(row['per_s'] >= TARGET_ENTRANTS_PER_S)}",
            f"≤ {TARGET_COST_GROWTH:g} at 10,000: {verdict(growth_met)}",
        ])
    print_table(
        f"Registration (cost growth = cost per entrant over the cost at {smallest:,}); baseline: a bare "
        f"INSERT+COMMIT for the services, GET /healthz from {args.http_connections} connections for HTTP",
        ["path", "entrants", "entrants/s", "ms/entrant", "cost growth", "baseline/s", "cost × baseline",
         "target rate", "target growth"],
        rows,
    )
    refused = sum(r.get("refused", 0) for r in registration)
    if refused:
        print(f"\n{refused} HTTP registrations were not answered 201 Created.")


def print_round_start(starts: list[dict]) -> None:
    target_ms = TARGET_START_S_PER_TABLE * 1e3
    rows = [
        [r["entrants"], r["tables"], r["returned_s"], r["seconds"], r["ms_per_table"], r["bare_ms_per_table"],
         r["ms_per_table"] / r["bare_ms_per_table"], _seconds(r["longest_lock_s"]),
         f"≤ {target_ms:g} ms/table (5,000 in 10 s): {verdict(r['ms_per_table'] <= target_ms)}"]
        for r in starts
    ]
    print_table(
        "Starting round 1 (2-player tables of bots): tournament_start until every table runs; baseline: "
        "games.services.match_start_seated alone (a transaction per table), per table",
        ["entrants", "tables", "call returned s", "all running s", "ms/table", "bare ms/table", "× bare",
         "longest lock hold s", "target"],
        rows,
    )


def print_recording(records: list[dict]) -> None:
    rows = [
        [r["entrants"], r["results"], r["p50_ms"], r["p99_ms"], r["max_ms"], r["events_per_call_max"],
         r["bare_p50_ms"], r["bare_p99_ms"], _seconds(r["longest_lock_s"]),
         (f"p99 ≤ {TARGET_RECORD_P99_MS:g} ms at 10,000: "
          f"{verdict(at_target_size(r, r['p99_ms'] <= TARGET_RECORD_P99_MS))}")]
        for r in records
    ]
    print_table(
        "Recording a table's result: tournament_match_finished for a match that has just ended (the only one "
        "ended and unrecorded), for every table of round 1 but its last; baseline: a bare INSERT+COMMIT",
        ["entrants", "results", "p50 ms", "p99 ms", "max ms", "events by a call (max)", "bare p50 ms",
         "bare p99 ms", "longest lock hold s", "target"],
        rows,
    )
    if len(records) > 1:
        first, last = records[0], records[-1]
        print(f"\np99 at {last['entrants']:,} over p99 at {first['entrants']:,}: "
              f"{last['p99_ms'] / first['p99_ms']:.2f} (flat across sizes: about 1).")
    for r in records:
        if r["calls_without_event"]:
            print(f"\nAt {r['entrants']:,}: {r['calls_without_event']} calls appended no event to the "
                  "tournament: their result was recorded elsewhere (a task?), not in the time above.")


def print_turnover(turnovers: list[dict]) -> None:
    rows = [
        [r["entrants"], r["tables"], r["seconds"], r["call_s"], r["bare_s"], r["seconds"] / r["bare_s"],
         _seconds(r["longest_lock_s"]),
         (f"≤ {TARGET_TURNOVER_S:g} s at 10,000: "
          f"{verdict(at_target_size(r, r['seconds'] <= TARGET_TURNOVER_S))}")]
        for r in turnovers
    ]
    print_table(
        "Round turnover: round 1's last tournament_match_finished -> every table of round 2 running; "
        "baseline: as many bare match_start_seated",
        ["entrants", "tables", "turnover s", "of which the call s", "bare starts s", "× bare",
         "longest lock hold s", "target"],
        rows,
    )


def print_standings(args, standings: list[dict]) -> None:
    rows = []
    for r in standings:
        if r["own_p99_ms"] is None:
            answered = r["own_status"]
            own = [f"not available ({'HTTP ' if isinstance(answered, int) else ''}{answered})"] * 2
            met = None
        else:
            own = [r["own_p50_ms"], r["own_p99_ms"]]
            met = max(r["page_p99_ms"], r["own_p99_ms"]) <= TARGET_STANDINGS_P99_MS
        rows.append([r["entrants"], r["page_p50_ms"], r["page_p99_ms"], *own, r["healthz_p50_ms"],
                     r["healthz_p99_ms"],
                     f"p99 ≤ {TARGET_STANDINGS_P99_MS:g} ms at 10,000: {verdict(at_target_size(r, met))}"])
    print_table(
        f"Standings over HTTP after round 1 ({args.standings_requests} requests each, one keep-alive "
        "connection): the first page, an entrant's own row; baseline: GET /healthz on the same connection",
        ["entrants", "first page p50 ms", "p99 ms", "own row p50 ms", "p99 ms", "healthz p50 ms", "p99 ms",
         "target"],
        rows,
    )


def _seconds(value: float | None) -> object:
    return "not seen" if value is None else value


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_LEAGUE_DATABASE_URL", DEFAULT_URL),
                        help="postgres://… (dropped and created)")
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL),
                        help="the bench's own Redis database (its task queue is purged)")
    parser.add_argument("--sizes", type=_sizes, default=[100, 1000, 10_000],
                        help="entrants per tournament for the scale figures, comma-separated ('' for none)")
    parser.add_argument("--http-connections", type=int, default=50)
    parser.add_argument("--uvicorn-workers", type=int, default=2)
    parser.add_argument("--play-processes", type=int, default=os.cpu_count() or 2,
                        help="processes playing the tables up to their last move (setup)")
    parser.add_argument("--standings-requests", type=int, default=200)
    # The environment may shorten the night for `python -m bench`, which passes no flags.
    parser.add_argument("--night-entrants", type=int, default=int(os.environ.get("BENCH_NIGHT_ENTRANTS", 1000)),
                        help="0: no league night")
    parser.add_argument("--night-rounds", type=int, default=int(os.environ.get("BENCH_NIGHT_ROUNDS", 5)))
    parser.add_argument("--rating-matches", type=int, default=1000,
                        help="matches a round's rating tasks rate (as many again rated one by one); 0: none")
    parser.add_argument("--night-rated", action=argparse.BooleanOptionalAction, default=True,
                        help="the night's tables are rated, as a league's are (the worker rates them)")
    parser.add_argument("--worker-pool", choices=["prefork", "threads"], default="prefork",
                        help="the night's worker pool (production's: prefork)")
    parser.add_argument("--worker-concurrency", type=int, default=4,
                        help="the night's worker processes or threads (docker/compose.yaml's default)")
    parser.add_argument("--results", help=argparse.SUPPRESS)  # set on the child process: where to write
    args = parser.parse_args(argv)
    if args.results is None:
        return in_child_process("bench.league", sys.argv[1:] if argv is None else argv)
    results = measure(args)
    Path(args.results).write_text(json.dumps(results, default=str))
    return results


def _sizes(text: str) -> list[int]:
    sizes = [int(part) for part in text.split(",") if part.strip()]
    if any(size < 4 or size % 2 for size in sizes):
        raise argparse.ArgumentTypeError("each size is an even number of entrants, at least 4")
    return sorted(sizes)



if __name__ == "__main__":
    main()
