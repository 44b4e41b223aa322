"""Sequence Stacks engine: one scenario per rule of shared/rules/sequence-stacks.md (fixed decks),
one per item of its "Ambiguities and decisions", and property tests over random play."""
from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES
from games.engines._common import IllegalMove, seeded_shuffle
from games.engines.sequence_stacks import ENGINE, canonical_deck

BLUE_RUN = ["B1", "B2", "B3", "B4", "B5"]
RED_RUN = ["R1", "R2", "R3", "R4", "R5"]
SEED = 7

# Cards that fill everything a test leaves unspecified: high numbers first, so nothing fits an
# empty pile by accident; the draw pile's top is filled the same way.
_FILLER_GROUPS = (("B5", "R5", "B4", "R4", "B3", "R3"), ("B2", "R2"),
                  ("skip", "steal_card", "reverse", "steal_chip", "BW", "RW", "B1", "R1", "block"))


# --- builders -------------------------------------------------------------------------------------


def build_deck(players: int, hands=(), draw=(), bottom=()) -> list[str]:
    """A full legal deck: seat s is dealt hands[s] (topped up with filler), the draw pile starts
    with `draw` and ends with `bottom`; filler in between."""
    left = Counter(canonical_deck(players))
    for card in [card for hand in hands for card in hand] + list(draw) + list(bottom):
        left[card] -= 1
        assert left[card] >= 0, f"too many {card}"
    filler = []
    for group in _FILLER_GROUPS:
        while any(left[card] for card in group):
            for card in group:
                if left[card]:
                    filler.append(card)
                    left[card] -= 1
    stream = iter(filler)
    dealt: list[str] = [""] * (5 * players)
    for seat in range(players):
        hand = list(hands[seat]) if seat < len(hands) else []
        hand += [next(stream) for _ in range(5 - len(hand))]
        for index, card in enumerate(hand):
            dealt[seat + index * players] = card
    return dealt + list(draw) + list(stream) + list(bottom)


class Table:
    """A game on a fixed deck, moved by hand."""

    def __init__(self, players: int = 2, hands=(), draw=(), bottom=(), seed: int = SEED, **options) -> None:
        options["deck"] = build_deck(players, hands, draw, bottom)
        self.players = players
        self.events = ENGINE.start(players, seed, options)
        self.state = ENGINE.replay(self.events)

    def move(self, seat: int, action: str, **fields) -> list[dict]:
        new = ENGINE.decide(self.state, seat, {"action": action, **fields})
        for event in new:
            self.state = ENGINE.evolve(self.state, event)
        self.events += new
        return new

    def rejects(self, seat: int, code: str, move) -> None:
        with pytest.raises(IllegalMove) as info:
            ENGINE.decide(self.state, seat, move)
        assert info.value.code == code, info.value.message

    def view(self, seat: int | None = None) -> dict:
        return ENGINE.view(self.state, seat)

    def legal(self, seat: int) -> list[dict]:
        return ENGINE.legal_moves(self.state, seat)

    def hand(self, seat: int) -> list[str]:
        return self.view(seat)["hand"]

    @property
    def active(self) -> int:
        return self.view()["active"]

    def play(self, seat: int, cards, pile: int, source: str = "hand") -> list[dict]:
        events: list[dict] = []
        for card in cards:
            events += self.move(seat, "play", card=card, pile=pile, source=source)
        return events

    def everyone_passes(self) -> list[dict]:
        events: list[dict] = []
        while self.view()["phase"] == "block":
            events += self.move(self.view()["to_act"][0], "pass")
        return events

    def complete(self, seat: int, cards, pile: int) -> list[dict]:
        """Lays `cards` on `pile` (the last one finishes it) and lets every opponent pass."""
        return self.play(seat, cards, pile) + self.everyone_passes()


def types(events) -> list[str]:
    return [event["type"] for event in events]


def of_type(events, kind: str) -> list[dict]:
    return [event for event in events if event["type"] == kind]


def drained(seat0_last: str = "R5", seat1_last: str = "B5", keep0=("B1", "B2", "B3", "B4")) -> Table:
    """2 players, every card drawn without a finished stack, at the start of turn 105 (seat 0's):
    seat 0 holds `keep0`, seat 1 R1-R4; the last cards each drew (and discarded) were
    `seat0_last` and `seat1_last`. Each turn until then only discarded the drawn card."""
    table = Table(2, hands=[list(keep0) + ["R5"], ["R1", "R2", "R3", "R4", "B5"]],
                  bottom=[seat0_last, seat1_last])
    keep = {0: Counter(keep0), 1: Counter(["R1", "R2", "R3", "R4"])}
    while not (table.view()["draw_pile"] == 0 and table.active == 0):
        seat = table.active
        extra = Counter(table.hand(seat)) - keep[seat]
        table.move(seat, "discard", card=sorted(extra)[0])
    assert table.view()["turn"] == 105 and Counter(table.hand(0)) == Counter(keep0)
    assert table.view()["seats"][0]["discard"][-1] == seat0_last
    assert table.view()["seats"][1]["discard"][-1] == seat1_last
    return table


# --- Components and Setup -------------------------------------------------------------------------


def test_the_deck_holds_120_cards_for_three_to_six_players_with_colourless_action_cards():
    """Components; Ambiguity 1: 52 cards per colour plus 16 action cards."""
    for players in range(3, 7):
        counts = Counter(canonical_deck(players))
        assert sum(counts.values()) == 120
        assert sum(counts[card] for card in counts if card[0] == "B" and len(card) == 2) == 52
        assert sum(counts[card] for card in counts if card[0] == "R" and len(card) == 2) == 52
        actions = ("skip", "reverse", "block", "steal_card", "steal_chip")
        assert [counts[card] for card in actions] == [3, 3, 3, 3, 4]


def test_the_two_player_deck_drops_eight_action_cards():
    """Ambiguity 2: all Reverses, one Block, two Steal-a-Chips, one Steal-a-Card, one Skip."""
    counts = Counter(canonical_deck(2))
    assert sum(counts.values()) == 112
    assert [counts[c] for c in ("skip", "reverse", "block", "steal_card", "steal_chip")] == [2, 0, 2, 2, 2]
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"deck": canonical_deck(3)})


def test_the_canonical_deck_is_sorted_in_canonical_card_order():
    order = "B1 B2 B3 B4 B5 BW R1 R2 R3 R4 R5 RW skip reverse block steal_card steal_chip".split()
    deck = canonical_deck(4)
    assert deck == sorted(deck, key=order.index)


def test_without_a_deck_option_the_deck_is_the_seeded_shuffle_of_the_canonical_deck():
    started = ENGINE.start(3, 99)[0]
    assert started["deck"] == seeded_shuffle(canonical_deck(3), 99, 0)
    assert started == {"type": "GameStarted", "version": 1, "players": 3, "seed": 99, "options": {},
                       "deck": started["deck"]}
    assert ENGINE.version == 1


def test_seat_s_is_dealt_positions_s_plus_multiples_of_n_and_the_rest_is_the_draw_pile():
    deck = build_deck(3)
    table = Table(3)
    for seat in range(3):
        assert Counter(table.hand(seat)) == Counter(deck[seat:15:3])
    assert table.view()["draw_pile"] == 120 - 15
    table.move(0, "discard", card=table.hand(0)[0])
    table.move(1, "discard", card=table.hand(1)[0])
    table.move(2, "discard", card=table.hand(2)[0])
    assert of_type(table.events, "CardsDrawn")[-1]["cards"] == [deck[15]]  # position 5n is the top


def test_start_refuses_bad_arguments():
    for players in (1, 7, "3", True, None):
        with pytest.raises(ValueError):
            ENGINE.start(players, 1)
    for options in ({"colour": 1}, {"turn_limit": 0}, {"turn_limit": -3}, {"turn_limit": True},
                    {"turn_limit": 2.5}, {"deck": ["B1"] * 120}, {"deck": "B1"}, "deck"):
        with pytest.raises(ValueError):
            ENGINE.start(3, 1, options)


def test_the_game_starts_with_empty_piles_no_chips_and_direction_plus_one():
    view = Table(4).view(None)
    assert [pile["cards"] for pile in view["piles"]] == [[], [], [], []]
    assert [entry["chips"] for entry in view["seats"]] == [{"R": 0, "B": 0}] * 4
    assert [entry["discard"] for entry in view["seats"]] == [[]] * 4
    assert view["direction"] == 1 and view["set_aside"] == 0 and view["action_discard"] == []
    assert view["supply"] == {"R": 20, "B": 20}


def test_the_turn_limit_defaults_to_one_hundred_turns_per_player():
    assert Table(2).view()["turn_limit"] == 200
    assert Table(5).view()["turn_limit"] == 500
    assert Table(5, turn_limit=7).view()["turn_limit"] == 7


# --- R1 Start of turn -----------------------------------------------------------------------------


def test_seat_0_takes_turn_1_without_drawing():
    """R1, Ambiguity 14: seat 0 (left of the dealer) starts."""
    table = Table(3)
    assert types(table.events) == ["GameStarted", "TurnStarted"]
    assert table.events[1] == {"type": "TurnStarted", "seat": 0, "turn": 1}
    view = table.view(0)
    assert view["to_act"] == [0] and view["phase"] == "play" and view["turn"] == 1 and view["skips"] == 0


def test_a_turn_tops_the_hand_up_to_five():
    """R1, Ambiguity 4: hands go back up to five at the start of each turn."""
    table = Table(2, draw=["B4", "R4"])
    new = table.move(0, "discard", card=table.hand(0)[0])
    assert types(new) == ["CardDiscarded", "TurnEnded", "TurnStarted"]
    new = table.move(1, "discard", card=table.hand(1)[0])
    assert new[-2:] == [{"type": "TurnStarted", "seat": 0, "turn": 3},
                        {"type": "CardsDrawn", "seat": 0, "cards": ["B4"]}]
    assert table.view()["seats"][0]["hand_size"] == 5


def test_a_seat_holding_more_than_five_cards_draws_nothing():
    """R1: two Steal-a-Cards played from the discard pile leave six cards after the discard."""
    table = Table(2, hands=[["steal_card", "steal_card", "R5", "R5", "R5"], ["B4"] * 5])
    table.move(0, "discard", card="steal_card")
    table.move(1, "discard", card="B4")
    table.move(0, "discard", card="steal_card")
    table.move(1, "discard", card="B4")
    table.move(0, "steal_card", target=1, source="discard")
    table.move(0, "steal_card", target=1, source="discard")
    assert table.view()["seats"][0]["hand_size"] == 7
    table.move(0, "discard", card="R5")
    new = table.move(1, "discard", card=table.hand(1)[0])
    assert new[-1] == {"type": "TurnStarted", "seat": 0, "turn": 7}
    assert table.view()["seats"][0]["hand_size"] == 6


# --- R2 Drawing and reshuffling ---------------------------------------------------------------------


def test_the_set_aside_pile_becomes_the_draw_pile_only_when_a_card_is_needed():
    """R2, Ambiguity 11: only finished stacks are reshuffled, with the k-th seeded shuffle."""
    table = Table(2, hands=[BLUE_RUN])
    table.complete(0, BLUE_RUN, 0)
    while table.view()["draw_pile"] > 0:
        table.move(table.active, "discard", card=table.hand(table.active)[0])
    view = table.view()
    assert view["set_aside"] == 5  # not rebuilt when the last card was drawn
    new = table.move(table.active, "discard", card=table.hand(table.active)[0])
    order = seeded_shuffle(BLUE_RUN, SEED, 1)
    reshuffle = of_type(new, "DrawPileReshuffled")
    assert reshuffle == [{"type": "DrawPileReshuffled", "k": 1, "order": order}]
    assert of_type(new, "CardsDrawn")[0]["cards"] == order[:1]
    view = table.view()
    assert view["set_aside"] == 0 and view["draw_pile"] == 4
    assert "skip" not in json.dumps(reshuffle)  # action and personal discards are never recycled
    for seat in (0, 1, None):
        assert ENGINE.redact(reshuffle[0], seat) == {"type": "DrawPileReshuffled", "k": 1, "count": 5}


def test_a_draw_stops_short_when_both_piles_are_empty():
    """R2: no card anywhere, so the turn starts without a draw and play goes on."""
    table = drained()
    start = [event for event in table.events if event["type"] == "TurnStarted"][-1]
    assert start == {"type": "TurnStarted", "seat": 0, "turn": 105}
    assert table.events[-1] == start  # no CardsDrawn after it
    view = table.view(0)
    assert view["draw_pile"] == 0 and view["set_aside"] == 0 and view["seats"][0]["hand_size"] == 4
    assert view["to_act"] == [0]


# --- R3 What fits ------------------------------------------------------------------------------------


def test_an_empty_pile_takes_a_one_or_a_wild_of_its_colour():
    """R3, Ambiguity 3: piles 0-1 blue, 2-3 red; a B1 with both blue piles empty gives two moves."""
    table = Table(2, hands=[["B1", "B2", "BW", "R1", "skip"]])
    assert [pile["color"] for pile in table.view()["piles"]] == ["B", "B", "R", "R"]
    plays = [(m["card"], m["pile"]) for m in table.legal(0) if m["action"] == "play"]
    assert sorted(plays) == [("B1", 0), ("B1", 1), ("BW", 0), ("BW", 1), ("R1", 2), ("R1", 3)]
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "B2", "pile": 0})
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "R1", "pile": 0})
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "skip", "pile": 0})


def test_a_wild_stands_for_exactly_the_next_number():
    table = Table(2, hands=[["B1", "B2", "BW", "R3", "R4"]])
    table.move(0, "play", card="BW", pile=0)
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "B1", "pile": 0})
    table.move(0, "play", card="B2", pile=0)
    assert table.view()["piles"][0]["cards"] == ["BW", "B2"]


def test_a_pile_number_outside_0_to_3_is_a_bad_pile():
    table = Table(2, hands=[["B1"]])
    for pile in (4, -1, 10**30):
        table.rejects(0, "bad_pile", {"action": "play", "card": "B1", "pile": pile})


# --- R4 Playing a sequence card ------------------------------------------------------------------------


def test_the_top_of_the_own_discard_pile_can_be_played_and_uncovers_the_next_card():
    """R4, Ambiguity 6."""
    table = Table(2, hands=[["B3", "B2", "B1", "R5", "R5"], ["R4"] * 5], draw=["R4", "R4", "R4", "R4"])
    table.move(0, "discard", card="B3")
    table.move(1, "discard", card="R4")
    table.move(0, "discard", card="B2")
    table.move(1, "discard", card="R4")
    table.move(0, "play", card="B1", pile=0)
    assert {"action": "play", "card": "B2", "pile": 0, "source": "discard"} in table.legal(0)
    table.rejects(0, "card_not_on_discard", {"action": "play", "card": "B3", "pile": 0, "source": "discard"})
    table.rejects(0, "card_not_in_hand", {"action": "play", "card": "B2", "pile": 0})
    table.move(0, "play", card="B2", pile=0, source="discard")
    table.move(0, "play", card="B3", pile=0, source="discard")
    view = table.view(0)
    assert view["piles"][0]["cards"] == ["B1", "B2", "B3"] and view["seats"][0]["discard"] == []
    table.rejects(0, "card_not_on_discard", {"action": "play", "card": "B4", "pile": 0, "source": "discard"})


def test_another_seats_discard_pile_is_not_a_source():
    """Ambiguity 6: only its owner plays from a discard pile."""
    table = Table(2, hands=[["B2", "R5", "R5", "R5", "R5"], ["B1", "R4", "R4", "R4", "R4"]])
    table.move(0, "discard", card="R5")
    table.move(1, "discard", card="B1")
    table.rejects(0, "card_not_on_discard", {"action": "play", "card": "B1", "pile": 0, "source": "discard"})
    assert not [m for m in table.legal(0) if m.get("source") == "discard"]


def test_a_card_in_hand_and_the_same_card_on_the_discard_pile_give_one_move_each():
    table = Table(2, hands=[["B1", "B1", "R5", "R5", "R5"]])
    table.move(0, "discard", card="B1")
    table.move(1, "discard", card=table.hand(1)[0])
    b1_moves = [m for m in table.legal(0) if m.get("card") == "B1" and m["action"] == "play"]
    assert sorted((m["source"], m["pile"]) for m in b1_moves) == [
        ("discard", 0), ("discard", 1), ("hand", 0), ("hand", 1)]


# --- R5 / R6 The Block window -----------------------------------------------------------------------


def _window_table(**kwargs) -> Table:
    """3 players: seat 0 holds a blue run, seat 1 a Block, seat 2 no Block."""
    return Table(3, hands=[BLUE_RUN, ["block", "R5", "R5", "R5", "R5"], ["R4"] * 5],
                 draw=["R3"] * 5, **kwargs)


def test_finishing_a_stack_opens_a_window_for_every_opponent_in_turn_order():
    """R5, Ambiguity 9: a seat without a Block is asked too; the active seat may not act."""
    table = _window_table()
    table.play(0, BLUE_RUN[:4], 0)
    new = table.move(0, "play", card="B5", pile=0)
    assert new[-1] == {"type": "SequenceCompleted", "seat": 0, "pile": 0, "color": "B", "window": [1, 2]}
    view = table.view(None)
    assert view["phase"] == "block" and view["to_act"] == [1, 2] and view["active"] == 0
    assert view["completion"] == {"seat": 0, "pile": 0, "color": "B"}
    assert view["piles"][0]["cards"] == BLUE_RUN  # still on the table while the window is open
    assert table.legal(1) == [{"action": "pass"}, {"action": "block"}]
    assert table.legal(2) == [{"action": "pass"}]
    assert table.legal(0) == []
    table.rejects(0, "not_your_turn", {"action": "discard", "card": "R3"})
    table.rejects(2, "no_block_card", {"action": "block"})
    table.rejects(1, "wrong_phase", {"action": "discard", "card": "R5"})


def test_the_window_can_be_answered_in_any_order():
    table = _window_table()
    table.play(0, BLUE_RUN, 0)
    assert table.move(2, "pass") == [{"type": "BlockPassed", "seat": 2, "automatic": False}]
    assert table.view()["to_act"] == [1]
    table.rejects(2, "not_your_turn", {"action": "pass"})


def test_a_block_cancels_the_stack_at_once():
    """R6: no chip, the stack is set aside, the Block goes face up, the rest are not asked."""
    table = _window_table()
    table.play(0, BLUE_RUN, 0)
    new = table.move(1, "block")
    assert new[0] == {"type": "SequenceBlocked", "seat": 1, "pile": 0, "color": "B"}
    assert "BlockPassed" not in types(new) and "SequenceScored" not in types(new)
    view = table.view(1)
    assert view["phase"] == "play" and view["to_act"] == [0] and view["completion"] is None
    assert view["seats"][0]["chips"] == {"R": 0, "B": 0} and view["supply"] == {"R": 20, "B": 20}
    assert view["set_aside"] == 5 and view["piles"][0]["cards"] == [] and view["action_discard"] == ["block"]
    assert "block" not in view["hand"]


def test_when_every_opponent_passes_the_finisher_takes_a_chip():
    """R6."""
    table = _window_table()
    table.play(0, BLUE_RUN, 0)
    table.move(1, "pass")
    new = table.move(2, "pass")
    assert new[1] == {"type": "SequenceScored", "seat": 0, "pile": 0, "color": "B", "chip": True}
    view = table.view()
    assert view["seats"][0]["chips"] == {"R": 0, "B": 1} and view["supply"] == {"R": 20, "B": 19}
    assert view["set_aside"] == 5 and view["piles"][0]["cards"] == [] and view["phase"] == "play"


def test_the_window_order_follows_a_reversed_direction():
    """R5, R10."""
    table = Table(3, hands=[BLUE_RUN[:4] + ["reverse"], ["R4"] * 5, ["R3"] * 5], draw=["B5"] * 5)
    table.move(0, "reverse")
    table.play(0, BLUE_RUN[:4], 0)  # hand emptied: five more, the B5s among them
    new = table.move(0, "play", card="B5", pile=0)
    assert new[-1]["window"] == [2, 1] and table.view()["to_act"] == [2, 1]


def test_nobody_is_asked_when_every_block_is_face_up():
    """R5: the engine records every pass and the phase never becomes block."""
    table = Table(3, hands=[["block"] + BLUE_RUN[:4], ["block"] + ["R4"] * 4, ["block"] + ["R4"] * 4],
                  draw=["B5"])
    for seat in range(3):
        table.move(seat, "discard", card="block")
    table.play(0, BLUE_RUN[:4], 0)
    new = table.move(0, "play", card="B5", pile=0)
    assert types(new) == ["CardPlayed", "SequenceCompleted", "BlockPassed", "BlockPassed", "SequenceScored",
                          "CardsDrawn"]
    assert of_type(new, "BlockPassed") == [{"type": "BlockPassed", "seat": 1, "automatic": True},
                                           {"type": "BlockPassed", "seat": 2, "automatic": True}]
    assert table.view()["phase"] == "play" and table.view()["seats"][0]["chips"]["B"] == 1


def test_an_opponent_with_an_empty_hand_passes_automatically():
    """R5; R7 after the window: the set-aside stack is reshuffled to refill the hand."""
    table = drained(seat0_last="R5", seat1_last="B5")
    table.play(0, BLUE_RUN[:4], 0)  # seat 0 empties its hand and cannot play R5: its turn ends
    assert table.active == 1 and table.view()["seats"][0]["hand_size"] == 0
    table.play(1, RED_RUN[:4], 2)  # seat 1 empties its hand but may still play B5 from its pile
    assert table.legal(1) == [{"action": "play", "card": "B5", "pile": 0, "source": "discard"},
                              {"action": "end_turn"}]
    new = table.move(1, "play", card="B5", pile=0, source="discard")
    assert types(new) == ["CardPlayed", "SequenceCompleted", "BlockPassed", "SequenceScored",
                          "DrawPileReshuffled", "CardsDrawn"]
    assert new[2] == {"type": "BlockPassed", "seat": 0, "automatic": True}
    assert table.view(1)["seats"][1]["hand_size"] == 5 and table.view()["draw_pile"] == 0


# --- R7 Emptying the hand ------------------------------------------------------------------------------


def test_emptying_the_hand_draws_five_more():
    table = Table(2, hands=[["B1", "B2", "B3", "R1", "R2"]], draw=["R5", "R4", "B4", "B5", "B3"])
    table.play(0, ["B1", "B2", "B3"], 0)
    table.play(0, ["R1"], 2)
    new = table.move(0, "play", card="R2", pile=2)
    assert new[-1] == {"type": "CardsDrawn", "seat": 0, "cards": ["R5", "R4", "B4", "B5", "B3"]}
    assert table.hand(0) == ["B3", "B4", "B5", "R4", "R5"]


def test_a_steal_as_the_last_card_brings_a_card_in_and_draws_nothing():
    """R7, Ambiguity 4: five more are drawn when that stolen card empties the hand again."""
    table = Table(2, hands=[["B1", "B2", "B3", "B4", "R5"], ["B5"] * 5], draw=["steal_card", "R4"])
    table.move(0, "discard", card="R5")
    table.move(1, "discard", card="B5")
    table.play(0, ["B1", "B2", "B3", "B4"], 0)
    new = table.move(0, "steal_card", target=1)
    assert new == [{"type": "CardStolen", "seat": 0, "source": "hand", "target": 1, "card": "B5"}]
    assert table.hand(0) == ["B5"]
    new = table.move(0, "play", card="B5", pile=0) + table.everyone_passes()
    assert types(new)[-1] == "CardsDrawn" and len(new[-1]["cards"]) == 5


def test_a_finishing_last_card_draws_only_after_the_window():
    table = _window_table()
    table.play(0, BLUE_RUN, 0)
    assert table.view()["seats"][0]["hand_size"] == 0
    new = table.move(1, "pass") + table.move(2, "pass")
    assert types(new) == ["BlockPassed", "BlockPassed", "SequenceScored", "CardsDrawn"]


def test_a_discard_ends_the_turn_without_the_draw_of_five():
    table = drained(seat0_last="R5", seat1_last="R5")
    table.play(0, BLUE_RUN[:3], 0)
    table.move(0, "discard", card="B4")
    assert table.view()["seats"][0]["hand_size"] == 0 and table.active == 1


# --- R8 Action cards in general ---------------------------------------------------------------------


def test_an_action_card_can_be_played_from_the_own_discard_pile():
    """R8, Ambiguity 6: a Skip discarded earlier is played later from the pile."""
    table = Table(2, hands=[["skip", "R5", "R5", "R5", "R5"]])
    table.move(0, "discard", card="skip")
    table.move(1, "discard", card=table.hand(1)[0])
    assert {"action": "skip", "source": "discard"} in table.legal(0)
    new = table.move(0, "skip", source="discard")
    assert new == [{"type": "SkipPlayed", "seat": 0, "source": "discard"}]
    assert table.view()["action_discard"] == ["skip"] and table.view()["seats"][0]["discard"] == []


def test_a_block_is_never_played_in_turn_nor_from_a_discard_pile():
    table = Table(2, hands=[["block", "block", "R5", "R5", "R5"]])
    table.rejects(0, "wrong_phase", {"action": "block"})
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "block", "pile": 0})
    table.move(0, "discard", card="block")
    table.move(1, "discard", card=table.hand(1)[0])
    assert not [m for m in table.legal(0) if m.get("source") == "discard"]
    table.rejects(0, "pile_rejects_card", {"action": "play", "card": "block", "pile": 0, "source": "discard"})


def test_any_card_may_be_discarded_even_with_plays_available():
    """R8, R13, Ambiguity 5: stopping early is allowed."""
    table = Table(2, hands=[["B1", "skip", "block", "steal_chip", "RW"]])
    discards = sorted(m["card"] for m in table.legal(0) if m["action"] == "discard")
    assert discards == sorted(["B1", "skip", "block", "steal_chip", "RW"])
    assert types(table.move(0, "discard", card="B1"))[:2] == ["CardDiscarded", "TurnEnded"]
    assert table.view()["seats"][0]["discard"] == ["B1"]


def test_action_cards_without_an_effect_are_not_legal():
    """R8, Ambiguity 7: no discard pile to steal from, no chip to steal."""
    table = Table(3, hands=[["steal_card", "steal_chip", "R5", "R5", "R5"]])
    assert {m["action"] for m in table.legal(0)} == {"discard"}
    table.rejects(0, "nothing_to_steal", {"action": "steal_card", "target": 1})
    table.rejects(0, "nothing_to_steal", {"action": "steal_chip", "target": 1, "color": "R"})


# --- R9 Skip / R10 Reverse / R14 Next seat -----------------------------------------------------------


def test_a_skip_passes_over_the_next_seat():
    """R9, R14."""
    table = Table(3, hands=[["skip", "R5", "R5", "R5", "R5"]])
    table.move(0, "skip")
    assert table.view()["skips"] == 1
    new = table.move(0, "discard", card="R5")
    assert new[-1] == {"type": "TurnStarted", "seat": 2, "turn": 2}
    assert table.view()["skips"] == 0


def test_skips_add_up_and_two_bring_three_players_back_to_the_same_seat():
    table = Table(3, hands=[["skip", "skip", "R5", "R5", "R5"]])
    table.move(0, "skip")
    table.move(0, "skip")
    new = table.move(0, "discard", card="R5")
    assert new[-2:] == [{"type": "TurnStarted", "seat": 0, "turn": 2}, new[-1]]
    assert new[-1]["type"] == "CardsDrawn" and len(new[-1]["cards"]) == 3


def test_with_two_players_a_skip_gives_another_turn():
    table = Table(2, hands=[["skip", "R5", "R5", "R5", "R5"]])
    table.move(0, "skip")
    table.move(0, "discard", card="R5")
    assert table.active == 0 and table.view()["turn"] == 2


def test_a_reverse_flips_the_direction():
    """R10, R14."""
    table = Table(4, hands=[["reverse", "R5", "R5", "R5", "R5"]])
    assert types(table.move(0, "reverse")) == ["ReversePlayed"]
    assert table.view()["direction"] == -1
    table.move(0, "discard", card="R5")
    assert table.active == 3
    table.move(3, "discard", card=table.hand(3)[0])
    assert table.active == 2


def test_skip_and_reverse_are_resolved_when_the_turn_ends():
    """R14, Ambiguity 10: final direction and total skips, whatever the order of play."""
    table = Table(4, hands=[["skip", "reverse", "reverse", "R5", "R5"]])
    table.move(0, "reverse")
    table.move(0, "skip")
    table.move(0, "reverse")
    table.move(0, "discard", card="R5")
    assert table.active == 2 and table.view()["direction"] == 1


def test_a_two_player_game_has_no_reverse():
    assert "reverse" not in canonical_deck(2)


# --- R11 Steal-a-Card ------------------------------------------------------------------------------------


def test_steal_a_card_takes_the_top_of_an_opponents_discard_pile():
    """R11: the stolen card can be played at once."""
    table = Table(3, hands=[["B1", "R5", "R5", "R5", "R5"], ["R4"] * 5,
                            ["steal_card", "steal_card", "B2", "R4", "R4"]])
    table.move(0, "discard", card="B1")
    table.move(1, "discard", card="R4")
    steals = sorted(m["target"] for m in table.legal(2) if m["action"] == "steal_card")
    assert steals == [0, 1]
    table.rejects(2, "bad_target", {"action": "steal_card", "target": 2})
    table.rejects(2, "bad_target", {"action": "steal_card", "target": 3})
    table.rejects(2, "bad_target", {"action": "steal_card", "target": -1})
    table.move(2, "steal_card", target=0)
    assert "B1" in table.hand(2) and table.view()["seats"][0]["discard"] == []
    table.rejects(2, "nothing_to_steal", {"action": "steal_card", "target": 0})
    table.move(2, "play", card="B1", pile=0)
    table.move(2, "play", card="B2", pile=0)
    assert table.view()["action_discard"] == ["steal_card"]


# --- R12 Steal-a-Chip ---------------------------------------------------------------------------------


def _chips_table() -> Table:
    """2 players: seat 0 ends turn 1 with 3 red and 1 blue chips, seat 1 turn 2 with 1 of each;
    seat 0 then holds both Steal-a-Chips."""
    draw = (RED_RUN + RED_RUN + BLUE_RUN + ["steal_chip", "steal_chip", "R4", "R4", "R4"]
            + RED_RUN + ["B4"] * 5 + ["R3"])
    table = Table(2, hands=[RED_RUN, BLUE_RUN], draw=draw)
    for _ in range(3):
        table.complete(0, RED_RUN, 2)
    table.complete(0, BLUE_RUN, 0)
    table.move(0, "discard", card="R4")
    table.complete(1, BLUE_RUN, 0)
    table.complete(1, RED_RUN, 2)
    table.move(1, "discard", card="B4")
    assert table.active == 0
    assert [s["chips"] for s in table.view()["seats"]] == [{"R": 3, "B": 1}, {"R": 1, "B": 1}]
    return table


def test_steal_a_chip_moves_a_chip_but_never_into_a_winning_set():
    """R12, Ambiguity 8: the blue chip would make 3 red + 2 blue, so only red may be taken."""
    table = _chips_table()
    steals = [m for m in table.legal(0) if m["action"] == "steal_chip"]
    assert steals == [{"action": "steal_chip", "target": 1, "color": "R", "source": "hand"}]
    table.rejects(0, "steal_would_win", {"action": "steal_chip", "target": 1, "color": "B"})
    table.rejects(0, "bad_target", {"action": "steal_chip", "target": 0, "color": "R"})
    table.rejects(0, "malformed_move", {"action": "steal_chip", "target": 1, "color": "G"})
    new = table.move(0, "steal_chip", target=1, color="R")
    assert new == [{"type": "ChipStolen", "seat": 0, "source": "hand", "target": 1, "color": "R"}]
    view = table.view()
    assert [s["chips"] for s in view["seats"]] == [{"R": 4, "B": 1}, {"R": 0, "B": 1}]
    assert view["supply"] == {"R": 16, "B": 18} and view["phase"] == "play"


def test_steal_a_chip_needs_a_chip_of_that_colour():
    table = _chips_table()
    table.move(0, "steal_chip", target=1, color="R")
    table.rejects(0, "nothing_to_steal", {"action": "steal_chip", "target": 1, "color": "R"})
    table.rejects(0, "steal_would_win", {"action": "steal_chip", "target": 1, "color": "B"})
    assert not [m for m in table.legal(0) if m["action"] == "steal_chip"]


# --- R13 Ending the turn --------------------------------------------------------------------------------


def test_end_turn_is_only_allowed_with_an_empty_hand():
    table = Table(2)
    table.rejects(0, "hand_not_empty", {"action": "end_turn"})
    assert {"action": "end_turn"} not in table.legal(0)


def test_an_empty_hand_with_a_playable_discard_top_is_still_asked_and_may_end_the_turn():
    table = drained(seat0_last="B5", seat1_last="R5")
    table.play(0, BLUE_RUN[:4], 0)
    assert table.legal(0) == [{"action": "play", "card": "B5", "pile": 0, "source": "discard"},
                              {"action": "end_turn"}]
    new = table.move(0, "end_turn")
    assert new[:2] == [{"type": "TurnEnded", "seat": 0, "automatic": False},
                       {"type": "TurnStarted", "seat": 1, "turn": 106}]


def test_a_seat_with_nothing_to_do_ends_its_turn_automatically():
    """R13 after R7 and at the start of a turn; R16 then ends the game after 2n dry turns."""
    table = drained(seat0_last="R5", seat1_last="B4")
    new = table.play(0, BLUE_RUN[:4], 0)
    assert new[-3:] == [{"type": "CardPlayed", "seat": 0, "card": "B4", "pile": 0, "source": "hand"},
                        {"type": "TurnEnded", "seat": 0, "automatic": True},
                        {"type": "TurnStarted", "seat": 1, "turn": 106}]
    new = table.move(1, "discard", card="R4")
    assert new[2:] == [{"type": "TurnStarted", "seat": 0, "turn": 107},
                       {"type": "TurnEnded", "seat": 0, "automatic": True},
                       {"type": "TurnStarted", "seat": 1, "turn": 108}]
    assert table.view()["dry_turns"] == 2


def test_a_forced_discard_is_still_asked():
    """R13: one card and nothing playable is not a pass."""
    table = drained(seat0_last="R5", seat1_last="R5", keep0=("B1", "B2", "B3", "R3"))
    table.play(0, BLUE_RUN[:3], 0)
    assert table.legal(0) == [{"action": "discard", "card": "R3"}]
    assert table.view()["to_act"] == [0]


# --- R15 Winning ----------------------------------------------------------------------------------------


def _run_of_stacks(colors: str) -> list[str]:
    """Draw-pile chunks for seat 0 finishing one stack per colour letter after its dealt one."""
    return [card for color in colors for card in (BLUE_RUN if color == "B" else RED_RUN)]


def test_five_chips_with_two_of_each_colour_win_at_once():
    """R15, outcome."""
    table = Table(2, hands=[BLUE_RUN], draw=_run_of_stacks("RBRB"))
    for color in "BRBR":
        table.complete(0, BLUE_RUN if color == "B" else RED_RUN, 0 if color == "B" else 2)
    table.play(0, BLUE_RUN, 1)
    new = table.move(1, "pass")
    assert new[-2:] == [{"type": "SequenceScored", "seat": 0, "pile": 1, "color": "B", "chip": True},
                        {"type": "GameEnded", "reason": "five_chips", "winners": [0]}]
    assert ENGINE.outcome(table.state) == {
        "finished": True, "ranks": [1, 2], "scores": [5, 0], "winners": [0], "cooperative": False,
        "detail": {"reason": "five_chips", "chips": [{"R": 2, "B": 3}, {"R": 0, "B": 0}], "turns": 1}}
    view = table.view(1)
    assert view["phase"] == "finished" and view["finished"] is True and view["to_act"] == []
    assert view["outcome"] == ENGINE.outcome(table.state)
    assert table.legal(0) == [] and table.legal(1) == []
    for seat in (0, 1, 5):
        table.rejects(seat, "game_over", {"action": "pass"})


def test_five_chips_of_one_colour_are_not_a_win():
    """Ambiguity 13: two blue chips are still needed."""
    table = Table(2, hands=[RED_RUN], draw=_run_of_stacks("RRRRBB"))
    for _ in range(5):
        table.complete(0, RED_RUN, 3)
    table.complete(0, BLUE_RUN, 0)
    assert table.view()["phase"] == "play"
    assert table.view()["seats"][0]["chips"] == {"R": 5, "B": 1}
    table.complete(0, BLUE_RUN, 0)
    outcome = ENGINE.outcome(table.state)
    assert outcome["winners"] == [0] and outcome["detail"]["chips"][0] == {"R": 5, "B": 2}


def test_a_winning_stack_can_be_blocked():
    """Ambiguity 9: blocks are not blocked, and a stack that would win is blockable."""
    table = Table(2, hands=[BLUE_RUN, ["block", "R4", "R4", "R4", "R4"]], draw=_run_of_stacks("RBRB"))
    for color in "BRBR":
        table.complete(0, BLUE_RUN if color == "B" else RED_RUN, 0 if color == "B" else 2)
    table.play(0, BLUE_RUN, 0)
    new = table.move(1, "block")
    assert types(new) == ["SequenceBlocked", "CardsDrawn"]
    assert table.view()["phase"] == "play" and table.view()["seats"][0]["chips"] == {"R": 2, "B": 2}


def test_the_outcome_ranks_by_progress():
    """Outcome example: seat 2 wins with 3 red and 2 blue, seat 0 holds 4 red, seat 1 one of each."""
    draw = _run_of_stacks("RRR") + ["B4"] * 5 + _run_of_stacks("B") + ["B3"] * 5 + _run_of_stacks("RRBB")
    table = Table(3, hands=[RED_RUN, RED_RUN, RED_RUN], draw=draw)
    for _ in range(4):
        table.complete(0, RED_RUN, 2)
    table.move(0, "discard", card="B4")
    table.complete(1, RED_RUN, 2)
    table.complete(1, BLUE_RUN, 0)
    table.move(1, "discard", card="B3")
    for color in "RRRBB":
        table.complete(2, BLUE_RUN if color == "B" else RED_RUN, 0 if color == "B" else 2)
    outcome = ENGINE.outcome(table.state)
    assert outcome["scores"] == [3, 2, 5] and outcome["ranks"] == [2, 3, 1] and outcome["winners"] == [2]


# --- Ambiguity 12: chip supply ----------------------------------------------------------------------


def test_a_stack_of_an_exhausted_colour_gives_no_chip():
    """Ambiguity 12. Emptying a supply of 20 by play takes hundreds of moves, so the supply is
    set directly on the state here."""
    table = Table(2, hands=[BLUE_RUN])
    table.state = table.state._replace(supply=(20, 0))
    table.play(0, BLUE_RUN, 0)
    new = table.move(1, "pass")
    assert new[1] == {"type": "SequenceScored", "seat": 0, "pile": 0, "color": "B", "chip": False}
    view = table.view()
    assert view["seats"][0]["chips"] == {"R": 0, "B": 0} and view["set_aside"] == 5


# --- R16 Stalemate / R17 Turn limit -------------------------------------------------------------------


def test_the_2n_th_consecutive_dry_turn_ends_the_game_in_a_stalemate():
    """R16, Ambiguity 15."""
    table = drained(seat0_last="R5", seat1_last="B4")
    table.play(0, BLUE_RUN[:4], 0)  # a wet turn, ended automatically
    table.move(1, "discard", card="R4")  # dry 1, then seat 0's automatic dry turn 2
    assert table.view()["dry_turns"] == 2
    new = table.move(1, "discard", card="R3")
    assert new[-3:] == [{"type": "TurnStarted", "seat": 0, "turn": 109},
                        {"type": "TurnEnded", "seat": 0, "automatic": True},
                        {"type": "GameEnded", "reason": "stalemate", "winners": []}]
    outcome = ENGINE.outcome(table.state)
    assert outcome["winners"] == [] and outcome["ranks"] == [1, 1] and outcome["scores"] == [0, 0]
    assert outcome["detail"]["reason"] == "stalemate" and outcome["detail"]["turns"] == 109


def test_a_play_on_a_pile_makes_a_turn_wet():
    table = drained(seat0_last="R5", seat1_last="B4")
    table.play(0, BLUE_RUN[:4], 0)
    table.move(1, "discard", card="R4")
    assert table.view()["dry_turns"] == 2
    table.move(1, "play", card="R1", pile=2)
    table.move(1, "discard", card="R3")
    assert table.view()["dry_turns"] == 1  # seat 1's turn reset it; seat 0's automatic turn was dry


def test_the_game_ends_when_the_last_allowed_turn_ends():
    """R17."""
    table = Table(3, turn_limit=2)
    table.move(0, "discard", card=table.hand(0)[0])
    new = table.move(1, "discard", card=table.hand(1)[0])
    assert new[-2:] == [{"type": "TurnEnded", "seat": 1, "automatic": False},
                        {"type": "GameEnded", "reason": "turn_limit", "winners": []}]
    outcome = ENGINE.outcome(table.state)
    assert outcome["detail"]["reason"] == "turn_limit" and outcome["detail"]["turns"] == 2
    assert outcome["ranks"] == [1, 1, 1] and ENGINE.to_act(table.state) == []


# --- Moves and error codes ------------------------------------------------------------------------------


def test_moves_out_of_turn_are_refused():
    table = Table(3)
    for seat in (1, 2, 3, -1, True, "0", None, 0.0):
        table.rejects(seat, "not_your_turn", {"action": "discard", "card": table.hand(0)[0]})


@pytest.mark.parametrize("move", [
    None, "play", ["play"], 3, {}, {"action": None}, {"action": 1}, {"action": ["play"]},
    {"action": "play", "card": "B1"}, {"action": "play", "pile": 0}, {"action": "play", "card": 1, "pile": 0},
    {"action": "play", "card": "B1", "pile": "0"}, {"action": "play", "card": "B1", "pile": True},
    {"action": "play", "card": "B1", "pile": 0.0},
    {"action": "play", "card": "B1", "pile": 0, "source": "deck"},
    {"action": "play", "card": "B1", "pile": 0, "source": None}, {"action": "discard"},
    {"action": "discard", "card": ["B1"]}, {"action": "skip", "source": 1},
    {"action": "steal_card", "target": "1"}, {"action": "steal_card", "target": 1.0},
    {"action": "steal_chip", "target": 1}, {"action": "steal_chip", "target": 1, "color": "r"},
    {"action": "steal_chip", "target": False, "color": "R"},
])
def test_malformed_moves_are_refused(move):
    Table(3, hands=[["B1", "skip", "steal_card", "steal_chip", "R5"]]).rejects(0, "malformed_move", move)


def test_unknown_actions_and_wrong_phases_are_refused():
    table = Table(3, hands=[["B1", "skip", "steal_card", "steal_chip", "R5"]])
    table.rejects(0, "unknown_action", {"action": "draw"})
    table.rejects(0, "unknown_action", {"action": "PLAY", "card": "B1", "pile": 0})
    table.rejects(0, "wrong_phase", {"action": "pass"})
    table.rejects(0, "card_not_in_hand", {"action": "discard", "card": "B9"})
    table.rejects(0, "card_not_in_hand", {"action": "reverse"})
    table.rejects(0, "card_not_on_discard", {"action": "skip", "source": "discard"})


def test_extra_keys_are_ignored_and_source_defaults_to_hand():
    table = Table(2, hands=[["B1"]])
    move = {"action": "play", "card": "B1", "pile": 0, "colour": "green", "seat": 1}
    new = ENGINE.decide(table.state, 0, move)
    assert new == [{"type": "CardPlayed", "seat": 0, "card": "B1", "pile": 0, "source": "hand"}]


def test_the_engine_is_registered():
    assert ENGINES["sequence-stacks"] is ENGINE
    assert (ENGINE.min_players, ENGINE.max_players) == (2, 6)


# --- View and redaction ---------------------------------------------------------------------------------


def test_a_view_shows_the_own_sorted_hand_and_only_counts_of_others():
    table = Table(3, hands=[["steal_chip", "R1", "skip", "B2", "BW"]])
    view = table.view(0)
    assert view["hand"] == ["B2", "BW", "R1", "skip", "steal_chip"]
    assert view["game"] == "sequence-stacks" and view["players"] == 3 and view["seat"] == 0
    assert view["seats"][1] == {"seat": 1, "hand_size": 5, "chips": {"R": 0, "B": 0}, "discard": []}
    assert view["completion"] is None and view["outcome"] is None and view["finished"] is False
    spectator = table.view(None)
    assert spectator["hand"] is None and spectator["seat"] is None
    for bad in (3, -1, "0", True):
        with pytest.raises(ValueError):
            ENGINE.view(table.state, bad)


def test_the_opening_event_is_redacted_to_each_seats_own_deal():
    table = Table(3, hands=[["B1", "B2", "B3", "R1", "skip"]], turn_limit=50)
    started = table.events[0]
    assert started["options"]["deck"] == started["deck"]
    red = ENGINE.redact(started, 0)
    assert red == {"type": "GameStarted", "version": 1, "players": 3, "options": {"turn_limit": 50},
                   "hand": ["B1", "B2", "B3", "R1", "skip"]}
    spectator = ENGINE.redact(started, None)
    assert "hand" not in spectator and "deck" not in spectator and "deck" not in spectator["options"]


def test_another_seats_draw_is_redacted_to_a_count():
    table = Table(2, draw=["B1"])
    table.move(0, "discard", card=table.hand(0)[0])
    table.move(1, "discard", card=table.hand(1)[0])
    drawn = table.events[-1]
    assert ENGINE.redact(drawn, 0) == drawn
    assert ENGINE.redact(drawn, 1) == {"type": "CardsDrawn", "seat": 0, "count": 1}
    assert ENGINE.redact(drawn, None) == {"type": "CardsDrawn", "seat": 0, "count": 1}


# --- property tests over random play -------------------------------------------------------------------


def _observe(state) -> str:
    players = state.players
    return json.dumps({
        "to_act": ENGINE.to_act(state),
        "outcome": ENGINE.outcome(state),
        "views": [ENGINE.view(state, seat) for seat in range(players)] + [ENGINE.view(state, None)],
        "legal": [ENGINE.legal_moves(state, seat) for seat in range(players)],
    }, sort_keys=True)


def _places(state) -> Counter:
    """Every card's place, as one multiset."""
    cards = Counter(state.draw[state.draw_pos:]) + Counter(state.set_aside) + Counter(state.action_discard)
    for group in (state.hands, state.piles, state.discards):
        for cards_here in group:
            cards += Counter(cards_here)
    return cards


def _random_game(players: int, seed: int, *, turn_limit: int | None = None):
    """Yields (state, events so far) after the start and after every random legal move."""
    rng = random.Random(seed)
    options = {} if turn_limit is None else {"turn_limit": turn_limit}
    events = ENGINE.start(players, seed, options)
    state = ENGINE.replay(events)
    yield state, events
    while ENGINE.outcome(state) is None:
        seat = rng.choice(ENGINE.to_act(state))
        new = ENGINE.decide(state, seat, rng.choice(ENGINE.legal_moves(state, seat)))
        for event in new:
            state = ENGINE.evolve(state, event)
        events = events + new
        yield state, events


def _scramble_hidden(state, viewer, rng: random.Random):
    """Another state with the same public facts and viewer's hand, but different hidden cards."""
    pool = [card for seat, hand in enumerate(state.hands) if seat != viewer for card in hand]
    pool += list(state.draw[state.draw_pos:]) + list(state.set_aside)
    rng.shuffle(pool)
    stream = iter(pool)
    hands = tuple(hand if seat == viewer else tuple(sorted(next(stream) for _ in hand))
                  for seat, hand in enumerate(state.hands))
    draw = tuple(next(stream) for _ in state.draw[state.draw_pos:])
    set_aside = tuple(stream)
    return state._replace(hands=hands, draw=draw, draw_pos=0, set_aside=set_aside, seed=rng.random())


PLAYERS = st.integers(min_value=2, max_value=6)


@given(players=PLAYERS, seed=st.integers(min_value=0, max_value=2**32))
def test_random_play_ends_conserves_cards_and_replays_to_the_same_state(players, seed):
    deck = Counter(canonical_deck(players))
    for step, (state, events) in enumerate(_random_game(players, seed)):
        assert _places(state) == deck
        assert sum(state.chips[s][c] for s in range(players) for c in (0, 1)) + sum(state.supply) == 40
        to_act = ENGINE.to_act(state)
        assert all(bool(ENGINE.legal_moves(state, s)) == (s in to_act) for s in range(players))
        if step % 25 == 0:
            assert _observe(ENGINE.replay(events)) == _observe(state)
    assert ENGINE.outcome(state) is not None and ENGINE.replay(events) == state
    assert _observe(ENGINE.replay(json.loads(json.dumps(events)))) == _observe(state)


@given(players=PLAYERS, seed=st.integers(min_value=0, max_value=2**32))
def test_no_view_or_to_act_depends_on_hidden_cards(players, seed):
    """Views, to_act and each seat's legal moves are the same whatever the hidden cards are."""
    rng = random.Random(seed)
    for step, (state, _events) in enumerate(_random_game(players, seed, turn_limit=40)):
        if step % 7:
            continue
        for viewer in list(range(players)) + [None]:
            other = _scramble_hidden(state, viewer, rng)
            assert ENGINE.view(other, viewer) == ENGINE.view(state, viewer)
            assert ENGINE.to_act(other) == ENGINE.to_act(state)
            if viewer is not None:
                assert ENGINE.legal_moves(other, viewer) == ENGINE.legal_moves(state, viewer)
                assert ENGINE.view(state, viewer)["hand"] == list(state.hands[viewer])
        to_act = ENGINE.to_act(state)
        if to_act:  # what a move leads to (windows, automatic turns) is public too
            mover = to_act[0]
            move = rng.choice(ENGINE.legal_moves(state, mover))
            other = _scramble_hidden(state, mover, rng)
            after, after_other = state, other
            for event in ENGINE.decide(state, mover, move):
                after = ENGINE.evolve(after, event)
            for event in ENGINE.decide(other, mover, move):
                after_other = ENGINE.evolve(after_other, event)
            assert ENGINE.view(after_other, None) == ENGINE.view(after, None)


def _secret_keys(obj) -> list[str]:
    if isinstance(obj, dict):
        found = [key for key, value in obj.items()
                 if key in ("deck", "seed", "order") and value not in (None, [], {})]
        return found + [key for value in obj.values() for key in _secret_keys(value)]
    if isinstance(obj, list):
        return [key for value in obj for key in _secret_keys(value)]
    return []


@given(players=PLAYERS, seed=st.integers(min_value=0, max_value=2**32))
def test_redacted_events_reveal_nothing_hidden(players, seed):
    for _state, events in _random_game(players, seed):  # noqa: B007 - the last step's events, used below
        pass
    deal = events[0]["deck"][:5 * players]
    for viewer in list(range(players)) + [None]:
        for event in events:
            red = ENGINE.redact(event, viewer)
            json.dumps(red)
            assert not _secret_keys(red)
            kind = event["type"]
            if kind == "GameStarted":
                own = [] if viewer is None else sorted(deal[viewer::players], key=canonical_deck(3).index)
                assert red.get("hand", []) == own
                assert set(red) <= {"type", "version", "players", "options", "hand"}
            elif kind == "CardsDrawn" and event["seat"] != viewer:
                assert red == {"type": "CardsDrawn", "seat": event["seat"], "count": len(event["cards"])}
            elif kind == "DrawPileReshuffled":
                assert red == {"type": "DrawPileReshuffled", "k": event["k"], "count": len(event["order"])}
            else:
                assert red == event


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70) | st.floats(allow_nan=False)
    | st.text(max_size=12)
    | st.sampled_from(["B1", "BW", "R5", "skip", "block", "hand", "discard", "R", "B"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
_ACTIONS = st.sampled_from(["play", "discard", "end_turn", "skip", "reverse", "steal_card", "steal_chip",
                            "pass", "block", "nope"])
_MOVES = _JSON | st.fixed_dictionaries(
    {"action": _ACTIONS},
    optional={"card": _JSON | st.sampled_from(canonical_deck(3)), "pile": _JSON | st.integers(-2, 5),
              "source": _JSON, "target": _JSON | st.integers(-1, 6), "color": _JSON},
)


def _canonical_move(move: dict) -> dict:
    """The legal_moves form of an accepted move: only the fields its action uses, source filled in."""
    fields = {"play": ("card", "pile", "source"), "discard": ("card",), "skip": ("source",),
              "reverse": ("source",), "steal_card": ("target", "source"),
              "steal_chip": ("target", "color", "source")}.get(move["action"], ())
    canonical = {"action": move["action"], **{key: move[key] for key in fields if key in move}}
    if "source" in fields:
        canonical.setdefault("source", "hand")
    return canonical


@given(players=PLAYERS, seed=st.integers(min_value=0, max_value=2**16), steps=st.integers(0, 150),
       seat=st.integers(-1, 6) | _JSON, move=_MOVES)
def test_junk_moves_raise_illegal_move_and_change_nothing(players, seed, steps, seat, move):
    for step, (state, _events) in enumerate(_random_game(players, seed)):  # noqa: B007 - the state at `steps`, used below
        if step >= steps:
            break
    before = _observe(state)
    try:
        new = ENGINE.decide(state, seat, move)
    except IllegalMove as error:
        assert isinstance(error.code, str) and error.code
    else:  # a junk move that happens to be legal must be one legal_moves lists
        assert new and _canonical_move(move) in ENGINE.legal_moves(state, seat)
    assert _observe(state) == before
