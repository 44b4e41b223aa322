"""Split bots: legal, deterministic, fair (view and legal only), and `shedder` beats `random`."""
from __future__ import annotations

import copy
import random
import time

import pytest

from games.bots import BOTS, STRONG_BOT
from games.bots.split import STRONG, ShedderBot
from games.engines.split import ENGINE

RANKS = "A23456789TJQK"
CANONICAL = [f"{r}{s}{h}" for r in RANKS for s in "SHDC" for h in "tb"]


def play(bots: list, seed: int, check=None) -> tuple[list[dict], dict]:
    """One game, seat s played by bots[s]; `check(view, legal, move)` sees every decision."""
    rng = random.Random(seed)
    events = ENGINE.start(len(bots), seed)
    state = ENGINE.replay(events)
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
        move = bots[seat].choose(view, legal, rng)
        if check:
            check(view, legal, move)
        new = ENGINE.decide(state, seat, move)
        for event in new:
            state = ENGINE.evolve(state, event)
        events += new
    return events, ENGINE.outcome(state)


def test_split_is_registered_with_a_strong_bot():
    assert STRONG_BOT["split"] == STRONG == "shedder"
    assert set(BOTS["split"]) == {"random", "shedder", "search-easy", "search-medium", "search-hard"}


@pytest.mark.parametrize("players", range(2, 7))
def test_bots_return_a_legal_move_without_touching_their_inputs(players):
    def check(view, legal, move):
        assert move in legal

    def fair(bot):
        class Guarded:
            def choose(self, view, legal, rng):
                view_copy, legal_copy = copy.deepcopy(view), copy.deepcopy(legal)
                move = bot.choose(view, legal, rng)
                assert view == view_copy and legal == legal_copy
                return move
        return Guarded()

    bots = [fair(BOTS["split"]["shedder" if seat % 2 else "random"]) for seat in range(players)]
    _, outcome = play(bots, seed=players, check=check)
    assert outcome["finished"]


@pytest.mark.parametrize("name", ["random", "shedder"])
def test_bots_are_deterministic_given_the_rng(name):
    bots = [BOTS["split"][name], BOTS["split"]["random"], BOTS["split"][name]]
    assert play(bots, seed=5)[0] == play(bots, seed=5)[0]


def test_shedder_takes_decisions_in_well_under_ten_milliseconds():
    bot = ShedderBot()
    spent, decisions = 0.0, 0

    def timed(view, legal, rng):
        nonlocal spent, decisions
        start = time.perf_counter()
        move = bot.choose(view, legal, rng)
        spent += time.perf_counter() - start
        decisions += 1
        return move

    class Timed:
        choose = staticmethod(timed)

    play([Timed()] * 4, seed=3)
    assert spent / decisions < 0.005


def test_shedder_steals_a_match_by_upgrading_it():
    # Seat 0 lays the weak 7Ht+7Sb; seat 1 draws and holds 7Hb, which makes it perfect and its own.
    hands = {0: ["7Ht", "7Sb"], 1: ["7Hb"]}
    state = _state_with(2, hands, pile=["TSt", "JSt"])
    for move in ({"action": "draw"}, {"action": "match", "cards": ["7Ht", "7Sb"]},
                 {"action": "discard", "card": "TSt"}, {"action": "draw"}):
        seat = ENGINE.to_act(state)[0]
        for event in ENGINE.decide(state, seat, move):
            state = ENGINE.evolve(state, event)
    move = ShedderBot().choose(ENGINE.view(state, 1), ENGINE.legal_moves(state, 1), random.Random(0))
    assert move == {"action": "upgrade", "card": "7Hb", "match": 1}


def test_shedder_matches_before_it_discards_and_keeps_pairs():
    state = _state_with(2, {0: ["5Ht", "5Hb", "9Ct"]}, pile=["9Cb"])
    for event in ENGINE.decide(state, 0, {"action": "draw"}):
        state = ENGINE.evolve(state, event)
    bot, rng = ShedderBot(), random.Random(0)
    move = bot.choose(ENGINE.view(state, 0), ENGINE.legal_moves(state, 0), rng)
    assert move["action"] == "match"


@pytest.mark.parametrize("players, games", [(2, 12), (3, 9), (4, 8), (5, 10), (6, 12)])
def test_shedder_beats_random_players_over_fixed_seeds(players, games):
    wins, ranks = 0.0, 0
    for game in range(games):
        seat = game % players
        bots = [BOTS["split"]["random"]] * players
        bots[seat] = BOTS["split"]["shedder"]
        _, outcome = play(bots, seed=1000 * players + game)
        if seat in outcome["winners"]:
            wins += 1 / len(outcome["winners"])
        ranks += outcome["ranks"][seat]
    # Far above the seat share (1/players) and the average rank ((players+1)/2).
    assert wins / games >= 0.75
    assert ranks / games < 1.5


def _state_with(players: int, hands: dict[int, list[str]], pile: list[str]):
    """A fresh game whose deal gives `hands` (filled with top halves of unused ranks) and `pile` on top."""
    named = [card for cards in hands.values() for card in cards] + pile
    ranks = {card[0] for card in named}
    spare = sorted((c for c in CANONICAL if c not in named), key=lambda c: (c[2] == "b", c[0] in ranks))
    full = {seat: list(hands.get(seat, [])) for seat in range(players)}
    for seat in range(players):
        while len(full[seat]) < 9:
            full[seat].append(spare.pop(0))
    row = spare.pop(0)
    deck = [full[seat][k] for k in range(9) for seat in range(players)] + [row] + pile + spare
    return ENGINE.replay(ENGINE.start(players, 1, {"deck": deck}))
