"""`python -m games.verify_file` as a person runs it: a real process, its exit status and its lines.

No database: the tool reads files only (the golden logs are real exports, committed).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from games.chain import canonical_time
from tests.games.worker import ROOT

pytestmark = pytest.mark.processes

GOLDEN = ROOT / "tests" / "fixtures" / "golden"


def verify(*args: str | Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "games.verify_file", *map(str, args)], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )


@pytest.fixture
def export(tmp_path) -> Path:
    """A copy of a real export to tamper with."""
    return Path(shutil.copy(GOLDEN / "the-game.jsonl", tmp_path / "match.jsonl"))


def rewritten(path: Path, number: int, change) -> None:
    """Line `number` (1-based) of the file, parsed, changed by `change`, written back."""
    lines = path.read_text(encoding="utf-8").splitlines()
    value = json.loads(lines[number - 1])
    change(value)
    lines[number - 1] = json.dumps(value)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_no_argument_is_a_usage_error_not_a_silent_success():
    """Prevents the old behaviour: no file named printed nothing and exited 0, which reads as 'verified'."""
    run = verify()
    assert run.returncode == 2 and run.stdout == ""
    assert "usage: python -m games.verify_file" in run.stderr and "FILE" in run.stderr


def test_help_explains_the_checks_and_what_the_hash_leaves_out():
    """Prevents `--help` from being taken for a file name (it was a FileNotFoundError traceback)."""
    run = verify("--help")
    assert run.returncode == 0 and "Traceback" not in run.stderr
    assert "seq, kind," in run.stdout and "actor and data" in run.stdout and "`created` time" in run.stdout
    assert "exit status: 0 when every file verified, 1" in run.stdout


def test_every_golden_export_verifies_with_exit_0_and_a_summary():
    run = verify(*sorted(GOLDEN.glob("*.jsonl")))
    assert run.returncode == 0, run.stderr
    assert run.stdout.count(": ok\n") == 4 and run.stdout.splitlines()[-1] == "verify_file: 4 of 4 files verified"


def test_a_folder_stands_for_the_match_files_in_it(tmp_path):
    for path in GOLDEN.glob("*.jsonl"):
        shutil.copy(path, tmp_path)
    run = verify(tmp_path)
    assert run.returncode == 0 and "4 of 4 files verified" in run.stdout


def test_an_altered_card_fails_with_exit_1_naming_the_file_the_line_and_the_hash(export):
    number = next(n for n, line in enumerate(export.read_text().splitlines(), 1) if '"type":"CardPlayed"' in line)
    rewritten(export, number, lambda e: e["data"].update(card=str(int(e["data"]["card"]) % 98 + 2)))
    run = verify(GOLDEN / "ten.jsonl", export)
    assert run.returncode == 1
    reason = f"line {number}: seq {number - 1}: hash does not match its content and the previous hash"
    assert run.stderr.strip() == f"{export}: FAILED: {reason}"
    assert run.stdout.splitlines()[-1] == "verify_file: 1 of 2 files verified, 1 failed"


def test_a_changed_time_in_a_version_1_file_still_verifies_because_its_hash_does_not_cover_created(export):
    """What the README says of chain version 1 (the golden files'): `created` is outside the hash,
    so such a file's times are the exporter's word."""
    rewritten(export, 5, lambda e: e.update(created="1999-01-01T00:00:00+00:00"))
    rewritten(export, 1, lambda h: h["players"][0].update(username="someone-else"))  # nor the header's names
    assert verify(export).returncode == 0


@pytest.fixture
def export_v2(tmp_path) -> Path:
    """A copy of a real export of chain version 2, to tamper with."""
    return Path(shutil.copy(GOLDEN / "chain-v2" / "the-game.jsonl", tmp_path / "match-v2.jsonl"))


def test_a_changed_time_in_a_version_2_file_fails_with_exit_1_naming_the_line_and_the_hash(export_v2):
    assert verify(export_v2).returncode == 0
    rewritten(export_v2, 5, lambda e: e.update(created=_one_microsecond_later(e["created"])))
    run = verify(export_v2)
    assert run.returncode == 1
    reason = "line 5: seq 4: hash does not match its content and the previous hash"
    assert run.stderr.strip() == f"{export_v2}: FAILED: {reason}"


def _one_microsecond_later(created: str) -> str:
    return canonical_time(datetime.fromisoformat(created) + timedelta(microseconds=1))


def test_a_missing_file_an_empty_folder_and_bytes_that_are_not_text_each_fail_with_one_line(tmp_path, export):
    (tmp_path / "empty").mkdir()
    (tmp_path / "bytes.jsonl").write_bytes(b'{"format":\n\xff\xfe')
    run = verify(tmp_path / "nope.jsonl", tmp_path / "empty", tmp_path / "bytes.jsonl", export)
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert run.stderr.splitlines() == [
        f"{tmp_path / 'nope.jsonl'}: FAILED: cannot be read: No such file or directory",
        f"{tmp_path / 'empty'}: FAILED: a folder with no .jsonl files in it",
        f"{tmp_path / 'bytes.jsonl'}: FAILED: line 2: the file is not UTF-8 text",
    ]
    assert "verify_file: 1 of 4 files verified, 3 failed" in run.stdout


def test_a_file_that_is_not_an_export_fails_on_line_1(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("hello\n")
    run = verify(path)
    assert run.returncode == 1 and run.stderr.strip() == f"{path}: FAILED: line 1: not valid JSON"
