"""`python -m bench` (`make bench`): every benchmark in turn, each figure beside its baseline.

Writes `bench/results.json` (what each benchmark returned and printed) and `bench/results.md`
(the tables), and puts them in the README. `--only NAME` runs some of them: the others keep
their last figures, each section saying when it was measured.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
README_START, README_END = "<!-- bench results: start -->", "<!-- bench results: end -->"
BENCHMARKS = [
    "engines", "bots", "bot_latency", "seats", "pairing", "fair_tables", "arena", "ratings", "rating_models", "moves", "live",
    "memory", "league", "log",
    "store_growth", "motion",
]


class Tee(io.TextIOBase):
    """Prints as usual and keeps a copy."""

    def __init__(self, *streams) -> None:
        self.streams = streams

    def write(self, text: str) -> int:
        for stream in self.streams:
            stream.write(text)
        return len(text)

    def flush(self) -> None:
        for stream in self.streams:
            stream.flush()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--only", action="append", choices=BENCHMARKS)
    args = parser.parse_args()
    path = HERE / "results.json"
    results = json.loads(path.read_text()) if path.exists() else {}
    results["machine"] = f"{platform.machine()}, Python {platform.python_version()}"
    for name in args.only or BENCHMARKS:
        copy = io.StringIO()
        started = time.perf_counter()
        with contextlib.redirect_stdout(Tee(sys.stdout, copy)):
            returned = importlib.import_module(f"bench.{name}").main([])
        results[name] = {
            "at": datetime.now(UTC).isoformat(timespec="seconds"),
            "seconds": round(time.perf_counter() - started, 1),
            "result": returned,
            "printed": copy.getvalue().strip(),
        }
        path.write_text(json.dumps(results, indent=1, default=str))  # a later benchmark may fail
    sections = [
        f"*{name}: measured {results[name]['at']}*\n\n{results[name]['printed']}"
        for name in BENCHMARKS if "printed" in results.get(name, {})
    ]
    report = f"Measured on {results['machine']}.\n\n" + "\n\n".join(sections) + "\n"
    (HERE / "results.md").write_text(report)
    readme_update(report)
    return 0


def readme_update(report: str) -> None:
    """Puts the latest tables in the README, between its two bench markers."""
    readme = HERE.parent / "README.md"
    text = readme.read_text()
    start, end = text.find(README_START), text.find(README_END)
    if start < 0 or end < start:
        return
    readme.write_text(text[: start + len(README_START)] + "\n" + report.replace("\n## ", "\n#### ") + text[end:])


if __name__ == "__main__":
    sys.exit(main())
