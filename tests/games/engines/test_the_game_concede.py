"""The team concedes (issue #43 item 1): `concede` ends a running game of The Game at once as a
loss, scored as any loss (the cards never played); it replays from its event alone, and only a
cooperative game has a team to concede."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.engines import ENGINES, IllegalMove
from games.engines.the_game import ENGINE
from tests.games.engines.test_the_game import END, act, new_game, play


def test_conceding_ends_the_game_lost_with_the_cards_left_as_the_score():
    state, events = new_game([[2, 3, 4, 5, 6, 7, 8], [60, 61, 62, 63, 64, 65, 66]])
    state, _ = act(state, 0, play(2, 0), events)
    conceded = ENGINE.concede(state)
    assert conceded == [{"type": "TeamConceded", "cards_left": 97}]
    for event in conceded:
        state = ENGINE.evolve(state, event)
    assert ENGINE.outcome(state) == {
        "finished": True,
        "cooperative": True,
        "won": False,
        "ranks": [1, 1],
        "scores": [97, 97],
        "winners": [],
        "detail": {"cards_left": 97, "in_hands": 13, "in_draw_pile": 84, "reason": "conceded", "stuck_seat": None},
    }
    assert ENGINE.to_act(state) == []
    assert all(ENGINE.legal_moves(state, seat) == [] for seat in (0, 1))
    view = ENGINE.view(state, 1)
    assert (view["finished"], view["phase"], view["current"]) == (True, "finished", None)
    with pytest.raises(IllegalMove) as refused:
        ENGINE.decide(state, 0, END)
    assert refused.value.code == "game_over"
    assert ENGINE.replay(events + conceded) == state  # the end follows from the stream alone


def test_a_finished_game_cannot_be_conceded():
    state, _ = new_game([[2, 3, 4, 5, 6, 7, 8, 9]])
    state = ENGINE.evolve(state, ENGINE.concede(state)[0])
    with pytest.raises(IllegalMove) as refused:
        ENGINE.concede(state)
    assert refused.value.code == "game_over"


def test_concede_leaves_the_state_it_is_given_and_its_event_is_public():
    state, _ = new_game([[2, 3, 4, 5, 6, 7, 8, 9]])
    before = ENGINE.view(state, 0)
    [event] = ENGINE.concede(state)
    assert ENGINE.view(state, 0) == before and not state.finished
    assert all(ENGINE.redact(event, seat) == event for seat in (None, 0))
    json.dumps(event)


@pytest.mark.parametrize("game", ["ten", "sequence-stacks", "split"])
def test_a_game_without_a_team_has_nothing_to_concede(game):
    engine = ENGINES[game]
    assert engine.cooperative is False
    state = engine.replay(engine.start(engine.min_players if engine.min_players > 1 else 2, 0))
    with pytest.raises(IllegalMove) as refused:
        engine.concede(state)
    assert refused.value.code == "game_not_cooperative"
    assert ENGINES["the-game"].cooperative is True


@settings(max_examples=40, deadline=None)
@given(players=st.integers(min_value=1, max_value=5), seed=st.integers(min_value=0, max_value=2**32), moves=st.integers(0, 120))
def test_at_any_point_a_concession_is_a_loss_scored_by_the_cards_left(players, seed, moves):
    """After any number of random moves, conceding ends the game lost, with the score a stuck game
    would have there, and the replay of the whole stream reaches the same state."""
    rng = random.Random(seed)
    events = ENGINE.start(players, seed)
    state = ENGINE.replay(events)
    for _ in range(moves):
        if ENGINE.outcome(state) is not None:
            break
        [seat] = ENGINE.to_act(state)
        produced = ENGINE.decide(state, seat, rng.choice(ENGINE.legal_moves(state, seat)))
        for event in produced:
            state = ENGINE.evolve(state, event)
        events += produced
    if ENGINE.outcome(state) is not None:
        with pytest.raises(IllegalMove):
            ENGINE.concede(state)
        return
    left = ENGINE.view(state, None)["cards_left"]
    conceded = ENGINE.concede(state)
    for event in conceded:
        state = ENGINE.evolve(state, event)
    outcome = ENGINE.outcome(state)
    assert (outcome["won"], outcome["winners"], outcome["detail"]["reason"]) == (False, [], "conceded")
    assert outcome["scores"] == [left] * players and outcome["ranks"] == [1] * players
    assert ENGINE.replay(events + conceded) == state
