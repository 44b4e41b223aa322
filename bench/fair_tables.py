"""Fair tables: rematches, seat balance and score groups of whole Swiss tournaments.

The rows of issue #27: fields of 48 to 100 players at tables of 3 to 6 (and 64 at two-player
tables), `--tournaments` tournaments each, every table's finishing order drawn at random
(two-player games also draw). For each row, the project's pairer (`FORMATS["swiss-tables"]` /
`["swiss"]`) beside a baseline measured in the same run on the same results: the plain
Swiss cut, which seats the ranking in rank order, table after table, and ignores history.
Printed per row: rematches per tournament (mean, max), the worst spread of one player's
seat counts (most − fewest games in one seat, over the seats of the table size), the spread
of seat-0 counts across players, the mean score spread of a table (points, a table being
worth 0 to 1), the checker's findings (`tournaments.pairing_check`), and the slowest round's
pairing time. A last row pairs 10,000 players at tables of 4 for five rounds.
Run: `python -m bench.fair_tables [--tournaments 20] [--big 10000]`.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table  # noqa: E402
from tournaments import pairing_check  # noqa: E402
from tournaments.formats import FORMATS, History, Pairing, Result, Table, result  # noqa: E402
from tournaments.standings import points  # noqa: E402

ROWS = [(64, 4, 5), (60, 5, 5), (48, 3, 4), (100, 6, 7), (64, 2, 6)]


def options(table_size: int, rounds: int) -> dict:
    if table_size == 2:
        return {"rounds": rounds}
    return {"table_size": table_size, "min_players": table_size, "max_players": table_size, "rounds": rounds}


def slug_of(table_size: int) -> str:
    return "swiss" if table_size == 2 else "swiss-tables"


def rank_order_cut(entrants: list, opts: dict, history: History) -> Pairing | None:
    """The baseline: rank by points then seed, seat the ranking table after table, no memory."""
    fmt = FORMATS[slug_of(opts.get("table_size", 2))]
    number = history.last_round + 1
    if number > opts["rounds"]:
        return None
    scores = points(history, bye_points=fmt.bye_points(fmt.options(opts)))
    order = sorted(entrants, key=lambda p: (-scores.get(p, 0), p))
    size = opts.get("table_size", 2)
    seated = len(order) - len(order) % size
    return Pairing(number, tuple(Table(tuple(order[i:i + size])) for i in range(0, seated, size)),
                   tuple(order[seated:]))


def play(pair: Callable[[list, dict, History], Pairing | None], players: int, table_size: int, rounds: int,
         seed: int) -> tuple[list[tuple[History, Pairing]], History, float]:
    """A whole tournament: each round's (history before, pairing), the final history, the slowest pairing."""
    rng = random.Random(seed)
    entrants, opts = list(range(players)), options(table_size, rounds)
    history, played, slowest = History(), [], 0.0
    while True:
        start = time.perf_counter()
        pairing = pair(entrants, opts, history)
        slowest = max(slowest, time.perf_counter() - start)
        if pairing is None:
            return played, history, slowest
        played.append((history, pairing))
        history = history.with_round(pairing, [_outcome(rng, pairing.round, t) for t in pairing.tables])


def _outcome(rng: random.Random, number: int, table: Table) -> Result:
    if len(table.seats) == 2:
        return result(number, *table.seats, ranks=rng.choice([[1, 2], [2, 1], [1, 1]]))
    return result(number, *table.seats, ranks=rng.sample(range(1, len(table.seats) + 1), len(table.seats)))


def measures(played: list[tuple[History, Pairing]], final: History, table_size: int) -> dict:
    """Rematches, the worst player's seat spread, the seat-0 spread and the mean table score spread."""
    met: Counter = Counter()
    rematches, spreads = 0, []
    fmt = FORMATS[slug_of(table_size)]
    bye_points = fmt.bye_points(fmt.options(options(table_size, 1)))
    for before, pairing in played:
        score = points(before, bye_points=bye_points)
        for table in pairing.tables:
            pairs = [frozenset((a, b)) for i, a in enumerate(table.seats) for b in table.seats[i + 1:]]
            rematches += sum(1 for pair in pairs if met[pair])
            values = [score.get(p, 0) for p in table.seats]
            spreads.append(float(max(values) - min(values)))
        for table in pairing.tables:
            met.update(frozenset((a, b)) for i, a in enumerate(table.seats) for b in table.seats[i + 1:])
    counts: dict = {}
    for res in final.results:
        for seat, player in enumerate(res.seats):
            counts.setdefault(player, [0] * table_size)[seat] += 1
    firsts = [c[0] for c in counts.values()]
    return {
        "rematches": rematches,
        "seat_spread": max(max(c) - min(c) for c in counts.values()),
        "first_seat_spread": max(firsts) - min(firsts),
        "score_spread": sum(spreads) / len(spreads),
    }


def findings(played: list[tuple[History, Pairing]], final: History, table_size: int) -> int:
    """What the independent checker finds in the tournament's export."""
    export = {
        "export": "tournament-pairings", "version": 1, "format": slug_of(table_size),
        "options": options(table_size, len(played)),
        "entrants": [{"id": p, "rating": None, "entered": 1}
                     for p in sorted({p for _, pairing in played for p in (*pairing.players(), *pairing.byes)})],
        "withdrawn": {}, "disqualified": {},
        "rounds": [
            {"round": pairing.round, "byes": list(pairing.byes),
             "tables": [{"seats": list(res.seats), "ranks": list(res.ranks), "team_score": None, "forfeited": []}
                        for res in final.results if res.round == pairing.round]}
            for _, pairing in played
        ],
    }
    return sum(1 for finding in pairing_check.check_export(pairing_check.load_export(export)) if not finding.note)


def row(players: int, table_size: int, rounds: int, tournaments: int) -> tuple[list, list, dict]:
    fmt = FORMATS[slug_of(table_size)]
    ours, base, found, slowest = [], [], 0, 0.0
    for seed in range(tournaments):
        played, final, seconds = play(fmt.next_round, players, table_size, rounds, seed)
        ours.append(measures(played, final, table_size))
        found += findings(played, final, table_size)
        slowest = max(slowest, seconds)
        base_played, base_final, _ = play(rank_order_cut, players, table_size, rounds, seed)
        base.append(measures(base_played, base_final, table_size))
    label = f"{players} players, tables of {table_size}, {rounds} rounds"
    figures = {"label": label, "ours": _summary(ours), "baseline": _summary(base), "findings": found,
               "slowest_round_ms": slowest * 1000}
    return ([label, "pairer", *_cells(figures["ours"]), found, f"{slowest * 1000:.0f}"],
            ["", "rank-order cut", *_cells(figures["baseline"]), "", ""], figures)


def _summary(runs: list[dict]) -> dict:
    return {
        "rematches_mean": sum(r["rematches"] for r in runs) / len(runs),
        "rematches_max": max(r["rematches"] for r in runs),
        "seat_spread": max(r["seat_spread"] for r in runs),
        "first_seat_spread": max(r["first_seat_spread"] for r in runs),
        "score_spread": sum(r["score_spread"] for r in runs) / len(runs),
    }


def _cells(summary: dict) -> list:
    return [f"{summary['rematches_mean']:.2f}, {summary['rematches_max']}", summary["seat_spread"],
            summary["first_seat_spread"], f"{summary['score_spread']:.3f}"]


def big_row(players: int) -> tuple[list, dict]:
    played, final, slowest = play(FORMATS["swiss-tables"].next_round, players, 4, 5, 0)
    summary = measures(played, final, 4)
    figures = {"label": f"{players:,} players, tables of 4, 5 rounds", "ours": summary,
               "slowest_round_ms": slowest * 1000}
    return ([figures["label"], "pairer", f"{summary['rematches']}", summary["seat_spread"],
             summary["first_seat_spread"], f"{summary['score_spread']:.3f}", "", f"{slowest * 1000:.0f}"], figures)


def main(argv: list[str]) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tournaments", type=int, default=20)
    parser.add_argument("--big", type=int, default=10_000, help="players of the last row (0: none)")
    args = parser.parse_args(argv)
    rows, figures = [], []
    for players, table_size, rounds in ROWS:
        mine, baseline, measured = row(players, table_size, rounds, args.tournaments)
        rows += [mine, baseline]
        figures.append(measured)
    if args.big:
        mine, measured = big_row(args.big)
        rows.append(mine)
        figures.append(measured)
    print_table(f"Whole Swiss tournaments, {args.tournaments} each, random finishing orders",
                ["field", "pairing", "rematches (mean, max)", "worst seat spread", "seat-0 spread",
                 "table score spread", "checker findings", "slowest round (ms)"], rows)
    return figures


if __name__ == "__main__":
    main(sys.argv[1:])
