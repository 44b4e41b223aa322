"""Bots for The Game (shared/rules/the-game.md): `random` and `tight`, the stronger one.

`tight` keeps the piles tight. A play costs the unplayed cards it puts out of that pile's
reach, twice over for those no other pile takes in order any more (a backwards trick brings
such cards back, so it costs less than nothing). From its own hand it looks ahead over short
sequences of plays: the cards the turn still requires, in their best order and on their best
piles, plus up to `_EXTRA_DEPTH` optional plays, each worth playing only when its cost stays
under a threshold. So it plays a card that sets up a trick, chains neighbours, and stops at
the minimum when nothing is cheap.
It sees only its own seat's view, like a person would.

Measured (1000 seeded games per player count, seeds 0-999, every seat the same bot; cards
left is the team's score, lower is better):

| players | random: cards left, won | tight: cards left (median), won |
|---------|-------------------------|---------------------------------|
| 1       | 84.7, 0%                | 12.8 (12), 9.3%                 |
| 2       | 84.1, 0%                | 6.0 (2), 38.4%                  |
| 3       | 84.2, 0%                | 10.3 (6), 20.4%                 |
| 4       | 84.1, 0%                | 6.2 (3), 32.0%                  |
| 5       | 84.0, 0%                | 4.3 (2), 37.2%                  |
"""
from __future__ import annotations

import math
import random

from games.bots._common import Bot, RandomBot
from games.bots.search import WIN, search_bots
from games.engines.the_game import determinize

_LOWEST_CARD = 2
_HIGHEST_CARD = 99
_BACKWARDS_STEP = 10
_EXTRA_DEPTH = 2  # optional plays looked at beyond the turn's minimum
_TRICK_BONUS = 1  # a backwards trick is worth a little even when it brings back no card
_STUCK = 1000  # a plan that cannot meet the minimum loses the game
_ALL_CARDS = sum(1 << card for card in range(_LOWEST_CARD, _HIGHEST_CARD + 1))  # a bit set of cards
_Pile = tuple[bool, int]  # (climbs, top)


class TightBot:
    """Plans the turn's required cards, then adds only cheap plays (tricks, small gaps)."""

    name = "tight"

    def __init__(self, threshold: int = 1, dead_weight: int = 1) -> None:
        self.threshold = threshold  # an optional play is made only when it costs less than this
        self.dead_weight = dead_weight  # extra cost per card that no pile takes in order any more

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        hand = tuple(sorted(int(card) for card in view["hand"]))
        piles = tuple((pile["direction"] == "up", int(pile["top"])) for pile in view["piles"])
        played = {int(card) for pile in view["piles"] for card in pile["cards"]}
        unplayed = _ALL_CARDS & ~sum(1 << card for card in played)
        missing = max(view["required"] - view["played_this_turn"], 0)
        search = _Search(self.threshold, self.dead_weight)
        _, plan = search.best(piles, hand, unplayed, missing, missing + _EXTRA_DEPTH)
        if plan is None:
            return {"action": "end_turn"}
        card, pile = plan
        return {"action": "play", "card": str(card), "pile": pile}


class _Search:
    """A depth-limited search over one turn's sequences of plays, memoised.

    A pile is `(up, top)`; `unplayed` has bit n set while card n is in no pile, counting the
    plan's own plays as made.
    """

    def __init__(self, threshold: int, dead_weight: int) -> None:
        self.threshold = threshold
        self.dead_weight = dead_weight
        self.memo: dict[tuple, tuple[float, tuple[int, int] | None]] = {}

    def best(
        self, piles: tuple[_Pile, ...], hand: tuple[int, ...], unplayed: int, missing: int, depth: int
    ) -> tuple[float, tuple[int, int] | None]:
        """The lowest total cost of a plan from here, and its first play (None: end the turn)."""
        key = (piles, hand, missing, depth)  # `unplayed` follows from the hand left
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = self._expand(piles, hand, unplayed, missing, depth)
        return found

    def _expand(
        self, piles: tuple[_Pile, ...], hand: tuple[int, ...], unplayed: int, missing: int, depth: int
    ) -> tuple[float, tuple[int, int] | None]:
        best: tuple[float, tuple[int, int] | None] = (0 if missing == 0 else math.inf, None)
        if depth == 0:  # depth covers the minimum, so here missing == 0
            return best
        seen = set()
        for pile_index, pile in enumerate(piles):
            if pile in seen:
                continue  # two piles alike give the same plans
            seen.add(pile)
            up, top = pile
            trick = top - _BACKWARDS_STEP if up else top + _BACKWARDS_STEP
            elsewhere = 0  # the cards some other pile still takes in order
            for other_index, other in enumerate(piles):
                if other_index != pile_index:
                    elsewhere |= _reach(other)
            for card in hand:
                if card == trick:  # R4: brings back the unplayed cards between card and top
                    back = unplayed & _between(card, top)
                    revived = (back & ~elsewhere).bit_count()
                    cost = -back.bit_count() - self.dead_weight * revived - _TRICK_BONUS
                elif card > top if up else card < top:  # R3: puts those between out of reach
                    lost = unplayed & _between(top, card)
                    stranded = (lost & ~elsewhere).bit_count()
                    cost = lost.bit_count() + self.dead_weight * stranded
                else:
                    continue
                if missing == 0:
                    cost -= self.threshold
                    sets_up_trick = (card - _BACKWARDS_STEP if up else card + _BACKWARDS_STEP) in hand
                    if cost >= 0 and (depth == 1 or not sets_up_trick):
                        continue  # an optional play is worth it only if cheap or followed by a trick
                rest = piles[:pile_index] + ((up, card),) + piles[pile_index + 1 :]
                left = tuple(held for held in hand if held != card)
                later, _ = self.best(rest, left, unplayed & ~(1 << card), max(missing - 1, 0), depth - 1)
                if cost + later < best[0]:
                    best = (cost + later, (card, pile_index))
        return (_STUCK, None) if best[0] == math.inf else best  # no play: short of the minimum


def _between(one: int, other: int) -> int:
    """The bit set of the numbers strictly between `one` and `other`."""
    low, high = (one, other) if one < other else (other, one)
    return ((1 << high) - 1) & ~((1 << (low + 1)) - 1)


def _reach(pile: _Pile) -> int:
    """The bit set of the cards a pile takes in order (R3)."""
    up, top = pile
    return _ALL_CARDS & ~((1 << (top + 1)) - 1) if up else ((1 << top) - 1) & _ALL_CARDS




def evaluate(view: dict) -> float:
    """For the search bots: the team's cards left, plus the unplayed cards each pile has passed
    over (out of its reach: `tight`'s cost of a play), plus once more each card no pile takes in
    order any more (only a trick can bring it back). Once the game is over, its result."""
    outcome = view["outcome"]
    if outcome is not None:
        return (WIN if outcome["won"] else 0.0) - outcome["scores"][0]
    played = {int(card) for pile in view["piles"] for card in pile["cards"]}
    unplayed = [card for card in range(_LOWEST_CARD, _HIGHEST_CARD + 1) if card not in played]
    passed = 0
    low, high = _HIGHEST_CARD + 1, _LOWEST_CARD - 1  # the lowest top of an up pile, the highest of a down pile
    for pile in view["piles"]:
        top = int(pile["top"])
        if pile["direction"] == "up":
            passed += sum(1 for card in unplayed if card < top)
            low = min(low, top)
        else:
            passed += sum(1 for card in unplayed if card > top)
            high = max(high, top)
    stranded = sum(1 for card in unplayed if high <= card <= low)
    return -float(view["cards_left"]) - passed - stranded


BOTS: dict[str, Bot] = {"random": RandomBot(), "tight": TightBot()}
STRONG = "tight"
# The search bots' playouts: `tight` plays for 3 decisions after the move searched (its own
# turn, mostly: a decision of `tight` costs about 2 ms). The search never leaves `tight`'s move
# (margin inf): once it could (December 7), it played worse than `tight` at every horizon and
# margin tried: 6 games of 2 players, `tight`'s team 4.5 cards left on average, the search's 11.5
# (3 decisions), 9.7 (3 decisions, margin 3) and 29.7 (20 decisions). Its evaluation, not the
# budget, misleads it; until it is mended the levels play `tight`'s game.
BOTS.update(search_bots("the-game", determinize, BOTS[STRONG], evaluate, horizon=3, margin=math.inf))
