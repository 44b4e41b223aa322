"""Small helpers for the benchmarks: timing, percentiles, a proportion's interval, a printed table,
and the servers' own loop figures."""
from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from leaguelog.notes import generate_signer_key

# The benchmarks run the production settings (DATABASE_URL, DEBUG off), which require the league
# log's key; each run, and every server process it starts, signs with a throwaway one.
os.environ.setdefault("LOG_SIGNING_KEY", generate_signer_key("bench.card-league.invalid"))

# How docker/Dockerfile runs the server (per-message deflate off: see there), so the benchmarks
# measure what production runs. Access lines are off here; the JSON request log stays on.
UVICORN_OPTIONS = ["--ws-per-message-deflate", "false", "--no-access-log", "--log-level", "warning"]


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """The fastest of `repeats` runs, in seconds (the least disturbed by the rest of the machine)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes may be fractional: see bench/seats.py)."""
    if n == 0:
        return 0.0, 0.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)  # at p = 0 or 1, rounding strays past


def print_table(title: str, header: list[str], rows: list[list[object]]) -> None:
    cells = [header] + [
        [f"{c:,.0f}" if isinstance(c, float) and c >= 100 else (f"{c:.2f}" if isinstance(c, float) else str(c)) for c in r]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    print(f"\n## {title}\n")
    print("| " + " | ".join(h.ljust(w) for h, w in zip(cells[0], widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in cells[1:]:
        print("| " + " | ".join(c.rjust(w) for c, w in zip(row, widths)) + " |")


def in_child_process(module: str, argv: list[str]) -> dict:
    """Runs the bench `module` in a fresh interpreter with `--results FILE` and returns what it
    wrote there: it sets Django up on its own database, which must not become the database of the
    benchmarks that `python -m bench` runs after it."""
    with tempfile.TemporaryDirectory() as folder:
        results = Path(folder) / "results.json"
        child = subprocess.Popen(
            [sys.executable, "-m", module, *argv, "--results", str(results)],
            cwd=Path(__file__).resolve().parent.parent, stdout=subprocess.PIPE, text=True,
        )
        assert child.stdout is not None
        for line in child.stdout:  # through this process's stdout, so `python -m bench` keeps a copy
            print(line, end="", flush=True)
        if child.wait() != 0:
            raise SystemExit(f"{module} failed with exit status {child.returncode}")
        return json.loads(results.read_text())


@dataclass
class LoopFigures:
    """What servers' `server.loop_watch` wrote over a window: their loop's lag and the fast
    lane's group commits."""

    lag_p99_ms: float
    lag_max_ms: float
    commits: int
    claims: int
    largest_batch: int

    @property
    def batch_mean(self) -> float:
        return self.claims / self.commits if self.commits else float("nan")

    def lag_text(self) -> str:
        return f"{self.lag_p99_ms:.1f} / {self.lag_max_ms:.1f}"

    def batch_text(self) -> str:
        return f"{self.batch_mean:.1f} / {self.largest_batch}" if self.commits else "-"


def loop_figures(stats_dir: str | Path, start: float, stop: float) -> LoopFigures:
    """The figures of `LOOP_STATS_DIR` files between `start` and `stop` (wall-clock seconds):
    each process writes a line a second, the one covering `stop` up to a second later."""
    from server.loop_watch import stats_read

    lags, counts = stats_read(stats_dir, start, stop + 1.0)
    batches = counts.get("group_commit_batch", {})
    return LoopFigures(
        lag_p99_ms=percentile(lags, 0.99) if lags else float("nan"),
        lag_max_ms=max(lags, default=float("nan")),
        commits=sum(batches.values()),
        claims=sum(size * times for size, times in batches.items()),
        largest_batch=max(batches, default=0),
    )
