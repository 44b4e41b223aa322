"""Bots for Sequence Stacks (shared/rules/sequence-stacks.md): random, and `stack_finisher`.

`stack_finisher` scores every legal move from its seat's view and plays the best one: it
finishes stacks (preferring the colour it still needs), steals chips from the leader, keeps
its hand cycling by laying cards that do not hand the next player a stack to finish, blocks
an opponent's stack when the chip would bring that opponent closer to winning, and
discards the card it values least.
"""
from __future__ import annotations

import random

from games.bots._common import Bot, RandomBot
from games.bots.search import lead, search_bots
from games.engines.sequence_stacks import determinize

_SEQUENCE_LENGTH = 5
_FINISH = 1000  # laying the fifth card of a stack
_STEAL_CHIP = 800
_SKIP_EXTRA_TURN = 900  # with two players a Skip gives the thief another turn
_CHAIN_TO_FOUR = 500  # making a pile of four that this seat can finish itself
_LAY = 200
_EMPTY_HAND = 300  # laying the last hand card refills the hand with five
_KEEP_VALUE = {"steal_chip": 70, "block": 60, "skip": 40, "steal_card": 30, "reverse": 5}
_WILD_VALUE = 50
_NEVER = -1000  # below every discard and end_turn


class StackFinisherBot:
    """Greedy one-move scoring over the seat's view (see the module docstring)."""

    name = "stack_finisher"

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        if view["phase"] == "block":
            return _answer_window(view, legal)
        context = _Context(view)
        best, best_score = legal[0], float("-inf")
        for move in legal:
            score = context.score(move)
            if score > best_score:
                best, best_score = move, score
        return best


class _Context:
    """What one decision needs from the view, computed once."""

    def __init__(self, view: dict) -> None:
        self.view = view
        self.seat = view["seat"]
        self.players = view["players"]
        self.hand = view["hand"]
        self.piles = [(pile["color"], len(pile["cards"])) for pile in view["piles"]]
        seats = view["seats"]
        self.chips = [(entry["chips"]["R"], entry["chips"]["B"]) for entry in seats]
        self.discards = [entry["discard"] for entry in seats]
        self.progress = [_progress(red, blue) for red, blue in self.chips]
        self.supply = view["supply"]

    def score(self, move: dict) -> float:
        action = move["action"]
        if action == "play":
            return self._score_play(move)
        if action == "discard":
            return -self._keep_value(move["card"])
        if action == "steal_chip":
            return self._score_steal_chip(move)
        if action == "steal_card":
            return self._score_steal_card(move)
        if action == "skip":
            return _SKIP_EXTRA_TURN if self.players == 2 else 100
        if action == "reverse":
            return self._score_reverse()
        return 0  # end_turn: the only move left with an empty hand

    def _score_play(self, move: dict) -> float:
        card, pile, source = move["card"], move["pile"], move["source"]
        color, length = self.piles[pile]
        if not self.supply[color]:
            # No chip of this colour is left to win: stacking it would only recycle cards, and
            # refusing guarantees every turn ends (completions that give chips are finite).
            return _NEVER
        wild = card[1] == "W"
        bonus = (10 if source == "discard" else 0) - (5 if wild else 0)
        if length == _SEQUENCE_LENGTH - 1:
            return _FINISH + 100 * _chip_gain(self.chips[self.seat], color) + bonus
        rest = list(self.hand)
        if source == "hand":
            rest.remove(card)
        top = self.discards[self.seat][-2:-1] if source == "discard" else self.discards[self.seat][-1:]
        resources = rest + top
        if length + 1 == _SEQUENCE_LENGTH - 1:
            if any(other in (color + "5", color + "W") for other in resources):
                return _CHAIN_TO_FOUR + bonus
            return _EMPTY_HAND if not rest and source == "hand" else -50
        if wild:
            follow = f"{color}{length + 2}"
            if follow in resources or (not rest and source == "hand"):
                return _LAY + bonus
            return -10
        return _LAY + bonus

    def _score_steal_chip(self, move: dict) -> float:
        target, color = move["target"], move["color"]
        red, blue = self.chips[target]
        after = (red - 1, blue) if color == "R" else (red, blue - 1)
        loss = self.progress[target] - _progress(*after)
        return (_STEAL_CHIP + 50 * self.progress[target] + 100 * _chip_gain(self.chips[self.seat], color)
                + 50 * loss)

    def _score_steal_card(self, move: dict) -> float:
        card = self.discards[move["target"]][-1]
        if len(card) == 2:
            if card[1] == "W":
                return 240
            color, number = card[0], int(card[1])
            if any(c == color and length + 1 == number for c, length in self.piles):
                return 250
            return 30
        return 150 if card in ("block", "steal_chip") else 100 if card == "skip" else 30

    def _score_reverse(self) -> float:
        direction = self.view["direction"]
        following = (self.seat + direction) % self.players
        preceding = (self.seat - direction) % self.players
        return 90 if self.progress[following] > self.progress[preceding] else -5

    def _keep_value(self, card: str) -> float:
        if card in _KEEP_VALUE:
            return _KEEP_VALUE[card]
        if card[1] == "W":
            return _WILD_VALUE
        color, number = card[0], int(card[1])
        gaps = [number - (length + 1) for c, length in self.piles if c == color]
        gap = min((g for g in gaps if g >= 0), default=-1)
        return {0: 35, 1: 25, 2: 15}.get(gap, 10)


def _answer_window(view: dict, legal: list[dict]) -> dict:
    """Blocks when the stack's chip would bring its owner closer to a win; saves the Block otherwise."""
    moves = {move["action"]: move for move in legal}
    if "block" not in moves:
        return moves["pass"]
    completion = view["completion"]
    owner = view["seats"][completion["seat"]]["chips"]
    color = completion["color"]
    if view["supply"][color] > 0 and _chip_gain((owner["R"], owner["B"]), color) > 0:
        return moves["block"]
    return moves["pass"]


def _progress(red: int, blue: int) -> int:
    """The outcome's score: min(5, min(red, 3) + min(blue, 3))."""
    return min(5, min(red, 3) + min(blue, 3))


def _chip_gain(chips: tuple[int, int], color: str) -> int:
    red, blue = chips
    after = _progress(red + 1, blue) if color == "R" else _progress(red, blue + 1)
    return after - _progress(red, blue)




def evaluate(view: dict) -> float:
    """For the search bots: progress to the win (five chips, at least two of each colour: R15),
    chips beyond it a little, a large hand a very little against."""
    values = []
    for entry in view["seats"]:
        red, blue = entry["chips"]["R"], entry["chips"]["B"]
        values.append(min(5, min(red, 3) + min(blue, 3)) + 0.25 * (red + blue) - 0.05 * entry["hand_size"])
    return lead(view, values)


BOTS: dict[str, Bot] = {"random": RandomBot(), "stack_finisher": StackFinisherBot()}
STRONG = "stack_finisher"
# The search bots' playouts: the stack finisher plays every seat for 16 decisions after the move searched.
BOTS.update(search_bots("sequence-stacks", determinize, BOTS[STRONG], evaluate, horizon=16))
