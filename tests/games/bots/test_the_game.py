"""Bots for The Game: every move legal, and the `tight` bot's habits (shared/rules/the-game.md)."""
from __future__ import annotations

import copy
import json
import random
import statistics

import pytest

from games.bots import BOTS, STRONG_BOT
from games.bots.the_game import TightBot
from games.engines.the_game import ENGINE

END = {"action": "end_turn"}


def play(card: int, pile: int) -> dict:
    return {"action": "play", "card": str(card), "pile": pile}


def solo_game(top_of_deck: list[int], *moves: dict):
    """A one-player game whose deck starts `top_of_deck` (its first 8 are the hand), after `moves`."""
    deck = top_of_deck + [number for number in range(2, 100) if number not in top_of_deck]
    state = ENGINE.replay(ENGINE.start(1, 0, {"deck": [str(number) for number in deck]}))
    for move in moves:
        for event in ENGINE.decide(state, 0, move):
            state = ENGINE.evolve(state, event)
    return state


def tight_choice(state) -> dict:
    return TightBot().choose(ENGINE.view(state, 0), ENGINE.legal_moves(state, 0), random.Random(0))


def play_out(bot, players: int, seed: int) -> dict:
    """A whole game with `bot` in every seat; checks each move is one of legal_moves."""
    state = ENGINE.replay(ENGINE.start(players, seed))
    rng = random.Random(seed)
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        legal = ENGINE.legal_moves(state, seat)
        move = bot.choose(ENGINE.view(state, seat), legal, rng)
        assert move in legal
        for event in ENGINE.decide(state, seat, move):
            state = ENGINE.evolve(state, event)
    return ENGINE.outcome(state)


def test_the_game_has_a_random_bot_and_a_stronger_one():
    assert set(BOTS["the-game"]) == {"random", "tight", "search-easy", "search-medium", "search-hard"}
    assert STRONG_BOT["the-game"] == "tight"


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("name", ["random", "tight"])
def test_every_bot_finishes_games_with_legal_moves(name, players):
    for seed in range(2):
        assert play_out(BOTS["the-game"][name], players, seed)["finished"] is True


def test_the_tight_bot_is_deterministic():
    state = ENGINE.replay(ENGINE.start(3, 11))
    view, legal = ENGINE.view(state, 0), ENGINE.legal_moves(state, 0)
    bot = TightBot()
    assert bot.choose(view, legal, random.Random(1)) == bot.choose(view, legal, random.Random(2))


def test_the_tight_bot_decides_from_the_view_as_json_and_leaves_its_inputs_alone():
    """Fair: it needs nothing but what the seat's view shows, as the wire carries it."""
    rng = random.Random(4)
    state = ENGINE.replay(ENGINE.start(3, 4))
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        before = copy.deepcopy((view, legal))
        move = TightBot().choose(view, legal, random.Random(1))
        assert (view, legal) == before
        wire_view, wire_legal = json.loads(json.dumps(view)), json.loads(json.dumps(legal))
        wire = TightBot().choose(wire_view, wire_legal, random.Random(2))
        assert move == wire and move in legal
        for event in ENGINE.decide(state, seat, rng.choice(legal)):
            state = ENGINE.evolve(state, event)


def test_it_prefers_a_backwards_trick():
    state = solo_game([30, 20, 31, 77, 78, 79, 80, 85], play(30, 0))
    assert tight_choice(state) == play(20, 0)


def test_it_plays_the_smallest_gap():
    state = solo_game([50, 53, 70, 90, 33, 35, 15, 80], play(50, 0))
    assert tight_choice(state) == play(53, 0)


def test_it_plays_on_past_the_minimum_while_it_costs_nothing():
    state = solo_game([50, 52, 53, 90, 33, 35, 15, 80], play(50, 0), play(52, 0))
    assert tight_choice(state) == play(53, 0)


def test_it_stops_at_the_minimum_when_no_card_is_cheap():
    state = solo_game([50, 52, 70, 90, 33, 35, 15, 80], play(50, 0), play(52, 0))
    assert tight_choice(state) == END


def test_it_orders_the_two_required_cards_to_set_up_a_trick():
    """36 then 26 (a trick back) leaves pile 0 where it was; 26 then 36 would skip 27 to 35."""
    state = solo_game([25, 75, 26, 36, 47, 48, 49, 50, 51, 52], play(25, 0), play(75, 2), END)
    assert ENGINE.view(state, 0)["hand"] == ["26", "36", "47", "48", "49", "50", "51", "52"]
    assert tight_choice(state) == play(36, 0)


def test_it_measures_a_gap_in_unplayed_cards_not_in_numbers():
    """From 40, 60 skips only cards already played (41 to 59, on pile 2): cheaper than 95 from 100."""
    top_of_deck = list(range(59, 39, -1)) + [60, 95, 96, 97]  # the hand, then the draws in order
    moves = [play(card, 2) for card in range(59, 51, -1)] + [END]
    moves += [play(card, 2) for card in range(51, 43, -1)] + [END]
    moves += [play(43, 2), play(42, 2), play(41, 2), play(40, 0)]
    state = solo_game(top_of_deck, *moves)
    assert ENGINE.view(state, 0)["hand"] == ["60", "95", "96", "97"]
    assert tight_choice(state) == play(60, 0)


@pytest.mark.no_cover  # volume: many whole games (tests/untraced.py)
def test_the_tight_bot_leaves_far_fewer_cards_than_random_bots():
    """Figures for every player count come from a longer run (see the report); this is a floor."""
    for players in range(1, 6):
        random_left = [play_out(BOTS["the-game"]["random"], players, seed)["scores"][0] for seed in range(3)]
        tight_left = [play_out(TightBot(), players, seed)["scores"][0] for seed in range(3)]
        assert statistics.mean(tight_left) < statistics.mean(random_left) / 2
