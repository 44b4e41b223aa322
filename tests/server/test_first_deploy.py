"""An operator's first day: docker/compose.yaml's `migrate` service, as processes, on a new database.

compose migrates with `manage.py migrate --database owner` and then runs `manage.py
db_runtime_role`, with DATABASE_URL naming the runtime role (absent on a new database) and
MIGRATE_DATABASE_URL the tables' owner. A data step that read through the default connection
failed on a new database ("role … does not exist") and, once the role existed, waited forever on
the lock its own migration held. Each test here has a database and a runtime role of its own,
made and dropped by the test, so nothing the suite set up hides either fault.
"""
from __future__ import annotations

import os
import random
import secrets
import subprocess
import sys
from contextlib import contextmanager

import httpx
import psycopg
import pytest
from django.conf import settings
from django.db import connection

from accounts.names import name_key
from tests.games.servers import uvicorn_servers
from tests.games.worker import ROOT

pytestmark = [pytest.mark.postgres, pytest.mark.processes,
              pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")]

# A migration that waits on a lock waits for ever: past this, the deploy is taken to hang.
_DEPLOY_TIMEOUT = 300


@contextmanager
def new_database():
    """An empty database and the name of a runtime role that does not exist yet; both dropped after."""
    suffix = os.environ.get("PYTEST_XDIST_WORKER", "main")
    name, role = f"cardleague_deploy_{suffix}", f"cardleague_deploy_runtime_{suffix}"
    def drop(cursor) -> None:
        cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        cursor.execute(f"DROP ROLE IF EXISTS {role}")

    with _as_superuser() as cursor:
        drop(cursor)
        cursor.execute(f"CREATE DATABASE {name}")
    try:
        yield name, role
    finally:
        with _as_superuser() as cursor:
            drop(cursor)


def _as_superuser() -> psycopg.Connection:
    """The suite's own role (a superuser, as compose's POSTGRES_USER is), outside any database of the test."""
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname="postgres", autocommit=True)


def compose_env(name: str, role: str) -> dict[str, str]:
    """The migrate service's environment: the server's URL names the runtime role, the
    migration's the owner (the suite's superuser, as POSTGRES_USER is compose's)."""
    db = connection.settings_dict
    at = f"{db['HOST']}:{db['PORT']}/{name}"
    return {**os.environ, "DATABASE_URL": f"postgres://{role}@{at}", "MIGRATE_DATABASE_URL": f"postgres://{db['USER']}@{at}"}


def manage(env: dict[str, str], *args: str) -> str:
    """One `manage.py` command as compose runs it; a failure shows its output, a hang fails too."""
    try:
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=_DEPLOY_TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"manage.py {' '.join(args)} hung: still running after {_DEPLOY_TIMEOUT} s")
    assert done.returncode == 0, f"manage.py {' '.join(args)} exited {done.returncode}: {done.stderr[-3000:]}"
    return done.stdout


def compose_migrate(env: dict[str, str]) -> None:
    """docker/compose.yaml's `migrate` service: its command, step by step."""
    manage(env, "migrate", "--database", "owner", "--noinput")
    manage(env, "db_runtime_role")


def play_a_match(base: str) -> dict:
    """Two people sign up, open a table of The Game, and play random legal moves to the end."""
    rng = random.Random(7)
    clients = []
    for name in ("ffion", "gwen"):
        signed_up = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": "a long enough passphrase"})
        assert signed_up.status_code == 201, signed_up.text
        clients.append(httpx.Client(base_url=base, headers={"Authorization": f"Token {signed_up.json()['token']}"}))
    created = clients[0].post("/api/matches", json={"game": "the-game", "players": 2, "rated": False})
    assert created.status_code == 201, created.text
    match_id = created.json()["id"]
    assert clients[1].post(f"/api/matches/{match_id}/join", json={}).status_code == 200
    assert clients[0].post(f"/api/matches/{match_id}/start").status_code == 200
    for _ in range(2000):
        views = [client.get(f"/api/matches/{match_id}/view").json() for client in clients]
        if views[0]["view"]["finished"]:
            return views[0]
        seat = rng.choice(views[0]["view"]["to_act"])
        move = {"move": rng.choice(views[seat]["legal_moves"]), "expected_seq": views[seat]["seq"]}
        answer = clients[seat].post(f"/api/matches/{match_id}/moves", json=move)
        assert answer.status_code == 200, answer.text
    raise AssertionError("the match did not end")


def test_compose_migrates_a_new_database_serves_a_match_as_the_runtime_role_and_deploys_again():
    with new_database() as (name, role):
        env = compose_env(name, role)
        compose_migrate(env)
        with uvicorn_servers(1, database_url=env["DATABASE_URL"]) as (base,):
            assert httpx.get(f"{base}/readyz", timeout=10).json()["checks"]["database"] == "ok"
            finished = play_a_match(base)
            assert finished["seq"] > 2
            served_as = _connected_roles(name)
        assert served_as == {role}
        # The next deploy of the same release, with the role there now: nothing to apply, no wait.
        compose_migrate(env)
        assert "No migrations to apply" in manage(env, "migrate", "--database", "owner", "--noinput")


def _connected_roles(name: str) -> set[str]:
    with _as_superuser() as admin:
        rows = admin.execute("SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = %s", [name]).fetchall()
    return {row[0] for row in rows}


# The schema of the release before the name keys and the per-entrant rows, and what its code
# wrote: two usernames one key apart (an older release allowed both) and a tournament whose
# projection kept every entrant's facts in one state document.
PREVIOUS_RELEASE = [("accounts", "0001_initial"), ("tournaments", "0003_event_refuses_truncate")]
_FILLED_BY_THE_PREVIOUS_RELEASE = """
import datetime
from django.db import connections
from django.db.migrations.executor import MigrationExecutor

db = "owner"
apps = MigrationExecutor(connections[db]).loader.project_state(%(release)r).apps
User = apps.get_model("accounts", "User")
Tournament, Entrant, Round, RoundTable, StandingRow, Projection = (
    apps.get_model("tournaments", name)
    for name in ("Tournament", "Entrant", "Round", "RoundTable", "StandingRow", "TournamentProjection")
)
alice = User.objects.using(db).create(username="Alice", display_name="Alice")
User.objects.using(db).create(username="alice", display_name="a l i c e")
tournament = Tournament.objects.using(db).create(
    name="Old Swiss", game="the-game", format="swiss", clock_seconds=60, seed=1, seed_sha256="0" * 64,
    organiser=alice, status="running",
)
first, second = (Entrant.objects.using(db).create(tournament=tournament, bot="random", name=name) for name in "AB")
Projection.objects.using(db).create(tournament=tournament, last_seq=3, state={
    "status": "running", "game": "the-game", "order": [second.pk, first.pk],
    "ratings": {str(first.pk): 27.5}, "withdrawn": {str(second.pk): 2}, "per_entrant_noise": [1, 2, 3],
})
new_year = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
played = Round.objects.using(db).create(tournament=tournament, number=1, starts_at=new_year)
RoundTable.objects.using(db).create(round=played, number=1, seats=[first.pk, second.pk], result={"team_score": 12})
for position, entrant in enumerate((first, second), start=1):
    StandingRow.objects.using(db).create(
        tournament=tournament, entrant=entrant, position=position, rank=position, points="1", played=1, wins=0,
        draws=0, losses=0, byes=0, forfeits=0, buchholz="0", sonneborn_berger="0",
    )
"""


def test_an_upgrade_from_the_previous_release_migrates_its_rows_as_the_owner_while_the_runtime_role_exists():
    with new_database() as (name, role):
        env = compose_env(name, role)
        for app, migration in PREVIOUS_RELEASE:
            manage(env, "migrate", "--database", "owner", "--noinput", app, migration)
        manage(env, "shell", "-c", _FILLED_BY_THE_PREVIOUS_RELEASE % {"release": PREVIOUS_RELEASE})
        with _as_superuser() as admin:  # the previous release's deploy made the role and granted it
            admin.execute(f"CREATE ROLE {role} LOGIN")
        with _in(name) as owner:
            owner.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
        compose_migrate(env)  # today's release: the data steps, with the runtime role able to connect
        with _in(name) as owner:
            users = owner.execute("SELECT username, username_key, display_key FROM accounts_user ORDER BY id").fetchall()
            entrants = owner.execute(
                "SELECT name, seed_order, seed_rating, withdrawn_from_round FROM tournaments_entrant ORDER BY id"
            ).fetchall()
            sums = owner.execute("SELECT team_score_sum FROM tournaments_standingrow ORDER BY id").fetchall()
            (state,) = owner.execute("SELECT state FROM tournaments_tournamentprojection").fetchone()
    key, second_id = name_key("Alice"), users[1][1].split("#")[1]
    assert users == [("Alice", key, key), ("alice", f"{key}#{second_id}", key)]  # the first keeps the key
    assert entrants == [("A", 2, 27.5, None), ("B", 1, None, 2)]
    assert sums == [(12.0,), (12.0,)]
    assert state == {"status": "running", "game": "the-game"}


def _in(name: str) -> psycopg.Connection:
    """The test database `name`, as its owner (the suite's superuser)."""
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=name, autocommit=True)


def test_check_deploy_is_clean_with_the_example_production_environment():
    """`.env.example` as an operator fills it in (a real secret key and signing key), with
    production's own settings module: Django's deployment checks find nothing."""
    example = dict(line.split("=", 1) for line in (ROOT / ".env.example").read_text().splitlines()
                   if line and not line.startswith("#"))
    db = connection.settings_dict
    env = {
        "PATH": os.environ["PATH"], **example, "DJANGO_SETTINGS_MODULE": "server.settings",
        "SECRET_KEY": secrets.token_urlsafe(50), "LOG_SIGNING_KEY": os.environ["LOG_SIGNING_KEY"],
        "DATABASE_URL": f"postgres://cardleague_app@{db['HOST']}:{db['PORT']}/cardleague",
        "REDIS_URL": settings.REDIS_URL,
    }
    checked = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT,
                             env=env, capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    assert "no issues" in checked.stdout
