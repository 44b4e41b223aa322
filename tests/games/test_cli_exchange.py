"""`manage.py export_matches` and `import_matches` as an operator runs them: help, errors, a round trip.

Two servers are two sets of users: server A's people and matches exist only inside a rolled-back
transaction (as in test_exchange.py); what its export wrote is then imported by server B.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction

from games.models import Match
from ratings.models import RatingEntry
from ratings.services import match_rate
from tests.conftest import make_user
from tests.games import worker
from tests.games.builders import finished_match
from tests.games.worker import ROOT

pytestmark = pytest.mark.django_db


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT), **env),
        capture_output=True, text=True, timeout=120,
    )


def server_a_export(folder, settings) -> list[int]:
    """Server A (EXPORT_SERVER_NAME a.example.org): ann and ben finish two rated matches, exported by
    the command into `folder`; then A is gone: this database is as it was before."""
    settings.EXPORT_SERVER_NAME = "a.example.org"
    with transaction.atomic():
        ann, ben = make_user("ann"), make_user("ben")
        ids = [finished_match("the-game", [ann, ben], seed=seed).pk for seed in (1, 2)]
        call_command("export_matches", str(folder), verbosity=0, stdout=io.StringIO())
        transaction.set_rollback(True)
    assert not Match.objects.exists()
    return ids


@pytest.mark.processes
def test_import_help_documents_as_and_says_imported_matches_are_not_rated():
    run = manage("import_matches", "--help")
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "--as USERNAME" in text and "recorded as the one who imported the matches" in text
    assert "stored finished and unrated" in text and "guests name@server" in text


@pytest.mark.processes
def test_export_help_documents_every_option_and_where_the_files_go():
    run = manage("export_matches", "--help")
    assert run.returncode == 0, run.stderr
    text = " ".join(run.stdout.split())
    assert "--match ID" in text and "repeat for several" in text and "export only this game's matches" in text
    assert "OUT/match-<id>.jsonl" in text and "python -m games.verify_file OUT" in text and "unrated" in text


def test_an_unknown_as_user_is_one_line_and_writes_nothing(tmp_path, settings, alice):
    server_a_export(tmp_path, settings)
    with pytest.raises(CommandError) as refused:
        call_command("import_matches", str(tmp_path), "--as", "nobody", stdout=io.StringIO())
    assert str(refused.value) == "--as nobody: no such user here; name an existing account (nothing was imported)"
    assert not Match.objects.exists()


def test_without_as_and_without_a_superuser_the_command_says_to_name_one(tmp_path, settings, alice):
    """Prevents the embedded default's first import from failing with no hint: it has no superuser."""
    server_a_export(tmp_path, settings)
    with pytest.raises(CommandError, match="no superuser exists here: name the importing account with --as USERNAME"):
        call_command("import_matches", str(tmp_path), stdout=io.StringIO())
    assert not Match.objects.exists()


def test_a_missing_path_stops_the_import_before_any_file_is_stored(tmp_path, settings, alice):
    server_a_export(tmp_path, settings)
    with pytest.raises(CommandError, match="no such file or folder"):
        call_command("import_matches", str(tmp_path), str(tmp_path / "nope.jsonl"), "--as", "alice", stdout=io.StringIO())
    assert not Match.objects.exists()


@pytest.mark.postgres
@pytest.mark.processes
def test_the_real_command_answers_a_bad_user_or_path_with_one_line_and_exit_1(tmp_path):
    """Prevents tracebacks on an operator's mistakes: the process prints one line and exits 1."""
    (tmp_path / "m.jsonl").write_text("{}\n")
    missing = tmp_path / "nope.jsonl"
    for args, line in [
        (["--as", "nobody"], "CommandError: --as nobody: no such user here; name an existing account (nothing was imported)"),
        ([str(missing), "--as", "nobody"], f"CommandError: {missing}: no such file or folder (nothing was imported)"),
    ]:
        run = manage("import_matches", str(tmp_path / "m.jsonl"), *args, DATABASE_URL=worker.test_database_url())
        assert (run.returncode, [out for out in run.stderr.splitlines() if not out.startswith('{"time"')]) == (1, [line])


def test_export_names_a_match_it_cannot_export_and_writes_nothing(tmp_path, alice, bob):
    match = finished_match("the-game", [alice, bob])
    with pytest.raises(CommandError, match=f"match {match.pk + 1}: not a finished match here"):
        call_command("export_matches", str(tmp_path), "--match", str(match.pk), "--match", str(match.pk + 1), verbosity=0)
    assert not list(tmp_path.iterdir())
    with pytest.raises(CommandError, match="cannot create the folder"):
        (tmp_path / "a-file").write_text("")
        call_command("export_matches", str(tmp_path / "a-file" / "out"), verbosity=0)


@pytest.mark.processes
def test_a_round_trip_from_server_a_to_server_b_stores_unrated_matches_of_guests_and_says_so(tmp_path, settings, carol):
    server_a_export(tmp_path, settings)
    ann_here = make_user("ann")  # server B's own ann: not the ann who played on A
    files = sorted(tmp_path.glob("*.jsonl"))
    assert len(files) == 2
    checked = subprocess.run(
        [sys.executable, "-m", "games.verify_file", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120,
    )
    assert checked.returncode == 0 and "2 of 2 files verified" in checked.stdout
    forged = tmp_path / "forged.jsonl"
    lines = files[0].read_text().splitlines()
    header = json.loads(lines[0])
    header["outcome"]["won"] = not header["outcome"]["won"]
    forged.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")

    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(SystemExit) as exited:
        call_command("import_matches", str(tmp_path), "--as", "carol", stdout=out, stderr=err)
    assert exited.value.code == 1
    assert err.getvalue() == f"{forged}: refused: line 1: the header's outcome is not the replayed one\n"
    imported = Match.objects.order_by("pk")
    assert [line.split(": ", 1)[1] for line in out.getvalue().splitlines()[:2]] == [
        f"imported as match {match.pk}, unrated, seats ann@a.example.org, ben@a.example.org" for match in imported
    ]
    assert "import_matches: 2 imported, 1 refused" in out.getvalue()
    assert "Imported matches are stored finished and unrated: they were played on another server" in out.getvalue()
    for match in imported:
        assert not match.rated and match.created_by == carol and match_rate(match_id=match.pk) == 0
        assert [s.user for s in match.seat_set.all()] == [None, None]
    assert not RatingEntry.objects.exists() and not ann_here.seat_set.exists()
