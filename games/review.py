"""The review of a finished match (issue #44 item 5): at each decision of each seat, the search
bot's opinion, from that seat's view at that moment only.

A decision is a move made where its seat had more than one legal move. For each, the search bot
of the seat's game (games/bots/search.py, with an iteration budget and no clock, so that the
answer depends on the view and the seed alone) names the move it prefers; then the move played,
the bot's and the game's heuristic choice are each played out to the end of the game by the
heuristic bot in every seat, on the same deals of the hidden cards (`determinize(view, rng)`:
sampled from what the view leaves unseen, never read from the real state). Their results give
the win chance of each (a Wilson interval), or in The Game, a cooperative game scored by the cards
left, the expected cards left (a normal interval); the best of them is the review's best move,
and a move that loses more than `MISTAKE_THRESHOLD` against it, clearly on the paired deals, is
marked a mistake.

Nothing here reads the database: `review_events` folds a stream of engine events, so the
review of a seat's decision is a function of that seat's view, its legal moves, the move played
and the seed (the no-peeking test, tests/games/test_review.py).
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

from games.bots import BOTS, STRONG_BOT
from games.bots.search import Level, SearchBot
from games.engines import ENGINES

Z95 = 1.96  # two-sided 95%
# Bumped when what a review holds changes, so stored ones are computed again. 2: the search's
# preferred move may differ from the heuristic's (version 1's halving always kept the heuristic's).
REVIEW_VERSION = 2

# What the review measures per game: a win chance (higher is better), or in The Game, a team's
# cards left at the end (lower is better; ENGINE.md: its outcome's `scores`).
WIN = "win"
CARDS_LEFT = "cards_left"
METRIC = {"the-game": CARDS_LEFT}

# A move is a mistake when the best move's estimate beats it by this much and the paired
# difference's 95% interval lies above zero. 10 points of win chance is where lichess starts
# calling a move a mistake (its win chance scale); in The Game, 3 cards left is half of what a
# team of the heuristic bot leaves at 2 players (6.0 on average, games/bots/the_game.py), a loss
# a player notices in the score. Below that, a few dozen playouts cannot tell moves apart.
MISTAKE_THRESHOLD = {WIN: 0.10, CARDS_LEFT: 3.0}
PLAYOUT_MOVES_MAX = 5000  # a playout that has not ended by then counts as a loss (no game comes near)


class Estimate(TypedDict):
    value: float
    low: float
    high: float


class DecisionReview(TypedDict):
    seq: int
    after: int
    seat: int
    move: dict
    options: int
    best: dict
    played: Estimate
    best_value: Estimate
    loss: float
    loss_low: float
    mistake: bool


def metric_of(game: str) -> str:
    return METRIC.get(game, WIN)


def review_bot(game: str, playouts: int) -> SearchBot:
    """The game's search bot with a budget of `playouts` and no clock (whose cut would make the
    review depend on the machine's speed, not only on the view and the seed)."""
    easy = BOTS[game]["search-easy"]
    assert isinstance(easy, SearchBot)
    level = Level("review", max(2, playouts), cap_seconds=math.inf)
    return SearchBot(game, level, easy.determinize, easy.rollout, easy.evaluate, easy.horizon, easy.margin)


def decision_review(
    game: str, view: dict, legal: list[dict], played: dict, *, seed: str, playouts: int
) -> tuple[dict, Estimate, Estimate, float, float]:
    """For one decision: the best move, the estimates of the move played and of the best, and the
    loss of the move played with its paired interval's lower end. Reads `view` and `legal` only."""
    engine = ENGINES[game]
    metric = metric_of(game)
    search = review_bot(game, playouts)
    heuristic = BOTS[game][STRONG_BOT[game]]
    rng = random.Random(seed)
    preferred = search.choose(view, legal, rng)
    favourite = heuristic.choose(view, legal, rng)
    candidates: list[dict] = []
    for move in (played, preferred, favourite):
        if move not in candidates:
            candidates.append(move)
    results: list[list[float]] = [[] for _ in candidates]
    seat = view["seat"]
    for _ in range(max(2, playouts)):
        world_seed = rng.getrandbits(64)  # one deal of the hidden cards for every candidate
        world = search.determinize(view, random.Random(world_seed))
        for index, move in enumerate(candidates):
            results[index].append(_play_out(engine, heuristic, world, seat, move, random.Random(world_seed), metric))
    sign = 1.0 if metric == WIN else -1.0  # "better" is higher win chance, fewer cards left
    means = [sum(values) / len(values) for values in results]
    best_index = min(range(len(candidates)), key=lambda i: (-sign * means[i], i))  # ties: the move played
    differences = [sign * (b - p) for b, p in zip(results[best_index], results[0])]
    loss = sum(differences) / len(differences)
    spread = math.sqrt(sum((d - loss) ** 2 for d in differences) / max(1, len(differences) - 1))
    loss_low = loss - Z95 * spread / math.sqrt(len(differences))
    return candidates[best_index], _estimate(results[0], metric), _estimate(results[best_index], metric), loss, loss_low


def _play_out(engine: Any, bot: Any, state: Any, seat: int, move: dict, rng: random.Random, metric: str) -> float:
    for event in engine.decide(state, seat, move):
        state = engine.evolve(state, event)
    for _ in range(PLAYOUT_MOVES_MAX):
        outcome = engine.outcome(state)
        if outcome is not None:
            if metric == CARDS_LEFT:
                return float(outcome["scores"][seat])
            return 1.0 if seat in outcome["winners"] else 0.0
        actor = engine.to_act(state)[0]
        choice = bot.choose(engine.view(state, actor), engine.legal_moves(state, actor), rng)
        for event in engine.decide(state, actor, choice):
            state = engine.evolve(state, event)
    return 0.0 if metric == WIN else float(engine.view(state, seat).get("cards_left", 0))


def _estimate(values: list[float], metric: str) -> Estimate:
    n = len(values)
    mean = sum(values) / n
    if metric == WIN:  # Wilson's score interval: sound near 0 and 1, where a few playouts often land
        centre = (mean + Z95**2 / (2 * n)) / (1 + Z95**2 / n)
        half = Z95 * math.sqrt(mean * (1 - mean) / n + Z95**2 / (4 * n * n)) / (1 + Z95**2 / n)
        return {"value": mean, "low": max(0.0, centre - half), "high": min(1.0, centre + half)}
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / max(1, n - 1))
    half = Z95 * spread / math.sqrt(n)
    return {"value": mean, "low": max(0.0, mean - half), "high": mean + half}


def review_position(
    game: str, state: Any, seat: int, move: dict, *, seq: int, after: int, playouts: int
) -> DecisionReview | None:
    """The review of `seat` playing `move` in `state` (None where it had no choice). It reads the
    state through the seat's view and legal moves only, and seeds its samples with the position's
    number and the seat: another state with the same view gets the same review (the no-peeking test)."""
    engine = ENGINES[game]
    legal = engine.legal_moves(state, seat)
    if len(legal) < 2 or move not in legal:
        return None  # no choice (or a variant of a canonical move: nothing to compare it with)
    metric = metric_of(game)
    best, played, best_value, loss, loss_low = decision_review(
        game, engine.view(state, seat), legal, move, seed=f"review:{seq}:{seat}", playouts=playouts
    )
    return {
        "seq": seq, "after": after, "seat": seat, "move": move, "options": len(legal), "best": best,
        "played": played, "best_value": best_value, "loss": loss, "loss_low": loss_low,
        "mistake": loss >= MISTAKE_THRESHOLD[metric] and loss_low > 0,
    }


def review_events(
    game: str, events: Iterable[tuple[int, Mapping[str, Any]]], decisions: list[Mapping[str, Any]], *, playouts: int
) -> dict[str, Any]:
    """The review of a whole match: `events` are its engine events as (seq, data) in order,
    `decisions` its moves as `games.replay.decision_points` lists them (seq: the position the
    move was made in)."""
    engine = ENGINES[game]
    metric = metric_of(game)
    stream = list(events)
    reviewed: list[DecisionReview] = []
    state = None
    position = 0
    for decision in decisions:
        while position < len(stream) and stream[position][0] <= decision["seq"]:
            state = engine.evolve(state, stream[position][1])
            position += 1
        if state is None or engine.outcome(state) is not None:
            continue
        review = review_position(
            game, state, decision["seat"], decision["move"], seq=decision["seq"], after=decision["after"],
            playouts=playouts,
        )
        if review is not None:
            reviewed.append(review)
    return {
        "version": REVIEW_VERSION, "metric": metric, "playouts": max(2, playouts),
        "threshold": MISTAKE_THRESHOLD[metric], "decisions": reviewed,
    }
