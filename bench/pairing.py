"""Pairing speed: a Swiss round of 1,000 and 10,000 players, and a 1,024-player double elimination.

Each Swiss field first plays a few simulated rounds (random finishing orders, draws at
two-player tables) so score groups, rematch and seat constraints are real; then the
next round is paired `--repeats` times and the fastest time is reported, with how
many tables it made and how many of them repeat an earlier meeting.
Run: `python -m bench.pairing [--played 4] [--repeats 3] [--sizes 1000 10000]`.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import best_of, print_table  # noqa: E402
from tournaments.formats import FORMATS, History, Result, Table, result  # noqa: E402
from tournaments.formats.base import play  # noqa: E402
from tournaments.formats.double_elimination import double_elimination_bracket  # noqa: E402


def random_outcome(seed: int):
    rng = random.Random(seed)

    def outcome(number: int, table: Table) -> Result:
        if len(table.seats) == 2:
            ranks = rng.choice([[1, 2], [2, 1], [1, 1]])
        else:
            ranks = rng.sample(range(1, len(table.seats) + 1), len(table.seats))
        return result(number, *table.seats, ranks=ranks, match=table.match)
    return outcome


def swiss_case(players: int, table_size: int, played: int, repeats: int) -> list[object]:
    slug = "swiss" if table_size == 2 else "swiss-tables"
    options = {"rounds": played + 1}
    if table_size > 2:
        options.update(table_size=table_size, min_players=2, max_players=table_size + 1)
    ids = list(range(players))
    start = time.perf_counter()
    _, history = play(FORMATS[slug], ids, {**options, "rounds": played}, random_outcome(players))
    simulated = time.perf_counter() - start
    pairing = FORMATS[slug].next_round(ids, options, history)
    seconds = best_of(repeats, lambda: FORMATS[slug].next_round(ids, options, history))
    return [slug, f"{players:,}", table_size, played + 1, len(pairing.tables), _repeats(pairing, history),
            seconds * 1000, simulated]


def _repeats(pairing, history: History) -> int:
    met = set()
    for res in history.results:
        met.update(frozenset(pair) for pair in _pairs(res.seats))
    return sum(1 for table in pairing.tables if any(frozenset(pair) in met for pair in _pairs(table.seats)))


def _pairs(seats: Sequence) -> list[tuple]:
    return [(a, b) for i, a in enumerate(seats) for b in seats[i + 1:]]


def elimination_rows(players: int, repeats: int) -> list[list[object]]:
    fmt = FORMATS["double-elimination"]
    ids = list(range(players))
    build = best_of(repeats, lambda: double_elimination_bracket(players))
    resolve = best_of(repeats, lambda: fmt.bracket(ids))
    first = best_of(repeats, lambda: fmt.next_round(ids))
    start = time.perf_counter()
    rounds, history = play(fmt, ids, None, random_outcome(players))
    whole = time.perf_counter() - start
    return [
        ["build the bracket (2,047 matches)", build * 1000],
        ["resolve it, no results", resolve * 1000],
        ["pair round 1", first * 1000],
        [f"play it out: {len(rounds)} rounds, {len(history.results):,} matches (ms per round)",
         whole * 1000 / len(rounds)],
    ]


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--played", type=int, default=4, help="simulated rounds before the timed one")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args(argv)
    rows = [swiss_case(players, table_size, args.played, args.repeats)
            for players in args.sizes for table_size in (2, 4)]
    print_table("Pairing one Swiss round (fastest of repeats)",
                ["format", "players", "table", "round", "tables", "repeat tables", "ms", "simulating (s)"],
                rows)
    print_table("Double elimination, 1,024 players", ["step", "ms"], elimination_rows(1024, args.repeats))


if __name__ == "__main__":
    main(sys.argv[1:])
