"""Search bots (issue #44): determinized Monte Carlo over what the seat cannot see, in levels by budget.

The contract gives a bot its seat's view only (shared/ENGINE.md, Bots), so the search never
meets the real state: each engine's `determinize(view, rng)` deals the cards the view hides
(other hands, face-down piles, the seed of later shuffles) at random from the cards the view
leaves unseen, giving a state whose view for the seat is the view it was given. Whatever the
real hidden cards are, the bot's choice depends on the view and `rng` alone (the leak test,
tests/games/bots/test_search.py).

Why PIMC (perfect-information Monte Carlo) and not Information Set MCTS: in all four games the
hidden cards decide little of a move's value next to the public position. Ten hides only the
draw pile's order (no hands), so every seat shares one information set and PIMC's strategy
fusion cannot arise; The Game is cooperative and plays against the deck; in Split and
Sequence Stacks the hidden hands matter, but the decisions that win are about one's own hand
and the shared piles, which are public. PIMC's known weakness (it assumes it will learn the
hidden cards, so never values information) costs little where no move gathers information.
It also fits an anytime budget simply: every sample is a complete, independent estimate.

One search: the legal moves are the candidates (the heuristic's choice and a sample of the rest
when they are many for the budget); a stage deals determinizations, each shared by every
candidate so that they are compared on the same hidden cards, and for each candidate plays the
move, lets the game's heuristic bot (`STRONG`) play every seat for `horizon` more decisions and
scores the position reached with the game's evaluation, read from the seat's view of the
sampled state (each game's bot module wires its own `evaluate`). After each stage the worse
half of the candidates is dropped (successive halving), so the budget goes to the close moves;
the heuristic's own choice is never dropped, and the bot leaves it only for a move that beats it
clearly on the same deals (a paired test), so noise alone does not make it play worse.
A game whose search is not trusted to leave its heuristic sets `margin` to infinity, and its
levels play the heuristic's move (The Game, games/bots/the_game.py: measured worse than `tight`).
The budget (`playouts`) makes the levels; a wall-clock cap per move guards the table: when it
cuts in, the bot plays the best candidate so far (its choice then depends on the clock too).
Full playouts to the end would be too dear (a whole game of heuristic bots takes 7 to 250 ms),
hence the horizon and the evaluation.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.bots._common import Bot
from games.engines import ENGINES

DEFAULT_CAP_SECONDS = 0.2  # issue #44: 200 ms a move at most, whatever the level (BOT_MOVE_BUDGET_MS on the server)
_MARGIN = 1.645  # standard errors by which a move must beat the heuristic's (one-sided 95%)
# What the cap reads. The server keeps the wall clock (a move must be played in time however
# busy the machine); bench/bots.py reads processor time, so the levels' strength it measures is
# that of one core of its own, not of whatever else the machine runs meanwhile.
clock: Callable[[], float] = time.perf_counter

Evaluation = Callable[[dict[str, Any]], float]


@dataclass(frozen=True)
class Level:
    """A level: playouts per move (the budget) and the wall-clock cap that guards it."""

    name: str
    playouts: int
    cap_seconds: float = DEFAULT_CAP_SECONDS


LEVELS = (Level("search-easy", 16), Level("search-medium", 48), Level("search-hard", 160))


class SearchBot:
    """Determinized Monte Carlo with successive halving over the legal moves (the module's docstring)."""

    def __init__(
        self,
        slug: str,
        level: Level,
        determinize: Callable[[dict[str, Any], random.Random], Any],
        rollout: Bot,
        evaluate: Evaluation,
        horizon: int,
        margin: float = _MARGIN,
    ) -> None:
        self.name = level.name
        self.engine = ENGINES[slug]
        self.level = level
        self.determinize = determinize
        self.rollout = rollout
        self.evaluate = evaluate
        self.horizon = horizon
        self.margin = margin  # math.inf: the game's search is not trusted to leave the heuristic's move

    def choose(self, view: dict, legal: list[dict], rng: random.Random, *, cap_seconds: float | None = None) -> dict:
        """`cap_seconds` (else the level's) bounds the search by `clock`: the server passes BOT_MOVE_BUDGET_MS."""
        if len(legal) == 1:
            return legal[0]
        deadline = clock() + (self.level.cap_seconds if cap_seconds is None else cap_seconds)
        favourite = legal.index(self.rollout.choose(view, legal, rng))
        if self.margin == math.inf:
            return legal[favourite]
        candidates = self._candidates(len(legal), favourite, rng)
        values: list[list[float]] = [[] for _ in legal]  # per candidate, its value on each deal in turn

        def mean(index: int) -> float:
            return sum(values[index]) / len(values[index])

        def best() -> dict:
            played = [index for index in candidates if values[index]]
            leader = min(played, key=lambda i: (-mean(i), i != favourite, i))
            return legal[leader if self._clearly_better(values[leader], values[favourite]) else favourite]

        stages = max(1, math.ceil(math.log2(len(candidates))))
        spent = 0
        for stage in range(stages):
            per_candidate = max(1, (self.level.playouts - spent) // ((stages - stage) * len(candidates)))
            for _ in range(per_candidate):
                world_seed = rng.getrandbits(64)  # one deal of the hidden cards for every candidate
                world = self.determinize(view, random.Random(world_seed))
                for index in candidates:
                    if spent and clock() > deadline:
                        return best()
                    values[index].append(self._playout(world, view["seat"], legal[index], random.Random(world_seed)))
                    spent += 1
            if stage < stages - 1:  # the last stage's candidates all stay for `best` to weigh
                kept = sorted(candidates, key=lambda i: (-mean(i), i))[: math.ceil(len(candidates) / 2)]
                candidates = sorted({*kept, favourite})  # the heuristic's move stays
        return best()

    def _clearly_better(self, leader: list[float], favourite: list[float]) -> bool:
        """Whether the leader beats the heuristic's move on the deals both were played on by more
        than `margin` standard errors of the paired differences: the noise of a few playouts
        must not talk the bot out of a move the heuristic chose with reason."""
        pairs = min(len(leader), len(favourite))
        if pairs < 2 or leader is favourite:
            return leader is favourite
        differences = [leader[i] - favourite[i] for i in range(pairs)]
        average = sum(differences) / pairs
        spread = math.sqrt(sum((d - average) ** 2 for d in differences) / (pairs - 1))
        return average > self.margin * spread / math.sqrt(pairs)

    def _candidates(self, moves: int, favourite: int, rng: random.Random) -> list[int]:
        """The moves searched: all of them, or when they are many for the budget (Ten's buying
        choices run to hundreds) the heuristic's choice and a sample of the others."""
        most = max(2, self.level.playouts // 8)
        if moves <= most:
            return list(range(moves))
        others = [index for index in range(moves) if index != favourite]
        return sorted([favourite, *rng.sample(others, most - 1)])

    def _playout(self, state: Any, seat: int, move: dict, rng: random.Random) -> float:
        engine = self.engine
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
        for _ in range(self.horizon):
            acting = engine.to_act(state)
            if not acting:
                break
            actor = acting[0]
            choice = self.rollout.choose(engine.view(state, actor), engine.legal_moves(state, actor), rng)
            for event in engine.decide(state, actor, choice):
                state = engine.evolve(state, event)
        return self.evaluate(engine.view(state, seat))


def search_bots(
    slug: str,
    determinize: Callable[[dict[str, Any], random.Random], Any],
    rollout: Bot,
    evaluate: Evaluation,
    horizon: int,
    margin: float = _MARGIN,
) -> dict[str, Bot]:
    """A game's search bots, one per level of `LEVELS`, by name: each game's bot module wires its own."""
    return {level.name: SearchBot(slug, level, determinize, rollout, evaluate, horizon, margin) for level in LEVELS}


WIN = 10.0  # a game won alone, in an evaluation: above any lead of points


def lead(view: dict[str, Any], values: list[float]) -> float:
    """An evaluation for a game of rivals: the seat's value less the best other seat's, plus `WIN`
    once it has won alone."""
    seat = view["seat"]
    ahead = values[seat] - max(value for other, value in enumerate(values) if other != seat)
    outcome = view["outcome"]
    if outcome is not None and outcome["winners"] == [seat]:
        ahead += WIN
    return ahead
