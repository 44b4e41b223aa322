"""A backup taken before a cosigned checkpoint, restored, never makes the log publish less: with the
log's mirror the restore recovers the lost entries and the league verifies; without its tiles the
server refuses, loudly, and publishes nothing a witness could take for a fork.

`manage.py backup` and `restore` run as processes (pg_dump, pg_restore) on databases of their own;
the restored server is a real uvicorn process on the runtime role, as in production.
"""
from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from leaguelog import selectors, services
from leaguelog.mirror import CHECKPOINT
from leaguelog.notes import (
    ED25519_COSIGNATURE,
    generate_signer_key,
    parse_signer_key,
    parse_verifier_key,
    verifier_key_for,
)
from leaguelog.witness import ForkError, Witnessed, witness_checkpoint
from tests.games.builders import finished_match
from tests.games.servers import uvicorn_servers
from tests.games.worker import ROOT, RUNTIME_ROLE

pytestmark = [pytest.mark.postgres, pytest.mark.processes, pytest.mark.django_db(transaction=True)]

WITNESS = parse_signer_key(generate_signer_key("witness.example", ED25519_COSIGNATURE))
_TIMEOUT = 300


def cosign(last: Witnessed | None) -> Witnessed:
    """What `manage.py log_witness` does, against this process's server: check the newest checkpoint
    extends the last one cosigned, cosign it and send the cosignature."""
    client = Client()

    def proof(old: int, new: int) -> list[bytes]:
        body = client.get("/api/log/proofs/consistency", {"old": old, "new": new}).json()
        return [base64.b64decode(h) for h in body["proof"]]

    witnessed, checkpoint, line = witness_checkpoint(
        client.get("/log/checkpoint").content.decode(), log_key=log_key(), witness=WITNESS, last=last,
        consistency_proof=proof, now=1_700_000_000,
    )
    assert line is not None
    assert client.post("/api/log/cosignatures", {"size": checkpoint.size, "cosignature": line},
                       content_type="application/json").status_code == 201
    return witnessed


def log_key():
    return parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))


def _superuser(dbname: str = "postgres") -> psycopg.Connection:
    db = connection.settings_dict
    return psycopg.connect(host=db["HOST"], port=db["PORT"], user=db["USER"], dbname=dbname, autocommit=True)


@contextmanager
def empty_database(name: str):
    with _superuser() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        cursor.execute(f"CREATE DATABASE {name}")
    try:
        yield name
    finally:
        with _superuser() as cursor:
            cursor.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def environment(dbname: str, mirror: Path) -> dict[str, str]:
    """A server's settings on `dbname`: the runtime role serves, the owner (the suite's superuser) dumps and restores."""
    db = connection.settings_dict
    at = f"{db['HOST']}:{db['PORT']}/{dbname}"
    return {**os.environ, "DATABASE_URL": f"postgres://{RUNTIME_ROLE}@{at}", "MIGRATE_DATABASE_URL": f"postgres://{db['USER']}@{at}",
            "LOG_MIRROR_DIR": str(mirror), "LOG_WITNESSES": WITNESS.verifier().encode(),
            "LOG_SIGNING_KEY": settings.LOG_SIGNING_KEY, "REDIS_URL": settings.REDIS_URL or ""}


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=_TIMEOUT)


def rows(dbname: str, query: str) -> list[tuple]:
    with _superuser(dbname) as db:
        return db.execute(query).fetchall()


@pytest.fixture
def league_backed_up_then_grown(settings, tmp_path, alice, bob):
    """Two matches logged and cosigned, a backup, two more logged and cosigned at 4 entries."""
    settings.LOG_MIRROR_DIR = tmp_path / "mirror"
    settings.LOG_WITNESSES = [WITNESS.verifier().encode()]
    for _ in range(2):
        finished_match("ten", [alice, bob])
    services.log_integrate()
    witnessed = cosign(None)
    backup = tmp_path / "backup"
    done = manage(environment(connection.settings_dict["NAME"], settings.LOG_MIRROR_DIR), "backup", str(backup))
    assert done.returncode == 0, done.stderr
    assert "the log's mirror at 2 entries" in done.stdout
    lost = [finished_match("ten", [alice, bob]).pk for _ in range(2)]
    services.log_integrate()
    witnessed = cosign(witnessed)
    assert witnessed.size == 4
    published = selectors.checkpoint_served(selectors.checkpoint_latest())
    assert settings.LOG_MIRROR_DIR.joinpath(CHECKPOINT).read_text() == published  # cosignature included
    return backup, settings.LOG_MIRROR_DIR, witnessed, lost


def test_with_the_mirror_a_restore_recovers_the_cosigned_entries_and_verifies(league_backed_up_then_grown, alice, bob):
    backup, mirror, witnessed, lost = league_backed_up_then_grown
    with empty_database("helper_backup_restored") as dbname:
        env = environment(dbname, mirror)
        done = manage(env, "restore", str(backup))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "2 log entries recovered from the mirror" in done.stdout
        assert f"2 logged matches lost from the event store (played after the backup; their log entries stay): {lost}" \
            in done.stdout
        assert "verify_events: 2 matches checked" in done.stdout
        assert "verify_league: ok: 4 entries" in done.stdout
        assert rows(dbname, "SELECT max(size) FROM leaguelog_logcheckpoint") == [(4,)]
        assert rows(dbname, "SELECT count(*) FROM leaguelog_logcosignature c JOIN leaguelog_logcheckpoint p "
                            "ON p.id = c.checkpoint_id WHERE p.size = 4") == [(1,)]
        assert rows(dbname, "SELECT count(*) FROM games_match") == [(2,)]
        with uvicorn_servers(1, database_url=env["DATABASE_URL"], **_server_settings(env)) as (base,):
            note = httpx.get(f"{base}/log/checkpoint", timeout=10).text
            # The witness that cosigned 4 entries sees the same tree: nothing new, no fork.
            assert witness_checkpoint(note, log_key=log_key(), witness=WITNESS, last=witnessed,
                                      consistency_proof=_no_proof, now=1_700_000_001)[2] is None
        # Play goes on: a new match gets an id none of the lost ones had, and is logged after them.
        played = manage(env, "shell", "-c", _NEW_MATCH)
        assert played.returncode == 0, played.stderr
        new_match = int(played.stdout.split()[-1])
        assert new_match > max(lost)
        assert rows(dbname, f"SELECT index FROM leaguelog_logentry WHERE kind = 'match' AND source_id = {new_match}") == [(4,)]
        again = manage(env, "restore_check")
        assert again.returncode == 0, again.stdout + again.stderr
        assert "0 log entries recovered" in again.stdout and "verify_league: ok: 5 entries" in again.stdout


_NEW_MATCH = """
from accounts.models import User
from leaguelog.services import log_integrate
from tests.games.builders import finished_match
match = finished_match("ten", list(User.objects.filter(username__in=["alice", "bob"]).order_by("username")))
log_integrate()
print(match.pk)
"""


def test_without_the_mirror_tiles_the_restored_server_refuses_loudly_and_publishes_nothing(league_backed_up_then_grown, tmp_path):
    backup, mirror, witnessed, _lost = league_backed_up_then_grown
    mark_only = tmp_path / "mark-only"
    mark_only.mkdir()
    shutil.copy(mirror / CHECKPOINT, mark_only / CHECKPOINT)  # the mark survived, the tiles did not
    with empty_database("helper_backup_restored") as dbname:
        env = environment(dbname, mark_only)
        done = manage(env, "restore", str(backup))
        assert done.returncode == 1
        assert "REFUSED: log_behind_mirror" in done.stderr and "the mirror lacks tile/entries/000.p/4" in done.stderr
        assert rows(dbname, "SELECT max(size) FROM leaguelog_logcheckpoint") == [(2,)]
        with uvicorn_servers(1, database_url=env["DATABASE_URL"], **_server_settings(env)) as (base,):
            answer = httpx.get(f"{base}/log/checkpoint", timeout=10)
            assert answer.status_code == 503 and answer.json()["error"]["code"] == "log_behind_mirror"
            ready = httpx.get(f"{base}/readyz", timeout=10)
            assert ready.status_code == 503 and ready.json()["checks"]["league_log"] == "error: log_behind_mirror"
        assert rows(dbname, "SELECT max(size) FROM leaguelog_logcheckpoint") == [(2,)]
        # What the mark prevents: the same restore with no mirror serves the old checkpoint, a fork to the witness.
        with uvicorn_servers(1, database_url=env["DATABASE_URL"], **_server_settings(env, LOG_MIRROR_DIR="")) as (base,):
            note = httpx.get(f"{base}/log/checkpoint", timeout=10).text
        with pytest.raises(ForkError, match="shrank from 4 entries to 2"):
            witness_checkpoint(note, log_key=log_key(), witness=WITNESS, last=witnessed, consistency_proof=_no_proof,
                               now=1_700_000_001)


def test_backup_and_restore_refuse_what_they_must_not_touch(league_backed_up_then_grown, tmp_path):
    backup, mirror, _witnessed, _lost = league_backed_up_then_grown
    env = environment(connection.settings_dict["NAME"], mirror)
    not_empty = manage(env, "backup", str(backup))
    assert not_empty.returncode == 1 and "is not empty" in not_empty.stderr
    live = manage(env, "restore", str(backup))  # the test database is live: never restored over
    assert live.returncode == 1 and "restore into an empty one" in live.stderr
    assert rows(connection.settings_dict["NAME"], "SELECT max(size) FROM leaguelog_logcheckpoint") == [(4,)]
    missing = manage(env, "restore", str(tmp_path / "nothing"))
    assert missing.returncode == 1 and "not a backup folder" in missing.stderr


def _server_settings(env: dict[str, str], **overrides: str) -> dict[str, str]:
    names = ("LOG_MIRROR_DIR", "LOG_WITNESSES", "LOG_SIGNING_KEY")
    return {**{name: env[name] for name in names}, **overrides}


def _no_proof(old: int, new: int) -> list[bytes]:
    raise AssertionError(f"no consistency proof is needed from {old} to {new}")
