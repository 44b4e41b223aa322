"""Bots for Sequence Stacks: legal, deterministic, and the stack finisher beats random at every
player count."""
from __future__ import annotations

import copy
import json
import random
import time
from collections import Counter

from games.bots import BOTS as ALL_BOTS
from games.bots import STRONG_BOT
from games.bots.sequence_stacks import BOTS, STRONG
from games.engines.sequence_stacks import ENGINE, canonical_deck

BLUE_RUN = ["B1", "B2", "B3", "B4", "B5"]


def play_game(players: int, seed: int, seats: list[str], **options) -> tuple[list[dict], dict]:
    """A whole game, seat i played by BOTS[seats[i]]; every choice checked against legal_moves."""
    rng = random.Random(seed)
    events = ENGINE.start(players, seed, options)
    state = ENGINE.replay(events)
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        move = BOTS[seats[seat]].choose(view, legal, rng)
        assert move in legal
        new = ENGINE.decide(state, seat, move)
        for event in new:
            state = ENGINE.evolve(state, event)
        events += new
    return events, ENGINE.outcome(state)


def strong_choice(state) -> dict:
    seat = ENGINE.to_act(state)[0]
    return BOTS[STRONG].choose(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), random.Random(0))


def fixed_start(players: int, top: list[str]):
    """A game whose deck starts with `top` (dealt round-robin), the rest in canonical order."""
    rest = Counter(canonical_deck(players))
    rest.subtract(top)
    deck = [*top, *[card for card in dict.fromkeys(canonical_deck(players)) for _ in range(rest[card])]]
    return ENGINE.replay(ENGINE.start(players, 3, {"deck": deck}))


def act(state, *moves: dict):
    for move in moves:
        for event in ENGINE.decide(state, ENGINE.to_act(state)[0], move):
            state = ENGINE.evolve(state, event)
    return state


def test_the_bots_are_registered():
    assert set(BOTS) == {"random", "stack_finisher", "search-easy", "search-medium", "search-hard"} and STRONG == "stack_finisher"
    assert ALL_BOTS["sequence-stacks"] is BOTS and STRONG_BOT["sequence-stacks"] == "stack_finisher"


def test_every_bot_plays_only_legal_moves_at_every_player_count():
    for players in range(2, 7):
        seats = [("stack_finisher", "random")[seat % 2] for seat in range(players)]
        _, outcome = play_game(players, 40 + players, seats)
        assert outcome["finished"]


def test_the_stack_finisher_ends_games_against_itself():
    """Regression: a turn must not go on forever once a colour's chips have run out."""
    for players in range(2, 7):
        _, outcome = play_game(players, 60 + players, ["stack_finisher"] * players)
        assert outcome["finished"]


def test_the_bots_are_deterministic_given_the_rng():
    seats = ["stack_finisher", "random", "stack_finisher"]
    assert play_game(3, 77, seats) == play_game(3, 77, seats)


def test_the_stack_finisher_decides_from_the_view_as_json():
    rng = random.Random(5)
    state = ENGINE.replay(ENGINE.start(4, 5))
    for _ in range(150):
        if ENGINE.outcome(state) is not None:
            break
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        as_json = json.loads(json.dumps(view)), json.loads(json.dumps(legal))
        untouched = copy.deepcopy(as_json)
        move = BOTS[STRONG].choose(*as_json, random.Random(1))
        assert move in legal and as_json == untouched
        for event in ENGINE.decide(state, seat, rng.choice(legal)):
            state = ENGINE.evolve(state, event)


def test_the_stack_finisher_finishes_a_stack_it_can():
    # seat 0 is dealt positions 0, 2, 4, 6, 8: B1-B5.
    state = fixed_start(2, ["B1", "R3", "B2", "R3", "B3", "R3", "B4", "R3", "B5", "R3"])
    for _ in range(5):
        move = strong_choice(state)
        assert move["action"] == "play"
        state = act(state, move)
    assert ENGINE.view(state, None)["phase"] == "block"


def test_the_stack_finisher_blocks_a_chip_that_matters():
    state = fixed_start(2, ["B1", "block", "B2", "R3", "B3", "R3", "B4", "R3", "B5", "R3"])
    state = act(state, *[{"action": "play", "card": card, "pile": 0, "source": "hand"} for card in BLUE_RUN])
    assert strong_choice(state) == {"action": "block"}


def test_the_stack_finisher_saves_its_block_when_no_chip_is_left():
    state = fixed_start(2, ["B1", "block", "B2", "R3", "B3", "R3", "B4", "R3", "B5", "R3"])
    state = state._replace(supply=(20, 0))  # emptying a supply by play takes hundreds of moves
    state = act(state, *[{"action": "play", "card": card, "pile": 0, "source": "hand"} for card in BLUE_RUN])
    assert strong_choice(state) == {"action": "pass"}


def test_the_stack_finisher_never_stacks_a_colour_whose_chips_ran_out():
    """Regression: recycling chipless stacks forever made one turn endless."""
    state = fixed_start(2, ["B1", "R3", "B2", "R3", "B3", "R3", "B4", "R3", "B5", "R3"])
    state = state._replace(supply=(20, 0))
    assert strong_choice(state)["action"] == "discard"


def test_the_stack_finisher_beats_random_bots_at_every_player_count():
    """Fixed seeds: the strong bot rotates through the seats against random bots."""
    games = 30
    for players in range(2, 7):
        wins = ranks = 0
        for game in range(games):
            hero = game % players
            seats = ["random"] * players
            seats[hero] = STRONG
            _, outcome = play_game(players, 1000 * players + game, seats)
            wins += hero in outcome["winners"]
            ranks += outcome["ranks"][hero]
        assert wins / games >= 0.6 > 1 / players, (players, wins)  # the seat share is at most 0.5
        assert ranks / games < 1.5, (players, ranks)


def test_the_stack_finisher_is_fast():
    state = ENGINE.replay(ENGINE.start(5, 11))
    rng = random.Random(11)
    spent, decisions = 0.0, 0
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        began = time.perf_counter()
        move = BOTS[STRONG].choose(view, legal, rng)
        spent += time.perf_counter() - began
        decisions += 1
        for event in ENGINE.decide(state, seat, move):
            state = ENGINE.evolve(state, event)
    assert spent / decisions < 0.002
