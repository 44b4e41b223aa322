"""The stronger bot of each game against random bots: win rate (or mean rank) with a 95% interval.

For each game and player count, `--games` games with the stronger bot in a seat that rotates
and random bots elsewhere, from fixed seeds. The Game is cooperative: a team of stronger bots
against a team of random ones, by cards left (lower is better) and games won.
Run: `python -m bench.bots [--games 1000] [--game SLUG]`.
"""
from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table, wilson  # noqa: E402
from games.bots import BOTS, STRONG_BOT  # noqa: E402
from games.engines import ENGINES  # noqa: E402


def play(game: str, players: int, seed: int, bots: list[str]) -> dict:
    engine = ENGINES[game]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    while engine.outcome(state) is None:
        seat = rng.choice(engine.to_act(state))
        move = BOTS[game][bots[seat]].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
    return engine.outcome(state)


def competitive(game: str, players: int, games: int) -> list:
    strong = STRONG_BOT[game]
    wins, ranks = 0, []
    start = time.perf_counter()
    for g in range(games):
        seat = g % players
        bots = ["random"] * players
        bots[seat] = strong
        outcome = play(game, players, g, bots)
        wins += seat in outcome["winners"] and len(outcome["winners"]) == 1
        ranks.append(outcome["ranks"][seat])
    low, high = wilson(wins, games)
    mean_rank = statistics.fmean(ranks)
    half = 1.96 * statistics.pstdev(ranks) / math.sqrt(games)
    return [game, players, strong, games, f"{wins / games:.1%} [{low:.1%}, {high:.1%}]", f"{1 / players:.1%}",
            f"{mean_rank:.2f} ± {half:.2f}", f"{(players + 1) / 2:.2f}", games / (time.perf_counter() - start)]


def cooperative(game: str, players: int, games: int) -> list:
    strong = STRONG_BOT[game]
    start = time.perf_counter()
    results = {}
    for team in (strong, "random"):
        outcomes = [play(game, players, g, [team] * players) for g in range(games)]
        left = [o["scores"][0] for o in outcomes]
        won = sum(o["won"] for o in outcomes)
        results[team] = (won, statistics.fmean(left), 1.96 * statistics.pstdev(left) / math.sqrt(games))
    won, mean, half = results[strong]
    low, high = wilson(won, games)
    r_won, r_mean, _ = results["random"]
    return [game, players, strong, games, f"{won / games:.1%} [{low:.1%}, {high:.1%}]", f"random {r_won / games:.1%}",
            f"{mean:.1f} ± {half:.1f} left", f"random {r_mean:.1f} left", 2 * games / (time.perf_counter() - start)]


def main(argv: list[str] | None = None) -> list[list]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--game", action="append")
    args = parser.parse_args(argv)
    rows = []
    for game in args.game or sorted(ENGINES):
        engine = ENGINES[game]
        for players in range(engine.min_players, engine.max_players + 1):
            if game == "the-game":
                rows.append(cooperative(game, players, args.games))
            else:
                rows.append(competitive(game, players, args.games))
    print_table(
        "Stronger bot vs random bots (95% intervals; The Game: a team of each)",
        ["game", "players", "bot", "games", "win rate", "seat share / baseline", "mean rank / result", "baseline", "games/s"],
        rows,
    )
    return rows


if __name__ == "__main__":
    main()
