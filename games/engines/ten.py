"""Ten: a push-your-luck card game with auctions and a market (shared/rules/ten.md).

Players turn cards over from one shared draw pile and stop before the running
total reaches 11, keeping either the number cards or the currency that came up.
Wild cards are auctioned the moment they appear, unkept number cards go to a
market, and at the end each colour scores its longest run of consecutive
numbers, wild cards placed by the engine to give the best total.

2 to 5 players. Ten has no hands and never shuffles after the start: the only
hidden information is the order of the draw pile (and the seed that made it).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from games.engines._common import (
    Engine,
    IllegalMove,
    competition_ranks,
    deal_hidden,
    is_int,
    opening_deck,
    replacer,
    unseen_cards,
)

_COLOURS = "RBOG"
_START_CURRENCY = 5  # Setup 2
_CURRENCY_LIMIT = 10  # rule R11
_BUST_LIMIT = 11  # rule R3: a total of 11 or more busts
_BUST_TOKEN_WORTH = 3  # rules R7 and R9
_COMPLETE_RUN = 9  # rule R13: a run 1-9 ...
_COMPLETE_RUN_SCORE = 10  # ... scores 10
_FIRST_SEAT = 0  # Setup 4, decision 13
_BUY_PHASES = ("buy", "final_buy")
_ACTIONS = ("draw", "take", "bid", "pass", "buy")
_REWARDS = ("numbers", "currency")

# Card tables, built once from the notation of the rules page.
_DIGITS = "123456789"
_SUIT_ORDER = "RBOGW$"  # canonical order: colour, then digits ascending, then '#'
_NUMBER_VALUE: dict[str, int] = {c + d: int(d) for c in _COLOURS for d in _DIGITS}
_CURRENCY_VALUE: dict[str, int] = {f"${v}": v for v in range(1, 6)}
_WILDS: frozenset[str] = frozenset([c + "#" for c in _COLOURS] + ["W" + d for d in _DIGITS] + ["W#"])
_CARD_KEY: dict[str, int] = {
    card: _SUIT_ORDER.index(card[0]) * 10 + (_DIGITS + "#").index(card[1])
    for card in [*_NUMBER_VALUE, *_CURRENCY_VALUE, *_WILDS]
}
_sort_key = _CARD_KEY.__getitem__


def _deck_counts(players: int) -> dict[str, int]:
    """The deck for a player count (Components: deck list, cards removed for fewer players)."""
    counts: dict[str, int] = {}
    for colour in _COLOURS:
        for number in range(1, 10):
            copies = 3 if number <= 6 else 1
            if players <= 3 and number <= 3:
                copies -= 1  # the 4+ marks
            if players == 2 and 4 <= number <= 6:
                copies -= 1  # the 3 marks
            counts[f"{colour}{number}"] = copies
        counts[colour + "#"] = 2
    for digit in _DIGITS:
        counts["W" + digit] = 1
    counts["W#"] = 1
    currency = {1: 6, 2: 6, 3: 6, 4: 5, 5: 4}
    if players <= 3:
        for value in (1, 2, 3):
            currency[value] -= 1
    if players == 2:
        for value in (3, 4, 5):
            currency[value] -= 1
    for value, copies in currency.items():
        counts[f"${value}"] = copies
    return counts


def canonical_deck(players: int) -> list[str]:
    """The deck for `players` in canonical order, copies side by side (Setup 1)."""
    counts = _deck_counts(players)
    return [card for card in sorted(counts, key=_sort_key) for _ in range(counts[card])]


# ---------------------------------------------------------------- state shapes


class _Auction(NamedTuple):
    """A wild card on offer (R7); `bids` holds (seat, amount or None, currency, bust) per chance used."""

    card: str
    order: tuple[int, ...]
    high_bid: int
    high_bidder: int | None
    high_currency: int
    high_bust: int
    bids: tuple[tuple[int, int | None, int, int], ...]


class _State(NamedTuple):
    """The whole game. Immutable: evolve builds a new one with `_replace`."""

    players: int
    deck: tuple[str, ...]  # the draw pile as dealt, top first; cards [drawn:] are still in it
    drawn: int
    active: int
    phase: str  # draw | auction | buy | final_buy | over, or the instant turn_end inside one decide
    tableau: tuple[str, ...]
    number_total: int
    currency_total: int
    auction: _Auction | None
    market: tuple[str, ...]  # canonical order
    discard: tuple[str, ...]  # discard order
    currency: tuple[int, ...]
    bust: tuple[int, ...]
    collections: tuple[tuple[str, ...], ...]  # each in canonical order
    final_order: tuple[int, ...] | None
    final_done: int
    outcome: dict[str, Any] | None


_replace = replacer(_State)  # `state._replace(**changes)`, about twice as fast (replay speed)


# ---------------------------------------------------------------- the engine


class TenEngine(Engine):
    """Ten, behind the engine contract (shared/ENGINE.md)."""

    slug = "ten"
    min_players = 2
    max_players = 5
    version = 1

    # -------------------------------------------------------------- start

    def _canonical_deck(self, players: int) -> list[str]:
        return canonical_deck(players)

    def _opening(self, players: int, seed: int, options: dict[str, Any]) -> list[dict[str, Any]]:
        """The opening event: the whole draw pile, top card first (Setup)."""
        deck = opening_deck(options, canonical_deck(players), seed)
        if options.get("deck") is not None:
            options["deck"] = list(options["deck"])
        return [
            {
                "type": "GameStarted",
                "version": self.version,
                "players": players,
                "seed": seed,
                "options": options,
                "deck": deck,
                "first": _FIRST_SEAT,
            }
        ]

    # -------------------------------------------------------------- decide

    def decide(self, state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        """Validates `move` by `seat` and returns the events it causes, automatic steps included."""
        if state.phase == "over":
            raise IllegalMove("game_over", "the game has ended")
        if not is_int(seat) or seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", f"seat {seat!r} is not the one to act")
        if not isinstance(move, dict) or not isinstance(move.get("action"), str):
            raise IllegalMove("malformed_move", "a move is an object with a string 'action'")
        handler = _DECIDERS.get(move["action"])
        if handler is None:
            known = ", ".join(_ACTIONS)
            raise IllegalMove("unknown_action", f"unknown action {move['action']!r}; use one of {known}")
        events = handler(state, seat, move)
        for event in events:
            state = _evolve(state, event)
        return _run_automatic_steps(state, events)

    # -------------------------------------------------------------- evolve

    def evolve(self, state: _State | None, event: dict[str, Any]) -> _State:
        """Applies one event (pure: returns a new state)."""
        return _evolve(state, event)

    def replay(self, events: Iterable[dict[str, Any]]) -> _State | None:
        """The fold of evolve from nothing (a local loop: replay is on every request's path)."""
        state: _State | None = None
        evolvers = _EVOLVERS
        for event in events:
            state = evolvers[event["type"]](state, event)
        return state

    # -------------------------------------------------------------- queries

    def to_act(self, state: _State) -> list[int]:
        """The one seat whose decision the game waits for, or [] (automatic passes are never awaited)."""
        phase = state.phase
        if phase == "draw" or phase == "buy":
            return [state.active]
        if phase == "auction":
            auction = state.auction
            assert auction is not None  # there is one throughout the auction phase
            if len(auction.bids) < state.players:
                return [auction.order[len(auction.bids)]]
            return []
        if phase == "final_buy" and state.final_done < state.players:
            assert state.final_order is not None  # set as the final buying round starts
            return [state.final_order[state.final_done]]
        return []

    def legal_moves(self, state: _State, seat: int) -> list[dict[str, Any]]:
        """Every move decide accepts from `seat`, in the canonical forms of the rules page."""
        if not is_int(seat) or seat not in self.to_act(state):
            return []
        phase = state.phase
        if phase == "draw":
            moves: list[dict[str, Any]] = []
            if state.drawn < len(state.deck):
                moves.append({"action": "draw"})
            if state.tableau:
                moves.append({"action": "take", "reward": "numbers"})
                moves.append({"action": "take", "reward": "currency"})
            return moves
        if phase == "auction":
            return _legal_bids(state, seat)
        return _legal_buys(state, seat)

    def view(self, state: _State, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) sees: everything but the draw pile's order (rules: View)."""
        self.check_view_seat(seat, state.players)
        auction = state.auction
        to_act = self.to_act(state)
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "to_act": to_act,
            "phase": state.phase,
            "finished": state.outcome is not None,
            "outcome": _copy_outcome(state.outcome),
            "hand": None if seat is None else [],
            "seats": [
                {
                    "seat": index,
                    "currency": state.currency[index],
                    "bust": state.bust[index],
                    "collection": list(state.collections[index]),
                    "cards": len(state.collections[index]),
                }
                for index in range(state.players)
            ],
            "active": state.active,
            "deck_count": len(state.deck) - state.drawn,
            "tableau": list(state.tableau),
            "tableau_numbers": state.number_total,
            "tableau_currency": state.currency_total,
            "running_total": state.number_total - state.currency_total,
            "market": list(state.market),
            "discard": list(state.discard),
            "auction": None if auction is None else _auction_view(auction),
            "final_round": (
                None
                if state.final_order is None
                else {"order": list(state.final_order), "done": state.final_done}
            ),
        }

    def redact(self, event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
        """Only GameStarted hides anything (the pile order and the seed); every other event is public."""
        if event.get("type") != "GameStarted":
            return event
        options = {key: value for key, value in (event.get("options") or {}).items() if key != "deck"}
        return {
            "type": "GameStarted",
            "version": event.get("version"),
            "players": event["players"],
            "options": options,
            "first": event["first"],
            "deck_count": len(event["deck"]),
        }

    def outcome(self, state: _State) -> dict[str, Any] | None:
        """None while the game runs; then scores (R13) and ranks (R14)."""
        return _copy_outcome(state.outcome)


def determinize(view: dict[str, Any], rng: random.Random) -> _State:
    """A state with this view, the draw pile's order dealt at random with `rng`.

    Ten's only hidden information is that order (the module's docstring): the draw pile is
    the deck less every card the view shows, shuffled. For the search bots (games/bots/search.py).
    """
    players = view["players"]
    seats = view["seats"]
    auction_view = view["auction"]
    seen = [*view["tableau"], *view["market"], *view["discard"]]
    seen += [card for entry in seats for card in entry["collection"]]
    auction = None
    if auction_view is not None:
        seen.append(auction_view["card"])
        bids = tuple((bid["seat"], bid["amount"], bid["currency"], bid["bust"]) for bid in auction_view["bids"])
        high = [bid for bid in bids if bid[0] == auction_view["high_bidder"] and bid[1] == auction_view["high_bid"]]
        _, _, high_currency, high_bust = high[-1] if high else (None, None, 0, 0)
        auction = _Auction(auction_view["card"], tuple(auction_view["order"]), auction_view["high_bid"],
                           auction_view["high_bidder"], high_currency, high_bust, bids)
    (pile,) = deal_hidden(unseen_cards(canonical_deck(players), seen, view["deck_count"]), [view["deck_count"]], rng)
    final_round = view["final_round"]
    return _State(
        players=players,
        deck=tuple(pile),
        drawn=0,
        active=view["active"],
        phase=view["phase"],
        tableau=tuple(view["tableau"]),
        number_total=view["tableau_numbers"],
        currency_total=view["tableau_currency"],
        auction=auction,
        market=tuple(view["market"]),
        discard=tuple(view["discard"]),
        currency=tuple(entry["currency"] for entry in seats),
        bust=tuple(entry["bust"] for entry in seats),
        collections=tuple(tuple(entry["collection"]) for entry in seats),
        final_order=None if final_round is None else tuple(final_round["order"]),
        final_done=0 if final_round is None else final_round["done"],
        outcome=_copy_outcome(view["outcome"]),
    )


ENGINE = TenEngine()


# ---------------------------------------------------------------- decide handlers, one per action


def _decide_draw(state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
    if state.phase != "draw":
        raise _wrong_phase("draw", state)
    if state.drawn >= len(state.deck):
        raise IllegalMove("deck_empty", "the draw pile is empty (R6): take a reward")
    card = state.deck[state.drawn]
    events: list[dict[str, Any]] = [{"type": "CardDrawn", "seat": seat, "card": card}]
    tableau = state.tableau + (card,)
    if card in _NUMBER_VALUE:
        if state.number_total + _NUMBER_VALUE[card] - state.currency_total >= _BUST_LIMIT:
            events.append(_busted(state, seat, tableau, "numbers"))
    elif card in _CURRENCY_VALUE:
        if state.currency_total + _CURRENCY_VALUE[card] >= _BUST_LIMIT:
            events.append(_busted(state, seat, tableau, "currency"))
    return events


def _decide_take(state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
    if state.phase != "draw":
        raise _wrong_phase("take", state)
    reward = move.get("reward")
    if not isinstance(reward, str) or reward not in _REWARDS:
        raise IllegalMove("bad_reward", "reward must be 'numbers' or 'currency'")
    if not state.tableau:
        raise IllegalMove("tableau_empty", "the tableau is empty: draw first (R4)")
    numbers = [card for card in state.tableau if card in _NUMBER_VALUE]
    currency = [card for card in state.tableau if card in _CURRENCY_VALUE]
    if reward == "numbers":
        others = [other for other in range(state.players) if other != seat]
        gains = _gains(state, others, state.currency_total)
        return [
            {"type": "RewardTaken", "seat": seat, "reward": reward, "cards": numbers, "to_market": [],
             "discarded": currency, "gains": gains}
        ]
    gains = _gains(state, [seat], state.currency_total)
    return [
        {"type": "RewardTaken", "seat": seat, "reward": reward, "cards": [], "to_market": numbers,
         "discarded": currency, "gains": gains}
    ]


def _decide_bid(state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
    if state.phase != "auction":
        raise _wrong_phase("bid", state)
    currency, bust = _tokens_field(move, "currency"), _tokens_field(move, "bust")
    if currency > state.currency[seat] or bust > state.bust[seat]:
        raise IllegalMove("insufficient_funds", "you do not hold the tokens you bid")
    amount = currency + _BUST_TOKEN_WORTH * bust
    assert state.auction is not None  # there is one throughout the auction phase
    if amount <= state.auction.high_bid:
        raise IllegalMove("bid_too_low", f"a bid must beat the highest bid, {state.auction.high_bid} (R7)")
    return [{"type": "BidPlaced", "seat": seat, "currency": currency, "bust": bust, "amount": amount}]


def _decide_pass(state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
    if state.phase == "auction":
        return [{"type": "BidPassed", "seat": seat, "auto": False}]
    if state.phase in _BUY_PHASES:
        return [{"type": "BuyPassed", "seat": seat, "auto": False}]
    raise _wrong_phase("pass", state)


def _decide_buy(state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
    if state.phase not in _BUY_PHASES:
        raise _wrong_phase("buy", state)
    currency, bust = _tokens_field(move, "currency"), _tokens_field(move, "bust")
    card = move.get("card")
    if not isinstance(card, str):
        raise IllegalMove("malformed_move", "'card' must be a card string")
    cards = move.get("cards", [])
    if not isinstance(cards, list) or not all(isinstance(item, str) for item in cards):
        raise IllegalMove("malformed_move", "'cards' must be a list of card strings")
    if card not in state.market:
        raise IllegalMove("card_not_in_market", f"{card!r} is not in the market")
    collection = state.collections[seat]
    if card in collection:
        raise IllegalMove("already_owned", f"you already have a {card} (R9)")
    if currency > state.currency[seat] or bust > state.bust[seat]:
        raise IllegalMove("insufficient_funds", "you do not hold the tokens you offer")
    if Counter(cards) - Counter(collection):
        raise IllegalMove("card_not_in_collection", "you can only pay with cards of your own collection")
    cost = _NUMBER_VALUE[card]
    paid = currency + _BUST_TOKEN_WORTH * bust + len(cards)
    if paid < cost:
        raise IllegalMove("payment_too_low", f"{card} costs {cost}, the payment is worth {paid}")
    if ((currency or cards) and paid - 1 >= cost) or (bust and paid - _BUST_TOKEN_WORTH >= cost):
        raise IllegalMove("overpayment", "the payment holds a token or card it does not need (R9)")
    return [
        {"type": "CardBought", "seat": seat, "card": card, "currency": currency, "bust": bust,
         "cards": sorted(cards, key=_sort_key)}
    ]


_DECIDERS = {
    "draw": _decide_draw,
    "take": _decide_take,
    "bid": _decide_bid,
    "pass": _decide_pass,
    "buy": _decide_buy,
}


def _run_automatic_steps(state: _State, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Appends the steps nobody decides (forced passes, auction result, turn end, game end)."""
    while True:
        event = _automatic_step(state)
        if event is None:
            return events
        events.append(event)
        state = _evolve(state, event)


def _automatic_step(state: _State) -> dict[str, Any] | None:
    """The next event the rules fire by themselves in this state, or None when a seat must decide."""
    phase = state.phase
    if phase == "auction":
        auction = state.auction
        assert auction is not None  # there is one throughout the auction phase
        chances = len(auction.bids)
        if chances < state.players:
            bidder = auction.order[chances]
            if state.currency[bidder] + _BUST_TOKEN_WORTH * state.bust[bidder] <= auction.high_bid:
                return {"type": "BidPassed", "seat": bidder, "auto": True}  # R7: cannot beat the bid
            return None
        if auction.high_bidder is None:
            return {"type": "AuctionUnsold", "card": auction.card}  # decision 7
        return {"type": "AuctionWon", "seat": auction.high_bidder, "card": auction.card,
                "amount": auction.high_bid, "currency": auction.high_currency, "bust": auction.high_bust}
    if phase == "draw":
        if not state.tableau and state.drawn >= len(state.deck):
            return {"type": "TurnEnded", "seat": state.active}  # R6: nothing to take, nothing to draw
        return None
    if phase == "turn_end":
        return {"type": "TurnEnded", "seat": state.active}
    if phase == "buy":
        if not _can_buy(state, state.active):
            return {"type": "BuyPassed", "seat": state.active, "auto": True}  # R8
        return None
    if phase == "final_buy":
        if state.final_done >= state.players:
            return {"type": "GameEnded", "outcome": _final_outcome(state)}  # R13, R14
        assert state.final_order is not None  # set as the final buying round starts
        buyer = state.final_order[state.final_done]
        if not _can_buy(state, buyer):
            return {"type": "BuyPassed", "seat": buyer, "auto": True}  # R12
    return None


# ---------------------------------------------------------------- evolve handlers, one per event type


def _evolve(state: _State | None, event: dict[str, Any]) -> _State:
    return _EVOLVERS[event["type"]](state, event)


def _on_game_started(state: None, event: dict[str, Any]) -> _State:
    players = event["players"]
    return _State(
        players=players,
        deck=tuple(event["deck"]),
        drawn=0,
        active=event["first"],
        phase="draw",
        tableau=(),
        number_total=0,
        currency_total=0,
        auction=None,
        market=(),
        discard=(),
        currency=(_START_CURRENCY,) * players,
        bust=(0,) * players,
        collections=((),) * players,
        final_order=None,
        final_done=0,
        outcome=None,
    )


def _on_card_drawn(state: _State, event: dict[str, Any]) -> _State:
    card = event["card"]
    if card in _WILDS:  # R2, R7: a wild card is auctioned, it never enters the tableau
        players, active = state.players, state.active
        order = tuple((active + step) % players for step in range(1, players + 1))
        return _replace(
            state, drawn=state.drawn + 1, phase="auction", auction=_Auction(card, order, 0, None, 0, 0, ())
        )
    if card in _NUMBER_VALUE:
        return _replace(
            state, drawn=state.drawn + 1, tableau=state.tableau + (card,),
            number_total=state.number_total + _NUMBER_VALUE[card],
        )
    return _replace(
        state, drawn=state.drawn + 1, tableau=state.tableau + (card,),
        currency_total=state.currency_total + _CURRENCY_VALUE[card],
    )


def _on_busted(state: _State, event: dict[str, Any]) -> _State:
    seat = event["seat"]
    bust = list(state.bust)
    bust[seat] += 1
    return _replace(
        state, phase="turn_end", tableau=(), number_total=0, currency_total=0,
        market=_merge(state.market, event["to_market"]), discard=state.discard + tuple(event["discarded"]),
        currency=_add(state.currency, event["gains"]), bust=tuple(bust),
    )


def _on_reward_taken(state: _State, event: dict[str, Any]) -> _State:
    seat = event["seat"]
    collections = state.collections
    if event["cards"]:
        collections = _with(collections, seat, _merge(collections[seat], event["cards"]))
    return _replace(
        state, phase="buy" if event["reward"] == "numbers" else "turn_end",
        tableau=(), number_total=0, currency_total=0,
        market=_merge(state.market, event["to_market"]) if event["to_market"] else state.market,
        discard=state.discard + tuple(event["discarded"]),
        currency=_add(state.currency, event["gains"]), collections=collections,
    )


def _on_bid_placed(state: _State, event: dict[str, Any]) -> _State:
    auction = state.auction
    assert auction is not None  # bids are placed in an auction
    seat, amount, currency, bust = event["seat"], event["amount"], event["currency"], event["bust"]
    bids = auction.bids + ((seat, amount, currency, bust),)
    return _replace(state, auction=_Auction(auction.card, auction.order, amount, seat, currency, bust, bids))


def _on_bid_passed(state: _State, event: dict[str, Any]) -> _State:
    auction = state.auction
    assert auction is not None  # passes are made in an auction
    bids = auction.bids + ((event["seat"], None, 0, 0),)
    return _replace(state, auction=_Auction(*auction[:-1], bids))


def _on_auction_won(state: _State, event: dict[str, Any]) -> _State:
    seat = event["seat"]
    return _replace(
        state, phase="draw", auction=None,
        currency=_with(state.currency, seat, state.currency[seat] - event["currency"]),
        bust=_with(state.bust, seat, state.bust[seat] - event["bust"]),
        collections=_with(state.collections, seat, _merge(state.collections[seat], (event["card"],))),
    )


def _on_auction_unsold(state: _State, event: dict[str, Any]) -> _State:
    return _replace(state, phase="draw", auction=None, discard=state.discard + (event["card"],))


def _on_card_bought(state: _State, event: dict[str, Any]) -> _State:
    seat, card, spent = event["seat"], event["card"], event["cards"]
    collection = state.collections[seat]
    if spent:
        collection = _remove(collection, spent)
    market = list(state.market)
    market.remove(card)
    return _replace(
        state, market=tuple(market), discard=state.discard + tuple(spent),
        currency=_with(state.currency, seat, state.currency[seat] - event["currency"]),
        bust=_with(state.bust, seat, state.bust[seat] - event["bust"]),
        collections=_with(state.collections, seat, _merge(collection, (card,))),
        **_buy_decision_done(state),
    )


def _on_buy_passed(state: _State, event: dict[str, Any]) -> _State:
    return _replace(state, **_buy_decision_done(state))


def _buy_decision_done(state: _State) -> dict[str, Any]:
    if state.phase == "buy":
        return {"phase": "turn_end"}  # R8: the turn ends
    return {"final_done": state.final_done + 1}  # R12: the next player in the final round


def _on_turn_ended(state: _State, event: dict[str, Any]) -> _State:
    players, seat = state.players, event["seat"]
    if state.drawn < len(state.deck):  # R10
        return _replace(state, active=(seat + 1) % players, phase="draw")
    order = tuple((seat + step) % players for step in range(1, players + 1))  # R12
    return _replace(state, phase="final_buy", final_order=order, final_done=0)


def _on_game_ended(state: _State, event: dict[str, Any]) -> _State:
    return _replace(state, phase="over", outcome=_copy_outcome(event["outcome"]))


_EVOLVERS: dict[str, Callable[[Any, dict[str, Any]], _State]] = {
    "GameStarted": _on_game_started,
    "CardDrawn": _on_card_drawn,
    "Busted": _on_busted,
    "RewardTaken": _on_reward_taken,
    "BidPlaced": _on_bid_placed,
    "BidPassed": _on_bid_passed,
    "AuctionWon": _on_auction_won,
    "AuctionUnsold": _on_auction_unsold,
    "CardBought": _on_card_bought,
    "BuyPassed": _on_buy_passed,
    "TurnEnded": _on_turn_ended,
    "GameEnded": _on_game_ended,
}


# ---------------------------------------------------------------- legal moves


def _legal_bids(state: _State, seat: int) -> list[dict[str, Any]]:
    """`pass`, then every bid beating the highest one: bust ascending, then currency ascending."""
    assert state.auction is not None  # bids are legal only in an auction
    high = state.auction.high_bid
    moves: list[dict[str, Any]] = [{"action": "pass"}]
    currency_held = state.currency[seat]
    for bust in range(state.bust[seat] + 1):
        base = _BUST_TOKEN_WORTH * bust
        for currency in range(max(0, high + 1 - base), currency_held + 1):
            moves.append({"action": "bid", "currency": currency, "bust": bust})
    return moves


def _legal_buys(state: _State, seat: int) -> list[dict[str, Any]]:
    """`pass`, then per buyable market card (canonical order) each R9 payment by (bust, currency, k)."""
    moves: list[dict[str, Any]] = [{"action": "pass"}]
    collection = state.collections[seat]
    currency_held, bust_held, cards_held = state.currency[seat], state.bust[seat], len(collection)
    seen = None
    for card in state.market:
        if card == seen or card in collection:
            continue
        seen = card
        cost = _NUMBER_VALUE[card]
        for bust in range(min(bust_held, cost // _BUST_TOKEN_WORTH) + 1):
            rest = cost - _BUST_TOKEN_WORTH * bust
            for currency in range(max(0, rest - cards_held), min(currency_held, rest) + 1):
                moves.append({"action": "buy", "card": card, "currency": currency, "bust": bust,
                              "cards": list(collection[:rest - currency])})
        if cost % _BUST_TOKEN_WORTH and cost // _BUST_TOKEN_WORTH < bust_held:
            # the one allowed overpayment: bust tokens only, less than 3 over the cost
            moves.append({"action": "buy", "card": card, "currency": 0,
                          "bust": cost // _BUST_TOKEN_WORTH + 1, "cards": []})
    return moves


def _can_buy(state: _State, seat: int) -> bool:
    """R9: some market card the seat does not own costs no more than everything it could pay."""
    collection = state.collections[seat]
    wealth = state.currency[seat] + _BUST_TOKEN_WORTH * state.bust[seat] + len(collection)
    return any(_NUMBER_VALUE[card] <= wealth and card not in collection for card in state.market)


# ---------------------------------------------------------------- view


def _auction_view(auction: _Auction) -> dict[str, Any]:
    bids = auction.bids
    return {
        "card": auction.card,
        "order": list(auction.order),
        "high_bid": auction.high_bid,
        "high_bidder": auction.high_bidder,
        "bids": [{"seat": seat, "amount": amount, "currency": currency, "bust": bust}
                 for seat, amount, currency, bust in bids],
        "next": auction.order[len(bids)] if len(bids) < len(auction.order) else None,
    }


# ---------------------------------------------------------------- outcome and scoring


def _final_outcome(state: _State) -> dict[str, Any]:
    """R13 scores and R14 ranks: score, then currency tokens, then fewest collected cards."""
    results = [best_runs(collection) for collection in state.collections]
    scores = [score for score, _ in results]
    currency = list(state.currency)
    cards = [len(collection) for collection in state.collections]
    # One number per seat ordering (score, currency, -cards): currency <= 10, cards < 1000.
    keys = [score * 100_000 + money * 1_000 + (999 - count)
            for score, money, count in zip(scores, currency, cards, strict=True)]
    ranks = competition_ranks(keys)
    return {
        "finished": True,
        "ranks": ranks,
        "scores": scores,
        "winners": [seat for seat, rank in enumerate(ranks) if rank == 1],
        "cooperative": False,
        "detail": {"runs": [list(runs) for _, runs in results], "currency": currency, "cards": cards},
    }


def _run_score(length: int) -> int:
    return _COMPLETE_RUN_SCORE if length >= _COMPLETE_RUN else length


def _longest_runs_table() -> tuple[tuple[int, ...], ...]:
    """LONGEST[mask][fillers]: the longest run in 1-9 with the numbers of `mask` (bit n-1) and free wilds."""
    table = []
    for mask in range(512):
        best = [0, 0, 0, 0]
        for start in range(9):
            missing = 0
            for end in range(start, 9):
                if not mask >> end & 1:
                    missing += 1
                    if missing > 3:
                        break
                length = end - start + 1
                for fillers in range(missing, 4):
                    if length > best[fillers]:
                        best[fillers] = length
        table.append(tuple(best))
    return tuple(table)


_LONGEST = _longest_runs_table()


def best_runs(collection: Iterable[str]) -> tuple[int, tuple[int, int, int, int]]:
    """R13: the best total of a collection and its run lengths (R, B, O, G), wild cards placed optimally.

    Among placements reaching the best total, the runs list is the greatest colour by colour
    (rules: Outcome). A colour wild fills a gap of its colour, the full wild a gap of any one
    colour, a number wild only its number in one colour: a dynamic programme over the colours
    whose state is the set of number wilds (and the full wild) already placed. Keeping the best
    (total, runs so far) per state is exact: the colours still to come can use the same wilds.
    """
    present = [0, 0, 0, 0]
    colour_wilds = [0, 0, 0, 0]
    number_wilds = 0
    full_wild = 0
    for card in collection:
        suit, rank = card[0], card[1]
        if suit == "W":
            if rank == "#":
                full_wild = 1
            else:
                number_wilds |= 1 << (int(rank) - 1)
        elif suit in _COLOURS:
            colour = _COLOURS.index(suit)
            if rank == "#":
                colour_wilds[colour] += 1
            else:
                present[colour] |= 1 << (int(rank) - 1)
    states: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {(0, 0): (0, ())}
    for colour in range(4):
        options = _colour_options(present[colour], colour_wilds[colour], number_wilds, full_wild)
        following: dict[tuple[int, int], tuple[int, tuple[int, ...]]] = {}
        for (used, full_used), (total, runs) in states.items():
            for subset, full, length in options:
                if subset & used or full & full_used:
                    continue
                key = (used | subset, full_used | full)
                value = (total + _run_score(length), runs + (length,))
                if key not in following or value > following[key]:
                    following[key] = value
        states = following
    total, runs = max(states.values())
    return total, runs  # type: ignore[return-value]


def _colour_options(mask: int, own: int, number_wilds: int, full_wild: int) -> list[tuple[int, int, int]]:
    """The ways to help one colour: (number wilds used, full wild used, run length), none of them wasted.

    A choice in which some wild adds nothing to the run is left out: the same choice without
    that wild reaches the same length and leaves more for the other colours.
    """
    useful = number_wilds & ~mask  # a number wild on a number the colour has adds nothing
    options = []
    subset = useful
    while True:  # every subset of the useful number wilds, the empty one last
        for full in (0, 1) if full_wild else (0,):
            length = _LONGEST[mask | subset][min(3, own + full)]
            if full and _LONGEST[mask | subset][min(3, own)] == length:
                continue
            rest, wasted = subset, False
            while rest and not wasted:
                bit = rest & -rest
                rest ^= bit
                wasted = _LONGEST[(mask | subset) ^ bit][min(3, own + full)] == length
            if not wasted:
                options.append((subset, full, length))
        if not subset:
            return options
        subset = (subset - 1) & useful


# ---------------------------------------------------------------- private helpers


def _wrong_phase(action: str, state: _State) -> IllegalMove:
    return IllegalMove("wrong_phase", f"{action!r} is not allowed in phase {state.phase!r}")


def _tokens_field(move: dict[str, Any], key: str) -> int:
    """A move's token count: a non-negative integer, 0 when the key is absent."""
    if key not in move:
        return 0
    value = move[key]
    if not is_int(value) or value < 0:
        raise IllegalMove("malformed_move", f"{key!r} must be a non-negative integer")
    return value


def _busted(state: _State, seat: int, tableau: tuple[str, ...], cause: str) -> dict[str, Any]:
    """R5: number cards to the market, currency cards discarded, others paid only on a number bust."""
    others = [other for other in range(state.players) if other != seat]
    currency_total = sum(_CURRENCY_VALUE.get(card, 0) for card in tableau)
    return {
        "type": "Busted",
        "seat": seat,
        "cause": cause,
        "to_market": [card for card in tableau if card in _NUMBER_VALUE],
        "discarded": [card for card in tableau if card in _CURRENCY_VALUE],
        "gains": _gains(state, others if cause == "numbers" else [], currency_total),
    }


def _gains(state: _State, receivers: list[int], amount: int) -> list[int]:
    """Currency each seat actually gains when `receivers` gain `amount`, capped at 10 held (R11)."""
    return [
        max(0, min(amount, _CURRENCY_LIMIT - state.currency[seat])) if seat in receivers else 0
        for seat in range(state.players)
    ]


def _merge(cards: tuple[str, ...], new: Iterable[str]) -> tuple[str, ...]:
    """Adds cards to a canonically ordered tuple, keeping the order."""
    return tuple(sorted(cards + tuple(new), key=_sort_key))


def _remove(cards: tuple[str, ...], spent: Iterable[str]) -> tuple[str, ...]:
    remaining = list(cards)
    for card in spent:
        remaining.remove(card)
    return tuple(remaining)


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return values[:index] + (value,) + values[index + 1:]


def _add(values: tuple[int, ...], gains: list[int]) -> tuple[int, ...]:
    if not any(gains):
        return values
    return tuple(value + gain for value, gain in zip(values, gains, strict=True))


def _copy_outcome(outcome: dict[str, Any] | None) -> dict[str, Any] | None:
    """A fresh copy, so no caller can change a state through what it was given."""
    if outcome is None:
        return None
    copied = dict(outcome)
    for key in ("ranks", "scores", "winners"):
        copied[key] = list(outcome[key])
    detail = outcome["detail"]
    copied["detail"] = {key: [list(item) if isinstance(item, list) else item for item in value]
                        for key, value in detail.items()}
    return copied
