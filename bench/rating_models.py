"""Rating models on simulated leagues of bots of known strength: which one predicts results best.

For every game and player count (2 to the engine's maximum), a league of `LEAGUE_SIZE` graded
bots, `MixedBot(strong, p)` with p evenly spaced from 0 (random play) to 1 (the strong bot;
The Game: 0.9 to 1, see `strengths`):
`--matches` matches in time order, each at a table of that many players drawn at random from the
players who have joined, seated in random order, and played with the real engine and bots. Most
players are there from the start; `NEWCOMERS` join when 40 % of the training matches are played,
and they are the "new players" whose settling is measured. The Game is cooperative: the table is
one team (of mixed strengths) against the game.

Each model of `ratings.model_compare` rates the first 80 % of the matches and predicts the last
20 % from the ratings frozen then (TTT: fitted on the first 80 %); printed per game and count:
the mean log-likelihood of the full finishing order, winner log-loss, pairwise order accuracy,
Brier score and calibration error (95 % bootstrap intervals over the test matches, 1000 resamples),
games until a newcomer's rating settles, and Kendall's τ between the model's ratings and the known
strengths. A second table: the best model by order log-likelihood per row, its margin over
TrueSkill and over the Elo (paired bootstrap intervals), and what the seat term adds to TrueSkill.
Matches are played in a process pool over the machine's cores; everything is seeded.
Run: `python -m bench.rating_models [--matches 1000] [--game SLUG] [--players K] [--quick]`.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table  # noqa: E402
from games.bots import BOTS, STRONG_BOT, MixedBot  # noqa: E402
from games.engines import ENGINES  # noqa: E402
from ratings import math as rmath  # noqa: E402
from ratings import model_compare  # noqa: E402

LEAGUE_SIZE = 20
NEWCOMERS = 5  # every fourth strength joins late: p = 1/19, 5/19, 9/19, 13/19, 17/19
JOIN_AT = 0.4  # of the training matches
TRAIN_SHARE = 0.8
RESAMPLES = 1000
# On the shared 2-core machine 1000 matches a row took 7 min 46 s (368 s to play the 18,000
# matches, 97 s to evaluate), and 12-13 min while others loaded it.
DEFAULT_MATCHES = 1000
QUICK_MATCHES = 60
COOPERATIVE = {"the-game"}
# The server's per-game TrueSkill settings (server/settings.py RATINGS_TRUESKILL), read without Django.
PARAMS = {
    "ten": rmath.Params(beta=25 / 6, draw_probability=0.03),
    "split": rmath.Params(beta=25 / 6, draw_probability=0.01),
    "sequence-stacks": rmath.Params(beta=25 / 6, draw_probability=0.10),
    "the-game": rmath.Params(beta=25 / 6, draw_probability=0.0),
}
_CHUNK = 50  # matches per pool task


def strengths(game: str) -> dict[str, float]:
    """The league's players and their known strength p (the strong bot's share of the moves).

    The Game is won only by a team that (nearly) never errs: at p = 0.95 a team of four won none of
    60 games, at 0.99 one in eight, at 1 about a third. Its league spans p = 0.9 to 1, where the
    team's chance moves; below that every table loses and there is nothing to predict.
    """
    low = 0.9 if game in COOPERATIVE else 0.0
    return {player_name(i): low + (1 - low) * i / (LEAGUE_SIZE - 1) for i in range(LEAGUE_SIZE)}


def player_name(index: int) -> str:
    return rmath.bot_competitor(f"p{index:02d}")


def newcomers() -> list[str]:
    return [player_name(i) for i in range(1, LEAGUE_SIZE, LEAGUE_SIZE // NEWCOMERS)][:NEWCOMERS]


def schedule(game: str, players: int, matches: int, seed: int) -> list[tuple[tuple[str, ...], int]]:
    """Each match's seats (in seat order) and game seed, in time order."""
    rng = random.Random(f"{game}:{players}:{seed}")
    late = set(newcomers())
    everyone = list(strengths(game))
    join = int(JOIN_AT * TRAIN_SHARE * matches)
    tables = []
    for index in range(matches):
        present = everyone if index >= join else [p for p in everyone if p not in late]
        tables.append((tuple(rng.sample(present, players)), rng.randrange(2**31)))
    return tables


def play(game: str, seats: tuple[str, ...], seed: int) -> dict:
    """One game by the seats' graded bots, with the real engine: its outcome."""
    engine = ENGINES[game]
    known = strengths(game)
    strong = BOTS[game][STRONG_BOT[game]]
    bots = [MixedBot(strong, known[seat]) for seat in seats]
    rng = random.Random(seed)
    state = engine.replay(engine.start(len(seats), seed))
    while engine.outcome(state) is None:
        seat = rng.choice(engine.to_act(state))
        move = bots[seat].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
    return engine.outcome(state)


def _play_chunk(job: tuple[str, int, list[tuple[tuple[str, ...], int]]]) -> list[rmath.Table]:
    game, players, chunk = job
    tables = []
    for seats, seed in chunk:
        outcome = play(game, seats, seed)
        if game in COOPERATIVE:
            tables.append(rmath.Table(seats, (1,) * players, cooperative=True, won=bool(outcome["won"])))
        else:
            tables.append(rmath.Table(seats, tuple(outcome["ranks"])))
    return tables


def _evaluate(job: tuple[str, int, list[rmath.Table], int, int]) -> dict:
    game, players, tables, seed, resamples = job
    started = time.process_time()
    comparison = model_compare.evaluate(
        tables, PARAMS[game], train_share=TRAIN_SHARE, resamples=resamples, seed=seed,
        newcomers=newcomers(), strengths=strengths(game),
    )
    figures = comparison.as_dict()
    # Paired differences against TrueSkill, the server's model, both ways (what the summary reads).
    pairs = [(a, "trueskill") for a in model_compare.MODELS if a != "trueskill"]
    figures["differences"] = {
        f"{a} - {b}": {metric: comparison.difference(a, b, metric) for metric in model_compare.METRICS}
        for a, b in pairs + [(b, a) for a, b in pairs]
    }
    figures["evaluate_cpu_seconds"] = round(time.process_time() - started, 1)
    return {"game": game, "players": players, **figures}


def rows_to_run(games: list[str], counts: list[int] | None) -> list[tuple[str, int]]:
    rows = []
    for game in games:
        engine = ENGINES[game]
        for players in range(max(2, engine.min_players), engine.max_players + 1):
            if not counts or players in counts:
                rows.append((game, players))
    return rows


def run(rows: list[tuple[str, int]], matches: int, seed: int, workers: int,
        resamples: int = RESAMPLES) -> list[dict]:
    """Plays every row's league in the pool, then evaluates every row there."""
    started = time.perf_counter()
    jobs, owners = [], []
    for game, players in rows:
        plan = schedule(game, players, matches, seed)
        for start in range(0, len(plan), _CHUNK):
            jobs.append((game, players, plan[start:start + _CHUNK]))
            owners.append((game, players))
    tables: dict[tuple[str, int], list[rmath.Table]] = {row: [] for row in rows}
    # Spawned, not forked: a fork of a process with threads (a test run, Django) can hang.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        for owner, played in zip(owners, pool.map(_play_chunk, jobs)):
            tables[owner].extend(played)
        played_at = time.perf_counter()
        # Longest first (more seats, more to integrate), so the pool ends together.
        order = sorted(rows, key=lambda row: -row[1])
        evaluated = list(pool.map(_evaluate, [(g, n, tables[(g, n)], seed, resamples) for g, n in order]))
    by_row = {(f["game"], f["players"]): f for f in evaluated}
    for row in rows:
        key = "team_win_rate" if row[0] in COOPERATIVE else "first_seat_win_share"
        by_row[row][key] = _base_rate(tables[row])
    print(f"\nplayed {len(rows) * matches} matches in {played_at - started:.0f} s, evaluated in "
          f"{time.perf_counter() - played_at:.0f} s ({workers} processes)")
    return [by_row[row] for row in rows]


def _base_rate(tables: list[rmath.Table]) -> float:
    """The Game: the share of tables won; otherwise seat 0's share of first places (ties split)."""
    if tables and tables[0].cooperative:
        return sum(t.won for t in tables) / len(tables)
    credit = 0.0
    for t in tables:
        best = min(t.ranks)
        if t.ranks[0] == best:
            credit += 1 / t.ranks.count(best)
    return credit / len(tables) if tables else 0.0


def _cell(result: dict, metric: str, digits: int = 3) -> str:
    value = result["metrics"][metric]
    low, high = result["intervals"][metric]
    if metric == "pair_accuracy":
        return f"{value:.1%} [{low * 100:.1f}, {high * 100:.1f}]"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _difference(figures: dict, a: str, b: str, metric: str) -> str:
    point, low, high = figures["differences"][f"{a} - {b}"][metric]
    return f"{point:+.3f} [{low:+.3f}, {high:+.3f}]"


def best_model(figures: dict, metric: str = "order_ll") -> str:
    """The model with the best point value of `metric` on one row."""
    models = figures["models"]
    sign = 1 if metric in model_compare.HIGHER_IS_BETTER else -1
    return max(models, key=lambda name: sign * models[name]["metrics"][metric])


def print_results(figures: list[dict]) -> None:
    rows = []
    for row in figures:
        for name, result in row["models"].items():
            settle = ("offline" if not result["online"]
                      else "n/a" if result["settle"] is None else f"{result['settle']:.0f}")
            tau = result["rank_correlation"]
            rows.append([row["game"], row["players"], name, _cell(result, "order_ll"), _cell(result, "winner_ll"),
                         _cell(result, "pair_accuracy"), _cell(result, "brier"), _cell(result, "ece"), settle,
                         "n/a" if tau is None else f"{tau:.2f}"])
    train, test = figures[0]["train"], figures[0]["test"]
    print_table(
        f"Rating models on leagues of graded bots ({LEAGUE_SIZE} players, {train} training and {test} test "
        f"matches per row; 95% bootstrap intervals over test matches): full-order log-likelihood (higher is "
        f"better), winner log-loss, pairwise accuracy, winner Brier, calibration error (lower is better), "
        f"median games until a newcomer's rating settles, Kendall's tau with the known strengths",
        ["game", "players", "model", "order log-lik", "winner log-loss", "pair accuracy", "Brier", "ECE",
         "settle (games)", "tau"],
        rows,
    )
    summary = []
    for row in figures:
        best = best_model(row)
        base = row.get("team_win_rate", row.get("first_seat_win_share"))
        label = "team wins" if "team_win_rate" in row else "seat 0 wins"
        summary.append([
            row["game"], row["players"], f"{label} {base:.1%}", best,
            "-" if best == "trueskill" else _difference(row, best, "trueskill", "order_ll"),
            _difference(row, "trueskill", "elo", "order_ll"),
            _difference(row, "trueskill", "openskill", "order_ll"),
            _difference(row, "ttt", "trueskill", "order_ll"),
            _difference(row, "trueskill-seat", "trueskill", "order_ll"),
            _difference(row, "trueskill-seat", "trueskill", "winner_ll"),
        ])
    print_table(
        "Per row: the best model by full-order log-likelihood and its margin over TrueSkill; TrueSkill's margin "
        "over the Elo and over OpenSkill; TTT (the offline ceiling) over TrueSkill; the seat term "
        "(TrueSkill+seat minus TrueSkill: order log-lik, positive helps; winner log-loss, negative helps). "
        "Log-likelihood per test match, paired 95% bootstrap intervals",
        ["game", "players", "base rate", "best", "best - trueskill", "trueskill - elo", "trueskill - openskill",
         "ttt - trueskill", "seat - trueskill (order)", "seat - trueskill (winner log-loss)"],
        summary,
    )


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=DEFAULT_MATCHES, help="matches per league (per row)")
    parser.add_argument("--game", action="append", choices=sorted(ENGINES))
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--resamples", type=int, default=RESAMPLES)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_MATCHES} matches per row, 200 resamples")
    args = parser.parse_args(argv)
    matches = QUICK_MATCHES if args.quick else args.matches
    resamples = 200 if args.quick else args.resamples
    if matches < 10:
        parser.error("--matches must be at least 10 (the last 20% are the test)")
    rows = rows_to_run(args.game or sorted(ENGINES), args.players)
    if not rows:
        parser.error(f"no game chosen plays with {args.players} players")
    figures = run(rows, matches, args.seed, args.workers, resamples)
    print_results(figures)
    return figures


if __name__ == "__main__":
    main()
