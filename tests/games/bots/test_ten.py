"""Bots for Ten: legal, deterministic, and the run builder beats random at every player count."""
from __future__ import annotations

import json
import random
from collections import Counter

from games.bots import BOTS as ALL_BOTS
from games.bots import STRONG_BOT
from games.bots.ten import BOTS, STRONG
from games.engines.ten import ENGINE, canonical_deck

DRAW = {"action": "draw"}
PASS = {"action": "pass"}


def play_game(players: int, seed: int, seats: list[str]) -> tuple[list[dict], dict]:
    """A whole game, seat i played by BOTS[seats[i]]; every choice checked against legal_moves."""
    rng = random.Random(seed)
    events = ENGINE.start(players, seed)
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


def deck_with(players: int, top: list[str]) -> list[str]:
    rest = Counter(canonical_deck(players))
    rest.subtract(top)
    return [*top, *[card for card in dict.fromkeys(canonical_deck(players)) for _ in range(rest[card])]]


class Table:
    """A two-player game on a fixed deck, moved by hand to the position a bot must judge."""

    def __init__(self, top: list[str]) -> None:
        self.state = ENGINE.replay(ENGINE.start(2, 3, {"deck": deck_with(2, top)}))

    def act(self, *moves: dict) -> Table:
        for move in moves:
            for event in ENGINE.decide(self.state, ENGINE.to_act(self.state)[0], move):
                self.state = ENGINE.evolve(self.state, event)
        return self

    def strong_choice(self) -> dict:
        seat = ENGINE.to_act(self.state)[0]
        return BOTS[STRONG].choose(ENGINE.view(self.state, seat), ENGINE.legal_moves(self.state, seat),
                                   random.Random(0))


def test_the_bots_are_registered():
    assert set(BOTS) == {"random", "run_builder", "search-easy", "search-medium", "search-hard"} and STRONG == "run_builder"
    assert ALL_BOTS["ten"] is BOTS and STRONG_BOT["ten"] == "run_builder"


def test_every_bot_plays_only_legal_moves_at_every_player_count():
    for players in range(2, 6):
        seats = [("run_builder", "random")[seat % 2] for seat in range(players)]
        _, outcome = play_game(players, 40 + players, seats)
        assert outcome["finished"]


def test_the_bots_are_deterministic_given_the_rng():
    seats = ["run_builder", "random", "run_builder"]
    assert play_game(3, 77, seats) == play_game(3, 77, seats)


def test_the_run_builder_decides_from_the_view_as_json():
    rng = random.Random(5)
    state = ENGINE.replay(ENGINE.start(4, 5))
    for _ in range(150):
        if ENGINE.outcome(state) is not None:
            break
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        move = BOTS[STRONG].choose(view, legal, random.Random(1))
        wire_view, wire_legal = json.loads(json.dumps(view)), json.loads(json.dumps(legal))
        wire = BOTS[STRONG].choose(wire_view, wire_legal, random.Random(1))
        assert move == wire and move in legal
        for event in ENGINE.decide(state, seat, rng.choice(legal)):
            state = ENGINE.evolve(state, event)


def test_the_run_builder_stops_when_most_cards_would_bust():
    table = Table(["R9", "B1"]).act(DRAW, DRAW)  # running total 10: every number card busts
    assert table.strong_choice()["action"] == "take"


def test_the_run_builder_keeps_drawing_on_a_low_total():
    table = Table(["$1"]).act(DRAW)  # running total -1: nothing can bust yet
    assert table.strong_choice() == DRAW


def test_the_run_builder_bids_for_a_wild_that_fills_its_run():
    # seat 0 collects R1 R2 R4, then seat 1 draws R# (seat 0 bids first)
    table = Table(["R1", "R2", "R4", "R#"])
    table.act(DRAW, DRAW, DRAW, {"action": "take", "reward": "numbers"}, DRAW)
    assert ENGINE.view(table.state, 0)["auction"]["card"] == "R#"
    assert table.strong_choice()["action"] == "bid"


def test_the_run_builder_buys_the_card_that_extends_its_run():
    # seat 0: G3 to the market; seat 1 collects G1 G2 and may buy G3
    table = Table(["G3", "G1", "G2"]).act(DRAW, {"action": "take", "reward": "currency"}, DRAW, DRAW,
                                          {"action": "take", "reward": "numbers"})
    choice = table.strong_choice()
    assert choice["action"] == "buy" and choice["card"] == "G3" and choice["cards"] == []


GAMES_PER_COUNT = {2: 8, 3: 9, 4: 8, 5: 10}


def test_the_run_builder_beats_random_bots_at_every_player_count():
    """Fixed seeds, so it cannot flake: one run builder, the strong seat rotating, against random bots."""
    for players, games in GAMES_PER_COUNT.items():
        wins, ranks = 0.0, 0
        for game in range(games):
            strong = game % players
            seats = ["random"] * players
            seats[strong] = "run_builder"
            _, outcome = play_game(players, 1000 * players + game, seats)
            wins += (strong in outcome["winners"]) / len(outcome["winners"])
            ranks += outcome["ranks"][strong]
        assert wins / games >= 0.75 > 1 / players, (players, wins / games)
        assert ranks / games <= 1.5, (players, ranks / games)
