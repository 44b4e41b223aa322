"""Engine throughput per game and player count: replay and decide+evolve events/s, games/s.

Baseline, measured in the same run: a loop applying the same number of trivial dict updates.
Run: `python -m bench.engines [--games N]`.
"""
from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import best_of, print_table  # noqa: E402
from games.engines import ENGINES  # noqa: E402


def play_random(engine, players: int, seed: int) -> tuple[list[dict], list[tuple[int, dict]]]:
    """One random game: its events and the (seat, move) decisions that made them."""
    rng = random.Random(seed)
    events = engine.start(players, seed)
    state = engine.replay(events)
    decisions = []
    while engine.outcome(state) is None:
        seat = rng.choice(engine.to_act(state))
        move = rng.choice(engine.legal_moves(state, seat))
        new = engine.decide(state, seat, move)
        for event in new:
            state = engine.evolve(state, event)
        events.extend(new)
        decisions.append((seat, move))
    return events, decisions


def trivial_fold(count: int) -> None:
    state: dict = {}
    for i in range(count):
        state = {**state, "n": i}


def measure(slug: str, players: int, games: int) -> dict:
    engine = ENGINES[slug]
    start = time.perf_counter()
    played = [play_random(engine, players, seed) for seed in range(games)]
    random_games_per_s = games / (time.perf_counter() - start)
    total_events = sum(len(events) for events, _ in played)

    def replay_all():
        for events, _ in played:
            engine.replay(events)

    def decide_all():
        for events, decisions in played:
            state = engine.replay(engine.start(players, events[0]["seed"]))
            for seat, move in decisions:
                for event in engine.decide(state, seat, move):
                    state = engine.evolve(state, event)

    replay_s = best_of(3, replay_all)
    decide_s = best_of(3, decide_all)
    baseline_s = best_of(3, lambda: trivial_fold(total_events))
    return {
        "game": slug,
        "players": players,
        "events_per_game": total_events / games,
        "replay_events_per_s": total_events / replay_s,
        "decide_evolve_events_per_s": total_events / decide_s,
        "random_games_per_s": random_games_per_s,
        "baseline_events_per_s": total_events / baseline_s,
    }


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20, help="random games per player count")
    parser.add_argument("--game", action="append", help="slug (repeatable; default: every engine)")
    args = parser.parse_args(argv)
    results = []
    for slug in args.game or sorted(ENGINES):
        engine = ENGINES[slug]
        for players in range(engine.min_players, engine.max_players + 1):
            results.append(measure(slug, players, args.games))
    print_table(
        "Engines (events/s; baseline: trivial dict updates, same count)",
        [
            "game", "players", "events/game", "replay ev/s", "decide+evolve ev/s", "random games/s", "baseline ev/s",
            "replay/baseline",
        ],
        [
            [r["game"], r["players"], r["events_per_game"], r["replay_events_per_s"], r["decide_evolve_events_per_s"],
             r["random_games_per_s"], r["baseline_events_per_s"], r["replay_events_per_s"] / r["baseline_events_per_s"]]
            for r in results
        ],
    )
    return results


if __name__ == "__main__":
    main()
