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
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import percentile, print_table, wilson  # noqa: E402
from games.bots import BOTS, STRONG_BOT, search  # noqa: E402
from games.bots.search import DEFAULT_CAP_SECONDS, LEVELS  # noqa: E402
from games.engines import ENGINES  # noqa: E402
from ratings import math as rmath  # noqa: E402

# The server's TrueSkill settings per game (server/settings.py RATINGS_TRUESKILL), read without Django.
RATING_PARAMS = {
    "ten": rmath.Params(beta=25 / 6, draw_probability=0.03),
    "split": rmath.Params(beta=25 / 6, draw_probability=0.01),
    "sequence-stacks": rmath.Params(beta=25 / 6, draw_probability=0.10),
    "the-game": rmath.Params(beta=25 / 6, draw_probability=0.0),
}


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


# The targets (#44 item 4) for the hard level against the heuristic bot.
HARD = "search-hard"
TWO_PLAYER_TARGET = 0.60
SHARE_TARGET = 1.5


@dataclass
class Played:
    """What one job of the strength section played: its row and the tables the bots' ladder rates."""

    row: list
    tables: list[rmath.Table]
    met: str = ""


def search_competitive(game: str, players: int, games: int, level: str, against: str) -> Played:
    """The level in a seat that rotates, `against` (the heuristic bot, or random) in the others."""
    wins, ranks = 0, []
    timed: list[float] = []
    tables = []
    for g in range(games):
        seat = g % players
        bots = [against] * players
        bots[seat] = level
        outcome = play(game, players, g, bots, timed)
        wins += seat in outcome["winners"] and len(outcome["winners"]) == 1
        ranks.append(outcome["ranks"][seat])
        tables.append(rmath.Table(tuple(rmath.bot_competitor(bot) for bot in bots), tuple(outcome["ranks"])))
    low, high = wilson(wins, games)
    half = 1.96 * statistics.pstdev(ranks) / math.sqrt(games)
    share = 1 / players
    met = ""
    if level == HARD and against == STRONG_BOT[game]:
        goal = TWO_PLAYER_TARGET if players == 2 else SHARE_TARGET * share
        met = "met" if low >= goal else ("NOT met" if high < goal else "open") + f" (≥ {goal:.0%})"
    row = [game, players, level, f"vs {against}", games, f"{wins / games:.1%} [{low:.1%}, {high:.1%}]",
           f"{share:.1%}", f"{wins / games / share:.2f}× [{low / share:.2f}, {high / share:.2f}]",
           f"{statistics.fmean(ranks):.2f} ± {half:.2f}", *_times(timed), met or "-"]
    return Played(row, tables, met)


def search_cooperative(game: str, players: int, games: int, level: str) -> Played:
    """A team of the level, beside a team of the heuristic bot and one of random bots on the same
    seeds; and, for the bots' ladder (which rates no bot seated twice at a table), the level in one
    seat with the heuristic bot in the others."""
    strong = STRONG_BOT[game]
    timed: list[float] = []
    searched = [play(game, players, g, [level] * players, timed) for g in range(games)]
    baseline = [play(game, players, g, [strong] * players) for g in range(games)]
    randoms = [play(game, players, g, ["random"] * players) for g in range(games)]
    won = sum(o["won"] for o in searched)
    low, high = wilson(won, games)
    strong_won = sum(o["won"] for o in baseline)
    left = [o["scores"][0] for o in searched]
    half = 1.96 * statistics.pstdev(left) / math.sqrt(games)
    strong_left = statistics.fmean(o["scores"][0] for o in baseline)
    # Paired on the seeds: how many more cards the level's team played than tight's, per game.
    gained = [o["scores"][0] - s["scores"][0] for o, s in zip(baseline, searched)]
    gain_half = 1.96 * statistics.pstdev(gained) / math.sqrt(games)
    tables = []
    for g in range(games):
        bots = [strong] * players
        bots[g % players] = level
        outcome = searched[g] if players == 1 else play(game, players, g, bots, timed)
        tables.append(rmath.Table(tuple(rmath.bot_competitor(bot) for bot in bots), (1,) * players,
                                  cooperative=True, won=bool(outcome["won"])))
        if players == 1:
            for other, result in ((strong, baseline[g]), ("random", randoms[g])):
                tables.append(rmath.Table((rmath.bot_competitor(other),), (1,), cooperative=True, won=bool(result["won"])))
    met = ""
    if level == HARD:
        met = "met" if won > strong_won else f"NOT met ({won} vs {strong_won} won)"
        if won == strong_won:
            met = f"NOT met (tied, {won} won)"
    row = [game, players, level, f"team vs {strong} team, random team", games,
           f"{won / games:.1%} [{low:.1%}, {high:.1%}]",
           f"{strong} {strong_won / games:.1%}, random {sum(o['won'] for o in randoms) / games:.1%}",
           f"{statistics.fmean(left):.1f} ± {half:.1f} left ({strong} {strong_left:.1f}; "
           f"{statistics.fmean(gained):+.1f} ± {gain_half:.1f} paired)", "-", *_times(timed), met or "-"]
    return Played(row, tables, met)


def _times(timed: list[float]) -> list[str]:
    return [f"{1000 * percentile(timed, 0.5):.0f} ms", f"{1000 * percentile(timed, 0.99):.0f} ms"]


def main(argv: list[str] | None = None) -> list[list]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--game", action="append")
    parser.add_argument("--search-games", type=int, default=12,
                        help="games of the hard level against the heuristic bot per player count (0: no search section)")
    parser.add_argument("--lower-games", type=int, default=4,
                        help="games of the easy and medium levels against the heuristic bot per player count")
    parser.add_argument("--random-games", type=int, default=2, help="games of each level against random bots")
    parser.add_argument("--team-games", type=int, default=3, help="The Game: games of each level's team per player count")
    parser.add_argument("--search-players", type=int, action="append", help="player counts for the search levels (all)")
    parser.add_argument("--level", action="append", choices=[level.name for level in LEVELS])
    parser.add_argument("--workers", type=int, default=1, help="processes playing the search section's games")
    parser.add_argument("--save", help="append each finished job of the search section to this file (JSON lines)")
    parser.add_argument("--load", help="print the search section from the jobs a run saved, playing none")
    parser.add_argument("--wall-cap", action="store_true",
                        help="the search's cap reads the wall clock, as on the server (default: processor time)")
    args = parser.parse_args(argv)
    rows = []
    if args.games:
        for game in args.game or sorted(ENGINES):
            engine = ENGINES[game]
            for players in range(engine.min_players, engine.max_players + 1):
                if game == "the-game":
                    rows.append(cooperative(game, players, args.games))
                else:
                    rows.append(competitive(game, players, args.games))
        print_table(
            "Stronger bot vs random bots (95% intervals; The Game: a team of each)",
            ["game", "players", "bot", "games", "win rate", "seat share / baseline", "mean rank / result", "baseline",
             "games/s"],
            rows,
        )
    if args.search_games:
        rows += search_rows(args.game or sorted(ENGINES), args.search_players, args, args.level)
    return rows


def _jobs(games: list[str], player_counts: list[int] | None, args, levels: list[str]) -> list[tuple]:
    """The strength section's jobs, dearest first (so a pool of processes ends together)."""
    jobs = []
    for game in games:
        engine = ENGINES[game]
        for players in player_counts or range(engine.min_players, engine.max_players + 1):
            if not engine.min_players <= players <= engine.max_players:
                continue
            for level in levels:
                if game == "the-game":
                    jobs.append((game, players, level, "", args.team_games))
                    continue
                jobs.append((game, players, level, STRONG_BOT[game], args.search_games if level == HARD else args.lower_games))
                jobs.append((game, players, level, "random", args.random_games))
    order = {level.name: level.playouts for level in LEVELS}
    return sorted(jobs, key=lambda job: (-order[job[2]] * job[4] * (job[1] if job[0] == "the-game" else 1), job))


def _run_job(job: tuple, wall_cap: bool = False) -> Played:
    game, players, level, against, count = job
    search.clock = time.perf_counter if wall_cap else time.process_time
    if game == "the-game":
        return search_cooperative(game, players, count, level)
    return search_competitive(game, players, count, level, against)


def _processor_seconds() -> float:
    """This process's processor time and that of its children that have ended (the pool's)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def search_rows(games: list[str], player_counts: list[int] | None, args, levels: list[str] | None) -> list[list]:
    jobs = [job for job in _jobs(games, player_counts, args, levels or [level.name for level in LEVELS]) if job[4]]
    started = _processor_seconds()
    done: list[tuple[tuple, Played]] = []
    if args.load:  # the jobs a run saved (all of them, or those it finished before it was stopped)
        for line in Path(args.load).read_text().splitlines():
            job, row, tables, met = json.loads(line)
            done.append((tuple(job), Played(row, [rmath.Table(tuple(t[0]), tuple(t[1]), *t[2:]) for t in tables], met)))
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            futures = {pool.submit(_run_job, job, args.wall_cap): job for job in jobs}
            for future in as_completed(futures):
                played = future.result()
                done.append((futures[future], played))
                if args.save:  # each job as it ends, so a run stopped early keeps what it played
                    with open(args.save, "a") as saved:
                        saved.write(json.dumps([futures[future], played.row, played.tables, played.met]) + "\n")
    ordered = sorted(done, key=lambda pair: (pair[0][0], pair[0][1], pair[0][2], pair[0][3] == "random"))
    played = [p for _, p in ordered]
    rows = [p.row for _, p in ordered]
    cap = "the wall clock" if args.wall_cap else "processor time"
    print_table(
        f"Search levels vs the heuristic bot and random bots (95% Wilson intervals; the level in a seat that rotates; "
        f"The Game: a team of the level beside teams of the heuristic bot and of random bots on the same seeds; "
        f"move times and the {DEFAULT_CAP_SECONDS * 1000:.0f} ms cap in {cap}; target: hard ≥ "
        f"{TWO_PLAYER_TARGET:.0%} at 2 players, ≥ {SHARE_TARGET}× the fair share at 3+, The Game's hard team above "
        f"{STRONG_BOT['the-game']}'s)",
        ["game", "players", "bot", "against", "games", "win rate", "fair share / baselines", "× fair share / result",
         "mean rank", "move p50", "move p99", "target"],
        rows,
    )
    ladder_rows = []
    for game in games:
        tables = [table for (job, p) in ordered if job[0] == game for table in p.tables]
        random.Random(0).shuffle(tables)  # the levels and player counts interleaved, as a ladder meets them
        replayed = rmath.replay(tables, RATING_PARAMS[game])
        for competitor, (mu, sigma) in sorted(replayed.ratings.items(), key=lambda item: -item[1][0]):
            if competitor.startswith(rmath.BOT_PREFIX):
                ladder_rows.append([game, competitor, replayed.games.get(competitor, 0), f"{mu:.1f}", f"{sigma:.1f}",
                                    f"{mu - 3 * sigma:.1f}"])
    print_table(
        "The bots' ladder from these games (TrueSkill as the server rates the bots' pool, every game's tables in a "
        "shuffled order; a bot seated twice at a table is not rated by it, so the heuristic and random bots are rated "
        "at 2 players and The Game's levels beside the heuristic bot)",
        ["game", "bot", "games rated", "μ", "σ", "μ − 3σ"],
        ladder_rows,
    )
    print(f"\n{sum(p.row[4] for p in played)} games in the search rows (and The Game's ladder games beside them), "
          f"{_processor_seconds() - started:,.0f} s of processor time in {args.workers} process(es)")
    return rows + ladder_rows


if __name__ == "__main__":
    main()
