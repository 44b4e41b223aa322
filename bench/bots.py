"""The stronger bot of each game against random bots, and the search bots' levels against the stronger bot.

For each game and player count, `--games` games with the stronger bot in a seat that rotates
and random bots elsewhere, from fixed seeds. The Game is cooperative: a team of stronger bots
against a team of random ones, by cards left (lower is better) and games won.
Then each search level (games/bots/search.py, issue #44) in a seat that rotates against the
heuristic bot in the others, `--search-games` games at each of `--search-players`; The Game: a
team of the level against a team of the heuristic bot on the same seeds. Each row gives the
processor time of the level's moves (p50, p99: `time.process_time`, so one core's work
whatever else the machine runs; the 200 ms cap a move reads the wall clock and cuts in
sooner on a busy machine).
Run: `python -m bench.bots [--games 1000] [--game SLUG] [--search-games 20] [--search-players 2]`.
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

from bench._common import percentile, print_table, wilson  # noqa: E402
from games.bots import BOTS, STRONG_BOT  # noqa: E402
from games.bots.search import LEVELS  # noqa: E402
from games.engines import ENGINES  # noqa: E402


def play(game: str, players: int, seed: int, bots: list[str], timed: list[float] | None = None) -> dict:
    """One game from `seed`; the processor time of each move by a search level goes to `timed`."""
    engine = ENGINES[game]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    while engine.outcome(state) is None:
        seat = rng.choice(engine.to_act(state))
        started = time.process_time()
        move = BOTS[game][bots[seat]].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
        if timed is not None and bots[seat].startswith("search"):
            timed.append(time.process_time() - started)
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


def search_competitive(game: str, players: int, games: int, level: str) -> list:
    """The level in a seat that rotates, the heuristic bot in the others."""
    strong = STRONG_BOT[game]
    wins, ranks = 0, []
    timed: list[float] = []
    for g in range(games):
        seat = g % players
        bots = [strong] * players
        bots[seat] = level
        outcome = play(game, players, g, bots, timed)
        wins += seat in outcome["winners"] and len(outcome["winners"]) == 1
        ranks.append(outcome["ranks"][seat])
    low, high = wilson(wins, games)
    half = 1.96 * statistics.pstdev(ranks) / math.sqrt(games)
    return [game, players, level, f"vs {strong}", games, f"{wins / games:.1%} [{low:.1%}, {high:.1%}]",
            f"{1 / players:.1%}", f"{statistics.fmean(ranks):.2f} ± {half:.2f}", *_times(timed)]


def search_cooperative(game: str, players: int, games: int, level: str) -> list:
    """A team of the level against a team of the heuristic bot, on the same seeds."""
    strong = STRONG_BOT[game]
    timed: list[float] = []
    searched = [play(game, players, g, [level] * players, timed) for g in range(games)]
    baseline = [play(game, players, g, [strong] * players) for g in range(games)]
    won = sum(o["won"] for o in searched)
    low, high = wilson(won, games)
    left = [o["scores"][0] for o in searched]
    half = 1.96 * statistics.pstdev(left) / math.sqrt(games)
    strong_left = statistics.fmean(o["scores"][0] for o in baseline)
    return [game, players, level, f"vs {strong} team", games, f"{won / games:.1%} [{low:.1%}, {high:.1%}]",
            f"{strong} {sum(o['won'] for o in baseline) / games:.1%}",
            f"{statistics.fmean(left):.1f} ± {half:.1f} left ({strong} {strong_left:.1f})", *_times(timed)]


def _times(timed: list[float]) -> list[str]:
    return [f"{1000 * percentile(timed, 0.5):.0f} ms", f"{1000 * percentile(timed, 0.99):.0f} ms"]


def main(argv: list[str] | None = None) -> list[list]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--game", action="append")
    parser.add_argument("--search-games", type=int, default=20, help="games per search level and player count (0: none)")
    parser.add_argument("--search-players", type=int, action="append", help="player counts for the search levels (2)")
    parser.add_argument("--level", action="append", choices=[level.name for level in LEVELS])
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
    if args.search_games:
        rows += search_rows(args.game or sorted(ENGINES), args.search_players or [2], args.search_games, args.level)
    return rows


def search_rows(games: list[str], player_counts: list[int], count: int, levels: list[str] | None) -> list[list]:
    rows = []
    for game in games:
        engine = ENGINES[game]
        for players in player_counts:
            if not engine.min_players <= players <= engine.max_players:
                continue
            for level in levels or [level.name for level in LEVELS]:
                play_level = search_cooperative if game == "the-game" else search_competitive
                rows.append(play_level(game, players, count, level))
    print_table(
        "Search levels vs the heuristic bot (95% intervals; The Game: a team of each on the same seeds; "
        "move times in processor time)",
        ["game", "players", "bot", "against", "games", "win rate", "seat share / baseline", "mean rank / result",
         "move p50", "move p99"],
        rows,
    )
    return rows


if __name__ == "__main__":
    main()
