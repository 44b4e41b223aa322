"""The log's mirror (LOG_MIRROR_DIR) is its high-water mark: every checkpoint is in it before it
can be served, a database behind it is brought back up from its tiles, and a database that cannot
be publishes nothing. A batch whose commit never happened stands in here for a restore (the
database rolls back below what the mirror holds; the process tests restore real dumps)."""
from __future__ import annotations

import json
import shutil

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction
from django.test import Client

from games.models import Match
from leaguelog import selectors, services, tiles
from leaguelog.__main__ import folder_fetch
from leaguelog.checkpoint import Checkpoint
from leaguelog.cosignature import cosignature_line
from leaguelog.mirror import CHECKPOINT, CHECKPOINT_NEXT, LogMirror, MirrorError
from leaguelog.models import LogCheckpoint, LogCosignature, LogEntry, LogHead
from leaguelog.notes import (
    ED25519_COSIGNATURE,
    generate_signer_key,
    parse_note,
    parse_signer_key,
    parse_verifier_key,
    verifier_key_for,
)
from leaguelog.tasks import log_integrate_task
from leaguelog.verify import verify_league
from server.errors import ApplicationError
from tests.games.builders import finished_match

pytestmark = pytest.mark.django_db

WITNESS = parse_signer_key(generate_signer_key("witness.example", ED25519_COSIGNATURE))


class Rollback(Exception):
    pass


@pytest.fixture
def mirror(settings, tmp_path) -> LogMirror:
    settings.LOG_MIRROR_DIR = tmp_path / "mirror"
    settings.LOG_WITNESSES = [WITNESS.verifier().encode()]
    return LogMirror(settings.LOG_MIRROR_DIR)


def log_key():
    return parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))


def mark(mirror: LogMirror, name: str = CHECKPOINT) -> Checkpoint:
    body, _signatures = parse_note(mirror.note(name))
    return Checkpoint.parse(body)


def integrated_and_rolled_back(players) -> int:
    """Logs a batch whose transaction then rolls back: the mirror keeps what the database lost.
    Returns the size the mirror's `checkpoint.next` names."""
    with pytest.raises(Rollback), transaction.atomic():
        finished_match("ten", players)
        finished_match("ten", players)
        services.log_integrate()
        raise Rollback
    return LogHead.objects.get().size + 2


def cosigned(size: int) -> None:
    body, _ = parse_note(LogCheckpoint.objects.get(size=size).note)
    services.cosignature_add(size=size, line=cosignature_line(body, WITNESS, 1_700_000_000))


def test_each_checkpoint_is_mirrored_with_its_tiles_and_verifies(mirror, alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(3):
            finished_match("ten", [alice, bob])
            services.log_integrate()
    assert mark(mirror).size == 3 and mirror.note(CHECKPOINT_NEXT) is None
    assert mirror.note(CHECKPOINT) == selectors.checkpoint_served(selectors.checkpoint_latest())
    summary = verify_league(folder_fetch(mirror.root), log_key=log_key(), check_matches=False)
    assert summary.size == 3 and summary.matches == 3
    sources = json.loads((mirror.root / "sources/000.p/3").read_text())
    assert sources == [["match", pk, 0] for pk in Match.objects.order_by("finished_at", "pk").values_list("pk", flat=True)]


def test_a_witness_cosignature_is_kept_with_the_mark(mirror, alice, bob, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        finished_match("ten", [alice, bob])
        services.log_integrate()
        cosigned(1)
    assert mirror.note(CHECKPOINT) == selectors.checkpoint_served(LogCheckpoint.objects.get(size=1))
    assert f"— {WITNESS.name} " in mirror.note(CHECKPOINT)


def test_a_database_behind_the_mirror_is_recovered_from_its_tiles_with_the_cosignatures(mirror, alice, bob):
    services.log_integrate()
    size = integrated_and_rolled_back([alice, bob])
    shutil.copy(mirror.root / CHECKPOINT_NEXT, mirror.root / CHECKPOINT)  # as if it was published
    body, _ = parse_note(mirror.note(CHECKPOINT))
    line = cosignature_line(body, WITNESS, 1_700_000_000)
    (mirror.root / CHECKPOINT).write_text(mirror.note(CHECKPOINT) + line)
    assert LogHead.objects.get().size == 0
    assert Client().get("/log/checkpoint").json()["error"]["code"] == "log_behind_mirror"

    assert services.log_recover() == size
    recovered = LogCheckpoint.objects.get(size=size)
    assert LogCosignature.objects.get(checkpoint=recovered).line == line
    assert Client().get("/log/checkpoint").content.decode() == mirror.note(CHECKPOINT)
    assert mirror.note(CHECKPOINT_NEXT) is None
    assert verify_league(folder_fetch(mirror.root), log_key=log_key(), check_matches=False).size == size


def test_recovered_ids_are_never_given_again_and_new_facts_are_logged(mirror, alice, bob):
    """Regression: a match made after the recovery with the id of a lost one was taken for logged."""
    services.log_integrate()
    integrated_and_rolled_back([alice, bob])
    entries = tiles.parse_entry_bundle(mirror.read("tile/entries/000.p/2"), 2)
    lost = [json.loads(entry)["match"] for entry in entries]
    assert not Match.objects.filter(pk__in=lost).exists()
    services.log_integrate()
    assert LogHead.objects.get().size == 2
    newer = finished_match("ten", [alice, bob])
    assert newer.pk > max(lost)
    services.log_integrate()
    assert LogEntry.objects.filter(kind="match", source_id=newer.pk).exists()


def test_without_the_tiles_it_refuses_loudly_and_publishes_nothing(mirror, alice, bob, caplog):
    services.log_integrate()
    integrated_and_rolled_back([alice, bob])
    shutil.copy(mirror.root / CHECKPOINT_NEXT, mirror.root / CHECKPOINT)
    shutil.rmtree(mirror.root / "tile" / "entries")
    before = list(LogCheckpoint.objects.values_list("size", flat=True))
    with pytest.raises(ApplicationError) as refused:
        services.log_integrate()
    assert refused.value.code == "log_behind_mirror"
    assert "league log: log_behind_mirror" in caplog.text and caplog.records[-1].levelname == "ERROR"
    assert log_integrate_task() == 0  # beat's task says it and goes on ticking
    assert list(LogCheckpoint.objects.values_list("size", flat=True)) == before
    answer = Client().get("/log/checkpoint")
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "log_behind_mirror"
    ready = Client().get("/readyz")
    assert ready.status_code == 503 and ready.json()["checks"]["league_log"] == "error: log_behind_mirror"


@pytest.mark.parametrize("mirrored", ["another tree of its size", "a note it did not sign"])
def test_a_mirror_of_another_history_is_refused(mirror, alice, bob, mirrored, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        finished_match("ten", [alice, bob])
        services.log_integrate()
    forged = services.checkpoint_note(1, b"\x01" * 32)
    if mirrored == "a note it did not sign":
        forged = mirror.note(CHECKPOINT).replace("\n1\n", "\n7\n", 1)
    (mirror.root / CHECKPOINT).write_text(forged)
    answer = Client().get("/log/checkpoint")
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "log_mirror_disagrees"
    with pytest.raises(ApplicationError) as refused:
        services.log_integrate()
    assert refused.value.code == "log_mirror_disagrees"


def test_a_tile_is_never_rewritten_with_other_bytes(tmp_path):
    mirror = LogMirror(tmp_path)
    mirror.write_once("tile/0/000.p/1", b"a" * 32)
    mirror.write_once("tile/0/000.p/1", b"a" * 32)
    with pytest.raises(MirrorError, match="two histories"):
        mirror.write_once("tile/0/000.p/1", b"b" * 32)


def test_a_copy_of_the_tiles_alone_recovers_too(mirror, alice, bob):
    """A verifier's or a cache's copy has no `sources/`: the rows are named from the entries."""
    services.log_integrate()
    size = integrated_and_rolled_back([alice, bob])
    shutil.rmtree(mirror.root / "sources")
    assert services.log_recover() == size
    logged = list(LogEntry.objects.order_by("index").values_list("kind", "source_id"))
    assert logged == [("match", json.loads(entry)["match"]) for entry in tiles.parse_entry_bundle(
        mirror.read("tile/entries/000.p/2"), 2)]


def test_a_batch_the_mirror_cannot_take_is_not_committed(mirror, alice, bob):
    services.log_integrate()
    finished_match("ten", [alice, bob])
    mirror.write_once("tile/entries/000.p/1", b"\x00\x01x")  # another history's bundle at that path
    with pytest.raises(ApplicationError) as refused:
        services.log_integrate()
    assert refused.value.code == "log_mirror_disagrees" and "two histories" in refused.value.extra["detail"]
    assert LogHead.objects.get().size == 0 and not LogEntry.objects.exists()


def test_restore_check_recovers_names_the_lost_and_warns_without_a_mark(mirror, alice, bob, settings, capsys):
    services.log_integrate()
    finished_match("ten", [alice, bob])
    services.log_integrate()
    integrated_and_rolled_back([alice, bob])
    call_command("restore_check")
    out = capsys.readouterr().out
    assert "2 log entries recovered" in out and "2 logged matches lost from the event store" in out
    assert "verify_league: ok: 3 entries" in out and "1 exports replayed" in out and "WARNING" not in out
    settings.LOG_MIRROR_DIR = None
    call_command("restore_check")
    assert "WARNING: no mark in a log mirror" in capsys.readouterr().out


def test_restore_check_fails_loudly_when_the_log_cannot_come_back(mirror, alice, bob, capsys):
    services.log_integrate()
    integrated_and_rolled_back([alice, bob])
    shutil.rmtree(mirror.root / "tile" / "entries")
    with pytest.raises(SystemExit) as exited:
        call_command("restore_check")
    assert exited.value.code == 1 and "REFUSED: log_behind_mirror" in capsys.readouterr().err


def test_backup_and_restore_say_they_need_postgresql(db, tmp_path):
    if connection.vendor == "postgresql":
        pytest.skip("the embedded SQLite default's refusal")
    for command in ("backup", "restore"):
        with pytest.raises(CommandError, match="pg_dump and pg_restore"):
            call_command(command, str(tmp_path / "backup"))
    assert not (tmp_path / "backup").exists()
