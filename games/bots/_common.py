"""Shared bot pieces (shared/ENGINE.md, Bots): a bot chooses one of `legal` from its seat's view."""
from __future__ import annotations

import random
from typing import Protocol


class Bot(Protocol):
    name: str

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict: ...


class RandomBot:
    """Uniform over legal_moves: the baseline every game has."""

    name = "random"

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        return rng.choice(legal)


class MixedBot:
    """Plays `strong`'s choice with probability `p`, a uniform legal move otherwise.

    Gives bots of graded strength (p = 0 … 1) for rating simulations.
    """

    def __init__(self, strong: Bot, p: float) -> None:
        self.strong = strong
        self.p = p
        self.name = f"{strong.name}@{p:g}"

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        if rng.random() < self.p:
            return self.strong.choose(view, legal, rng)
        return rng.choice(legal)
