"""The replica router: which reads go to the replica, and when they fall back to the primary.

The `replica` alias here mirrors the test database (server/settings_test.py): a second, real
connection to it, which is not a standby, so its lag is 0. Each test switches the router and
the pin middleware on, as DATABASE_REPLICA_URL does. Lag is measured on a real streaming replica
in tests/e2e/test_replica_fallback.py.
"""
from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.conf import settings as django_settings
from django.db import connections, router, transaction
from django.test import Client

from games.models import Match
from server import db_router
from server.db_router import PIN_COOKIE, REPLICA, ReplicaHealth, reads_from_replica
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.servers import free_port
from tests.server.test_production_shape import settings_in_a_fresh_process
from tournaments import services as tournament_services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True, databases=["default", REPLICA])]

PIN = "server.db_router.ReplicaPinMiddleware"


@pytest.fixture(autouse=True)
def routed(settings, monkeypatch):
    """The router and the pin middleware on, and a process that has not looked at the replica yet."""
    settings.DATABASE_ROUTERS = ["server.db_router.ReplicaRouter"]
    settings.MIDDLEWARE = [settings.MIDDLEWARE[0], PIN, *settings.MIDDLEWARE[1:]]
    monkeypatch.setattr(db_router, "health", ReplicaHealth())


@pytest.fixture
def replica_down():
    """The replica's address turned into a port nobody listens on: connections are refused."""
    replica = connections[REPLICA]
    port = replica.settings_dict["PORT"]
    replica.close()
    replica.settings_dict["PORT"] = free_port()
    yield
    replica.close()
    replica.settings_dict["PORT"] = port


@contextmanager
def queries_on(alias: str) -> Iterator[list[str]]:
    """The statements sent through `alias` in the block, but the router's own look at the lag."""
    sent: list[str] = []

    def record(execute, sql, params, many, context):
        if "pg_is_in_recovery" not in sql and "pg_current_wal_lsn" not in sql:
            sent.append(sql)
        return execute(sql, params, many, context)

    with connections[alias].execute_wrapper(record):
        yield sent


def get(client, path: str) -> tuple[int, int]:
    """GETs `path`; its status and the number of queries it sent to the replica."""
    with queries_on(REPLICA) as on_replica:
        answer = client.get(path)
    return answer.status_code, len(on_replica)


def test_reads_go_to_the_replica_only_where_asked_and_never_inside_a_transaction():
    assert Match.objects.all().db == "default"
    with reads_from_replica() as on_replica:
        assert on_replica
        assert Match.objects.all().db == REPLICA
        assert router.db_for_write(Match) == "default"
        with transaction.atomic():
            assert Match.objects.all().db == "default"  # what a transaction reads, it may write on
    assert Match.objects.all().db == "default"


def test_the_replica_is_never_migrated():
    assert router.allow_migrate(REPLICA, "games") is False
    assert router.allow_migrate("default", "games") is True
    assert router.allow_migrate("owner", "games") is True


@pytest.mark.parametrize("path", ["/api/matches?status=finished", "/api/tournaments", "/api/ratings/ten/leaderboard"])
def test_lists_and_boards_read_from_the_replica(path):
    status, on_replica = get(client_for(), path)
    assert status == 200 and on_replica > 0


def test_profile_and_board_pages_read_from_the_replica():
    page = Client()
    page.force_login(make_user("alice"))
    for path in ("/players/alice", "/leaderboards/ten"):
        status, on_replica = get(page, path)
        assert status == 200 and on_replica > 0, path


def test_tournament_pages_and_the_feed_read_from_the_replica():
    organiser = make_user("organiser")
    cup = tournament_services.tournament_create(organiser=organiser, name="cup", game="ten", format="swiss",
                                                options={"rounds": 1}, rated=False)
    anyone = client_for()
    for path in ("", "/standings", "/rounds", "/events", "/export"):
        status, on_replica = get(anyone, f"/api/tournaments/{cup.pk}{path}")
        assert status == 200 and on_replica > 0, path
    status, on_replica = get(anyone, f"/tournaments/{cup.pk}")
    assert status == 200 and on_replica > 0


def test_the_move_path_and_live_views_never_read_from_the_replica():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("ten", [alice, bob])
    player = client_for(alice)
    with queries_on(REPLICA) as on_replica, queries_on("default") as on_primary:
        view = player.get(f"/api/matches/{match_id}/view").json()
        seat = view["view"]["to_act"][0]
        mover = client_for([alice, bob][seat])
        legal = mover.get(f"/api/matches/{match_id}/view").json()["legal_moves"]
        answer = mover.post(f"/api/matches/{match_id}/moves", {"move": legal[0]}, format="json")
        assert answer.status_code == 200, answer.json()
    assert len(on_replica) == 0 and len(on_primary) > 0


def test_a_client_that_has_just_written_reads_from_the_primary_until_its_pin_runs_out():
    organiser = client_for(make_user("organiser"))
    assert get(organiser, "/api/tournaments")[1] > 0
    created = organiser.post("/api/tournaments", {"name": "cup", "game": "ten", "format": "swiss"}, format="json")
    assert created.status_code == 201
    pin = created.cookies[PIN_COOKIE]
    assert float(pin.value) > time.time() and pin["max-age"] == django_settings.REPLICA_PIN_SECONDS
    status, on_replica = get(organiser, "/api/tournaments")
    assert status == 200 and on_replica == 0
    organiser.cookies[PIN_COOKIE] = f"{time.time() - 1:.3f}"  # run out
    assert get(organiser, "/api/tournaments")[1] > 0
    organiser.cookies[PIN_COOKIE] = f"{time.time() + 10 * django_settings.REPLICA_PIN_SECONDS:.3f}"
    assert get(organiser, "/api/tournaments")[1] > 0  # nobody pins themselves for longer than the setting
    assert get(client_for(), "/api/tournaments")[1] > 0  # other clients are not pinned


@pytest.mark.usefixtures("replica_down")
def test_reads_fall_back_to_the_primary_while_the_replica_is_down_and_it_is_logged_once(caplog):
    anyone = client_for()
    with caplog.at_level(logging.WARNING, logger="server.db_router"):
        for _ in range(3):
            db_router.health._checked_at = float("-inf")  # each request looks at the replica again
            with queries_on("default") as on_primary:
                status, on_replica = get(anyone, "/api/tournaments")
            assert (status, on_replica) == (200, 0) and len(on_primary) > 0
    downs = [r.getMessage() for r in caplog.records if "replica down" in r.getMessage()]
    assert len(downs) == 1 and "OperationalError" in downs[0]


def test_a_replica_failing_in_the_middle_of_a_request_has_it_served_by_the_primary(replica_down, caplog):
    anyone = client_for()
    db_router.health.state = "ok"  # as it was when last looked at, a moment before it went
    db_router.health._checked_at = time.monotonic() + 3600
    with caplog.at_level(logging.WARNING, logger="server.db_router"):
        answer = anyone.get("/api/ratings/ten/leaderboard")
    assert answer.status_code == 200
    assert db_router.health.state == "down"
    assert any("replica down" in r.getMessage() for r in caplog.records)


def test_a_replica_that_answers_again_is_used_again(replica_down, caplog):
    anyone = client_for()
    assert get(anyone, "/api/tournaments")[1] == 0
    replica = connections[REPLICA]
    replica.settings_dict["PORT"] = connections["default"].settings_dict["PORT"]
    db_router.health._checked_at = float("-inf")
    with caplog.at_level(logging.WARNING, logger="server.db_router"):
        assert get(anyone, "/api/tournaments")[1] > 0
    assert any("replica back" in r.getMessage() for r in caplog.records)


@pytest.mark.processes
def test_without_database_replica_url_there_is_no_replica_router_or_middleware():
    base = {"DATABASE_URL": "postgres://u@h/db", "SECRET_KEY": "x" * 50}
    expression = "sorted(settings.DATABASES), settings.DATABASE_ROUTERS, any('db_router' in m for m in settings.MIDDLEWARE)"
    assert settings_in_a_fresh_process(base, expression).stdout.strip() == "['default', 'owner'] [] False"
    with_replica = settings_in_a_fresh_process({**base, "DATABASE_REPLICA_URL": "postgres://u@replica/db"}, expression)
    assert with_replica.stdout.strip() == "['default', 'owner', 'replica'] ['server.db_router.ReplicaRouter'] True"
