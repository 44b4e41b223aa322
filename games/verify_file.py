"""Checks exported match files without a server or a database: `python -m games.verify_file FILE...`.

For each file: the hash chain, the shuffle against the revealed seed and its published
SHA-256, and every move replayed through the game's engine. Exits 0 only when every file
given verifies, 1 when any fails, 2 on a usage error (argparse's code, e.g. no file named).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from games.verification import FileRefused, parse_match_file, verify_file_contents

_DESCRIPTION = """\
Verify exported match files (from `manage.py export_matches` or GET /api/matches/<id>/export)
with no server and no database. For each file it checks that the events are numbered 1, 2, 3...
without gaps, that every event's hash is sha256(previous hash + canonical JSON of the fields its
chain version covers) and the last one is the header's final_hash, that the shuffle follows from
the revealed seed whose SHA-256 was published at the start, that every move replayed through the
game's engine causes exactly the stored events, and that the recorded outcome is the replayed one.

The header's chain names the version: 2 covers seq, kind, type, actor, data and created (each
event's time, written 2026-12-03T10:22:32.123456Z); 1 (and a file of format 1, with no chain)
covers seq, kind, actor and data only, so there each event's `created` time is not covered.
The header line is not hashed: game, events, final_hash and outcome are checked against the
events; players (the names), source, rated and engine_version are the exporting server's word,
which no check here proves."""

_EPILOG = """\
exit status: 0 when every file verified, 1 when any file failed (one line each on stderr,
with the file's line number and the reason), 2 on a usage error."""


def verify_file(path: str) -> str | None:
    """None when the file verifies, else the first problem with its line."""
    if Path(path).is_dir():
        return "a folder with no .jsonl files in it"
    try:
        content = Path(path).read_bytes()
    except OSError as exc:
        return f"cannot be read: {exc.strerror or exc}"
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = content[: exc.start].count(b"\n") + 1
        return f"line {line}: the file is not UTF-8 text"
    try:
        header, events, _ = parse_match_file(text.splitlines())
    except FileRefused as exc:
        return str(exc)
    report = verify_file_contents(header, events)
    if not report.ok:
        return f"line {report.first_line()}: {report.problems[0]}"
    return None


def _files(paths: list[str]) -> list[str]:
    """The paths given, a folder standing for the `.jsonl` files in it (what export_matches writes)."""
    files = []
    for path in paths:
        in_folder = sorted(str(f) for f in Path(path).glob("*.jsonl")) if Path(path).is_dir() else []
        files += in_folder or [path]  # an empty folder stays, to be reported as verifying nothing
    return files


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m games.verify_file", description=_DESCRIPTION, epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="+", metavar="FILE", help="a match file (.jsonl), or a folder: every .jsonl file in it"
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    paths = _parser().parse_args(argv).paths
    failed = 0
    files = _files(paths)
    for path in files:
        problem = verify_file(path)
        if problem is None:
            print(f"{path}: ok")
        else:
            failed += 1
            print(f"{path}: FAILED: {problem}", file=sys.stderr)
    print(f"verify_file: {len(files) - failed} of {len(files)} files verified" + (f", {failed} failed" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
