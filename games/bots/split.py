"""Bots for Split (shared/rules/split.md): `random`, and `shedder`, which sheds its hand fast.

The pad punishes cards left in hand far more than it rewards matches (a row of negative boxes
grows triangularly), so `shedder` plays every match and upgrade it can, steals matches by
upgrading them, takes from the row only when the taken cards pay for themselves, discards the
card least likely to pair, penalizes the opponent it fears most, and trades a weak bonus only
for a better match. It reads nothing but its view and the legal moves.
"""
from __future__ import annotations

import random

from games.bots._common import Bot, RandomBot
from games.bots.search import lead, search_bots
from games.engines.split import determinize

_RANKS = "A23456789TJQK"
_SUITS = "SHDC"
_MULTIPLIER = {rank: 3 if rank == "A" else 2 if rank in "TJQK" else 1 for rank in _RANKS}
_RED = {"S": False, "H": True, "D": True, "C": False}
_KIND_STRENGTH = {"weak": 0, "strong": 1, "perfect": 2}
_MATCH_BOXES = 6  # a match row of the pad has six markable boxes (rules: the score pad)
_KIND_BONUS = (1.0, 0.5, 3.0)  # what a bonus is worth: weak trade, strong draw, perfect penalty

_STEAL = 200.0  # an upgrade of another player's match: sheds a card and moves a match to us
_MATCH = 100.0  # a match sheds two cards
_UPGRADE_OWN = 90.0  # an upgrade of our own match sheds one card


def _kind(top: str, bottom: str) -> int:
    if top[1] == bottom[1]:
        return 2
    return 1 if _RED[top[1]] == _RED[bottom[1]] else 0


def _partners(card: str) -> list[str]:
    """The four opposite halves of the same rank."""
    half = "b" if card[2] == "t" else "t"
    return [card[0] + suit + half for suit in _SUITS]


class ShedderBot:
    """Greedy hand-shedder (see the module docstring)."""

    name = "shedder"

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        if len(legal) == 1:
            return legal[0]
        table = _Table(view)
        phase = view["phase"]
        if phase == "draw":
            scored = [(table.draw_or_take(move), index) for index, move in enumerate(legal)]
        elif phase == "play":
            scored = [(table.play(move), index) for index, move in enumerate(legal)]
        elif phase == "perfect_bonus":
            scored = [(table.penalty(move["seat"]), index) for index, move in enumerate(legal)]
        elif phase == "strong_bonus":
            scored = [(table.strong_bonus(move), index) for index, move in enumerate(legal)]
        elif phase == "weak_bonus":
            scored = [(table.trade(move), index) for index, move in enumerate(legal)]
        else:  # last_matches: every match only helps
            scored = [(1.0 if move["action"] == "match" else 0.0, index) for index, move in enumerate(legal)]
        best = max(score for score, _ in scored)
        # Ties go to the first listed move; rng is not needed (the bot is deterministic anyway).
        return legal[next(index for score, index in scored if score == best)]


class _Table:
    """What the bot knows, precomputed once per decision."""

    def __init__(self, view: dict) -> None:
        self.view = view
        self.seat = view["seat"]
        self.hand = view["hand"]
        self.matches = {match["id"]: match for match in view["matches"]}
        self.seats = view["seats"]
        seen = set(self.hand) | set(view["discard_row"])
        for match in view["matches"]:
            seen.update((match["top"], match["bottom"], *match["covered"]))
        self.unseen_count = 104 - len(seen)
        self.seen = seen
        self.round_index = view["round"] - 1

    # -- values ----------------------------------------------------------------------------

    def match_value(self, rank: str, seat: int, extra: int = 0) -> float:
        """What one more match of `rank` is worth to `seat` at the end of the round."""
        owned = sum(1 for m in self.matches.values() if m["owner"] == seat and m["top"][0] == rank)
        marks = self.seats[seat]["match_rows"][rank] + owned + extra
        return _MULTIPLIER[rank] * (min(marks, 5) + 1) if marks < _MATCH_BOXES else 0.0

    def card_cost(self, seat: int, cards: int | None = None) -> float:
        """What one more card in `seat`'s hand costs at the end of the round."""
        held = self.seats[seat]["hand_size"] if cards is None else cards
        marks = self.seats[seat]["negative_rows"][self.round_index] + held
        return float(min(marks, 11) + 1) if marks < 12 else 0.0

    def unseen_partners(self, card: str) -> int:
        return sum(1 for partner in _partners(card) if partner not in self.seen)

    def upgrades(self, card: str) -> list[dict]:
        """Matches on the table that `card` would upgrade."""
        found = []
        for match in self.matches.values():
            if match["top"][0] != card[0]:
                continue
            old = _KIND_STRENGTH[match["kind"]]
            new = _kind(card, match["bottom"]) if card[2] == "t" else _kind(match["top"], card)
            if new > old:
                found.append(match)
        return found

    def shed(self, cards: list[str]) -> int:
        """Roughly how many of `cards` could leave the hand by matches and upgrades."""
        tops: dict[str, int] = {}
        bottoms: dict[str, int] = {}
        for card in cards:
            side = tops if card[2] == "t" else bottoms
            side[card[0]] = side.get(card[0], 0) + 1
        count = 0
        for rank, top_count in tops.items():
            count += 2 * min(top_count, bottoms.get(rank, 0))
        count += sum(1 for card in cards if self.upgrades(card))
        return count

    # -- phases ----------------------------------------------------------------------------

    def draw_or_take(self, move: dict) -> float:
        if move["action"] == "draw":
            pairing = sum(self.unseen_partners(card) for card in self.hand)
            chance = min(1.0, pairing / max(1, self.unseen_count))
            return 2 * chance - 1  # one more card, which pairs with that chance
        row = self.view["discard_row"]
        taken = row[row.index(move["card"]):]
        gained = self.shed(self.hand + taken) - self.shed(self.hand)
        steal = max((self.match_value(m["top"][0], self.seat) + self.match_value(m["top"][0], m["owner"])
                     for m in self.upgrades(move["card"]) if m["owner"] != self.seat), default=0.0)
        return gained - len(taken) + steal / 10

    def play(self, move: dict) -> float:
        action = move["action"]
        if action == "match":
            top, bottom = move["cards"]
            kind = _kind(top, bottom)
            rest = [card for card in self.hand if card[0] == top[0] and card not in (top, bottom)]
            follow = 0.0
            for card in rest:  # a weaker match first, then upgrade it with the spare half
                new = _kind(card, bottom) if card[2] == "t" else _kind(top, card)
                if new > kind:
                    follow = 5.0
            return _MATCH + self.match_value(top[0], self.seat) + _KIND_BONUS[kind] + follow
        if action == "upgrade":
            match = self.matches[move["match"]]
            card = move["card"]
            new = _kind(card, match["bottom"]) if card[2] == "t" else _kind(match["top"], card)
            if match["owner"] != self.seat:
                rank = match["top"][0]
                return (_STEAL + self.match_value(rank, self.seat) + self.match_value(rank, match["owner"])
                        + _KIND_BONUS[new])
            return _UPGRADE_OWN + _KIND_BONUS[new]
        return -self.keep_value(move["card"])

    def keep_value(self, card: str) -> float:
        """How much we would rather keep `card` than discard it."""
        value = self.unseen_partners(card) + _MULTIPLIER[card[0]] * 0.1
        for match in self.upgrades(card):
            # Discarding it hands the next player a card that steals from its owner.
            value += 20.0 if match["owner"] == self.seat else 1.0
        if any(partner in self.hand for partner in _partners(card)):
            value += 10.0
        return value

    def penalty(self, target: int) -> float:
        seat = self.seats[target]
        table_points = sum(self.match_value(m["top"][0], target) for m in self.matches.values()
                           if m["owner"] == target)
        projected = seat["score"] + table_points - seat["hand_size"] * self.card_cost(target) / 2
        return projected + self.card_cost(target) / 4

    def strong_bonus(self, move: dict) -> float:
        if move["action"] == "skip":
            return 0.0
        if self.view["draw_pile"] == 1:
            # The last card ends the round: worth it when we hold fewer cards than everyone else.
            mine = len(self.hand) + 1
            theirs = min(s["hand_size"] for s in self.seats if s["seat"] != self.seat)
            return 1.0 if mine < theirs else -1.0
        pairing = sum(self.unseen_partners(card) for card in self.hand)
        return 2 * min(1.0, pairing / max(1, self.unseen_count)) - 1

    def trade(self, move: dict) -> float:
        if move["action"] == "skip":
            return 0.0
        give, take = self.matches[move["give"]], self.matches[move["take"]]
        other = take["owner"]
        take_rank, give_rank = take["top"][0], give["top"][0]
        mine = self.match_value(take_rank, self.seat) - self.match_value(give_rank, self.seat, extra=-1)
        theirs = self.match_value(take_rank, other, extra=-1) - self.match_value(give_rank, other)
        return mine + theirs / 2




_NEGATIVE_BOXES = 12  # a negative row of the pad has twelve boxes (rules: the score pad)


def evaluate(view: dict) -> float:
    """For the search bots: each pad as it would stand if the round ended now (R14): its total, plus
    a box marked in its rank's row for every match the seat owns on the table, less the negative
    boxes of the cards still in hand. Once the game is over, the final scores."""
    if view["outcome"] is not None:
        return lead(view, [float(score) for score in view["outcome"]["scores"]])
    column = max(view["round"] - 1, 0)
    rows = [dict(entry["match_rows"]) for entry in view["seats"]]
    values = [float(entry["score"]) for entry in view["seats"]]
    for match in view["matches"]:
        owner, rank = match["owner"], match["top"][0]
        marks = rows[owner][rank]
        if marks < _MATCH_BOXES:
            values[owner] += _MULTIPLIER[rank] * (marks + 1)  # M × (T(k+1) − T(k))
        rows[owner][rank] = marks + 1
    for seat, entry in enumerate(view["seats"]):
        marked = entry["negative_rows"][column]
        values[seat] -= _triangle(marked + entry["hand_size"]) - _triangle(marked)
    return lead(view, values)


def _triangle(boxes: int) -> float:
    boxes = min(boxes, _NEGATIVE_BOXES)
    return boxes * (boxes + 1) / 2


BOTS: dict[str, Bot] = {"random": RandomBot(), "shedder": ShedderBot()}
STRONG = "shedder"
# The search bots' playouts: the shedder plays every seat for 24 decisions after the move searched (a 30-game
# trial at 3 players, seeds 100-129: 15 wins at 24 against 10 at 12; at 2 players 25 of 40 at both).
BOTS.update(search_bots("split", determinize, BOTS[STRONG], evaluate, horizon=24))
