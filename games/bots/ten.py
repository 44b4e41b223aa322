"""Bots for Ten (shared/rules/ten.md): the random baseline and a run builder.

The run builder values a collection by the runs it can still make (each colour's best
interval, gaps it would still have to fill counted against it, less so early in the game),
counts the cards left in the draw pile from what is face up to weigh drawing against
stopping, bids and buys when a card adds more to its runs than the tokens are worth.
"""
from __future__ import annotations

import functools
import random
from collections import Counter

from games.bots._common import Bot, RandomBot
from games.bots.search import lead, search_bots
from games.engines.ten import canonical_deck, determinize

_COLOURS = "RBOG"
_BUST_AT = 11  # rule R3
_CURRENCY_LIMIT = 10  # rule R11
_HOLE_PENALTY = 1.2  # a gap still to fill in a run costs about this many points, early in the game
_TOKEN_VALUE = 0.3  # points per currency token: a card extending a run (+1) costs about 3
_BUST_TOKEN_VALUE = 0.8  # points per bust token (worth 3 in payments, nothing at the end)
_FINAL_TOKEN_VALUE = 0.02  # in the final round currency only breaks ties (R14)
_GIFT_WEIGHT = 0.3  # how much the currency handed to opponents (R4 numbers) counts against us
_DECKS = {players: Counter(canonical_deck(players)) for players in range(2, 6)}


def _run_score(length: int) -> int:
    return 10 if length >= 9 else length  # R13


def _interval_table(hole_penalty: float) -> tuple[tuple[float, ...], ...]:
    """TABLE[mask][fillers]: a colour's best run (numbers in `mask`, bit n-1) with up to 3 free wilds,
    each gap the wilds cannot fill costing `hole_penalty` (an infinite penalty gives the R13 score)."""
    table = []
    for mask in range(512):
        best = [0.0, 0.0, 0.0, 0.0]
        for start in range(9):
            missing = 0
            for end in range(start, 9):
                if not mask >> end & 1:
                    missing += 1
                    if missing > 5:
                        break
                score = _run_score(end - start + 1)
                for fillers in range(4):
                    gaps = missing - fillers
                    value = score if gaps <= 0 else score - hole_penalty * gaps
                    if gaps <= 2 and value > best[fillers]:
                        best[fillers] = value
        table.append(tuple(best))
    return tuple(table)


_HOPEFUL = _interval_table(_HOLE_PENALTY)
_EXACT = _interval_table(1000.0)


class _Holdings:
    """A collection as bit masks per colour plus its wilds, valued for a game progress `late` in [0, 1]."""

    __slots__ = ("masks", "own", "number_wilds", "full")

    def __init__(self, cards: list[str]) -> None:
        self.masks = [0, 0, 0, 0]
        self.own = [0, 0, 0, 0]
        self.number_wilds: list[int] = []
        self.full = 0
        for card in cards:
            self.add(card)

    def add(self, card: str) -> None:
        suit, rank = card[0], card[1]
        if suit == "W":
            if rank == "#":
                self.full += 1
            else:
                self.number_wilds.append(int(rank) - 1)
        elif suit in _COLOURS:
            colour = _COLOURS.index(suit)
            if rank == "#":
                self.own[colour] += 1
            else:
                self.masks[colour] |= 1 << (int(rank) - 1)

    def copy(self) -> _Holdings:
        twin = _Holdings([])
        twin.masks, twin.own = list(self.masks), list(self.own)
        twin.number_wilds, twin.full = list(self.number_wilds), self.full
        return twin

    def value(self, late: float) -> float:
        """The runs this collection is heading for; multi-colour wilds placed greedily."""
        return _collection_value(tuple(self.masks), tuple(self.own), tuple(self.number_wilds), self.full, late)


@functools.lru_cache(maxsize=1 << 14)  # about 8 MB when full (measured with tracemalloc)
def _collection_value(masks_held: tuple[int, ...], own_held: tuple[int, ...], number_wilds: tuple[int, ...],
                      full: int, late: float) -> float:
    """`_Holdings.value`, memoised: a search move values the same collections over and over, on
    every deal and in every playout (half of its time went here)."""
    masks, own = list(masks_held), list(own_held)

    def colour_value(mask: int, fillers: int) -> float:
        fillers = min(fillers, 3)
        return (1 - late) * _HOPEFUL[mask][fillers] + late * _EXACT[mask][fillers]

    values = [colour_value(masks[colour], own[colour]) for colour in range(4)]
    for number in number_wilds:
        bit = 1 << number
        best_gain, best_colour = 0.0, -1
        for colour in range(4):
            if not masks[colour] & bit:
                gain = colour_value(masks[colour] | bit, own[colour]) - values[colour]
                if gain > best_gain:
                    best_gain, best_colour = gain, colour
        if best_colour >= 0:
            masks[best_colour] |= bit
            values[best_colour] += best_gain
    for _ in range(full):
        gains = [colour_value(masks[colour], own[colour] + 1) - values[colour] for colour in range(4)]
        colour = max(range(4), key=gains.__getitem__)
        own[colour] += 1
        values[colour] += gains[colour]
    return sum(values)


class RunBuilderBot:
    """Values cards by the runs they build, counts the draw pile for bust odds, bids and buys by value."""

    name = "run_builder"

    def choose(self, view: dict, legal: list[dict], rng: random.Random) -> dict:
        if len(legal) == 1:
            return legal[0]
        table = _Table(view)
        phase = view["phase"]
        if phase == "draw":
            return table.choose_draw_or_take(legal)
        if phase == "auction":
            return table.choose_bid(legal)
        return table.choose_buy(legal)


class _Table:
    """One decision's reading of the view."""

    def __init__(self, view: dict) -> None:
        self.view = view
        me = view["seats"][view["seat"]]
        self.collection: list[str] = me["collection"]
        self.currency: int = me["currency"]
        self.bust: int = me["bust"]
        self.holdings = _Holdings(self.collection)
        self.late = 1.0 - view["deck_count"] / _DECKS[view["players"]].total()
        self.final = view["phase"] == "final_buy"
        self.token_value = _FINAL_TOKEN_VALUE if self.final else _TOKEN_VALUE
        self.bust_token_value = 0.0 if self.final else _BUST_TOKEN_VALUE
        self.base_value = self.holdings.value(self.late)

    # ---------------------------------------------------------- valuations

    def gain_of(self, cards: list[str]) -> float:
        holdings = self.holdings.copy()
        for card in cards:
            holdings.add(card)
        return holdings.value(self.late) - self.base_value

    def pile(self) -> Counter:
        """The draw pile's contents (not its order): the deck minus every card face up."""
        view = self.view
        seen = Counter(view["market"]) + Counter(view["discard"]) + Counter(view["tableau"])
        for seat in view["seats"]:
            seen.update(seat["collection"])
        if view["auction"] is not None:
            seen[view["auction"]["card"]] += 1
        return _DECKS[view["players"]] - seen

    def best_purchase_value(self) -> float:
        """Roughly what a buy phase now is worth: the best market card we can pay for in tokens."""
        owned = set(self.collection)
        wealth = self.currency + 3 * self.bust
        best = 0.0
        for card in set(self.view["market"]):
            cost = int(card[1])
            if card in owned or cost > wealth:
                continue
            paid_currency = min(self.currency, cost)
            paid_bust = -(-(cost - paid_currency) // 3)
            payment = paid_currency * self.token_value + paid_bust * self.bust_token_value
            value = self.gain_of([card]) - payment
            best = max(best, value)
        return best

    # ---------------------------------------------------------- draw phase

    def choose_draw_or_take(self, legal: list[dict]) -> dict:
        view = self.view
        numbers = [card for card in view["tableau"] if card[0] in _COLOURS]
        number_total, currency_total = view["tableau_numbers"], view["tableau_currency"]
        opponents = view["players"] - 1
        buy_value = self.best_purchase_value()

        def take_numbers(cards: list[str], money: int) -> float:
            gift = sum(min(money, _CURRENCY_LIMIT - seat["currency"]) for seat in view["seats"]
                       if seat["seat"] != view["seat"]) / opponents
            return self.gain_of(cards) + buy_value - _GIFT_WEIGHT * gift * self.token_value

        def take_currency(money: int) -> float:
            return min(money, _CURRENCY_LIMIT - self.currency) * self.token_value

        stop_numbers, stop_currency = take_numbers(numbers, currency_total), take_currency(currency_total)
        stop = max(stop_numbers, stop_currency)
        draw = {"action": "draw"} in legal
        if draw and (not view["tableau"] or self.draw_value(numbers, number_total, currency_total,
                                                           stop, take_numbers, take_currency) > stop):
            return {"action": "draw"}
        return {"action": "take", "reward": "numbers" if stop_numbers >= stop_currency else "currency"}

    def draw_value(self, numbers, number_total, currency_total, stop, take_numbers, take_currency) -> float:
        """The expected value of one more card, then stopping (a wild keeps the present value)."""
        pile = self.pile()
        total = sum(pile.values())
        if not total:
            return float("-inf")
        bust_value = self.bust_token_value
        expected = 0.0
        for card, count in pile.items():
            suit, rank = card[0], card[1]
            if rank == "#" or suit == "W":
                value = stop
            elif suit == "$":
                money = currency_total + int(rank)
                value = bust_value if money >= _BUST_AT else max(take_numbers(numbers, money),
                                                                 take_currency(money))
            elif number_total + int(rank) - currency_total >= _BUST_AT:
                value = bust_value
            else:
                value = max(take_numbers(numbers + [card], currency_total), take_currency(currency_total))
            expected += count * value
        return expected / total

    # ---------------------------------------------------------- auction

    def choose_bid(self, legal: list[dict]) -> dict:
        auction = self.view["auction"]
        worth = self.gain_of([auction["card"]])
        limit = worth / self.token_value
        last = auction["order"][-1] == self.view["seat"]
        bids = [move for move in legal if move["action"] == "bid" and self.bid_amount(move) <= limit]
        if not bids:
            return {"action": "pass"}
        lowest = min(self.bid_amount(move) for move in bids)
        target = lowest if last else max(lowest, int(0.75 * limit))
        candidates = [move for move in bids if self.bid_amount(move) >= target] or bids
        return min(candidates, key=lambda move: (self.bid_cost(move), self.bid_amount(move)))

    @staticmethod
    def bid_amount(move: dict) -> int:
        return move["currency"] + 3 * move["bust"]

    def bid_cost(self, move: dict) -> float:
        # Tokens past the limit of 10 would be lost anyway, so spending currency near it is cheaper.
        currency_value = self.token_value * (0.6 if self.currency >= 8 else 1.0)
        return move["currency"] * currency_value + move["bust"] * self.bust_token_value

    # ---------------------------------------------------------- buying

    def choose_buy(self, legal: list[dict]) -> dict:
        card_gain: dict[str, float] = {}
        spent_loss: dict[int, float] = {}
        best, best_value = legal[0], 0.01
        for move in legal:
            if move["action"] != "buy":
                continue
            card, spent = move["card"], len(move["cards"])
            if card not in card_gain:
                card_gain[card] = self.gain_of([card])
            if spent not in spent_loss:
                spent_loss[spent] = self.loss_of_first(spent)
            value = (card_gain[card] - spent_loss[spent] - move["currency"] * self.token_value
                     - move["bust"] * self.bust_token_value)
            if value > best_value:
                best, best_value = move, value
        return best

    def loss_of_first(self, count: int) -> float:
        """What paying with the first `count` collection cards (canonical order) costs our runs."""
        if not count:
            return 0.0
        holdings = _Holdings(self.collection[count:])
        return self.base_value - holdings.value(self.late)




def evaluate(view: dict) -> float:
    """For the search bots: each collection as the run builder values it (its R13 score once the
    game is over, currency breaking ties as in R14), tokens as the run builder weighs them."""
    seats = view["seats"]
    if view["outcome"] is not None:
        scores = view["outcome"]["scores"]
        return lead(view, [score + 0.01 * entry["currency"] for score, entry in zip(scores, seats, strict=True)])
    late = 1.0 - view["deck_count"] / _DECKS[view["players"]].total()
    return lead(view, [
        _Holdings(entry["collection"]).value(late) + _TOKEN_VALUE * entry["currency"] + _BUST_TOKEN_VALUE * entry["bust"]
        for entry in seats
    ])


BOTS: dict[str, Bot] = {"random": RandomBot(), "run_builder": RunBuilderBot()}
STRONG = "run_builder"
# The search bots' playouts: the run builder plays every seat for 8 decisions after the move searched.
BOTS.update(search_bots("ten", determinize, BOTS[STRONG], evaluate, horizon=8))
