"""Finished matches for tests, played by bots in memory and stored through `match_record`."""
from __future__ import annotations

import copy
import functools
import random

from games import services
from games.bots import BOTS, STRONG_BOT
from games.engines import ENGINES


def bot_moves(game: str, players: int, seed: int, bots: list[str]) -> list[tuple[int, dict]]:
    """The (seat, move) list of a whole game between the named bots, each from its own view."""
    return copy.deepcopy(_bot_moves(game, players, seed, tuple(bots)))


@functools.lru_cache(maxsize=256)
def _bot_moves(game: str, players: int, seed: int, bots: tuple[str, ...]) -> list[tuple[int, dict]]:
    """Played once a process for each game, seed and bots: the same seed deals and plays the same
    game (~0.08 s of The Game's, paid by each finished match before)."""
    engine = ENGINES[game]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    moves = []
    while engine.outcome(state) is None:
        seat = engine.to_act(state)[0]
        move = BOTS[game][bots[seat]].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
        moves.append((seat, move))
    return moves


def finished_match(game: str, users: list, *, seed: int = 1, rated: bool = True):
    """A finished match of `users` (seat order) whose moves the stronger bot chose for everyone."""
    moves = bot_moves(game, len(users), seed, [STRONG_BOT[game]] * len(users))
    return services.match_record(game=game, seats=users, created_by=users[0], seed=seed, moves=moves, rated=rated)
