"""Crashes of a web server and of the worker mid-play lose nothing and stall nothing.

Two uvicorn servers, a Celery worker and beat share the test database and Redis. Twenty bot
tables and a small Swiss tournament play while spectator sockets follow the tables on both
servers; then one web server and the worker are killed. Sockets reconnect to the other server with `?since`, a new worker
starts, and beat's sweep re-sends what the dead worker had taken.
"""
from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest
import websockets
from django.conf import settings

from games import services
from games.bots import STRONG_BOT
from games.engines import ENGINES
from games.models import Match
from games.selectors import match_log_for_seat, verify_match
from tests.conftest import make_user
from tests.e2e.processes import kill, start_beat, start_web, start_worker, stop
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


class Follower:
    """A spectator socket that keeps following one match, moving to another server if its dies."""

    def __init__(self, match_id: int, bases: list[str]) -> None:
        self.match_id, self.bases = match_id, bases
        self.seqs: list[int] = []
        self.last_seq = 0
        self.reconnects = 0
        self.finished = False

    async def run(self, stop_at: float) -> None:
        server = 0
        while not self.finished and time.monotonic() < stop_at:
            url = self.bases[server].replace("http", "ws") + f"/ws/matches/{self.match_id}/?since={self.last_seq}"
            try:
                async with websockets.connect(url) as socket:
                    while not self.finished:
                        frame = json.loads(await asyncio.wait_for(socket.recv(), timeout=5))
                        if frame["type"] not in ("snapshot", "update"):
                            continue
                        self.seqs += [e["seq"] for e in frame["events"]]
                        self.last_seq = frame["seq"]
                        self.finished = frame["view"] is not None and frame["view"]["finished"]
            except (TimeoutError, OSError, websockets.WebSocketException):  # a dead server, any way it shows
                server = (server + 1) % len(self.bases)
                self.reconnects += 1
                await asyncio.sleep(0.2)


def test_killing_a_web_server_and_the_worker_mid_play_loses_and_stalls_nothing(tmp_path):
    owner = make_user("house")
    # Mostly The Game (short), one table of every other game, so every engine meets the faults.
    games = ["the-game"] * 17 + sorted(set(ENGINES) - {"the-game"})
    matches = [
        services.match_start_seated(game=game, seats=[STRONG_BOT[game], "random"], created_by=owner, rated=False)
        for game in games
    ]
    swiss = services_tournaments.tournament_create(
        organiser=owner, name="a small Swiss", game="split", format="swiss", options={"rounds": 2}, rated=False
    )
    for _ in range(4):
        services_tournaments.entrant_bot_add(tournament_id=swiss.pk, user=owner, bot=STRONG_BOT["split"])
    services_tournaments.tournament_start(tournament_id=swiss.pk, user=owner)
    fast = {"SWEEP_SECONDS": "2", "SWEEP_STALE_AFTER": "3"}
    (web_a, base_a), (web_b, base_b) = start_web(), start_web()
    beat = start_beat(tmp_path / "beat-schedule", **fast)
    worker = start_worker(**fast)
    followers = [Follower(m.pk, [base_a, base_b] if i % 2 == 0 else [base_b, base_a]) for i, m in enumerate(matches)]
    runner = threading.Thread(target=lambda: asyncio.run(_follow_all(followers, time.monotonic() + 700)))
    runner.start()
    try:
        started = sum(m.last_seq for m in matches)
        wait_for(lambda: sum(Match.objects.filter(pk__in=[m.pk for m in matches]).values_list("last_seq", flat=True))
                 > started + 150, timeout=120, what="play to be under way")
        kill(web_a)
        kill(worker)
        worker = start_worker(**fast)
        wait_for(lambda: not Match.objects.filter(pk__in=[m.pk for m in matches]).exclude(status="finished").exists(),
                 timeout=600, what="every match to finish")
        wait_for(lambda: Tournament.objects.get(pk=swiss.pk).status == Tournament.Status.FINISHED,
                 timeout=600, what="the Swiss to finish")
        runner.join(timeout=60)
    finally:
        for process in (web_a, web_b, worker, beat):
            stop(process)
    for match, follower in zip(matches, followers):
        finished = Match.objects.get(pk=match.pk)
        assert verify_match(finished).ok  # gapless, the chain holds, every move legal where it was played
        assert follower.finished, f"match {match.pk}'s follower did not see the end"
        assert follower.seqs == [e["seq"] for e in match_log_for_seat(finished, None)]  # nothing missed or doubled
    assert any(f.reconnects for f in followers[::2])  # the followers of the killed server moved over
    for table in Match.objects.filter(tournament_table__round__tournament=swiss):
        assert table.status == Match.Status.FINISHED and verify_match(table).ok
    assert_rebuild_equals_incremental(Tournament.objects.get(pk=swiss.pk))


async def _follow_all(followers: list[Follower], stop_at: float) -> None:
    # Each follower on its own: one failing must not stop the others.
    await asyncio.gather(*(f.run(stop_at) for f in followers), return_exceptions=True)
