"""Read replicas on real engines: pages read from a streaming replica, and go on answering from the
primary when it lags or stops, while bots and a tournament play on without losing anything.

The replica is a second PostgreSQL cluster made from the primary with `pg_basebackup -R`
(tests/e2e/replica.py). Two web servers read from it: a tolerant one (lag allowed an hour) whose
stale answers show that pages really come from the replica, and a strict one (1 s) that leaves it
as soon as it falls behind. A worker and beat play bot tables and a Swiss tournament on the
primary while readers fetch lists, boards, tournament pages and replays from both servers; the
replica's replay is paused for a while, then the replica is stopped for good.
"""
from __future__ import annotations

import tempfile
import threading
from collections import Counter
from pathlib import Path

import httpx
import pytest
from django.conf import settings
from django.db import connection

from accounts.services import user_token
from games import services
from games.bots import STRONG_BOT
from games.engines import ENGINES
from games.models import Match
from games.selectors import verify_match
from tests.conftest import make_user
from tests.e2e.processes import start_beat, start_web, start_worker, stop
from tests.e2e.replica import StreamingReplica
from tests.games.worker import RUNTIME_ROLE, wait_for
from tests.tournaments.builders import assert_rebuild_equals_incremental, events_of
from tournaments import services as services_tournaments
from tournaments.models import RoundTable, Tournament, TournamentEvent

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.e2e,
]


@pytest.fixture
def replica():
    # Not under pytest's tmp_path: as root, that is a directory the postgres user cannot enter.
    standby = StreamingReplica(connection.settings_dict, Path(tempfile.mkdtemp(prefix="cardleague-replica-")))
    try:
        standby.make()
        yield standby
    finally:
        standby.remove()


class Readers:
    """Threads fetching pages from the web servers until stopped; every answer's status counted."""

    def __init__(self, paths_by_base: dict[str, list[str]]) -> None:
        self.paths_by_base = paths_by_base
        self.statuses: Counter[tuple[str, int]] = Counter()  # (path, status); status 0: no answer
        self._lock = threading.Lock()
        self.replays = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._read, args=(base,)) for base in paths_by_base]

    def __enter__(self) -> Readers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(timeout=60)

    def _read(self, base: str) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            while not self._stop.is_set():
                for path in self.paths_by_base[base]:
                    self._get(client, path)
                self._replay_one(client)
                self._stop.wait(0.2)  # readers, not a load test: leave the cores to the play

    def _get(self, client: httpx.Client, path: str, counted_as: str | None = None) -> httpx.Response | None:
        try:
            answer = client.get(path)
        except httpx.HTTPError:
            answer = None
        with self._lock:
            self.statuses[counted_as or path, answer.status_code if answer is not None else 0] += 1
        return answer

    def _replay_one(self, client: httpx.Client) -> None:
        """The replay and export of a match the server's own list says is finished (both read
        through the same server, so never a list from the primary and a replay from a replica
        that has not caught up with it)."""
        listed = self._get(client, "/api/matches?status=finished&limit=1")
        finished = listed.json()["results"] if listed is not None and listed.status_code == 200 else []
        if finished:
            match = finished[0]["id"]
            for path in (f"/api/matches/{match}/replay", f"/tables/{match}/replay", f"/api/matches/{match}/export"):
                self._get(client, path, counted_as=path.replace(str(match), "{id}"))
            with self._lock:
                self.replays += 1


def tournaments_of(client: httpx.Client | str, organiser_id: int) -> set[int]:
    """The organiser's tournaments as a server lists them (to `client`, or to a new client of a base URL)."""
    if isinstance(client, str):
        with httpx.Client(base_url=client, timeout=30) as fresh:
            return tournaments_of(fresh, organiser_id)
    return {t["id"] for t in client.get(f"/api/tournaments?organiser={organiser_id}").json()["results"]}


def test_pages_read_from_the_replica_and_fall_back_to_the_primary_when_it_lags_or_stops(replica, tmp_path):
    owner = make_user("house")
    # Short games (The Game) and one table of every other game; more are opened before the replica
    # stops, so that play is under way through the stop whatever the machine's speed.
    games = ["the-game"] * 4 + sorted(set(ENGINES) - {"the-game"})
    matches = [bot_table(game, owner) for game in games]
    swiss = services_tournaments.tournament_create(
        organiser=owner, name="a small Swiss", game="split", format="swiss", options={"rounds": 2}, rated=False
    )
    for _ in range(4):
        services_tournaments.entrant_bot_add(tournament_id=swiss.pk, user=owner, bot=STRONG_BOT["split"])
    services_tournaments.tournament_start(tournament_id=swiss.pk, user=owner)

    reading = {"DATABASE_REPLICA_URL": replica.url(RUNTIME_ROLE), "REPLICA_PIN_SECONDS": "600"}
    fast = {"SWEEP_SECONDS": "2", "SWEEP_STALE_AFTER": "3"}
    tolerant_log = (tmp_path / "tolerant.log").open("w+")
    tolerant, tolerant_base = start_web(tolerant_log, REPLICA_MAX_LAG_SECONDS="3600", **reading)
    strict, strict_base = start_web(REPLICA_MAX_LAG_SECONDS="1", **reading)
    beat = start_beat(tmp_path / "beat-schedule", **fast)
    worker = start_worker(**fast)
    pages = [f"/api/tournaments/{swiss.pk}{tail}" for tail in ("", "/standings", "/rounds", "/events?after=0")]
    pages += [f"/tournaments/{swiss.pk}", "/api/matches?status=finished", "/api/ratings/split/leaderboard?pool=bots",
              "/players/house"]
    processes = [tolerant, strict, worker, beat]
    try:
        with Readers({tolerant_base: pages, strict_base: pages}) as readers:
            wait_for(lambda: readers.replays >= 2, timeout=120, what="replays to be read")

            # Replay paused: the tolerant server still reads the replica, which does not have what
            # is written now; the strict one finds it behind and reads the primary.
            replica.execute("SELECT pg_wal_replay_pause()")
            unseen = services_tournaments.tournament_create(
                organiser=owner, name="made while the replica waits", game="ten", format="swiss", options={"rounds": 1},
                rated=False,
            )
            assert unseen.pk not in tournaments_of(tolerant_base, owner.pk)
            wait_for(lambda: unseen.pk in tournaments_of(strict_base, owner.pk), timeout=60,
                     what="the strict server to read the primary")
            # Read-your-writes: a client that has just written reads from the primary.
            token = {"Authorization": f"Token {user_token(user=owner)}"}
            with httpx.Client(base_url=tolerant_base, timeout=30, headers=token) as writer:
                written = writer.post("/api/tournaments", json={"name": "mine", "game": "ten", "format": "swiss"})
                assert written.status_code == 201, written.text
                assert {unseen.pk, written.json()["id"]} <= tournaments_of(writer, owner.pk)
            assert written.json()["id"] not in tournaments_of(tolerant_base, owner.pk)  # others still read the replica
            replica.execute("SELECT pg_wal_replay_resume()")
            wait_for(lambda: unseen.pk in tournaments_of(tolerant_base, owner.pk), timeout=60,
                     what="the replica to catch up")

            matches += [bot_table("the-game", owner) for _ in range(4)]
            replica.stop()
            wait_for(lambda: not Match.objects.filter(pk__in=[m.pk for m in matches]).exclude(status="finished").exists(),
                     timeout=300, what="every match to finish")
            wait_for(lambda: Tournament.objects.get(pk=swiss.pk).status == Tournament.Status.FINISHED,
                     timeout=300, what="the Swiss to finish")
            replays_before = readers.replays
            wait_for(lambda: readers.replays > replays_before + 2, timeout=60, what="replays read from the primary")
    finally:
        for process in processes:
            stop(process)

    failed = {key: count for key, count in readers.statuses.items() if key[1] != 200}
    assert not failed, f"answers other than 200: {failed}"
    tolerant_log.seek(0)
    log = tolerant_log.read()
    tolerant_log.close()
    assert log.count("replica down") == 1, log[-3000:]  # once, not once a request
    tables = Match.objects.filter(tournament_table__round__tournament=swiss)
    for match in [*Match.objects.filter(pk__in=[m.pk for m in matches]), *tables]:
        assert match.status == Match.Status.FINISHED and verify_match(match).ok  # gapless, chained, legal
    assert sorted(r["match"] for r in events_of(swiss, "TableResult")) == sorted(
        RoundTable.objects.filter(round__tournament=swiss).values_list("match_id", flat=True)
    )  # each table recorded once
    seqs = list(TournamentEvent.objects.filter(tournament=swiss).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert_rebuild_equals_incremental(Tournament.objects.get(pk=swiss.pk))


def bot_table(game: str, owner) -> Match:
    return services.match_start_seated(game=game, seats=[STRONG_BOT[game], "random"], created_by=owner, rated=False)
