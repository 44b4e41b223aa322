"""Split (shared/rules/split.md): one scenario per rule R1-R17 and per decision D1-D13, then properties.

Scenarios use fixed decks built by `deck(...)`: chosen hands, row card and pile top, the rest
filled with cards that cannot pair (top halves of ranks nobody was given), so every legal move
listed comes from the cards the test names.
"""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines._common import IllegalMove, seeded_shuffle
from games.engines.split import ENGINE

RANKS = "A23456789TJQK"
CANONICAL = [f"{r}{s}{h}" for r in RANKS for s in "SHDC" for h in "tb"]
CARDS = frozenset(CANONICAL)
PLAYER_COUNTS = range(2, 7)

# Two hands used below: with one drawn card, HAND_OUT goes out on the first turn (three perfect
# matches, a weak match upgraded to perfect, then the drawn card discarded).
HAND_OUT = ["AHt", "AHb", "2Ht", "2Hb", "3Ht", "3Hb", "4St", "4Hb", "4Sb"]


# ---------------------------------------------------------------------------------------------
# Builders


def deck(players: int, hands: dict[int, list[str]] | None = None, row: str | None = None,
         pile: list[str] = ()) -> list[str]:
    """A full round-1 deck (dealer players-1, seat 0 first) dealing `hands`, `row` and then `pile`.

    Missing hand cards are top halves of ranks no named card has (tops never pair with tops);
    the rest of the pile starts with tops too, so filler draws do not pair either.
    """
    hands = {seat: list(cards) for seat, cards in (hands or {}).items()}
    named = [card for cards in hands.values() for card in cards] + list(pile) + ([row] if row else [])
    assert len(set(named)) == len(named) and set(named) <= CARDS
    named_ranks = {card[0] for card in named}
    spare = [card for card in CANONICAL if card not in set(named)]
    spare.sort(key=lambda c: (c[2] == "b", c[0] in named_ranks))  # inert cards first (stable)
    for seat in range(players):
        hand = hands.setdefault(seat, [])
        while len(hand) < 9:
            hand.append(spare.pop(0))
    if row is None:
        row = spare.pop(0)
    dealt = [hands[seat][k] for k in range(9) for seat in range(players)]
    result = dealt + [row] + list(pile) + spare
    assert sorted(result) == sorted(CANONICAL)
    return result


class Table:
    """A game under test: plays moves through decide/evolve and keeps the events."""

    def __init__(self, players: int, cards: list[str] | None = None, seed: int = 7) -> None:
        self.players = players
        self.events = ENGINE.start(players, seed, {"deck": cards} if cards is not None else None)
        self.state = ENGINE.replay(self.events)

    def play(self, seat: int, move: dict) -> list[dict]:
        new = ENGINE.decide(self.state, seat, move)
        for event in new:
            self.state = ENGINE.evolve(self.state, event)
        self.events.extend(new)
        return new

    def reject(self, seat: int, move: object, code: str) -> None:
        before = observe(self.state)
        with pytest.raises(IllegalMove) as error:
            ENGINE.decide(self.state, seat, move)
        assert error.value.code == code, error.value.message
        assert observe(self.state) == before

    def legal(self, seat: int | None = None) -> list[dict]:
        return ENGINE.legal_moves(self.state, self.current if seat is None else seat)

    def view(self, seat: int | None = None) -> dict:
        return ENGINE.view(self.state, seat)

    @property
    def current(self) -> int:
        return ENGINE.view(self.state, None)["current"]

    @property
    def phase(self) -> str:
        return ENGINE.view(self.state, None)["phase"]

    def hand(self, seat: int) -> list[str]:
        return ENGINE.view(self.state, seat)["hand"]

    def turn(self, seat: int, discard: str | None = None) -> list[dict]:
        """Draws, then discards `discard` (default: the drawn card)."""
        drawn = self.play(seat, {"action": "draw"})
        if self.phase != "play":
            return drawn
        card = discard or drawn[0]["card"]
        return drawn + self.play(seat, {"action": "discard", "card": card})

    def go_out_with_hand_out(self, seat: int, target: int) -> list[dict]:
        """Plays HAND_OUT (plus the drawn card) down to nothing, penalizing `target`."""
        events = self.play(seat, {"action": "draw"})
        drawn = events[0]["card"]
        for pair in (["AHt", "AHb"], ["2Ht", "2Hb"], ["3Ht", "3Hb"]):
            events += self.play(seat, {"action": "match", "cards": pair})
            events += self.play(seat, {"action": "penalize", "seat": target})
        events += self.play(seat, {"action": "match", "cards": ["4St", "4Hb"]})
        match_id = events[-1]["id"] if events[-1]["type"] == "MatchMade" else events[-2]["id"]
        events += self.play(seat, {"action": "upgrade", "card": "4Sb", "match": match_id})
        events += self.play(seat, {"action": "penalize", "seat": target})
        return events + self.play(seat, {"action": "discard", "card": drawn})


def observe(state) -> str:
    players = ENGINE.view(state, None)["players"]
    return json.dumps({
        "to_act": ENGINE.to_act(state),
        "outcome": ENGINE.outcome(state),
        "views": [ENGINE.view(state, seat) for seat in [*range(players), None]],
        "legal": [ENGINE.legal_moves(state, seat) for seat in range(players)],
    }, sort_keys=True)


def types(events: list[dict]) -> list[str]:
    return [event["type"] for event in events]


def seat_view(table: Table, seat: int) -> dict:
    return table.view(None)["seats"][seat]


# ---------------------------------------------------------------------------------------------
# Components, setup and options (D1)


def test_the_deck_is_104_distinct_half_cards_in_canonical_order():
    assert len(CARDS) == 104
    events = ENGINE.start(2, 5)
    assert events[0]["deck"] == seeded_shuffle(CANONICAL, 5, 0)
    assert CANONICAL[:9] == ["ASt", "ASb", "AHt", "AHb", "ADt", "ADb", "ACt", "ACb", "2St"]
    assert CANONICAL[-1] == "KCb"


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_setup_deals_nine_each_one_row_card_and_the_rest_face_down(players):
    cards = deck(players)
    table = Table(players, cards)
    view = table.view(0)
    assert [seat["hand_size"] for seat in view["seats"]] == [9] * players
    assert view["discard_row"] == [cards[9 * players]]
    assert view["draw_pile"] == 104 - 9 * players - 1
    assert view["dealer"] == players - 1 and view["current"] == 0 and view["round"] == 1
    # Dealing is round-robin from the first player: seat s gets cards s, s+n, s+2n, ...
    for seat in range(players):
        assert table.hand(seat) == sorted(cards[seat:9 * players:players], key=CANONICAL.index)


def test_start_refuses_bad_decks_options_and_player_counts():
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"deck": CANONICAL[:-1]})
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"deck": CANONICAL[:-1] + ["ASt"]})
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, {"jokers": True})
    for players in (1, 7, "2", True):
        with pytest.raises(ValueError):
            ENGINE.start(players, 1)


def test_game_started_records_version_players_seed_and_options():
    cards = deck(3)
    events = ENGINE.start(3, 11, {"deck": cards})
    # GameStarted is also round 1's opening event: it records round 1's deck (dealer: seat 2).
    assert events == [{"type": "GameStarted", "version": 1, "players": 3, "seed": 11,
                       "options": {"deck": cards}, "deck": cards}]
    assert events[0]["deck"] is not cards and events[0]["options"]["deck"] is not cards
    assert ENGINE.version == 1


# ---------------------------------------------------------------------------------------------
# R1 turn start, R2 the last card


def test_r1_a_turn_starts_with_a_draw_which_marks_the_turn_taken():
    table = Table(2, deck(2, row="9St", pile=["5Hb"]))
    assert table.phase == "draw" and ENGINE.to_act(table.state) == [0]
    assert table.legal() == [{"action": "draw"}]  # the row card is not playable: no take
    assert table.legal(1) == []
    assert seat_view(table, 0)["had_turn"] is False
    events = table.play(0, {"action": "draw"})
    assert events == [{"type": "CardDrawn", "seat": 0, "card": "5Hb"}]
    assert "5Hb" in table.hand(0) and table.phase == "play"
    assert seat_view(table, 0)["had_turn"] is True and seat_view(table, 0)["hand_size"] == 10
    assert table.view(None)["draw_pile"] == 104 - 18 - 1 - 1


def test_r1_a_draw_is_asked_even_when_it_is_the_only_move():
    table = Table(2, deck(2, row="9St"))
    assert table.legal() == [{"action": "draw"}]
    assert ENGINE.to_act(table.state) == [0]


def test_r2_drawing_the_last_card_ends_the_round_at_once():
    table = Table(6, seed=3)
    while table.view(None)["draw_pile"] > 1:
        table.turn(table.current)
    seat = table.current
    last = table.state.deck[-1]
    hand_sizes = [s["hand_size"] for s in table.view(None)["seats"]]
    events = table.play(seat, {"action": "draw"})
    assert types(events) == ["CardDrawn", "RoundEnded", "RoundStarted"]
    assert events[0]["card"] == last
    ended = events[1]
    assert ended["reason"] == "pile_empty" and ended["ender"] == seat and ended["round"] == 1
    # The drawn card stays in the hand and is counted (R14).
    expected = list(hand_sizes)
    expected[seat] += 1
    assert ended["cards_left"] == expected
    view = table.view(None)
    assert view["round"] == 2 and view["round_enders"] == [seat]
    assert [s["negative_rows"] for s in view["seats"]] == [[n, 0, 0] for n in expected]


# ---------------------------------------------------------------------------------------------
# R3 taking from the row, R5 must-use


def _row_table() -> Table:
    """Seat 0 holds 9St; after two turns each the row is [3Sb, 2Hb, 9Db, 6Sb, KDt]."""
    cards = deck(2, hands={0: ["9St"], 1: ["9Db", "KDt"]}, row="3Sb", pile=["2Hb", "5Cb", "6Sb", "8Cb"])
    table = Table(2, cards)
    table.turn(0)  # draws and discards 2Hb
    table.turn(1, "9Db")
    table.turn(0)  # 6Sb
    table.turn(1, "KDt")
    return table


def test_r3_a_playable_row_card_can_be_taken_with_every_card_after_it():
    table = _row_table()
    assert table.view(None)["discard_row"] == ["3Sb", "2Hb", "9Db", "6Sb", "KDt"]
    assert table.legal(0) == [{"action": "draw"}, {"action": "take", "card": "9Db"}]
    events = table.play(0, {"action": "take", "card": "9Db"})
    assert events == [{"type": "CardsTaken", "seat": 0, "cards": ["9Db", "6Sb", "KDt"]}]
    view = table.view(0)
    assert view["discard_row"] == ["3Sb", "2Hb"]
    assert {"9Db", "6Sb", "KDt"} <= set(view["hand"]) and view["seats"][0]["hand_size"] == 12
    assert view["seats"][0]["had_turn"] is True and view["phase"] == "play"


def test_r3_a_card_that_cannot_be_played_cannot_be_taken():
    table = _row_table()
    table.reject(0, {"action": "take", "card": "3Sb"}, "card_not_playable")
    table.reject(0, {"action": "take", "card": "KDt"}, "card_not_playable")
    table.reject(0, {"action": "take", "card": "QQQ"}, "card_not_in_row")
    table.reject(0, {"action": "take", "card": "9St"}, "card_not_in_row")
    table.reject(0, {"action": "take", "card": ["9Db"]}, "malformed_move")
    table.reject(0, {"action": "take"}, "malformed_move")


def test_r3_a_card_is_playable_thanks_to_a_later_row_card():
    # 5Hb (position 1) pairs with 5St (position 2): both come along when 5Hb is taken.
    cards = deck(2, hands={1: ["5Hb", "5St"]}, row="3Sb", pile=["2Hb", "6Cb", "8Cb", "JCb"])
    table = Table(2, cards)
    table.turn(0)
    table.turn(1, "5Hb")
    table.turn(0)
    table.turn(1, "5St")
    assert {"action": "take", "card": "5Hb"} in table.legal(0)
    assert {"action": "take", "card": "5St"} not in table.legal(0)  # alone it pairs with nothing
    table.play(0, {"action": "take", "card": "5Hb"})
    assert table.legal(0) == [{"action": "match", "cards": ["5St", "5Hb"]}]


def test_r3_a_row_card_that_upgrades_a_match_on_the_table_is_playable():
    # Seat 1 lays the weak 7Ht+7Sb; seat 0 can take 7Hb (discarded by seat 1) to upgrade it.
    cards = deck(2, hands={1: ["7Ht", "7Sb", "7Hb"]}, row="3Sb", pile=["2Hb", "6Cb", "8Cb"])
    table = Table(2, cards)
    table.turn(0)
    table.play(1, {"action": "draw"})
    table.play(1, {"action": "match", "cards": ["7Ht", "7Sb"]})
    table.play(1, {"action": "discard", "card": "7Hb"})
    assert table.legal(0) == [{"action": "draw"}, {"action": "take", "card": "7Hb"}]
    table.play(0, {"action": "take", "card": "7Hb"})
    assert table.legal(0) == [{"action": "upgrade", "card": "7Hb", "match": 1}]


def test_r5_the_taken_card_must_be_used_first_and_is_public():
    table = _row_table()
    table.play(0, {"action": "take", "card": "9Db"})
    assert table.view(None)["must_use"] == "9Db" and table.view(1)["must_use"] == "9Db"
    assert table.legal(0) == [{"action": "match", "cards": ["9St", "9Db"]}]
    table.reject(0, {"action": "discard", "card": "6Sb"}, "must_use_taken_card")
    # 6Sb is a bottom; seat 0 has no 6 top, but a match without 9Db is refused before that check.
    table.reject(0, {"action": "match", "cards": ["KDt", "6Sb"]}, "must_use_taken_card")
    table.play(0, {"action": "match", "cards": ["9Db", "9St"]})  # the other order is accepted too
    assert table.view(None)["must_use"] is None
    assert table.phase == "play"  # a weak match, but seat 1 owns none: no trade, skipped
    assert {"action": "discard", "card": "6Sb"} in table.legal(0)


def test_d5_a_take_is_strict_the_taken_card_is_the_first_card_played():
    table = _row_table()
    table.play(0, {"action": "take", "card": "9Db"})
    assert all("9Db" in json.dumps(move) for move in table.legal(0))


# ---------------------------------------------------------------------------------------------
# R4 play, R6 keep a card, R7 matches


def test_r4_after_the_draw_any_number_of_matches_then_a_discard_ends_the_turn():
    cards = deck(2, hands={0: ["5Ht", "5Hb", "6St", "6Cb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    legal = table.legal(0)
    assert {"action": "match", "cards": ["5Ht", "5Hb"]} in legal
    assert {"action": "match", "cards": ["6St", "6Cb"]} in legal
    assert sum(move["action"] == "discard" for move in legal) == 10
    table.play(0, {"action": "match", "cards": ["5Ht", "5Hb"]})
    table.play(0, {"action": "penalize", "seat": 1})
    table.play(0, {"action": "match", "cards": ["6St", "6Cb"]})
    table.play(0, {"action": "skip"})
    events = table.play(0, {"action": "discard", "card": "TSt"})
    assert events == [{"type": "CardDiscarded", "seat": 0, "card": "TSt"}]
    assert table.current == 1 and table.phase == "draw" and table.view(None)["discard_row"] == ["3Sb", "TSt"]


def test_r6_a_row_card_is_not_playable_if_using_it_would_empty_the_hand():
    # Seat 0 plays HAND_OUT but keeps 5Hb: after its turn it holds [5Hb]; seat 1 discards 5Ht.
    hand = ["AHt", "AHb", "2Ht", "2Hb", "3Ht", "3Hb", "4Ht", "4Hb", "5Hb"]
    cards = deck(2, hands={0: hand, 1: ["5Ht", "4Dt"]}, row="3Sb", pile=["TSt", "JSt", "QSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    for pair in (["AHt", "AHb"], ["2Ht", "2Hb"], ["3Ht", "3Hb"], ["4Ht", "4Hb"]):
        table.play(0, {"action": "match", "cards": pair})
        table.play(0, {"action": "penalize", "seat": 1})
    table.play(0, {"action": "discard", "card": "TSt"})
    assert table.hand(0) == ["5Hb"]
    table.turn(1, "5Ht")
    # Taking 5Ht would leave [5Hb, 5Ht]: the match would empty the hand, so 5Ht is not playable.
    assert {"action": "take", "card": "5Ht"} not in table.legal(0)
    table.reject(0, {"action": "take", "card": "5Ht"}, "card_not_playable")


def test_r6_must_keep_a_card_is_checked_before_the_shape_of_the_match():
    # Seat 1 ends with [4Dt] after upgrading; a 2-card hand cannot match, a 1-card hand cannot upgrade.
    hand = ["AHt", "AHb", "2Ht", "2Hb", "3Ht", "3Hb", "4Ht", "4Sb", "4Db"]
    cards = deck(2, hands={0: hand}, row="3Sb", pile=["TSt", "JSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    for pair in (["AHt", "AHb"], ["2Ht", "2Hb"], ["3Ht", "3Hb"]):
        table.play(0, {"action": "match", "cards": pair})
        table.play(0, {"action": "penalize", "seat": 1})
    # Hand: 4Ht 4Sb 4Db TSt. Weak 4Ht+4Sb, then the hand is [4Db, TSt].
    table.play(0, {"action": "match", "cards": ["4Ht", "4Sb"]})
    assert table.hand(0) == ["4Db", "TSt"]
    table.reject(0, {"action": "match", "cards": ["4Db", "TSt"]}, "must_keep_a_card")
    table.play(0, {"action": "upgrade", "card": "4Db", "match": 4})  # 4Ht+4Db strong: keeps TSt
    table.play(0, {"action": "skip"})
    assert table.hand(0) == ["TSt"]
    table.reject(0, {"action": "upgrade", "card": "TSt", "match": 99}, "must_keep_a_card")
    assert table.legal(0) == [{"action": "discard", "card": "TSt"}]


def test_r7_matches_are_perfect_strong_or_weak_and_get_increasing_ids():
    cards = deck(2, hands={0: ["5Ht", "5Hb", "6St", "6Cb", "7Dt", "7Cb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    assert table.play(0, {"action": "match", "cards": ["5Hb", "5Ht"]})[0] == {
        "type": "MatchMade", "seat": 0, "id": 1, "top": "5Ht", "bottom": "5Hb", "kind": "perfect"}
    assert table.phase == "perfect_bonus"
    table.play(0, {"action": "penalize", "seat": 1})
    assert table.play(0, {"action": "match", "cards": ["6St", "6Cb"]})[0]["kind"] == "strong"
    table.play(0, {"action": "skip"})
    events = table.play(0, {"action": "match", "cards": ["7Dt", "7Cb"]})
    assert events[0]["kind"] == "weak" and events[0]["id"] == 3
    assert [(m["id"], m["owner"], m["top"], m["bottom"], m["kind"], m["covered"])
            for m in table.view(None)["matches"]] == [
        (1, 0, "5Ht", "5Hb", "perfect", []), (2, 0, "6St", "6Cb", "strong", []),
        (3, 0, "7Dt", "7Cb", "weak", [])]
    assert table.view(None)["seats"][0]["hand_size"] == 10 - 6


def test_r7_halves_that_do_not_pair_are_not_a_match():
    cards = deck(2, hands={0: ["5Ht", "5Hb", "6St", "5Dt", "6Cb", "7Db"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.reject(0, {"action": "match", "cards": ["5Ht", "6Cb"]}, "not_a_match")  # ranks differ
    table.reject(0, {"action": "match", "cards": ["5Ht", "5Dt"]}, "not_a_match")  # two tops
    table.reject(0, {"action": "match", "cards": ["5Hb", "5Hb"]}, "not_a_match")  # one card twice
    table.reject(0, {"action": "match", "cards": ["5Ht", "5Cb"]}, "card_not_in_hand")
    table.reject(0, {"action": "match", "cards": ["5Ht"]}, "malformed_move")
    table.reject(0, {"action": "match", "cards": "5Ht 5Hb"}, "malformed_move")
    table.reject(0, {"action": "match", "cards": ["5Ht", 5]}, "malformed_move")
    # Canonical form lists the top half first.
    assert {"action": "match", "cards": ["5Dt", "5Hb"]} in table.legal(0)


# ---------------------------------------------------------------------------------------------
# R8 upgrades, R9 ownership


def _weak_seven_table() -> Table:
    """Seat 0 lays the weak 7Ht+7Sb (id 1); seat 1 holds 7Hb, 7Db, 7Cb and 7Ct."""
    cards = deck(2, hands={0: ["7Ht", "7Sb"], 1: ["7Hb", "7Db", "7Cb", "7Ct", "7St"]}, row="3Sb",
                 pile=["TSt", "JSt", "QSt", "KSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["7Ht", "7Sb"]})  # no trade possible: skipped
    table.play(0, {"action": "discard", "card": "TSt"})
    table.play(1, {"action": "draw"})
    return table


def test_r8_an_upgrade_replaces_the_same_side_and_must_strengthen():
    table = _weak_seven_table()
    legal = [m for m in table.legal(1) if m["action"] == "upgrade"]
    # 7Hb makes it perfect, 7Db strong (both red); 7Cb keeps it weak; 7Ct/7St would pair 7Sb: strong/perfect.
    assert legal == [{"action": "upgrade", "card": card, "match": 1} for card in ("7St", "7Hb", "7Db", "7Ct")]
    table.reject(1, {"action": "upgrade", "card": "7Cb", "match": 1}, "not_an_upgrade")
    table.reject(1, {"action": "upgrade", "card": "JSt", "match": 1}, "not_an_upgrade")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": 2}, "no_such_match")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": -1}, "no_such_match")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": 10**40}, "no_such_match")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": "1"}, "malformed_move")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": 1.0}, "malformed_move")
    table.reject(1, {"action": "upgrade", "card": "7Hb", "match": True}, "malformed_move")
    table.reject(1, {"action": "upgrade", "card": "7Ht", "match": 1}, "card_not_in_hand")
    events = table.play(1, {"action": "upgrade", "card": "7Db", "match": 1})
    assert events == [{"type": "MatchUpgraded", "seat": 1, "id": 1, "card": "7Db", "covered": "7Sb",
                       "kind": "strong", "previous_owner": 0}]
    match = table.view(None)["matches"][0]
    assert match == {"id": 1, "owner": 1, "top": "7Ht", "bottom": "7Db", "kind": "strong", "covered": ["7Sb"]}
    assert table.phase == "strong_bonus"
    table.play(1, {"action": "skip"})
    # Strong → perfect with 7Hb; then no card can upgrade a perfect match.
    table.play(1, {"action": "upgrade", "card": "7Hb", "match": 1})
    assert table.view(None)["matches"][0]["covered"] == ["7Sb", "7Db"]
    table.play(1, {"action": "penalize", "seat": 0})
    assert not [m for m in table.legal(1) if m["action"] == "upgrade"]
    table.reject(1, {"action": "upgrade", "card": "7St", "match": 1}, "not_an_upgrade")


def test_r9_an_upgrade_steals_the_match_and_gives_the_bonus_of_its_new_kind():
    table = _weak_seven_table()
    table.play(1, {"action": "upgrade", "card": "7Hb", "match": 1})
    assert table.view(None)["matches"][0]["owner"] == 1
    assert table.phase == "perfect_bonus" and table.legal(1) == [{"action": "penalize", "seat": 0}]


def test_d6_a_player_may_upgrade_their_own_match():
    cards = deck(2, hands={0: ["7Ht", "7Sb", "7Hb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["7Ht", "7Sb"]})
    assert {"action": "upgrade", "card": "7Hb", "match": 1} in table.legal(0)
    table.play(0, {"action": "upgrade", "card": "7Hb", "match": 1})
    assert table.view(None)["matches"][0]["owner"] == 0 and table.phase == "perfect_bonus"


# ---------------------------------------------------------------------------------------------
# R10-R12 bonuses (D7)


def test_r10_a_perfect_match_penalizes_another_player_at_once():
    cards = deck(3, hands={0: ["5Ht", "5Hb"]}, row="3Sb", pile=["TSt"])
    table = Table(3, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["5Ht", "5Hb"]})
    assert table.legal(0) == [{"action": "penalize", "seat": 1}, {"action": "penalize", "seat": 2}]
    table.reject(0, {"action": "penalize", "seat": 0}, "bad_target")
    table.reject(0, {"action": "penalize", "seat": 3}, "bad_target")
    table.reject(0, {"action": "penalize", "seat": -1}, "bad_target")
    table.reject(0, {"action": "penalize", "seat": "1"}, "malformed_move")
    table.reject(0, {"action": "penalize", "seat": True}, "malformed_move")
    table.reject(0, {"action": "discard", "card": "TSt"}, "wrong_phase")  # D7: mandatory, immediate
    events = table.play(0, {"action": "penalize", "seat": 2})
    assert events == [{"type": "PlayerPenalized", "seat": 0, "target": 2}]
    seat = seat_view(table, 2)
    assert seat["negative_rows"] == [1, 0, 0] and seat["negative_points"] == 1 and seat["score"] == -1
    assert table.phase == "play"


def test_r10_the_penalty_is_asked_even_with_one_possible_target():
    cards = deck(2, hands={0: ["5Ht", "5Hb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["5Ht", "5Hb"]})
    assert ENGINE.to_act(table.state) == [0] and table.legal(0) == [{"action": "penalize", "seat": 1}]


def test_r11_a_strong_match_offers_a_bonus_draw_or_a_skip():
    cards = deck(2, hands={0: ["6St", "6Cb", "5Dt", "5Hb"]}, row="3Sb", pile=["TSt", "JHt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["6St", "6Cb"]})
    assert table.phase == "strong_bonus"
    assert table.legal(0) == [{"action": "bonus_draw"}, {"action": "skip"}]
    table.reject(0, {"action": "discard", "card": "TSt"}, "wrong_phase")
    events = table.play(0, {"action": "bonus_draw"})
    assert events == [{"type": "BonusCardDrawn", "seat": 0, "card": "JHt"}]
    assert ENGINE.redact(events[0], 1) == {"type": "BonusCardDrawn", "seat": 0}
    assert ENGINE.redact(events[0], None) == {"type": "BonusCardDrawn", "seat": 0}
    assert ENGINE.redact(events[0], 0) == events[0]
    assert "JHt" in table.hand(0) and table.phase == "play"
    table.play(0, {"action": "match", "cards": ["5Dt", "5Hb"]})
    assert table.play(0, {"action": "skip"}) == [
        {"type": "BonusSkipped", "seat": 0, "bonus": "strong", "automatic": False}]
    assert table.phase == "play"


def _trade_table() -> Table:
    """Seat 0 owns weak 7Ht+7Sb (1); seat 1 owns weak 9Ht+9Sb (2) and perfect KHt+KHb (3)."""
    cards = deck(2, hands={0: ["7Ht", "7Sb", "8Ht", "8Sb"], 1: ["9Ht", "9Sb", "KHt", "KHb"]}, row="3Sb",
                 pile=["TSt", "JSt", "QSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    events = table.play(0, {"action": "match", "cards": ["7Ht", "7Sb"]})
    assert types(events) == ["MatchMade", "BonusSkipped"] and events[1]["automatic"] is True
    table.play(0, {"action": "discard", "card": "TSt"})
    table.play(1, {"action": "draw"})
    table.play(1, {"action": "match", "cards": ["9Ht", "9Sb"]})
    assert table.phase == "weak_bonus"
    assert table.legal(1) == [{"action": "trade", "give": 2, "take": 1}, {"action": "skip"}]
    assert table.play(1, {"action": "skip"}) == [
        {"type": "BonusSkipped", "seat": 1, "bonus": "weak", "automatic": False}]
    table.play(1, {"action": "match", "cards": ["KHt", "KHb"]})
    table.play(1, {"action": "penalize", "seat": 0})
    table.play(1, {"action": "discard", "card": "JSt"})
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["8Ht", "8Sb"]})
    return table


def test_r12_a_weak_match_offers_a_trade_of_same_kind_matches():
    table = _trade_table()
    assert table.phase == "weak_bonus"
    assert table.legal(0) == [{"action": "trade", "give": 1, "take": 2},
                              {"action": "trade", "give": 4, "take": 2}, {"action": "skip"}]
    table.reject(0, {"action": "trade", "give": 2, "take": 1}, "bad_trade")  # not mine to give
    table.reject(0, {"action": "trade", "give": 1, "take": 4}, "bad_trade")  # mine to take
    table.reject(0, {"action": "trade", "give": 1, "take": 3}, "bad_trade")  # weak for perfect
    table.reject(0, {"action": "trade", "give": 9, "take": 2}, "no_such_match")
    table.reject(0, {"action": "trade", "give": 1, "take": 0}, "no_such_match")
    table.reject(0, {"action": "trade", "give": "1", "take": 2}, "malformed_move")
    table.reject(0, {"action": "trade", "give": 1}, "malformed_move")
    table.reject(0, {"action": "discard", "card": "QSt"}, "wrong_phase")
    # D7: the match just made may be the one given.
    events = table.play(0, {"action": "trade", "give": 4, "take": 2})
    assert events == [{"type": "MatchesTraded", "seat": 0, "give": 4, "take": 2, "other": 1}]
    owners = {m["id"]: m["owner"] for m in table.view(None)["matches"]}
    assert owners == {1: 0, 2: 0, 3: 1, 4: 1}
    assert table.phase == "play"


def test_r12_a_weak_bonus_with_no_possible_trade_is_skipped_by_the_engine():
    cards = deck(2, hands={0: ["7Ht", "7Sb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    events = table.play(0, {"action": "match", "cards": ["7Ht", "7Sb"]})
    assert events[1] == {"type": "BonusSkipped", "seat": 0, "bonus": "weak", "automatic": True}
    assert table.phase == "play"


def test_d9_a_strong_bonus_draw_of_the_last_card_ends_the_round():
    # Seat 1 keeps 6St+6Cb until the pile holds two cards (seat 1 draws at 84, 82, ..., 2).
    cards = deck(2, hands={1: ["6St", "6Cb"]}, row="3Sb")
    table = Table(2, cards)
    while table.view(None)["draw_pile"] > 2:
        table.turn(table.current)
    assert table.current == 1
    table.play(1, {"action": "draw"})
    assert table.view(None)["draw_pile"] == 1
    table.play(1, {"action": "match", "cards": ["6St", "6Cb"]})
    events = table.play(1, {"action": "bonus_draw"})
    assert types(events) == ["BonusCardDrawn", "RoundEnded", "RoundStarted"]
    assert events[1]["reason"] == "pile_empty" and events[1]["ender"] == 1
    assert events[1]["match_ranks"] == [[], ["6"]] and events[1]["cards_left"] == [9, 9]  # 9 + 1 - 2 + 1
    assert events[2]["dealer"] == 1 and table.current == 0


# ---------------------------------------------------------------------------------------------
# R13 discard and going out, R14 scoring, R15 next round


def test_r13_a_discard_ends_the_turn_and_the_next_seat_draws():
    table = Table(3, deck(3, row="3Sb", pile=["TSt"]))
    table.play(0, {"action": "draw"})
    table.reject(0, {"action": "discard", "card": "KCb"}, "card_not_in_hand")
    table.reject(0, {"action": "discard", "card": None}, "malformed_move")
    table.play(0, {"action": "discard", "card": "TSt"})
    assert table.current == 1 and table.phase == "draw" and ENGINE.to_act(table.state) == [1]


def test_r13_going_out_ends_the_round_and_r14_scores_it():
    # Seat 1 (the dealer) goes out on its first turn: everyone has had a turn, so no last matches.
    cards = deck(2, hands={1: HAND_OUT}, row="3Sb", pile=["TSt", "JSt"])
    table = Table(2, cards, seed=21)
    table.turn(0)
    events = table.go_out_with_hand_out(1, target=0)
    ended = [e for e in events if e["type"] == "RoundEnded"][0]
    assert ended == {"type": "RoundEnded", "round": 1, "ender": 1, "reason": "went_out",
                     "match_ranks": [[], ["A", "2", "3", "4"]], "cards_left": [9, 0]}
    assert types(events[-3:]) == ["CardDiscarded", "RoundEnded", "RoundStarted"]
    view = table.view(None)
    seat0, seat1 = view["seats"]
    # Seat 1: one mark in rows A, 2, 3, 4: 3 + 1 + 1 + 1. Upgrade covers count for nothing.
    assert seat1["match_rows"] == {r: (1 if r in "A234" else 0) for r in RANKS}
    assert seat1["match_points"] == 6 and seat1["negative_points"] == 0 and seat1["score"] == 6
    # Seat 0: four penalties and nine cards: 13 marks, the row caps at 12 boxes (T(12) = 78).
    assert seat0["negative_rows"] == [13, 0, 0] and seat0["negative_points"] == 78 and seat0["score"] == -78


def test_r15_the_next_round_is_dealt_from_a_fresh_seeded_shuffle_by_the_ender():
    cards = deck(2, hands={1: HAND_OUT}, row="3Sb", pile=["TSt", "JSt"])
    table = Table(2, cards, seed=21)
    table.turn(0)
    events = table.go_out_with_hand_out(1, target=0)
    started = events[-1]
    assert started == {"type": "RoundStarted", "round": 2, "dealer": 1, "players": 2,
                       "deck": seeded_shuffle(CANONICAL, 21, 1)}
    view = table.view(0)
    assert view["round"] == 2 and view["dealer"] == 1 and view["current"] == 0 and view["phase"] == "draw"
    assert view["matches"] == [] and view["must_use"] is None and view["draw_pile"] == 85
    assert view["discard_row"] == [started["deck"][18]] and view["hand"] == sorted(started["deck"][0:18:2],
                                                                                   key=CANONICAL.index)
    assert [s["had_turn"] for s in view["seats"]] == [False, False]
    assert view["round_enders"] == [1]
    # The move log shows the round, its dealer, the row card and a seat's own nine cards only.
    assert ENGINE.redact(started, 0) == {"type": "RoundStarted", "round": 2, "players": 2, "dealer": 1,
                                         "discard_row": view["discard_row"], "hand": view["hand"]}
    assert "hand" not in ENGINE.redact(started, None) and "deck" not in ENGINE.redact(started, 1)
    # Match ids go on counting: four matches were made in round 1.
    table.play(0, {"action": "draw"})
    pairs = [m for m in table.legal(0) if m["action"] == "match"]
    assert table.play(0, pairs[0])[0]["id"] == 5


def test_r15_three_rounds_then_the_game_ends():
    table = Table(6, seed=4)
    rounds_seen = {1}
    while ENGINE.outcome(table.state) is None:
        table.turn(table.current)
        rounds_seen.add(table.view(None)["round"])
    assert rounds_seen == {1, 2, 3}
    assert types(table.events).count("RoundStarted") == 2 and table.events[-1]["type"] == "GameEnded"
    view = table.view(None)
    assert view["finished"] is True and view["phase"] == "finished" and view["to_act"] == []
    assert view["current"] is None and len(view["round_enders"]) == 3
    # Each round's dealer is the previous round's ender (D4).
    starts = [e for e in table.events if e["type"] == "RoundStarted"]
    assert [s["dealer"] for s in starts] == view["round_enders"][:2]
    assert [s["deck"] for s in starts] == [seeded_shuffle(CANONICAL, 4, k) for k in (1, 2)]


# ---------------------------------------------------------------------------------------------
# R16 last matches after a first-turn go-out (D10)


def _first_turn_out_table() -> tuple[Table, list[dict]]:
    hands = {0: HAND_OUT, 1: ["5Ht", "5Hb", "6St", "6Db", "8Ct", "8Cb", "9Ct", "9Hb", "7Dt"]}
    cards = deck(3, hands=hands, row="3Sb", pile=["TSt"])
    table = Table(3, cards)
    return table, table.go_out_with_hand_out(0, target=2)


def test_r16_going_out_on_the_first_turn_lets_the_others_lay_last_matches():
    table, events = _first_turn_out_table()
    assert events[-1] == {"type": "CardDiscarded", "seat": 0, "card": "TSt"}
    assert table.phase == "last_matches" and table.current == 1 and ENGINE.to_act(table.state) == [1]
    assert table.legal(1) == [
        {"action": "match", "cards": ["5Ht", "5Hb"]}, {"action": "match", "cards": ["6St", "6Db"]},
        {"action": "match", "cards": ["8Ct", "8Cb"]}, {"action": "match", "cards": ["9Ct", "9Hb"]},
        {"action": "done"}]
    table.reject(1, {"action": "upgrade", "card": "7Dt", "match": 1}, "wrong_phase")
    table.reject(1, {"action": "discard", "card": "7Dt"}, "wrong_phase")
    table.reject(1, {"action": "draw"}, "wrong_phase")
    # No bonus: a perfect match leaves the seat in last_matches.
    assert types(table.play(1, {"action": "match", "cards": ["5Ht", "5Hb"]})) == ["MatchMade"]
    assert table.phase == "last_matches" and table.current == 1
    table.play(1, {"action": "match", "cards": ["6St", "6Db"]})
    table.play(1, {"action": "match", "cards": ["8Ct", "8Cb"]})
    events = table.play(1, {"action": "match", "cards": ["9Ct", "9Hb"]})
    # Seat 1 has no match left and seat 2 never had one: both are done automatically.
    assert types(events) == ["MatchMade", "LastMatchesDone", "LastMatchesDone", "RoundEnded", "RoundStarted"]
    assert events[1] == {"type": "LastMatchesDone", "seat": 1, "automatic": True}
    assert events[2] == {"type": "LastMatchesDone", "seat": 2, "automatic": True}
    assert events[3]["ender"] == 0 and events[3]["reason"] == "went_out"
    assert events[3]["match_ranks"] == [["A", "2", "3", "4"], ["5", "6", "8", "9"], []]
    assert events[3]["cards_left"] == [0, 1, 9]
    assert events[4]["dealer"] == 0 and table.current == 1


def test_r16_a_seat_may_stop_early_with_done():
    table, _ = _first_turn_out_table()
    table.play(1, {"action": "match", "cards": ["5Ht", "5Hb"]})
    events = table.play(1, {"action": "done"})
    assert events[0] == {"type": "LastMatchesDone", "seat": 1, "automatic": False}
    assert types(events) == ["LastMatchesDone", "LastMatchesDone", "RoundEnded", "RoundStarted"]
    assert events[2]["cards_left"] == [0, 7, 9]


def test_r16_without_any_possible_match_the_round_ends_at_once():
    cards = deck(3, hands={0: HAND_OUT}, row="3Sb", pile=["TSt"])
    table = Table(3, cards)
    events = table.go_out_with_hand_out(0, target=1)
    assert types(events[-5:]) == ["CardDiscarded", "LastMatchesDone", "LastMatchesDone", "RoundEnded",
                                  "RoundStarted"]
    assert [e["seat"] for e in events[-4:-2]] == [1, 2]


def test_r16_does_not_apply_when_the_goer_out_had_an_earlier_turn():
    cards = deck(3, hands={0: HAND_OUT, 1: ["5Ht", "5Hb"]}, row="3Sb", pile=["QSt", "QHt", "QDt", "TSt"])
    table = Table(3, cards)
    table.turn(0)
    table.turn(1)
    table.turn(2)
    events = table.go_out_with_hand_out(0, target=1)
    assert types(events[-3:]) == ["CardDiscarded", "RoundEnded", "RoundStarted"]


# ---------------------------------------------------------------------------------------------
# R17, D11 scoring timing, the score pad (D3), the outcome (D12)


def test_r17_the_discard_row_is_never_shuffled_back():
    table = Table(2, seed=9)
    row_sizes = []
    while table.view(None)["round"] == 1:
        row_sizes.append(len(table.view(None)["discard_row"]))
        table.turn(table.current)
    # 85 draws end round 1; the 84 discards before the last draw all stay in the row.
    assert row_sizes == list(range(1, 86))
    assert table.view(None)["discard_row"] == [table.events[-1]["deck"][18]]


def test_d11_matches_score_only_at_the_end_of_the_round():
    cards = deck(2, hands={0: ["6St", "6Cb"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards)
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["6St", "6Cb"]})
    assert seat_view(table, 0)["match_rows"]["6"] == 0 and seat_view(table, 0)["score"] == 0


def _synthetic_end(players: int, match_ranks: list[list[list[str]]], cards_left: list[list[int]],
                   penalties: list[tuple[int, int]] = ()) -> list[dict]:
    """Events of a game whose three rounds end with the given marks (white-box, for the pad)."""
    events = ENGINE.start(players, 1)
    for round_index in range(3):
        if round_index:
            events.append({"type": "RoundStarted", "round": round_index + 1, "dealer": 0, "players": players,
                           "deck": seeded_shuffle(CANONICAL, 1, round_index)})
        if round_index == 0:
            events += [{"type": "PlayerPenalized", "seat": seat, "target": target}
                       for seat, target in penalties]
        events.append({"type": "RoundEnded", "round": round_index + 1, "ender": 0, "reason": "pile_empty",
                       "match_ranks": match_ranks[round_index], "cards_left": cards_left[round_index]})
    events.append({"type": "GameEnded"})
    return events


def test_d3_the_pad_rows_are_triangular_with_multipliers_and_cap_boxes():
    events = _synthetic_end(
        2,
        match_ranks=[[["7"] * 4 + ["A"] * 2, []], [["7"] * 3 + ["K"], []], [["A"], []]],
        cards_left=[[0, 12], [3, 13], [0, 1]],
    )
    state = ENGINE.replay(events)
    seat0, seat1 = ENGINE.view(state, None)["seats"]
    # Sevens: 7 marks, only 6 boxes: 21. Aces: 3 marks × 3: 18. Kings: 1 mark × 2: 2.
    assert seat0["match_rows"]["7"] == 7 and seat0["match_points"] == 21 + 18 + 2
    assert seat0["negative_rows"] == [0, 3, 0] and seat0["negative_points"] == 6
    assert seat0["score"] == 41 - 6
    assert seat1["negative_rows"] == [12, 13, 1] and seat1["negative_points"] == 78 + 78 + 1
    assert seat1["score"] == -157


def test_d12_equal_totals_are_split_by_fewer_negative_boxes_then_shared():
    # Seats 0 and 1: 1 point each; seat 0 has 2 negative boxes (1+1), seat 1 has 1; seat 2 ties seat 1.
    events = _synthetic_end(
        4,
        match_ranks=[[["2"], ["2"], ["2"], []], [["2"], [], [], []], [[], [], [], []]],
        cards_left=[[1, 1, 1, 0], [1, 0, 0, 0], [0, 0, 0, 0]],
    )
    state = ENGINE.replay(events)
    outcome = ENGINE.outcome(state)
    # Seat 0: 2 marks in row 2 = 3, minus 1 + 1 = 1. Seats 1, 2: 1 - 1 = 0. Seat 3: 0 - 0 = 0, no boxes.
    assert outcome["scores"] == [1, 0, 0, 0]
    assert outcome["ranks"] == [1, 3, 3, 2]
    assert outcome["winners"] == [0] and outcome["cooperative"] is False
    assert outcome["detail"] == {"match_points": [3, 1, 1, 0], "negative_points": [2, 1, 1, 0],
                                 "negative_boxes": [2, 1, 1, 0], "round_enders": [0, 0, 0]}


def test_d12_seats_equal_in_score_and_boxes_share_the_rank():
    events = _synthetic_end(3, match_ranks=[[["5"], ["5"], []]] + [[[], [], []]] * 2,
                            cards_left=[[0, 0, 0]] * 3)
    outcome = ENGINE.outcome(ENGINE.replay(events))
    assert outcome["ranks"] == [1, 1, 3] and outcome["winners"] == [0, 1]


def test_after_the_game_every_move_is_game_over():
    table = Table(2, seed=5)
    while ENGINE.outcome(table.state) is None:
        table.turn(table.current)
    outcome = ENGINE.outcome(table.state)
    assert outcome["scores"] == [s["score"] for s in table.view(None)["seats"]]
    assert table.events[-1] == {"type": "GameEnded", "scores": outcome["scores"], "ranks": outcome["ranks"]}
    for seat in (0, 1, 5, None):
        table.reject(seat, {"action": "draw"}, "game_over")
    assert ENGINE.legal_moves(table.state, 0) == [] and ENGINE.to_act(table.state) == []


# ---------------------------------------------------------------------------------------------
# Error order, view, redaction (D13)


def test_illegal_moves_are_checked_in_the_listed_order():
    table = Table(2, deck(2, row="3Sb", pile=["TSt"]))
    table.reject(1, {"action": "draw"}, "not_your_turn")
    table.reject(2, {"action": "draw"}, "not_your_turn")
    table.reject(True, {"action": "draw"}, "not_your_turn")
    table.reject(None, "junk", "not_your_turn")
    table.reject(0, "draw", "malformed_move")
    table.reject(0, ["draw"], "malformed_move")
    table.reject(0, None, "malformed_move")
    table.reject(0, {}, "unknown_action")
    table.reject(0, {"action": "fly"}, "unknown_action")
    table.reject(0, {"action": ["draw"]}, "unknown_action")
    table.reject(0, {"action": "discard", "card": "not a card"}, "wrong_phase")
    table.reject(0, {"action": "done"}, "wrong_phase")
    assert table.play(0, {"action": "draw", "extra": [1, 2]})[0]["type"] == "CardDrawn"  # extra keys ignored


def test_the_view_lists_every_field_of_the_rules_page():
    table = Table(3, deck(3, hands={0: ["5Ht", "5Hb"]}, row="3Sb", pile=["TSt"]))
    table.play(0, {"action": "draw"})
    table.play(0, {"action": "match", "cards": ["5Ht", "5Hb"]})
    view = table.view(0)
    assert view["game"] == "split" and view["players"] == 3 and view["seat"] == 0
    assert view["to_act"] == [0] and view["phase"] == "perfect_bonus" and view["finished"] is False
    assert view["outcome"] is None and view["hand"] == sorted(view["hand"], key=CANONICAL.index)
    assert set(view) >= {"round", "dealer", "current", "draw_pile", "discard_row", "matches", "must_use",
                         "round_enders"}
    assert view["seats"][0] == {"seat": 0, "hand_size": 8, "had_turn": True,
                                "match_rows": {r: 0 for r in RANKS}, "negative_rows": [0, 0, 0],
                                "match_points": 0, "negative_points": 0, "score": 0}
    spectator = table.view(None)
    assert spectator["hand"] is None and spectator["seat"] is None
    with pytest.raises(ValueError):
        table.view(3)
    with pytest.raises(ValueError):
        table.view(-1)


def test_redaction_hides_the_deck_the_seed_and_other_seats_cards():
    cards = deck(2, hands={0: ["5Ht"]}, row="3Sb", pile=["TSt"])
    table = Table(2, cards, seed=99)
    [started] = table.events
    # The game's (and round 1's) opening event: players, options, round, dealer, row card, own hand.
    assert ENGINE.redact(started, 0) == {"type": "GameStarted", "version": 1, "players": 2, "options": {},
                                         "round": 1, "dealer": 1, "discard_row": ["3Sb"], "hand": table.hand(0)}
    assert ENGINE.redact(started, 1)["hand"] == table.hand(1)
    assert ENGINE.redact(started, None) == {"type": "GameStarted", "version": 1, "players": 2, "options": {},
                                            "round": 1, "dealer": 1, "discard_row": ["3Sb"]}
    drawn = table.play(0, {"action": "draw"})[0]
    assert ENGINE.redact(drawn, 0) == drawn
    assert ENGINE.redact(drawn, 1) == ENGINE.redact(drawn, None) == {"type": "CardDrawn", "seat": 0}
    discarded = table.play(0, {"action": "discard", "card": "5Ht"})[0]
    assert ENGINE.redact(discarded, 1) == discarded


def test_d13_hands_stay_hidden_after_the_game():
    table = Table(2, seed=6)
    while ENGINE.outcome(table.state) is None:
        table.turn(table.current)
    spectator = table.view(None)
    assert spectator["hand"] is None
    hand1 = set(table.hand(1))
    assert hand1 and not hand1 & cards_in(table.view(0))
    assert "seed" not in json.dumps(spectator)


# ---------------------------------------------------------------------------------------------
# Properties over random play


def cards_in(obj) -> set[str]:
    """Every card string anywhere in a JSON value."""
    if isinstance(obj, str):
        return {obj} if obj in CARDS else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()


def visible_cards(view: dict) -> set[str]:
    return cards_in({k: v for k, v in view.items()})


def hidden_hands(state) -> list[set[str]]:
    players = ENGINE.view(state, None)["players"]
    return [set(ENGINE.view(state, seat)["hand"]) for seat in range(players)]


def check_conservation(state) -> None:
    spectator = ENGINE.view(state, None)
    players = spectator["players"]
    places: list[str] = list(spectator["discard_row"])
    for match in spectator["matches"]:
        places += [match["top"], match["bottom"], *match["covered"]]
    for seat in range(players):
        places += ENGINE.view(state, seat)["hand"]
    assert len(places) == len(set(places))
    assert len(places) + spectator["draw_pile"] == 104
    # The face-down rest is exactly the undealt tail of the round's deck (white-box).
    assert set(state.deck[state.pile_pos:]) == CARDS - set(places)


def choose(legal: list[dict], rng: random.Random, greedy: bool) -> dict:
    """Uniform, or (greedy) mostly matching and upgrading, so that players go out and R16 happens."""
    if greedy and rng.random() < 0.9:
        shedding = [move for move in legal if move["action"] in ("match", "upgrade")]
        if shedding:
            return rng.choice(shedding)
        if legal[0]["action"] == "draw":
            return rng.choice(legal[1:]) if len(legal) > 1 and rng.random() < 0.5 else legal[0]
    return rng.choice(legal)


def random_game(players: int, seed: int, choice_seed: int, visit=None, greedy: bool = False):
    rng = random.Random(choice_seed)
    events = ENGINE.start(players, seed)
    state = ENGINE.replay(events)
    steps = 0
    while ENGINE.outcome(state) is None:
        steps += 1
        assert steps < 5000
        seat = ENGINE.to_act(state)[0]
        new = ENGINE.decide(state, seat, choose(ENGINE.legal_moves(state, seat), rng, greedy))
        for event in new:
            before = state
            state = ENGINE.evolve(state, event)
            if visit:
                visit(before, event, state, len(events))
            events.append(event)
    return events, state


@given(players=st.sampled_from(PLAYER_COUNTS), seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32),
       greedy=st.booleans())
def test_random_play_ends_and_replay_matches_step_by_step(players, seed, choice_seed, greedy):
    checkpoints = {}
    sample = random.Random(choice_seed)

    def visit(before, event, after, index):
        if ENGINE.to_act(after) and sample.random() < 0.03:
            checkpoints[index + 1] = observe(after)
        for seat in range(players):
            assert bool(ENGINE.legal_moves(after, seat)) == (seat in ENGINE.to_act(after))

    events, state = random_game(players, seed, choice_seed, visit, greedy)
    outcome = ENGINE.outcome(state)
    assert outcome["finished"] and len(outcome["ranks"]) == players
    assert observe(ENGINE.replay(events)) == observe(state)
    for count, observed in checkpoints.items():
        assert observe(ENGINE.replay(events[:count])) == observed
    json.dumps(events)


@given(players=st.sampled_from(PLAYER_COUNTS), seed=st.integers(0, 2**32), choice_seed=st.integers(0, 2**32),
       greedy=st.booleans())
def test_cards_are_conserved_and_nothing_hidden_leaks(players, seed, choice_seed, greedy):
    def visit(before, event, after, index):
        if after.round == 0:
            return
        check_conservation(after)
        hands = hidden_hands(after)
        pile = set(after.deck[after.pile_pos:])
        for seat in [*range(players), None]:
            view = ENGINE.view(after, seat)
            seen = visible_cards(view)
            others = set().union(*(hands[s] for s in range(players) if s != seat))
            assert not seen & pile
            assert seen & others <= {view["must_use"]}
            # A redacted event shows only what the seat could see just before or just after it.
            redacted = ENGINE.redact(event, seat)
            if redacted is None:
                continue
            assert "deck" not in redacted and "seed" not in redacted
            assert "deck" not in redacted.get("options", {})
            if before is not None and before.round:
                assert cards_in(redacted) <= seen | visible_cards(ENGINE.view(before, seat))
            else:
                assert cards_in(redacted) <= seen

    random_game(players, seed, choice_seed, visit, greedy)


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**64) | st.floats(allow_nan=False)
    | st.text(max_size=4) | st.sampled_from(CANONICAL),
    lambda items: st.lists(items, max_size=3) | st.dictionaries(st.text(max_size=6), items, max_size=3),
    max_leaves=8,
)
ACTIONS = ["draw", "take", "match", "upgrade", "discard", "penalize", "bonus_draw", "trade", "skip", "done"]
FIELDS = {"take": ["card"], "match": ["cards"], "upgrade": ["card", "match"], "discard": ["card"],
          "penalize": ["seat"], "trade": ["give", "take"]}
MOVES = st.one_of(
    JSON,
    st.fixed_dictionaries({"action": st.sampled_from(ACTIONS)},
                          optional={"card": JSON, "cards": JSON, "match": JSON, "seat": JSON, "give": JSON,
                                    "take": JSON}),
)


def canonical(move: dict) -> dict:
    action = move["action"]
    shaped = {"action": action, **{field: move[field] for field in FIELDS.get(action, [])}}
    if action == "match":
        shaped["cards"] = sorted(shaped["cards"], key=lambda c: c[2] == "b")
    return shaped


@given(players=st.sampled_from(PLAYER_COUNTS), seed=st.integers(0, 2**16), stop=st.integers(0, 400),
       moves=st.lists(MOVES, min_size=1, max_size=12), seat_offset=st.integers(0, 7), greedy=st.booleans())
def test_malformed_moves_raise_illegal_move_and_change_nothing(players, seed, stop, moves, seat_offset,
                                                               greedy):
    rng = random.Random(seed)
    events = ENGINE.start(players, seed)
    state = ENGINE.replay(events)
    for _ in range(stop):
        if ENGINE.outcome(state) is not None:
            break
        seat = ENGINE.to_act(state)[0]
        for event in ENGINE.decide(state, seat, choose(ENGINE.legal_moves(state, seat), rng, greedy)):
            state = ENGINE.evolve(state, event)
    before = observe(state)
    seats = {*ENGINE.to_act(state), seat_offset}  # the seat to act, and any other (maybe out of range)
    for move in moves:
        for acting in seats:
            try:
                ENGINE.decide(state, acting, move)
            except IllegalMove:
                pass
            else:
                assert canonical(move) in ENGINE.legal_moves(state, acting)
            assert observe(state) == before
