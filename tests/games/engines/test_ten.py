"""Ten (shared/rules/ten.md): a scenario per rule and per decision, then properties of random play."""
from __future__ import annotations

import itertools
import json
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES, IllegalMove
from games.engines.ten import ENGINE, _final_outcome, best_runs, canonical_deck

# ---------------------------------------------------------------- builders


def deck_with(players: int, top: list[str] = (), bottom: list[str] = ()) -> list[str]:
    """A legal deck for `players`: `top` drawn first, `bottom` drawn last, the rest in canonical order."""
    full = canonical_deck(players)
    rest = Counter(full)
    rest.subtract(top)
    rest.subtract(bottom)
    assert min(rest.values()) >= 0, "more copies asked for than the deck holds"
    return [*top, *[card for card in dict.fromkeys(full) for _ in range(rest[card])], *bottom]


DRAW = {"action": "draw"}
PASS = {"action": "pass"}
NUMBERS = {"action": "take", "reward": "numbers"}
CURRENCY = {"action": "take", "reward": "currency"}


def bid(currency: int = 0, bust: int = 0) -> dict:
    return {"action": "bid", "currency": currency, "bust": bust}


def buy(card: str, currency: int = 0, bust: int = 0, cards: list[str] = ()) -> dict:
    return {"action": "buy", "card": card, "currency": currency, "bust": bust, "cards": list(cards)}


class Table:
    """A game on a fixed deck, played move by move."""

    def __init__(self, players: int = 2, top: list[str] = (), bottom: list[str] = (), seed: int = 7) -> None:
        self.players = players
        self.events = ENGINE.start(players, seed, {"deck": deck_with(players, top, bottom)})
        self.state = ENGINE.replay(self.events)

    def play(self, seat: int, move: dict) -> list[dict]:
        new = ENGINE.decide(self.state, seat, move)
        for event in new:
            self.state = ENGINE.evolve(self.state, event)
        self.events += new
        return new

    def act(self, move: dict) -> list[dict]:
        """The move by the seat the game waits for."""
        return self.play(self.to_act[0], move)

    def turn(self, draws: int, reward: dict) -> list[dict]:
        """The active player draws `draws` cards (no wilds among them) and takes `reward`."""
        for _ in range(draws):
            self.act(DRAW)
        return self.act(reward)

    def rejects(self, seat: int, move) -> str:
        before = self.observe()
        with pytest.raises(IllegalMove) as error:
            ENGINE.decide(self.state, seat, move)
        assert self.observe() == before
        return error.value.code

    def fast_forward(self, cards_left: int, reward: dict = NUMBERS) -> None:
        """One card a turn, then `reward`; auctions and buys passed; stops with `cards_left` in the pile."""
        while ENGINE.outcome(self.state) is None:
            view = self.view()
            if view["phase"] == "draw" and not view["tableau"] and view["deck_count"] <= cards_left:
                return
            if view["phase"] == "draw":
                self.act(reward if view["tableau"] else DRAW)
            else:
                self.act(PASS)

    @property
    def to_act(self) -> list[int]:
        return ENGINE.to_act(self.state)

    def view(self, seat: int | None = None) -> dict:
        return ENGINE.view(self.state, seat)

    def legal(self, seat: int | None = None) -> list[dict]:
        return ENGINE.legal_moves(self.state, self.to_act[0] if seat is None else seat)

    def seat(self, seat: int) -> dict:
        return self.view()["seats"][seat]

    def observe(self) -> str:
        return observe(self.state)


def observe(state) -> str:
    players = state.players
    return json.dumps(
        {
            "to_act": ENGINE.to_act(state),
            "outcome": ENGINE.outcome(state),
            "views": [ENGINE.view(state, seat) for seat in [*range(players), None]],
            "legal": [ENGINE.legal_moves(state, seat) for seat in range(players)],
        },
        sort_keys=True,
    )


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


# ---------------------------------------------------------------- the contract's frame


def test_it_is_registered_with_its_player_range_and_version():
    assert ENGINES["ten"] is ENGINE
    assert (ENGINE.slug, ENGINE.min_players, ENGINE.max_players, ENGINE.version) == ("ten", 2, 5, 1)
    started = ENGINE.start(3, 11)[0]
    assert started["type"] == "GameStarted" and started["version"] == 1 and started["first"] == 0
    assert started["players"] == 3 and started["seed"] == 11 and started["options"] == {}


def test_start_without_a_deck_shuffles_the_canonical_deck_with_the_seed():
    deck = canonical_deck(4)
    random.Random(99).shuffle(deck)
    assert ENGINE.start(4, 99)[0]["deck"] == deck


def test_start_refuses_bad_arguments():
    for players in (1, 6, "2", True, None):
        with pytest.raises(ValueError):
            ENGINE.start(players, 1)
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"colour": "red"})
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"deck": canonical_deck(3)})
    with pytest.raises(ValueError):
        ENGINE.start(2, "seed")


def test_view_refuses_a_seat_out_of_range():
    table = Table()
    for seat in (2, -1, "0", True):
        with pytest.raises(ValueError):
            table.view(seat)


# ---------------------------------------------------------------- R1 turn start


def test_r1_a_turn_starts_in_draw_with_an_empty_tableau_and_only_draw_allowed():
    table = Table(top=["R3"])
    view = table.view(0)
    assert (view["phase"], view["active"], view["to_act"], view["tableau"]) == ("draw", 0, [0], [])
    assert view["hand"] == [] and table.view()["hand"] is None
    assert table.legal(0) == [DRAW] and table.legal(1) == []
    table.turn(1, CURRENCY)
    view = table.view()
    assert (view["phase"], view["active"], view["to_act"], view["tableau"]) == ("draw", 1, [1], [])
    assert table.legal(1) == [DRAW]


# ---------------------------------------------------------------- R2 drawing


def test_r2_number_and_currency_cards_join_the_tableau_and_a_wild_starts_an_auction():
    table = Table(top=["R3", "$2", "W5"])
    assert table.act(DRAW) == [{"type": "CardDrawn", "seat": 0, "card": "R3"}]
    assert table.act(DRAW) == [{"type": "CardDrawn", "seat": 0, "card": "$2"}]
    assert table.view()["tableau"] == ["R3", "$2"]
    assert table.act(DRAW) == [{"type": "CardDrawn", "seat": 0, "card": "W5"}]
    view = table.view()
    assert view["phase"] == "auction" and view["tableau"] == ["R3", "$2"]
    assert view["auction"] == {"card": "W5", "order": [1, 0], "high_bid": 0, "high_bidder": None,
                               "bids": [], "next": 1}
    assert view["deck_count"] == 99 - 3
    assert table.to_act == [1]


# ---------------------------------------------------------------- R3 totals and busting


def test_r3_currency_lowers_the_running_total_and_a_number_bust_needs_eleven():
    table = Table(top=["R5", "$2", "B6", "O2"])
    table.act(DRAW), table.act(DRAW), table.act(DRAW)
    view = table.view()
    assert (view["tableau_numbers"], view["tableau_currency"], view["running_total"]) == (11, 2, 9)
    assert table.legal() == [DRAW, NUMBERS, CURRENCY]
    events = table.act(DRAW)
    assert events == [
        {"type": "CardDrawn", "seat": 0, "card": "O2"},
        {"type": "Busted", "seat": 0, "cause": "numbers", "to_market": ["R5", "B6", "O2"],
         "discarded": ["$2"], "gains": [0, 2]},
        {"type": "TurnEnded", "seat": 0},
    ]


def test_r3_a_running_total_of_exactly_ten_is_not_a_bust():
    table = Table(top=["R9", "B1"])
    table.act(DRAW)
    assert types(table.act(DRAW)) == ["CardDrawn"]
    assert table.view()["running_total"] == 10 and table.view()["phase"] == "draw"


def test_r3_a_currency_total_of_eleven_is_a_currency_bust():
    table = Table(top=["R2", "$5", "$5", "$1"])
    table.act(DRAW), table.act(DRAW), table.act(DRAW)
    assert table.view()["tableau_currency"] == 10 and table.view()["running_total"] == -8
    events = table.act(DRAW)
    assert events[1] == {"type": "Busted", "seat": 0, "cause": "currency", "to_market": ["R2"],
                         "discarded": ["$5", "$5", "$1"], "gains": [0, 0]}


# ---------------------------------------------------------------- R4 stopping


def test_r4_taking_numbers_collects_them_pays_the_others_and_opens_a_buy_phase():
    table = Table(top=["R2", "$3", "B4"])
    events = table.turn(3, NUMBERS)
    assert events[0] == {"type": "RewardTaken", "seat": 0, "reward": "numbers", "cards": ["R2", "B4"],
                         "to_market": [], "discarded": ["$3"], "gains": [0, 3]}
    # the market is empty: nothing to buy, so the buy phase passes by itself (R8)
    assert events[1:] == [{"type": "BuyPassed", "seat": 0, "auto": True}, {"type": "TurnEnded", "seat": 0}]
    assert table.seat(0)["collection"] == ["R2", "B4"] and table.seat(0)["cards"] == 2
    assert table.seat(1)["currency"] == 8 and table.view()["discard"] == ["$3"]


def test_r4_taking_currency_sends_the_numbers_to_the_market_and_ends_the_turn():
    table = Table(top=["R2", "$3", "B4"])
    events = table.turn(3, CURRENCY)
    assert events == [
        {"type": "RewardTaken", "seat": 0, "reward": "currency", "cards": [], "to_market": ["R2", "B4"],
         "discarded": ["$3"], "gains": [3, 0]},
        {"type": "TurnEnded", "seat": 0},
    ]
    assert table.seat(0)["currency"] == 8 and table.view()["market"] == ["R2", "B4"]


def test_r4_the_buy_phase_waits_when_the_market_has_an_affordable_card():
    table = Table(top=["R3", "B2"])
    table.turn(1, CURRENCY)
    assert table.turn(1, NUMBERS) == [
        {"type": "RewardTaken", "seat": 1, "reward": "numbers", "cards": ["B2"], "to_market": [],
         "discarded": [], "gains": [0, 0]}
    ]
    assert table.view()["phase"] == "buy" and table.to_act == [1]
    assert table.legal(1)[0] == PASS and {"R3"} == {move["card"] for move in table.legal(1)[1:]}


def test_r4_taking_needs_a_card_in_the_tableau_and_a_known_reward():
    table = Table(top=["R3"])
    assert table.rejects(0, NUMBERS) == "tableau_empty"
    assert table.rejects(0, {"action": "take"}) == "bad_reward"
    assert table.rejects(0, {"action": "take", "reward": "cards"}) == "bad_reward"
    assert table.rejects(0, {"action": "take", "reward": ["numbers"]}) == "bad_reward"


# ---------------------------------------------------------------- R5 busting


def test_r5_a_bust_gives_a_bust_token_and_no_buy_phase_even_with_a_market():
    table = Table(top=["G1", "R9", "B9"])
    table.turn(1, CURRENCY)  # G1 to the market
    table.act(DRAW)
    events = table.act(DRAW)
    assert types(events) == ["CardDrawn", "Busted", "TurnEnded"]
    assert table.seat(1)["bust"] == 1 and table.view()["market"] == ["R9", "B9", "G1"]
    assert table.view()["active"] == 0 and table.view()["phase"] == "draw"


def test_r5_a_currency_bust_pays_nobody_and_a_number_bust_pays_the_others():
    table = Table(players=3, top=["$5", "$5", "$2", "$3", "R9", "B9"])
    events = table.turn(2, DRAW)  # $5 $5 then $2: currency bust
    assert events[1]["cause"] == "currency" and events[1]["gains"] == [0, 0, 0]
    table.act(DRAW), table.act(DRAW)  # seat 1: $3, R9 (running 6)
    events = table.act(DRAW)  # B9: running 15
    assert events[1]["cause"] == "numbers" and events[1]["gains"] == [3, 0, 3]
    assert [seat["currency"] for seat in table.view()["seats"]] == [8, 5, 8]
    assert [seat["bust"] for seat in table.view()["seats"]] == [1, 1, 0]


# ---------------------------------------------------------------- R6 last card


def test_r6_after_the_last_card_the_player_must_take_and_the_final_round_follows():
    table = Table(bottom=["R4"])
    table.fast_forward(1)
    active = table.view()["active"]
    table.act(DRAW)
    assert table.view()["deck_count"] == 0
    assert table.legal() == [NUMBERS, CURRENCY]
    assert table.rejects(active, DRAW) == "deck_empty"
    events = table.act(CURRENCY)
    assert types(events)[:2] == ["RewardTaken", "TurnEnded"]
    view = table.view()
    assert view["phase"] == "final_buy" and view["final_round"]["order"] == [1 - active, active]


def test_r6_a_bust_on_the_last_card_ends_the_turn_into_the_final_round():
    table = Table(bottom=["B9", "R9"])
    table.fast_forward(2)
    table.act(DRAW)
    events = table.act(DRAW)
    assert types(events)[:3] == ["CardDrawn", "Busted", "TurnEnded"]
    # market: B9 and R9; everyone may buy in the final round
    assert table.view()["phase"] == "final_buy" and table.view()["market"] == ["R9", "B9"]


def test_d10_a_wild_as_last_card_is_auctioned_then_an_empty_tableau_ends_the_turn_bare():
    table = Table(bottom=["W5"])
    table.fast_forward(1)  # numbers every turn: the market stays empty
    active = table.view()["active"]
    table.act(DRAW)
    assert table.view()["phase"] == "auction"
    table.act(PASS)
    events = table.act(PASS)
    assert events[:3] == [
        {"type": "BidPassed", "seat": active, "auto": False},
        {"type": "AuctionUnsold", "card": "W5"},
        {"type": "TurnEnded", "seat": active},
    ]
    # nobody can buy from an empty market: the final round passes by itself and the game ends
    assert types(events[3:]) == ["BuyPassed", "BuyPassed", "GameEnded"]
    assert ENGINE.outcome(table.state)["finished"] is True


def test_d10_a_wild_as_last_card_with_a_tableau_leaves_the_player_to_take():
    table = Table(bottom=["R4", "W5"])
    table.fast_forward(2)
    table.act(DRAW), table.act(DRAW)
    table.act(bid(1))
    table.act(PASS)
    assert table.view()["phase"] == "draw" and table.view()["tableau"] == ["R4"]
    assert table.legal() == [NUMBERS, CURRENCY]


# ---------------------------------------------------------------- R7 auction


def test_r7_each_player_gets_one_chance_from_the_left_and_bids_must_rise():
    table = Table(players=3, top=["W3"])
    table.act(DRAW)
    assert table.view()["auction"]["order"] == [1, 2, 0] and table.to_act == [1]
    assert table.rejects(0, bid(1)) == "not_your_turn"
    assert table.rejects(1, bid(6)) == "insufficient_funds"
    assert table.rejects(1, bid(0)) == "bid_too_low"
    assert table.play(1, bid(2)) == [{"type": "BidPlaced", "seat": 1, "currency": 2, "bust": 0, "amount": 2}]
    assert table.rejects(2, bid(2)) == "bid_too_low"
    assert table.rejects(2, bid(0, 1)) == "insufficient_funds"
    table.play(2, bid(3))
    auction = table.view()["auction"]
    assert (auction["high_bid"], auction["high_bidder"], auction["next"]) == (3, 2, 0)
    assert auction["bids"] == [{"seat": 1, "amount": 2, "currency": 2, "bust": 0},
                               {"seat": 2, "amount": 3, "currency": 3, "bust": 0}]
    assert table.play(0, PASS) == [
        {"type": "BidPassed", "seat": 0, "auto": False},
        {"type": "AuctionWon", "seat": 2, "card": "W3", "amount": 3, "currency": 3, "bust": 0},
    ]
    assert table.seat(2)["currency"] == 2 and table.seat(2)["collection"] == ["W3"]
    assert table.seat(1)["currency"] == 5
    view = table.view()
    assert (view["phase"], view["active"], view["auction"]) == ("draw", 0, None)
    assert table.legal() == [DRAW]  # the tableau is still empty: no reward yet (decision 5)


def test_r7_a_bidder_who_cannot_beat_the_high_bid_passes_automatically():
    table = Table(players=3, top=["W3"])
    table.act(DRAW)
    assert table.play(1, bid(5)) == [
        {"type": "BidPlaced", "seat": 1, "currency": 5, "bust": 0, "amount": 5},
        {"type": "BidPassed", "seat": 2, "auto": True},
        {"type": "BidPassed", "seat": 0, "auto": True},
        {"type": "AuctionWon", "seat": 1, "card": "W3", "amount": 5, "currency": 5, "bust": 0},
    ]
    assert table.view()["seats"][1]["currency"] == 0


def test_r7_bust_tokens_bid_three_each_and_the_canonical_bids_are_listed():
    table = Table(top=["R9", "B9", "$4", "G#"])
    table.act(DRAW), table.act(DRAW)  # seat 0 busts: 1 bust token, seat 1 gains nothing
    table.act(DRAW)  # seat 1: $4
    table.act(DRAW)  # seat 1: G#, auction order [0, 1]
    assert table.legal(0)[:3] == [PASS, bid(1, 0), bid(2, 0)]
    assert table.play(0, bid(1, 1)) == [
        {"type": "BidPlaced", "seat": 0, "currency": 1, "bust": 1, "amount": 4}
    ]
    assert table.legal(1) == [PASS, bid(5, 0)]
    table.play(1, PASS)
    assert (table.seat(0)["currency"], table.seat(0)["bust"], table.seat(0)["collection"]) == (4, 0, ["G#"])
    assert table.view()["tableau"] == ["$4"] and table.view()["active"] == 1


def test_r7_the_auction_legal_moves_go_by_bust_then_currency():
    table = Table(top=["R9", "B9", "$4", "W#"])
    table.act(DRAW), table.act(DRAW)  # seat 0 busts: 1 bust token
    table.turn(1, CURRENCY)  # seat 1: 9 currency
    table.act(DRAW)  # seat 0 draws W#: seat 1 bids first
    table.play(1, bid(4))
    assert table.legal(0) == [PASS, bid(5, 0), bid(2, 1), bid(3, 1), bid(4, 1), bid(5, 1)]


def test_r7_and_d7_an_unbid_wild_is_discarded():
    table = Table(top=["O#"])
    table.act(DRAW)
    table.act(PASS)
    assert table.act(PASS) == [{"type": "BidPassed", "seat": 0, "auto": False},
                               {"type": "AuctionUnsold", "card": "O#"}]
    assert table.view()["discard"] == ["O#"] and table.view()["phase"] == "draw"


def test_d6_collection_cards_are_not_part_of_a_bid():
    table = Table(top=["R1", "W2"])
    table.turn(1, NUMBERS)
    table.act(DRAW)  # seat 1 draws W2; seat 0 bids first
    events = table.play(0, {"action": "bid", "currency": 1, "cards": ["R1"]})
    assert events[0] == {"type": "BidPlaced", "seat": 0, "currency": 1, "bust": 0, "amount": 1}
    assert table.seat(0)["collection"] == ["R1"]


# ---------------------------------------------------------------- R8 buy phase


def test_r8_passing_the_buy_phase_ends_the_turn():
    table = Table(top=["R3", "B2"])
    table.turn(1, CURRENCY)
    table.turn(1, NUMBERS)
    assert table.play(1, PASS) == [{"type": "BuyPassed", "seat": 1, "auto": False},
                                   {"type": "TurnEnded", "seat": 1}]
    assert table.view()["active"] == 0


def test_r8_a_buyer_owning_every_market_card_passes_automatically():
    table = Table(top=["R3", "R3"])
    table.turn(1, CURRENCY)  # R3 to the market
    events = table.turn(1, NUMBERS)  # seat 1 collects the other R3
    assert types(events) == ["RewardTaken", "BuyPassed", "TurnEnded"] and events[1]["auto"] is True


def test_r8_a_buyer_who_cannot_afford_anything_passes_automatically():
    table = Table(top=["R9", "W1", "$1"])
    table.turn(1, CURRENCY)  # R9 to the market
    table.act(DRAW)  # seat 1 draws W1
    table.play(0, PASS)
    table.play(1, bid(5))  # seat 1 spends everything on W1: wealth 1 (the card)
    events = table.turn(1, NUMBERS)
    assert types(events) == ["RewardTaken", "BuyPassed", "TurnEnded"]


# ---------------------------------------------------------------- R9 buying


def bought_setup() -> Table:
    """Seat 1 in its buy phase: market [B5], collection [R1, R2], 5 currency."""
    table = Table(top=["B5", "R1", "R2"])
    table.turn(1, CURRENCY)
    table.turn(2, NUMBERS)
    return table


def test_r9_the_canonical_payments_use_the_first_collection_cards():
    table = bought_setup()
    assert table.legal(1) == [PASS, buy("B5", 3, 0, ["R1", "R2"]), buy("B5", 4, 0, ["R1"]), buy("B5", 5)]


def test_r9_a_purchase_pays_tokens_and_cards_and_collects_the_card():
    table = bought_setup()
    events = table.play(1, {"action": "buy", "card": "B5", "currency": 3, "cards": ["R2", "R1"]})
    assert events == [
        {"type": "CardBought", "seat": 1, "card": "B5", "currency": 3, "bust": 0, "cards": ["R1", "R2"]},
        {"type": "TurnEnded", "seat": 1},
    ]
    view = table.view()
    assert view["seats"][1]["collection"] == ["B5"] and view["seats"][1]["currency"] == 2
    assert view["market"] == [] and view["discard"] == ["R1", "R2"]


def test_r9_any_choice_of_collection_cards_is_accepted():
    table = bought_setup()
    table.play(1, buy("B5", 4, 0, ["R2"]))
    assert table.seat(1)["collection"] == ["R1", "B5"] and table.view()["discard"] == ["R2"]


def test_r9_payments_are_checked_in_the_listed_order():
    table = bought_setup()
    assert table.rejects(1, buy("R9", 5)) == "card_not_in_market"
    assert table.rejects(1, buy("Z9", 5)) == "card_not_in_market"
    assert table.rejects(1, {"action": "buy", "card": 5}) == "malformed_move"
    assert table.rejects(1, {"action": "buy"}) == "malformed_move"
    assert table.rejects(1, {"action": "buy", "card": "B5", "cards": "R1"}) == "malformed_move"
    assert table.rejects(1, {"action": "buy", "card": "B5", "cards": [1]}) == "malformed_move"
    for junk in (-1, True, 1.0, "1", None, [1]):
        assert table.rejects(1, {"action": "buy", "card": "B5", "currency": junk}) == "malformed_move"
        assert table.rejects(1, {"action": "buy", "card": "B5", "bust": junk}) == "malformed_move"
    assert table.rejects(1, {"action": "buy", "card": "R9", "currency": -1}) == "malformed_move"
    assert table.rejects(1, buy("B5", 6)) == "insufficient_funds"
    assert table.rejects(1, buy("B5", 10**30)) == "insufficient_funds"
    assert table.rejects(1, buy("B5", 0, 1)) == "insufficient_funds"
    assert table.rejects(1, buy("B5", 9, 0, ["R3"])) == "insufficient_funds"
    assert table.rejects(1, buy("B5", 3, 0, ["R3"])) == "card_not_in_collection"
    assert table.rejects(1, buy("B5", 3, 0, ["R1", "R1"])) == "card_not_in_collection"
    assert table.rejects(1, buy("B5", 3, 0, ["R1"])) == "payment_too_low"
    assert table.rejects(1, buy("B5", 5, 0, ["R1"])) == "overpayment"
    assert table.rejects(1, buy("B5", 4, 0, ["R1", "R2"])) == "overpayment"


def test_r9_bust_tokens_may_overpay_by_less_than_three_and_only_alone():
    # seat 1 busts twice, then buys from a market of R9 B9 G9 O4 ... with bust tokens
    table = Table(top=["R9", "B9", "G9", "O9", "$1", "O4", "B1", "G1", "O1", "O3"])
    table.act(DRAW), table.act(DRAW)  # seat 0: R9 B9 bust
    table.act(DRAW), table.act(DRAW)  # seat 1: G9 O9 bust
    table.turn(1, NUMBERS)  # seat 0: $1, seat 1 gains 1 (6)
    table.turn(1, CURRENCY)  # seat 1: O4 to the market
    table.turn(1, NUMBERS)  # seat 0: B1 (buy phase: seat 0 passes)
    table.act(PASS)
    table.act(DRAW)  # seat 1: G1
    table.act(DRAW)  # seat 1: O1
    table.act(NUMBERS)
    assert table.view()["market"] == ["R9", "B9", "O4", "O9", "G9"]
    seat = table.seat(1)
    assert (seat["currency"], seat["bust"], seat["collection"]) == (6, 1, ["O1", "G1"])
    legal = [move for move in table.legal(1) if move["action"] == "buy" and move["card"] == "O4"]
    assert legal == [buy("O4", 2, 0, ["O1", "G1"]), buy("O4", 3, 0, ["O1"]), buy("O4", 4),
                     buy("O4", 0, 1, ["O1"]), buy("O4", 1, 1)]
    assert table.rejects(1, buy("O4", 1, 1, ["O1"])) == "overpayment"
    assert table.rejects(1, buy("O4", 0, 2)) == "insufficient_funds"
    # cost 9: 6 currency + 1 bust token = 9 exactly
    assert buy("R9", 6, 1) in table.legal(1) and buy("R9", 5, 1, ["O1"]) in table.legal(1)


def test_r9_a_lone_bust_token_buys_a_card_of_one_two_or_three():
    table = Table(top=["R9", "B9", "R1", "B2", "G3", "O2"])
    table.act(DRAW), table.act(DRAW)  # seat 0 busts
    table.turn(1, CURRENCY)  # seat 1: R1 to the market
    table.turn(1, CURRENCY)  # seat 0: B2 to the market
    table.turn(1, CURRENCY)  # seat 1: G3 to the market
    table.turn(1, NUMBERS)  # seat 0 collects O2: buy phase
    legal = table.legal(0)
    for card in ("R1", "B2", "G3"):
        assert buy(card, 0, 1) in legal
    assert table.rejects(0, buy("B2", 1, 1)) == "overpayment"
    assert table.rejects(0, buy("R1", 0, 1, ["O2"])) == "overpayment"
    table.play(0, buy("B2", 0, 1))
    assert table.seat(0)["bust"] == 0 and table.seat(0)["collection"] == ["B2", "O2"]


def test_r9_and_d8_an_owned_number_blocks_a_purchase_but_a_wild_does_not():
    table = Table(top=["R3", "R3", "W3", "R#"])
    table.turn(1, CURRENCY)  # R3 to the market
    assert table.turn(1, NUMBERS)[1]["type"] == "BuyPassed"  # seat 1 owns R3: nothing buyable
    table.act(DRAW)  # seat 0 draws W3
    table.play(1, bid(1))
    table.play(0, bid(2))  # seat 0 wins W3
    table.act(DRAW)  # seat 0 draws R#
    table.play(1, PASS)
    table.play(0, bid(1))  # seat 0 wins R#
    assert table.seat(0)["collection"] == ["R#", "W3"]
    table.act(DRAW)  # R1
    table.act(NUMBERS)  # buy phase: R3 may be bought although W3 and R# are held
    assert table.view()["phase"] == "buy"
    assert buy("R3", 2, 0, ["R1"]) in table.legal(0)
    table.play(0, buy("R3", 1, 0, ["R1", "R#"]))
    assert table.view()["discard"] == ["R1", "R#"]
    assert table.rejects(0, buy("R3", 3)) == "not_your_turn"
    assert table.rejects(1, buy("R3", 3)) == "wrong_phase"


def test_r9_already_owned_is_checked_before_funds():
    table = Table(players=3, top=["R4", "G2", "R4"])
    table.turn(1, CURRENCY)  # seat 0: R4 to the market
    table.turn(1, CURRENCY)  # seat 1: G2 to the market
    table.turn(1, NUMBERS)  # seat 2 collects R4: it may buy G2, not the market's R4
    assert table.view()["phase"] == "buy" and table.view()["market"] == ["R4", "G2"]
    assert {move["card"] for move in table.legal(2)[1:]} == {"G2"}
    assert table.rejects(2, buy("R4", 99)) == "already_owned"
    assert table.rejects(2, buy("R4", 4)) == "already_owned"


# ---------------------------------------------------------------- R10 turn end


def test_r10_turns_pass_to_the_left_and_wrap_around():
    table = Table(players=3, top=["R1", "B1", "G1", "O1"])
    actives = []
    for _ in range(4):
        actives.append(table.view()["active"])
        table.turn(1, CURRENCY)
        assert table.view()["tableau"] == []
    assert actives == [0, 1, 2, 0]


# ---------------------------------------------------------------- R11 currency limit


def test_r11_currency_gains_stop_at_ten():
    table = Table(top=["$3", "R1", "$4", "B1", "$5", "$4"])
    table.turn(1, NUMBERS)  # seat 1: 8
    table.turn(1, NUMBERS)
    events = table.turn(1, NUMBERS)  # seat 1 would gain 4, keeps 10
    assert events[0]["gains"] == [0, 2] and table.seat(1)["currency"] == 10
    table.turn(1, NUMBERS)
    events = table.turn(2, CURRENCY)  # seat 0: 5 + 9, keeps 10
    assert events[0]["gains"] == [5, 0] and table.seat(0)["currency"] == 10


# ---------------------------------------------------------------- R12 final round


def test_r12_every_player_gets_a_final_buy_starting_left_and_ending_with_the_last_active():
    table = Table(players=3, bottom=["G9", "O9", "B9"])
    table.fast_forward(3)
    last = (table.view()["active"] + 2) % 3
    table.turn(1, CURRENCY)  # G9 to the market
    table.turn(1, CURRENCY)  # O9 to the market
    table.act(DRAW)  # B9, the last card
    table.act(NUMBERS)
    assert table.view()["phase"] == "buy" and table.view()["active"] == last
    events = table.play(last, {"action": "buy", "card": "G9", "currency": 9})
    assert events == [
        {"type": "CardBought", "seat": last, "card": "G9", "currency": 9, "bust": 0, "cards": []},
        {"type": "TurnEnded", "seat": last},
    ]
    order = [(last + 1) % 3, (last + 2) % 3, last]
    view = table.view()
    assert view["phase"] == "final_buy" and view["final_round"] == {"order": order, "done": 0}
    assert view["active"] == last and table.to_act == [order[0]]
    assert table.play(order[0], PASS) == [{"type": "BuyPassed", "seat": order[0], "auto": False}]
    table.play(order[1], PASS)
    assert table.view()["final_round"]["done"] == 2 and table.to_act == [last]
    events = table.play(last, buy("O9", 1, 0, table.seat(last)["collection"][:8]))
    assert types(events) == ["CardBought", "GameEnded"]
    view = table.view()
    assert view["phase"] == "over" and view["finished"] and view["to_act"] == []
    assert view["final_round"] == {"order": order, "done": 3} and view["active"] == last
    assert table.rejects(last, PASS) == "game_over"
    assert ENGINE.legal_moves(table.state, last) == []


def test_r12_a_player_with_no_purchase_passes_the_final_buy_automatically():
    table = Table(bottom=["R4"])
    table.fast_forward(1)  # numbers every turn: seat 0 holds the other R4, the market is empty
    assert table.view()["active"] == 0 and "R4" in table.seat(0)["collection"]
    table.act(DRAW)
    table.act(CURRENCY)  # R4 to the market: only seat 1 may buy it
    assert table.view()["final_round"] == {"order": [1, 0], "done": 0} and table.to_act == [1]
    assert table.legal(1)[0] == PASS and table.legal(0) == []
    assert table.play(1, PASS) == [
        {"type": "BuyPassed", "seat": 1, "auto": False},
        {"type": "BuyPassed", "seat": 0, "auto": True},
        {"type": "GameEnded", "outcome": ENGINE.outcome(table.state)},
    ]


# ---------------------------------------------------------------- R13 scoring


@pytest.mark.parametrize(
    ("collection", "total", "runs"),
    [
        (["B1", "B2", "B3", "B5", "B7"], 3, (0, 3, 0, 0)),
        (["B1", "B2", "B3", "B5", "B7", "B#"], 5, (0, 5, 0, 0)),
        (["W7"], 1, (1, 0, 0, 0)),
        (["W#"], 1, (1, 0, 0, 0)),
        ([], 0, (0, 0, 0, 0)),
        (["R1", "R1", "R2"], 2, (2, 0, 0, 0)),  # duplicates add nothing
        ([f"G{n}" for n in range(1, 10)], 10, (0, 0, 0, 9)),  # decision 15: a full run is worth 10
        ([f"G{n}" for n in range(1, 9)] + ["W9"], 10, (0, 0, 0, 9)),
        (["R1", "R3", "B1", "B3", "W2"], 4, (3, 1, 0, 0)),  # a number wild fills one colour only
        (["R1", "R3", "B1", "B3", "W2", "W#"], 6, (3, 3, 0, 0)),
        (["R#"], 1, (1, 0, 0, 0)),
        (["R#", "B5"], 2, (1, 1, 0, 0)),  # a colour wild only in its colour
        (["O2", "O4", "O6", "G#", "W3"], 4, (0, 0, 3, 1)),
    ],
)
def test_r13_the_best_wild_assignment_is_computed(collection, total, runs):
    assert best_runs(collection) == (total, runs)


def brute_force_runs(collection: list[str]) -> tuple[int, tuple[int, ...]]:
    """Every placement of every wild (or none), the best (total, runs) by the rules page's order."""
    numbers = {(card[0], int(card[1])) for card in collection if card[0] in "RBOG" and card[1] != "#"}
    places = []
    for card in collection:
        if card[1] == "#" and card[0] in "RBOG":
            places.append([None] + [(card[0], n) for n in range(1, 10)])
        elif card[0] == "W" and card[1] != "#":
            places.append([None] + [(colour, int(card[1])) for colour in "RBOG"])
        elif card == "W#":
            places.append([None] + [(colour, n) for colour in "RBOG" for n in range(1, 10)])
    best = (0, (0, 0, 0, 0))
    for choice in itertools.product(*places):
        cells = numbers | {place for place in choice if place}
        runs = []
        for colour in "RBOG":
            longest = length = 0
            for n in range(1, 10):
                length = length + 1 if (colour, n) in cells else 0
                longest = max(longest, length)
            runs.append(longest)
        candidate = (sum(10 if run == 9 else run for run in runs), tuple(runs))
        best = max(best, candidate)
    return best


@given(st.lists(st.sampled_from(range(102)), unique=True, max_size=14)
       .map(lambda indices: [canonical_deck(4)[index] for index in indices])
       .filter(lambda cards: sum(1 for card in cards if card[1] == "#" or card[0] == "W") <= 3))
def test_r13_best_runs_matches_a_brute_force_over_every_placement(collection):
    assert best_runs(collection) == brute_force_runs(collection)


def test_r13_the_outcome_scores_every_collection():
    table = Table(bottom=["W5"])
    table.fast_forward(1)
    table.act(DRAW)
    table.act(PASS), table.act(PASS)
    outcome = ENGINE.outcome(table.state)
    views = table.view()["seats"]
    for seat in range(2):
        total, runs = best_runs(views[seat]["collection"])
        assert outcome["scores"][seat] == total and outcome["detail"]["runs"][seat] == list(runs)
        assert outcome["detail"]["currency"][seat] == views[seat]["currency"]
        assert outcome["detail"]["cards"][seat] == views[seat]["cards"]
    assert outcome["cooperative"] is False


# ---------------------------------------------------------------- R14 winner and ties


def finished_with(collections, currency) -> dict:
    """The outcome of a finished two- or three-player game whose end holdings are replaced (R14 only)."""

    players = len(collections)
    state = Table(players=players).state._replace(
        collections=tuple(tuple(cards) for cards in collections), currency=tuple(currency)
    )
    return _final_outcome(state)


def test_r14_ties_go_to_currency_then_fewest_cards_then_share_the_rank():
    outcome = finished_with([["R1", "R2"], ["B1", "B2"], ["G1", "G2", "G2"]], [4, 6, 6])
    assert outcome["scores"] == [2, 2, 2]
    assert outcome["ranks"] == [3, 1, 2] and outcome["winners"] == [1]
    outcome = finished_with([["R1", "R2"], ["B1", "B2"], ["G5"]], [6, 6, 10])
    assert outcome["ranks"] == [1, 1, 3] and outcome["winners"] == [0, 1]
    outcome = finished_with([["R1"], ["B1", "B2", "B3"]], [10, 0])
    assert outcome["ranks"] == [2, 1] and outcome["winners"] == [1]


def test_r14_a_game_of_nothing_but_currency_ends_in_a_shared_first_place():
    table = Table()
    table.fast_forward(0, CURRENCY)
    while ENGINE.outcome(table.state) is None:
        table.act(PASS)
    outcome = ENGINE.outcome(table.state)
    assert outcome["scores"] == [0, 0] and outcome["detail"]["currency"] == [10, 10]
    assert outcome["ranks"] == [1, 1] and outcome["winners"] == [0, 1]


# ---------------------------------------------------------------- decisions (Ambiguities)


def test_d1_two_to_five_players():
    for players in range(2, 6):
        assert ENGINE.start(players, 1)[0]["players"] == players
    for players in (1, 6):
        with pytest.raises(ValueError):
            ENGINE.start(players, 1)


def test_d2_and_d3_the_decks_per_player_count():
    deck = Counter(canonical_deck(4))
    assert sum(deck.values()) == 129 and canonical_deck(5) == canonical_deck(4)
    assert [deck[f"W{n}"] for n in range(1, 10)] == [1] * 9 and deck["W#"] == 1
    assert [deck[f"{colour}#"] for colour in "RBOG"] == [2, 2, 2, 2]
    assert [deck[f"${v}"] for v in range(1, 6)] == [6, 6, 6, 5, 4]
    assert [deck[f"R{n}"] for n in range(1, 10)] == [3] * 6 + [1] * 3
    three, two = Counter(canonical_deck(3)), Counter(canonical_deck(2))
    assert sum(three.values()) == 114 and sum(two.values()) == 99
    assert [three[f"B{n}"] for n in range(1, 10)] == [2, 2, 2, 3, 3, 3, 1, 1, 1]
    assert [two[f"G{n}"] for n in range(1, 10)] == [2, 2, 2, 2, 2, 2, 1, 1, 1]
    assert [three[f"${v}"] for v in range(1, 6)] == [5, 5, 5, 5, 4]
    assert [two[f"${v}"] for v in range(1, 6)] == [5, 5, 4, 4, 3]
    assert canonical_deck(2)[:3] == ["R1", "R1", "R2"] and canonical_deck(2)[-1] == "$5"


def test_d5_after_a_wild_on_an_empty_tableau_the_player_must_draw():
    table = Table(top=["W1", "R5"])
    table.act(DRAW)
    table.act(PASS), table.act(PASS)
    assert table.legal(0) == [DRAW]
    assert table.rejects(0, CURRENCY) == "tableau_empty"


def test_d13_seat_zero_starts():
    assert Table(players=4).view()["active"] == 0 and Table(players=4).to_act == [0]


def test_d14_to_act_never_waits_on_a_forced_pass():
    table = Table(players=3, top=["W4"])
    table.act(DRAW)
    table.play(1, bid(5))  # seats 2 and 0 cannot beat 5
    assert table.view()["phase"] == "draw" and table.to_act == [0]


# ---------------------------------------------------------------- error codes in their order


def test_errors_game_over_comes_first():
    table = Table(bottom=["W5"])
    table.fast_forward(1)
    table.act(DRAW), table.act(PASS), table.act(PASS)
    assert table.rejects(0, "junk") == "game_over"
    assert table.rejects(9, DRAW) == "game_over"


def test_errors_not_your_turn_then_malformed_then_unknown_then_wrong_phase():
    table = Table(top=["R1"])
    for seat in (1, 2, -1, None, "0", True, [0]):
        assert table.rejects(seat, DRAW) == "not_your_turn"
    assert table.rejects(1, "junk") == "not_your_turn"
    for move in (None, "draw", [], 3, {}, {"action": None}, {"action": 1}, {"action": ["draw"]}):
        assert table.rejects(0, move) == "malformed_move"
    assert table.rejects(0, {"action": "play"}) == "unknown_action"
    assert table.rejects(0, {"action": "bid", "currency": "x"}) == "wrong_phase"
    assert table.rejects(0, PASS) == "wrong_phase"
    assert table.rejects(0, buy("R1", 1)) == "wrong_phase"


def test_errors_in_the_auction_and_the_buy_phase():
    table = Table(top=["W1"])
    table.act(DRAW)
    assert table.rejects(1, DRAW) == "wrong_phase"
    assert table.rejects(1, NUMBERS) == "wrong_phase"
    assert table.rejects(1, buy("R1", 1)) == "wrong_phase"
    assert table.rejects(1, {"action": "bid", "currency": -1}) == "malformed_move"
    assert table.rejects(1, {"action": "bid", "currency": 6, "bust": 2.0}) == "malformed_move"
    assert table.rejects(1, {"action": "bid", "currency": 6}) == "insufficient_funds"
    assert table.rejects(1, {"action": "bid"}) == "bid_too_low"
    table = bought_setup()
    assert table.rejects(1, DRAW) == "wrong_phase"
    assert table.rejects(1, bid(1)) == "wrong_phase"


def test_errors_deck_empty_and_bad_reward_before_tableau_empty():
    table = Table(bottom=["R4"])
    table.fast_forward(1)
    assert table.rejects(table.to_act[0], {"action": "take", "reward": 3}) == "bad_reward"
    table.act(DRAW)
    assert table.rejects(table.to_act[0], DRAW) == "deck_empty"


def test_fields_an_action_does_not_use_are_ignored():
    table = Table(top=["R1"])
    assert table.play(0, {"action": "draw", "reward": [None], "card": {}})[0]["card"] == "R1"


# ---------------------------------------------------------------- view, redact


def test_view_lists_public_fields_for_every_seat_and_the_spectator():
    table = Table(players=3, top=["R2", "$1", "B1"])
    table.act(DRAW), table.act(DRAW)
    views = [table.view(seat) for seat in (0, 1, 2, None)]
    for view in views:
        for key in ("seat", "hand"):
            view.pop(key)
    assert views[0] == views[1] == views[2] == views[3]
    view = table.view(2)
    assert view["game"] == "ten" and view["players"] == 3 and view["seat"] == 2
    assert view["seats"][0] == {"seat": 0, "currency": 5, "bust": 0, "collection": [], "cards": 0}
    assert (view["tableau"], view["tableau_numbers"], view["tableau_currency"], view["running_total"]) == (
        ["R2", "$1"], 2, 1, 1)
    assert view["deck_count"] == 112 and view["final_round"] is None and view["outcome"] is None
    assert "deck" not in view and "seed" not in view


def test_redact_hides_the_deck_and_seed_and_keeps_every_other_event():
    table = Table(players=3, top=["R2", "W1"])
    started = table.events[0]
    for seat in (0, 1, 2, None):
        assert ENGINE.redact(started, seat) == {"type": "GameStarted", "version": 1, "players": 3,
                                                 "options": {}, "first": 0, "deck_count": 114}
    table.act(DRAW), table.act(DRAW)
    for event in table.events[1:]:
        assert ENGINE.redact(event, 0) == event and ENGINE.redact(event, None) == event


def test_outcome_is_a_copy_nobody_can_change_the_state_through():
    table = Table(bottom=["W5"])
    table.fast_forward(1)
    table.act(DRAW), table.act(PASS), table.act(PASS)
    outcome = ENGINE.outcome(table.state)
    outcome["ranks"].append(9)
    outcome["detail"]["runs"][0].append(9)
    assert ENGINE.outcome(table.state) != outcome


# ---------------------------------------------------------------- properties of random play

json_junk = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4)
    | st.sampled_from([10**40, -(10**40), -1, 0, 1, 2.0, "R1", "B5", "numbers", "W#"]),
    lambda children: st.lists(children, max_size=3)
    | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
FIELDS = ("action", "reward", "currency", "bust", "card", "cards")


def random_game(players: int, seed: int, steps: int | None = None):
    """Random legal play; yields (state, events so far) before every move and once at the end."""
    rng = random.Random(seed)
    events = ENGINE.start(players, seed)
    state = ENGINE.replay(events)
    while ENGINE.outcome(state) is None and (steps is None or len(events) < steps):
        yield state, events
        seat = rng.choice(ENGINE.to_act(state))
        move = rng.choice(ENGINE.legal_moves(state, seat))
        new = ENGINE.decide(state, seat, move)
        for event in new:
            state = ENGINE.evolve(state, event)
        events = events + new
    yield state, events


def places(state) -> Counter:
    """Every card of the game by where it is: draw pile, tableau, auction, market, discard, collections."""
    cards = Counter(state.deck[state.drawn:])
    cards.update(state.tableau)
    cards.update(state.market)
    cards.update(state.discard)
    for collection in state.collections:
        cards.update(collection)
    if state.auction is not None:
        cards[state.auction.card] += 1
    return cards


players_and_seeds = st.tuples(st.integers(2, 5), st.integers(10**9, 2 * 10**9))


@given(players_and_seeds)
def test_random_play_ends_conserves_cards_and_replays_to_the_same_game(game):
    players, seed = game
    deck = Counter(canonical_deck(players))
    for step, (state, events) in enumerate(random_game(players, seed)):
        assert places(state) == deck
        assert all(0 <= money <= 10 for money in state.currency) and min(state.bust) >= 0
        to_act = ENGINE.to_act(state)
        assert len(to_act) <= 1
        for seat in range(players):
            assert bool(ENGINE.legal_moves(state, seat)) == (seat in to_act)
            if seat in to_act:
                assert ENGINE.legal_moves(state, seat) != [PASS]  # decision 14
        json.dumps(events)
        if step % 40 == 0:
            assert observe(ENGINE.replay(events)) == observe(state)
    assert ENGINE.outcome(state)["finished"] and ENGINE.to_act(state) == []
    assert ENGINE.replay(events) == state
    assert observe(ENGINE.replay(json.loads(json.dumps(events)))) == observe(state)
    assert events[-1]["type"] == "GameEnded" and events[-1]["outcome"] == ENGINE.outcome(state)


@given(players_and_seeds, st.integers(1, 400), st.randoms(use_true_random=False))
def test_no_view_or_redacted_event_depends_on_the_hidden_pile_order_or_seed(game, steps, shuffler):
    players, seed = game
    *_, (state, events) = random_game(players, seed, steps)
    started = events[0]
    hidden = started["deck"][state.drawn:]
    reordered = started["deck"][:state.drawn] + shuffler.sample(hidden, len(hidden))
    other = dict(started, seed=seed + 1, deck=reordered)
    twin = ENGINE.replay([other, *events[1:]])
    assert observe(twin) == observe(state)
    seen = json.dumps([ENGINE.view(state, seat) for seat in [*range(players), None]])
    assert str(seed) not in seen and '"deck":' not in seen
    for seat in [*range(players), None]:
        redacted = [ENGINE.redact(event, seat) for event in events]
        assert redacted == [ENGINE.redact(event, seat) for event in [other, *events[1:]]]
        text = json.dumps(redacted)
        assert str(seed) not in text and '"deck":' not in text and '"seed":' not in text
        assert redacted[0]["deck_count"] == len(started["deck"])


@given(players_and_seeds, st.integers(1, 300), st.data())
def test_malformed_moves_raise_illegal_move_and_change_nothing(game, steps, data):
    players, seed = game
    *_, (state, events) = random_game(players, seed, steps)
    if ENGINE.outcome(state) is not None:
        return
    seat = ENGINE.to_act(state)[0]
    legal = ENGINE.legal_moves(state, seat)
    before = observe(state)
    moves = [
        data.draw(json_junk),
        data.draw(st.dictionaries(st.sampled_from(FIELDS), json_junk, max_size=5)),
    ]
    template = dict(data.draw(st.sampled_from(legal)))
    template[data.draw(st.sampled_from(FIELDS))] = data.draw(json_junk)
    moves.append(template)
    for move in moves:
        for who in (seat, data.draw(st.integers(-2, players + 1))):
            try:
                new = ENGINE.decide(state, who, move)
            except IllegalMove as error:
                assert error.code in CODES
                if not isinstance(move, dict) or not isinstance(move.get("action"), str):
                    assert error.code in ("malformed_move", "not_your_turn")
            else:
                assert who == seat and normal(move, state, seat) in legal
                assert new and all(isinstance(event["type"], str) for event in new)
            assert observe(state) == before


CODES = {"game_over", "not_your_turn", "malformed_move", "unknown_action", "wrong_phase", "deck_empty",
         "bad_reward", "tableau_empty", "card_not_in_market", "already_owned", "insufficient_funds",
         "card_not_in_collection", "bid_too_low", "payment_too_low", "overpayment"}


def normal(move: dict, state, seat: int) -> dict:
    """An accepted move in canonical form: defaults filled, payment cards the first k of the collection."""
    action = move["action"]
    if action == "take":
        return {"action": "take", "reward": move["reward"]}
    if action == "bid":
        return bid(move.get("currency", 0), move.get("bust", 0))
    if action == "buy":
        spent = len(move.get("cards", []))
        first = state.collections[seat][:spent]
        return buy(move["card"], move.get("currency", 0), move.get("bust", 0), first)
    return {"action": action}


@given(players_and_seeds, st.integers(1, 400))
def test_decide_accepts_exactly_the_legal_bids_and_payments(game, steps):
    players, seed = game
    for state, events in random_game(players, seed):
        if len(events) >= steps and state.phase in ("auction", "buy", "final_buy"):
            break
    else:
        return
    seat = ENGINE.to_act(state)[0]
    legal = ENGINE.legal_moves(state, seat)
    collection = state.collections[seat]
    if state.phase == "auction":
        candidates = [bid(c, b) for b in range(state.bust[seat] + 2) for c in range(12)]
    else:
        cards = sorted(set(state.market[:6]) | {"R1"})
        candidates = [buy(card, c, b, collection[:k]) for card in cards
                      for b in range(min(state.bust[seat], 4) + 2) for c in range(12)
                      for k in range(min(len(collection), 6) + 1)]
    accepted = []
    for move in candidates:
        try:
            ENGINE.decide(state, seat, move)
        except IllegalMove:
            continue
        accepted.append(move)
    listed = [move for move in legal if move != PASS]
    assert sorted(map(json.dumps, accepted)) == sorted(map(json.dumps, [
        move for move in listed if move in candidates]))
    assert all(move in candidates for move in listed if move["action"] == "bid")
