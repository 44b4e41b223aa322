"""Redis behind Sentinel fails over mid-play: nothing committed is lost, and every process finds
the new master.

The test runs its own Redis primary, a replica and three Sentinels, and starts two web servers,
a worker and beat with `REDIS_SENTINELS` (and no `REDIS_URL`). Bot tables and a small Swiss play
while one socket per table follows it; then the primary is killed. Once the Sentinels have
promoted the replica, a person logs in and plays a match through the fast lane, watched by a
socket on each web server. Every match and the Swiss must finish, every chain verify, and every
socket must have seen each event exactly once, after catching up by `seq` on whatever was lost
in flight; the sockets watching the person's match must have been sent updates unasked after
the promotion (each web server's channel layer subscribed again on the new master), and the new
master must hold what the login's throttle and the fast lane's counted.
"""
from __future__ import annotations

import asyncio
import json
import threading
import time
from contextlib import ExitStack, contextmanager

import httpx
import pytest
import redis
import websockets
from django.conf import settings
from redis.sentinel import Sentinel

from games import services
from games.bots import STRONG_BOT
from games.engines import ENGINES
from games.models import Match
from games.selectors import match_log_for_seat, verify_match
from server.celery import app
from server.redis_clients import RedisLocation
from tests.conftest import make_user
from tests.e2e.processes import kill, redis_server, start_beat, start_web, start_worker, stop
from tests.games.worker import wait_for
from tests.tournaments.builders import assert_rebuild_equals_incremental
from tournaments import services as services_tournaments
from tournaments.models import Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.e2e,
]

PRIMARY, REPLICA, SENTINELS = 6391, 6392, (26391, 26392, 26393)
SERVICE, DB = "cardleague", 3  # not the defaults, so that both settings are seen to be read


def test_a_sentinel_failover_mid_play_loses_nothing_and_every_process_follows_the_new_master(tmp_path):
    owner, carol = make_user("house"), make_user("carol")
    sentinels = [("127.0.0.1", port) for port in SENTINELS]
    redis_env = {"REDIS_URL": "", "REDIS_SENTINELS": ",".join(f"{h}:{p}" for h, p in sentinels),
                 "REDIS_SENTINEL_SERVICE": SERVICE, "REDIS_SENTINEL_DB": str(DB)}
    with ExitStack() as stack:
        primary = stack.enter_context(sentinel_cluster(tmp_path))
        stack.enter_context(tasks_sent_through(sentinels))
        games = ["the-game"] * 6 + sorted(set(ENGINES) - {"the-game"})
        tables = [
            services.match_start_seated(game=game, seats=[STRONG_BOT[game], "random"], created_by=owner, rated=False)
            for game in games
        ]
        carols = services.match_start_seated(
            game="the-game", seats=[carol, STRONG_BOT["the-game"]], created_by=owner, rated=False
        )
        swiss = services_tournaments.tournament_create(
            organiser=owner, name="a small Swiss", game="split", format="swiss", options={"rounds": 2}, rated=False
        )
        for _ in range(4):
            services_tournaments.entrant_bot_add(tournament_id=swiss.pk, user=owner, bot=STRONG_BOT["split"])
        # Lost tasks are sent again by the sweep within seconds, not the default's tens.
        fast = {**redis_env, "SWEEP_SECONDS": "1", "SWEEP_STALE_AFTER": "2"}
        bases = []
        for _ in range(2):
            web, base = start_web(**redis_env)
            stack.callback(stop, web)
            bases.append(base)
        stack.callback(stop, start_beat(tmp_path / "beat-schedule", **fast))
        stack.callback(stop, start_worker(**fast))
        followers = [Follower(m.pk, bases[i % 2]) for i, m in enumerate(tables)]
        carol_followers = [Follower(carols.pk, base) for base in bases]
        runner = threading.Thread(
            target=lambda: asyncio.run(_follow_all([*followers, *carol_followers], time.monotonic() + 300)), daemon=True
        )
        runner.start()
        services_tournaments.tournament_start(tournament_id=swiss.pk, user=owner)
        started = sum(m.last_seq for m in tables)
        wait_for(lambda: _seqs(tables) > started + 100, timeout=60, what="play to be under way")
        assert _unfinished(tables).exists(), "every table ended before the failover: it would test nothing"
        kill(primary)
        wait_for(lambda: _master(sentinels) == ("127.0.0.1", REPLICA), timeout=30, what="the replica's promotion")
        promoted = time.monotonic()
        # Unhurried until both servers' layers have pushed a move played after the promotion (below).
        moves = _play_as(carol, carols.pk, bases[0], unhurried_until=lambda: all(
            any(at > promoted for at in f.pushed) for f in carol_followers))
        # Read at once: the counters expire a minute after their window.
        new_master = redis.Redis(port=REPLICA, db=DB)
        counted = sum(int(new_master.get(key)) for key in new_master.scan_iter(match=f"*throttle_moves_{carol.pk}_*"))
        logins = list(new_master.scan_iter(match="*throttle_login*"))
        wait_for(lambda: not _unfinished(tables).exists(), timeout=180, what="every table to finish")
        wait_for(lambda: Tournament.objects.get(pk=swiss.pk).status == Tournament.Status.FINISHED,
                 timeout=180, what="the Swiss to finish")
        runner.join(timeout=30)
        ready = [httpx.get(f"{base}/readyz", timeout=10).json() for base in bases]

    for match, follower in [*zip(tables, followers), *((carols, f) for f in carol_followers)]:
        finished = Match.objects.get(pk=match.pk)
        assert finished.status == Match.Status.FINISHED and verify_match(finished).ok
        assert follower.finished, f"match {match.pk}'s follower did not see the end"
        assert follower.seqs == [e["seq"] for e in match_log_for_seat(finished, None)]  # nothing missed or doubled
    for table in Match.objects.filter(tournament_table__round__tournament=swiss):
        assert table.status == Match.Status.FINISHED and verify_match(table).ok
    assert_rebuild_equals_incremental(Tournament.objects.get(pk=swiss.pk))
    # Both web servers' channel layers heard the moves played after the promotion.
    assert all(any(at > promoted for at in f.pushed) for f in carol_followers)
    # The login's throttle (the Django cache) and the fast lane's counted on the new master.
    assert logins
    assert counted == moves > 0
    assert [answer["checks"]["redis"] for answer in ready] == ["ok", "ok"]


class Follower:
    """A spectator socket following one match. A socket quiet for a while pings, which sends
    what the channel layer's hints would have (hints sent while Redis was away are lost)."""

    def __init__(self, match_id: int, base: str) -> None:
        self.url = base.replace("http", "ws") + f"/ws/matches/{match_id}/"
        self.seqs: list[int] = []
        self.last_seq = 0
        self.finished = False
        self.pushed: list[float] = []  # when an update came unasked (a hint, not a ping's answer)

    async def run(self, stop_at: float) -> None:
        while not self.finished and time.monotonic() < stop_at:
            try:
                async with websockets.connect(self.url + f"?since={self.last_seq}") as socket:
                    await self._follow(socket)
            except (OSError, websockets.WebSocketException):
                await asyncio.sleep(0.2)

    async def _follow(self, socket) -> None:
        pinged = False
        while not self.finished:
            try:
                frame = json.loads(await asyncio.wait_for(socket.recv(), timeout=2))
            except TimeoutError:
                await socket.send(json.dumps({"type": "ping"}))
                pinged = True
                continue
            if frame["type"] == "pong":
                pinged = False
            if frame["type"] not in ("snapshot", "update"):
                continue
            if frame["type"] == "update" and not pinged:
                self.pushed.append(time.monotonic())
            self.seqs += [e["seq"] for e in frame["events"]]
            self.last_seq = frame["seq"]
            self.finished = frame["view"] is not None and frame["view"]["finished"]


async def _follow_all(followers: list[Follower], stop_at: float) -> None:
    # Each follower on its own: one failing must not stop the others.
    await asyncio.gather(*(f.run(stop_at) for f in followers), return_exceptions=True)


def _play_as(user, match_id: int, base: str, *, unhurried_until=None) -> int:
    """Logs in as `user` and plays its seat to the end over HTTP (the fast lane); the moves made.
    Until `unhurried_until()` holds, each move waits up to 2 s for it, as a person thinks: a match
    played out in seconds ended before a busy machine's servers had followed the failover (at a
    fixed 0.2 s a move, The Game's 35 moves took 8 s: tests/FLAKES.md)."""
    with httpx.Client(base_url=base, timeout=10) as client:
        login = client.post("/api/auth/login", json={"username": user.username, "password": "correct horse battery"})
        assert login.status_code == 200, login.text
        client.headers["Authorization"] = f"Token {login.json()['token']}"
        client.cookies.clear()  # the token alone, as the fast lane takes it
        moves = 0
        deadline = time.monotonic() + 120
        while True:
            view = client.get(f"/api/matches/{match_id}/view").json()
            if view["view"]["finished"]:
                return moves
            assert time.monotonic() < deadline, "the match did not finish"
            if view["legal_moves"]:
                answer = client.post(f"/api/matches/{match_id}/moves", json={"move": view["legal_moves"][0]})
                assert answer.status_code == 200, answer.text
                moves += 1
                thinking = time.monotonic() + 2
                while unhurried_until is not None and not unhurried_until() and time.monotonic() < thinking:
                    time.sleep(0.1)
            else:
                time.sleep(0.05)  # the bot's turn


def _seqs(matches: list[Match]) -> int:
    return sum(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("last_seq", flat=True))


def _unfinished(matches: list[Match]):
    return Match.objects.filter(pk__in=[m.pk for m in matches]).exclude(status=Match.Status.FINISHED)


def _master(sentinels: list[tuple[str, int]]) -> tuple[str, int] | None:
    try:
        return Sentinel(sentinels, socket_timeout=1).discover_master(SERVICE)
    except redis.exceptions.ConnectionError:  # none yet
        return None


@contextmanager
def sentinel_cluster(tmp_path):
    """A primary, its replica and three Sentinels watching them; yields the primary's process."""
    # Each in the test's directory: a replica writes the primary's snapshot to disk as it syncs.
    primary = redis_server(PRIMARY, "--dir", str(tmp_path))
    processes = [primary, redis_server(REPLICA, "--dir", str(tmp_path), "--replicaof", "127.0.0.1", str(PRIMARY))]
    try:
        replica = redis.Redis(port=REPLICA)
        wait_for(lambda: replica.info("replication")["master_link_status"] == "up", timeout=30, what="replication")
        for port in SENTINELS:
            config = tmp_path / f"sentinel-{port}.conf"  # a Sentinel writes what it learns into its file
            config.write_text(
                f"sentinel monitor {SERVICE} 127.0.0.1 {PRIMARY} 2\n"
                f"sentinel down-after-milliseconds {SERVICE} 1000\n"
                f"sentinel failover-timeout {SERVICE} 5000\n"
            )
            processes.append(redis_server(port, str(config), "--sentinel", "--dir", str(tmp_path)))
        # Ready to fail over once each Sentinel knows the replica and enough of the others.
        watchers = [redis.Redis(port=port) for port in SENTINELS]
        wait_for(lambda: all(_knows_everyone(w) for w in watchers), timeout=30, what="the Sentinels to find each other")
        yield primary
    finally:
        for process in processes:
            stop(process)


def _knows_everyone(sentinel: redis.Redis) -> bool:
    return (len(sentinel.sentinel_sentinels(SERVICE)) == len(SENTINELS) - 1
            and len(sentinel.sentinel_slaves(SERVICE)) == 1)


@contextmanager
def tasks_sent_through(sentinels: list[tuple[str, int]]):
    """This test process's Celery app on the Sentinels' broker, as the processes it starts are: it
    queues the tasks of the tables and the Swiss it starts, and pings the worker it waits for."""
    def broker_set(url: str, options: dict) -> None:
        # The settings' names: the conf reads them before `broker_url` and its kind.
        app.conf.update(CELERY_BROKER_URL=url, CELERY_BROKER_TRANSPORT_OPTIONS=options)
        app._after_fork()  # forgets the connections to the broker before (as a forked process does)

    saved = app.conf.broker_url, app.conf.broker_transport_options
    broker_set(*RedisLocation("", sentinels, SERVICE, DB).celery_broker())
    try:
        yield
    finally:
        broker_set(*saved)
