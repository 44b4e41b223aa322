"""Live tables over WebSockets through uvicorn on PostgreSQL + Redis, beside a bare channel-layer echo.

Two servers run side by side with the same uvicorn worker count and the same Redis pub/sub
channel layer on the same Redis:
- the real server (`server.asgi`, production settings): tables of Ten with two people each;
  a move goes in through the socket, `move_submit` commits it, the commit's hint goes through
  the channel layer and every socket of the table reads and sends its own frame;
- the baseline (`bench.echo`): a bare Channels consumer per socket in a group per table; a
  "move" frame is group_sent to the table and every socket forwards it (no DB, no engine).

This process is the client for both, with the same code: one socket per seat, one move in
flight per table, the next one sent when every socket has the previous one (and, at a rate,
no sooner than `1/rate` after the previous send; tables start at random phases). Every load
plays fresh tables, and when a match ends its players sit down at the next table (its sockets
close and the next table's open, inside the window), so no load runs out of moves. Latency:
from a move sent to the last socket of its table receiving the frame it caused. Loads run
in pairs (baseline, then real) so both meet the same machine: tables x 1 move/s, saturation
(each table moves as soon as every seat has the previous frame), one table with 100
spectators at saturation, and one with 1,000 at a move a second. `server CPU` is the uvicorn
workers' CPU over the window (200 % = two cores) and `ms/move` that CPU time over the moves made;
`over idle` leaves out what the same sockets cost the server with no move (read for 2 s before the
window: keepalive pings, timers), which at 1,000 sockets and a move a second is half of it;
`client CPU` is this process's (near 100 %, the client would be the ceiling, not the server);
`machine busy` is every core's (PostgreSQL, Redis and whatever else runs on the machine too), 100 %
= all cores. `loop lag` is how late the server processes' 20 ms timer fired (`server.loop_watch`:
p99 / max over the window; what held the loop held every socket of that process), and `commit batch`
how many moves' claims the fast lane's group commit committed together (mean / largest).
The client offers permessage-deflate, as browsers do, and asks the real server for patches to
its views (`?patches=1`), as the table page does.

Run: `python -m bench.live [--tables 50 200 500] [--saturate 50] [--seconds 15] [--rate 1] [--spectators 100]
[--watchers 1000] [--profile DIR]` (watchers: one table's spectators at `--rate`, a final watched by a crowd).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._common import UVICORN_OPTIONS, LoopFigures, loop_figures, percentile, print_table  # noqa: E402
from bench.moves import DEFAULT_URL as DEFAULT_DATABASE_URL  # noqa: E402
from bench.moves import ensure_database  # noqa: E402
from games.patches import view_patched  # noqa: E402

GAME, PLAYERS = "ten", 2
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/2"
IDLE_SECONDS = 2.0  # the open sockets' cost with no move, read before each window
GRACE_SECONDS = 15.0  # how long moves sent before the end of a window may still take to arrive
CONNECT_CONCURRENCY = 25


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


# --- servers -------------------------------------------------------------------------------------


@dataclass
class Server:
    """A uvicorn serving `app`; `echo` says it is the bare baseline (`bench.echo`)."""

    label: str
    echo: bool
    process: subprocess.Popen
    ws_base: str
    stats_dir: str  # where its processes write their loop's figures (server.loop_watch)

    def url(self, table: int, token: str | None) -> str:
        if self.echo:
            return f"{self.ws_base}/ws/tables/{table}/"
        # As the table page asks: updates carry the changes to each socket's last view.
        return f"{self.ws_base}/ws/matches/{table}/?patches=1" + (f"&token={token}" if token else "")

    def pids(self) -> list[int]:
        """The processes that serve: uvicorn's own with one worker, its children with more."""
        return [self.process.pid, *descendants(self.process.pid)]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.stats_dir, ignore_errors=True)


def start_server(*, echo: bool, database_url: str, redis_url: str, workers: int) -> Server:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Every spectator the bench opens comes from this one loopback address, where production
    # would see as many addresses as spectators: lift the per-address cap on sockets.
    stats_dir = tempfile.mkdtemp(prefix="loop-stats-")
    env = dict(os.environ, REDIS_URL=redis_url, LOG_LEVEL="WARNING", DEBUG="0", MAX_SOCKETS_PER_CLIENT_AND_TABLE="100000",
               LOOP_STATS_DIR=stats_dir)
    if echo:
        env.pop("DJANGO_SETTINGS_MODULE", None)
        app, probe = "bench.echo:application", "/"
    else:
        # At saturation a seat sends a move whenever the last one has reached every socket: above
        # a person's frame rate, which the server would refuse.
        env.update(DATABASE_URL=database_url, SECRET_KEY="bench", ALLOWED_HOSTS="127.0.0.1",
                   SOCKET_FRAMES_PER_SECOND="100000")
        app, probe = "server.asgi:application", "/healthz"
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", app, "--port", str(port), "--workers", str(workers), *UVICORN_OPTIONS],
        cwd=ROOT, env=env,
    )
    import httpx

    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError(f"{app} exited with {process.returncode}")
        try:
            httpx.get(f"http://127.0.0.1:{port}{probe}", timeout=1)
            break
        except httpx.TransportError:
            time.sleep(0.2)
    else:
        process.kill()
        raise RuntimeError(f"{app} did not answer on port {port}")
    server = Server("echo" if echo else "real", echo, process, f"ws://127.0.0.1:{port}", stats_dir)
    # Every worker answers only once it has imported the app: wait until they all exist.
    for _ in range(100):
        if len(server.pids()) >= (workers + 1 if workers > 1 else 1):
            break
        time.sleep(0.1)
    return server


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        parent = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{parent}/task")
        except FileNotFoundError:
            continue
        for tid in tasks:
            try:
                children = Path(f"/proc/{parent}/task/{tid}/children").read_text().split()
            except FileNotFoundError:
                continue
            for child in map(int, children):
                found.append(child)
                todo.append(child)
    return found


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pids: list[int]) -> float:
    """User + system CPU time of `pids` so far."""
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += (int(fields[11]) + int(fields[12])) / _TICKS
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of every core so far, from /proc/stat."""
    values = list(map(int, Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]))
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def status_kib(pid: int, key: str) -> int:
    """A `VmRSS`/`VmHWM`-like line of /proc/<pid>/status, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    raise KeyError(key)


# --- the client ----------------------------------------------------------------------------------


@dataclass
class InFlight:
    sent_at: float
    base_seq: int
    client_id: str
    arrived: set[int] = field(default_factory=set)


class TablePlay:
    """One table's sockets (its seats, then any spectators) and the moves played through them."""

    def __init__(self, server: Server, tables: list[tuple[int, list[str | None]]], spectators: int,
                 rng: random.Random, nonce: str) -> None:
        self.server, self.rng, self.nonce, self.spectators = server, rng, nonce, spectators
        self.reserve = list(tables[1:])  # the next tables, played in turn when one ends (a rematch)
        self._seated(*tables[0])
        self.in_flight: InFlight | None = None
        self.latencies: list[float] = []  # of the moves sent inside the window, whenever they arrived
        self.window: tuple[float, float] = (0.0, 0.0)
        self.sent = self.completed = self.errors = self.rematches = 0
        self.update_bytes = self.updates = 0
        self.finished = False
        self.retry_at = 0.0
        self.wake = asyncio.Event()

    def _seated(self, table: int, tokens: list[str | None]) -> None:
        self.table, self.seats = table, len(tokens)
        self.urls = [self.server.url(table, t) for t in tokens] + [self.server.url(table, None)] * self.spectators
        self.sockets: list = []
        self.frames: list[dict | None] = [None] * len(self.urls)
        self.readers: list[asyncio.Task] = []

    async def open(self, limit: asyncio.Semaphore) -> None:
        import websockets

        for index, url in enumerate(self.urls):
            async with limit:
                ws = await websockets.connect(url, max_size=2**22, open_timeout=120, ping_interval=None)
                self.sockets.append(ws)
                while self.frames[index] is None:  # the snapshot: the socket is in its group by then
                    self._on_frame(index, await ws.recv())
            self.readers.append(asyncio.ensure_future(self._read(index, ws)))

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*(ws.close() for ws in self.sockets), return_exceptions=True)

    async def _read(self, index: int, ws) -> None:
        import websockets

        try:
            async for raw in ws:
                self._on_frame(index, raw)
        except websockets.ConnectionClosed:
            pass

    def _on_frame(self, index: int, raw: str) -> None:
        frame = json.loads(raw)
        kind = frame.get("type")
        now = time.perf_counter()
        if kind in ("snapshot", "update"):
            # A seat's socket applies a patch as the table page does (its view chooses the moves); a
            # spectator's page would too, on its own machine: this one client does not do it 1,000 times.
            if "view_patch" in frame and index < self.seats:
                frame["view"] = view_patched(self.frames[index]["view"], frame.pop("view_patch"))
            self.frames[index] = frame
            if kind == "update":
                self.updates += 1
                self.update_bytes += len(raw)
            flight = self.in_flight
            if flight is not None and frame["seq"] > flight.base_seq:
                flight.arrived.add(index)
                if len(flight.arrived) == len(self.urls):
                    if self.window[0] <= flight.sent_at < self.window[1]:
                        self.latencies.append(now - flight.sent_at)
                    if self.window[0] <= now < self.window[1]:
                        self.completed += 1
                    self.in_flight = None
                    self.wake.set()
            elif flight is None:
                self.wake.set()
        elif kind == "error" and self.in_flight is not None and frame.get("id") == self.in_flight.client_id:
            # e.g. rate_limited: nothing changed; try again a little later.
            self.errors += 1
            self.in_flight = None
            self.retry_at = now + 0.2
            self.wake.set()

    def next_move(self) -> tuple[int, dict] | None:
        """(seat, frame to send) for the next move, or None when the table is over."""
        seq = self.frames[0]["seq"]
        client_id = f"{self.nonce}-{self.sent}"
        if self.server.echo:
            return seq % self.seats, {"type": "move", "seq": seq + 1, "id": client_id}
        if self.frames[0]["view"] and self.frames[0]["view"].get("finished"):
            return None
        for seat in range(self.seats):
            legal = self.frames[seat]["legal_moves"]
            if legal:
                return seat, {"type": "move", "move": self.rng.choice(legal), "id": client_id}
        return None

    async def drive(self, start: float, stop: float, interval: float, max_moves: int | None = None) -> None:
        """Moves until `stop` (or `max_moves`): one in flight, each when every socket has the last."""
        self.window = (start, stop)
        next_at = start + (self.rng.uniform(0, interval) if interval else 0.0)
        self.wake.set()
        while max_moves is None or self.sent < max_moves:
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=max(0.01, stop - time.perf_counter()))
            except TimeoutError:
                return
            self.wake.clear()
            if time.perf_counter() >= stop:
                return
            if self.in_flight is not None or len({f["seq"] for f in self.frames}) > 1:
                continue  # the last move has not reached every socket yet
            choice = self.next_move()
            if choice is None and self.reserve:  # the table ended: its players sit down at the next
                await self.close()
                self._seated(*self.reserve.pop(0))
                await self.open(asyncio.Semaphore(CONNECT_CONCURRENCY))
                self.rematches += 1
                self.wake.set()
                continue
            if choice is None:
                self.finished = True
                return
            delay = max(next_at, self.retry_at) - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
                if time.perf_counter() >= stop:
                    return
            seat, payload = choice
            self.in_flight = InFlight(time.perf_counter(), self.frames[0]["seq"], payload["id"])
            next_at = self.in_flight.sent_at + interval
            self.sent += 1
            await self.sockets[seat].send(json.dumps(payload))

    async def settle(self, until: float) -> None:
        """Waits for the move in flight (if any) to reach every socket, at most until `until`."""
        while self.in_flight is not None and time.perf_counter() < until:
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=max(0.01, until - time.perf_counter()))
            except TimeoutError:
                return


async def open_tables(plays: list[TablePlay]) -> None:
    limit = asyncio.Semaphore(CONNECT_CONCURRENCY)
    await asyncio.gather(*(p.open(limit) for p in plays))


async def wait_idle(server: Server, *, below: float = 0.05, timeout: float = 10.0) -> None:
    """Waits until the server's workers use less than `below` of a core (what the last load left)."""
    pids, deadline = server.pids(), time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        before = cpu_seconds(pids)
        await asyncio.sleep(0.5)
        if cpu_seconds(pids) - before < below * 0.5:
            return


@dataclass
class Measured:
    moves_per_s: float
    latencies: list[float]
    sockets: int
    server_cpu: float  # cores busy, 1.0 = one core
    client_cpu: float
    machine_cpu: float  # share of every core busy
    errors: int
    lost: int
    frame_bytes: float
    finished: int  # plays that ran out of tables before the window ended
    rematches: int
    loop: LoopFigures
    idle_cpu: float  # cores busy with every socket open and no move, just before the window

    @property
    def server_ms_per_move(self) -> float:
        return self.server_cpu * 1e3 / self.moves_per_s if self.moves_per_s else float("nan")

    @property
    def server_ms_per_move_over_idle(self) -> float:
        """What the moves cost beyond what the open sockets cost idle (keepalive pings, timers)."""
        return (self.server_cpu - self.idle_cpu) * 1e3 / self.moves_per_s if self.moves_per_s else float("nan")

    def p(self, q: float) -> float:
        return percentile(self.latencies, q) * 1e3 if self.latencies else float("nan")


async def measure(server: Server, tables: list[list[tuple[int, list[str | None]]]], *, seconds: float, rate: float,
                  spectators: int = 0, profile: str | None = None) -> Measured:
    """Opens every socket of `tables` (each play's first table; the rest follow when it ends),
    plays for `seconds`, closes them; what it measured. With `profile` (a file), py-spy records
    the server's processes over the window there (collapsed stacks)."""
    nonce = f"{server.label[0]}{time.time_ns() % 10**12:x}"
    plays = [TablePlay(server, queue, spectators, random.Random(queue[0][0]), nonce) for queue in tables]
    await open_tables(plays)
    await wait_idle(server)
    interval = 1.0 / rate if rate > 0 else 0.0
    pids = server.pids()
    idle0, idle_start = cpu_seconds(pids), time.perf_counter()
    await asyncio.sleep(IDLE_SECONDS)
    idle_cpu = (cpu_seconds(pids) - idle0) / (time.perf_counter() - idle_start)
    cpu0, client0, busy0 = cpu_seconds(pids), time.process_time(), machine_busy()
    start, wall_start = time.perf_counter(), time.time()
    stop = start + seconds
    spy = None if profile is None else subprocess.Popen(
        ["py-spy", "record", "--subprocesses", "--nonblocking", "-p", str(server.process.pid), "-d", str(int(seconds)),
         "-r", "200", "-f", "raw", "-o", profile],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    await asyncio.gather(*(p.drive(start, stop, interval) for p in plays))
    elapsed, wall_stop = time.perf_counter() - start, time.time()
    if spy is not None:
        await asyncio.to_thread(spy.wait)
    cpu1, client1, busy1 = cpu_seconds(pids), time.process_time(), machine_busy()
    await asyncio.gather(*(p.settle(stop + GRACE_SECONDS) for p in plays))
    await asyncio.gather(*(p.close() for p in plays))
    await asyncio.sleep(max(0.0, wall_stop + 1.1 - time.time()))  # the line covering the window's end
    latencies = [x for p in plays for x in p.latencies]
    updates = sum(p.updates for p in plays)
    return Measured(
        moves_per_s=sum(p.completed for p in plays) / seconds,  # reached every socket inside the window
        latencies=latencies,
        sockets=sum(len(p.urls) for p in plays),
        server_cpu=(cpu1 - cpu0) / elapsed,
        client_cpu=(client1 - client0) / elapsed,
        machine_cpu=(busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1]),
        errors=sum(p.errors for p in plays),
        lost=sum(1 for p in plays if p.in_flight is not None),
        frame_bytes=sum(p.update_bytes for p in plays) / max(1, updates),
        finished=sum(p.finished for p in plays),
        rematches=sum(p.rematches for p in plays),
        loop=loop_figures(server.stats_dir, wall_start, wall_stop),
        idle_cpu=idle_cpu,
    )


# Tables after the first that each play may move on to when its table ends, by kind of load:
# at 1 move/s a table sees 15 moves; at saturation a match of Ten (about 150 moves) ends in seconds.
RESERVE_AT_RATE, RESERVE_AT_SATURATION, RESERVE_WITH_SPECTATORS = 0, 3, 10


def loads_of(args: argparse.Namespace) -> list[tuple[str, int, float, int, int]]:
    """(label, tables, moves/s per table (0: as fast as possible), spectators, reserve tables each)."""
    loads = [(f"{n} tables, {args.rate:g} move/s each", n, args.rate, 0, RESERVE_AT_RATE) for n in args.tables]
    loads += [(f"{n} tables, saturation", n, 0.0, 0, RESERVE_AT_SATURATION) for n in args.saturate]
    if args.spectators:
        loads.append((f"1 table + {args.spectators} spectators, saturation", 1, 0.0, args.spectators,
                      RESERVE_WITH_SPECTATORS))
    if args.watchers:  # a final watched by a crowd (issue #47): a move a second, every frame to each of them
        loads.append((f"1 table + {args.watchers:,} spectators, {args.rate:g} move/s", 1, args.rate, args.watchers,
                      RESERVE_AT_RATE))
    return loads


async def run_loads(echo: Server, real: Server, pool: list[tuple[int, list[str]]],
                    args: argparse.Namespace) -> list[tuple[str, Measured, Measured]]:
    """Every load on fresh tables from `pool` (a table a load has played is never played again)."""
    results, echo_ids, fresh = [], 0, iter(pool)
    for label, count, rate, spectators, reserve in loads_of(args):
        tables = [[next(fresh) for _ in range(1 + reserve)] for _ in range(count)]
        echo_tables = [[(echo_ids + i, [None] * PLAYERS)] for i in range(count)]
        echo_ids += count
        seconds = args.seconds if rate else args.fanout_seconds if spectators else args.seconds
        base = await measure(echo, echo_tables, seconds=seconds, rate=rate, spectators=spectators)
        await wait_idle(echo)
        profile = None if args.profile is None else os.path.join(
            args.profile, "".join(c if c.isalnum() else "-" for c in label) + ".txt")
        got = await measure(real, tables, seconds=seconds, rate=rate, spectators=spectators, profile=profile)
        await wait_idle(real)
        print(f"  {label}: echo {base.moves_per_s:,.0f} moves/s p99 {base.p(0.99):.1f} ms | "
              f"real {got.moves_per_s:,.0f} moves/s p99 {got.p(0.99):.1f} ms, {got.rematches} rematches",
              file=sys.stderr, flush=True)
        results.append((label, base, got))
    return results


def run_client(coroutine):
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url", default=os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    parser.add_argument("--tables", type=int, nargs="*", default=[50, 200, 500])
    parser.add_argument("--rate", type=float, default=1.0, help="moves per second per table for --tables")
    parser.add_argument("--saturate", type=int, nargs="*", default=[50],
                        help="table counts played as fast as possible")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--spectators", type=int, default=100, help="spectators of one table at saturation (0: none)")
    parser.add_argument("--watchers", type=int, default=1000, help="spectators of one table at --rate (0: none)")
    parser.add_argument("--fanout-seconds", type=float, default=10)
    parser.add_argument("--uvicorn-workers", type=int, default=2)
    parser.add_argument("--profile", metavar="DIR", help="py-spy records the real server over each window into DIR "
                        "(one file of collapsed stacks a load; py-spy must be on PATH)")
    args = parser.parse_args(argv)
    setup_django(args.database_url)
    pool = make_tables(sum(count * (1 + reserve) for _, count, _, _, reserve in loads_of(args)))
    echo = start_server(echo=True, database_url=args.database_url, redis_url=args.redis_url,
                        workers=args.uvicorn_workers)
    try:
        real = start_server(echo=False, database_url=args.database_url, redis_url=args.redis_url,
                            workers=args.uvicorn_workers)
        try:
            results = run_client(run_loads(echo, real, pool, args))
        finally:
            real.stop()
    finally:
        echo.stop()
    rows, returned = [], []
    for label, base, got in results:
        ratio = got.moves_per_s / base.moves_per_s if base.moves_per_s else float("nan")
        rows.append([label, got.sockets, base.moves_per_s, got.moves_per_s, ratio,
                     base.p(0.5), got.p(0.5), base.p(0.99), got.p(0.99),
                     f"{base.server_ms_per_move:.1f} / {got.server_ms_per_move:.1f}",
                     f"{base.server_ms_per_move_over_idle:.1f} / {got.server_ms_per_move_over_idle:.1f}",
                     f"{base.server_cpu:.0%} / {got.server_cpu:.0%}",
                     f"{base.client_cpu:.0%} / {got.client_cpu:.0%}",
                     f"{base.machine_cpu:.0%} / {got.machine_cpu:.0%}",
                     f"{base.loop.lag_text()} / {got.loop.lag_text()}", got.loop.batch_text()])
        returned.append({
            "load": label, "sockets": got.sockets,
            "echo_moves_per_s": base.moves_per_s, "moves_per_s": got.moves_per_s,
            "rate_ratio": ratio,
            "echo_p50_ms": base.p(0.5), "p50_ms": got.p(0.5),
            "echo_p99_ms": base.p(0.99), "p99_ms": got.p(0.99),
            "echo_server_cpu": base.server_cpu, "server_cpu": got.server_cpu,
            "echo_server_cpu_ms_per_move": base.server_ms_per_move,
            "server_cpu_ms_per_move": got.server_ms_per_move,
            "echo_server_cpu_ms_per_move_over_idle": base.server_ms_per_move_over_idle,
            "server_cpu_ms_per_move_over_idle": got.server_ms_per_move_over_idle,
            "echo_idle_server_cpu": base.idle_cpu, "idle_server_cpu": got.idle_cpu,
            "echo_client_cpu": base.client_cpu, "client_cpu": got.client_cpu,
            "echo_machine_cpu": base.machine_cpu, "machine_cpu": got.machine_cpu,
            "frame_bytes": got.frame_bytes, "echo_frame_bytes": base.frame_bytes,
            "errors": got.errors, "lost": got.lost, "finished_tables": got.finished, "rematches": got.rematches,
            "echo_errors": base.errors, "echo_lost": base.lost,
            "echo_loop_lag_p99_ms": base.loop.lag_p99_ms, "loop_lag_p99_ms": got.loop.lag_p99_ms,
            "echo_loop_lag_max_ms": base.loop.lag_max_ms, "loop_lag_max_ms": got.loop.lag_max_ms,
            "commit_batch_mean": got.loop.batch_mean, "commit_batch_max": got.loop.largest_batch,
        })
    print_table(
        f"Live tables over WebSockets ({GAME}, {PLAYERS} seats a table, uvicorn ×{args.uvicorn_workers}, "
        "PostgreSQL + Redis pub/sub) beside a bare Channels echo on the same stack; "
        "latency = move sent -> the last socket of its table has the frame",
        ["load", "sockets", "echo moves/s", "moves/s", "ratio",
         "echo p50 ms", "p50 ms", "echo p99 ms", "p99 ms",
         "server CPU ms/move echo / real", "over idle ms/move echo / real", "server CPU echo / real", "client CPU echo / real",
         "machine busy echo / real", "loop lag p99 / max ms echo / real", "commit batch mean / max"],
        rows,
    )
    notes = [f"{r['load']}: real {r['errors']} moves refused, {r['lost']} unanswered, "
             f"{r['rematches']} tables ended and their players moved to the next, "
             f"{r['finished_tables']} ran out of tables; "
             f"echo {r['echo_errors']} refused, {r['echo_lost']} unanswered"
             for r in returned
             if r["errors"] or r["lost"] or r["finished_tables"] or r["rematches"] or r["echo_errors"] or r["echo_lost"]]
    print("\nTargets (issue #47): 500 tables at 1 move/s keep up, p99 <= 50 ms; 1,000 spectators at 1 move/s "
          "p99 <= 200 ms and <= 50 ms of server CPU a move; saturation >= 70 % of the echo's moves/s; 100 spectators "
          "at saturation at least the echo's moves/s. Real update frames average "
          f"{max((r['frame_bytes'] for r in returned), default=0):,.0f} bytes (echo's "
          f"{max((r['echo_frame_bytes'] for r in returned), default=0):,.0f}).")
    for note in notes:
        print(f"- {note}")
    return returned


if __name__ == "__main__":
    main()
