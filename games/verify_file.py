"""Checks exported match files without a server or a database: `python -m games.verify_file FILE...`.

For each file: the hash chain, the shuffle against the revealed seed and its published
SHA-256, and every move replayed through the game's engine. Exits 1 if any file fails.
"""
from __future__ import annotations

import sys

from games.verification import FileRefused, parse_match_file, verify_file_contents


def verify_file(path: str) -> str | None:
    """None when the file verifies, else the first problem with its line."""
    with open(path, encoding="utf-8") as lines:
        try:
            header, events, _ = parse_match_file(lines)
        except FileRefused as exc:
            return str(exc)
    report = verify_file_contents(header, events)
    if not report.ok:
        return f"line {report.first_line()}: {report.problems[0]}"
    return None


def main(paths: list[str]) -> int:
    failed = 0
    for path in paths:
        problem = verify_file(path)
        print(f"{path}: {'ok' if problem is None else problem}")
        failed += problem is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
