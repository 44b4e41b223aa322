"""Each engine's `determinize(view, rng)` (for the search bots, games/bots/search.py): a state its
seat could be in, the hidden cards dealt at random from those the view leaves unseen.

For random positions of every game and every seat: the sampled state shows the seat the same
view and offers it the same moves, and the engine plays it to its end.
"""
from __future__ import annotations

import importlib
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES

MODULES = {slug: importlib.import_module(f"games.engines.{slug.replace('-', '_')}") for slug in ENGINES}
SLUGS = sorted(ENGINES)
MAX_DECISIONS = 20_000


def random_position(slug: str, players: int, seed: int, steps: int):
    """The state after up to `steps` random decisions of a game from `seed`."""
    engine = ENGINES[slug]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    for _ in range(steps):
        acting = engine.to_act(state)
        if not acting:
            break
        seat = rng.choice(acting)
        for event in engine.decide(state, seat, rng.choice(engine.legal_moves(state, seat))):
            state = engine.evolve(state, event)
    return state


def play_to_the_end(slug: str, state, rng: random.Random):
    engine = ENGINES[slug]
    for _ in range(MAX_DECISIONS):
        acting = engine.to_act(state)
        if not acting:
            return state
        seat = rng.choice(acting)
        for event in engine.decide(state, seat, rng.choice(engine.legal_moves(state, seat))):
            state = engine.evolve(state, event)
    raise AssertionError(f"{slug} did not end within {MAX_DECISIONS} decisions")


def position(slug: str) -> st.SearchStrategy:
    engine = ENGINES[slug]
    return st.tuples(st.integers(engine.min_players, engine.max_players), st.integers(0, 2**32), st.integers(0, 400))


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_a_determinized_state_shows_its_seat_the_same_view_and_moves_and_plays_to_its_end(slug, data):
    engine, determinize = ENGINES[slug], MODULES[slug].determinize
    players, seed, steps = data.draw(position(slug))
    state = random_position(slug, players, seed, steps)
    for seat in range(players):
        view = engine.view(state, seat)
        sampled = determinize(view, random.Random(seed + seat))
        assert engine.view(sampled, seat) == view
        assert engine.legal_moves(sampled, seat) == engine.legal_moves(state, seat)
        assert engine.to_act(sampled) == engine.to_act(state)
    ended = play_to_the_end(slug, sampled, random.Random(seed))
    assert engine.outcome(ended) is not None


@pytest.mark.parametrize("slug", SLUGS)
def test_determinize_is_a_function_of_the_view_and_the_rng_and_deals_every_unseen_card(slug):
    engine, determinize = ENGINES[slug], MODULES[slug].determinize
    players = max(engine.min_players, 3)
    state = random_position(slug, players, 11, 30)
    view = engine.view(state, 1)
    assert determinize(view, random.Random(5)) == determinize(view, random.Random(5))
    deals = {repr(determinize(view, random.Random(k))) for k in range(5)}
    assert len(deals) > 1  # the hidden cards are sampled, not copied from anywhere
    assert view == engine.view(state, 1)  # the view given is left as it was


def test_the_game_deals_the_unseen_cards_to_the_other_hands_and_the_draw_pile():
    engine, determinize = ENGINES["the-game"], MODULES["the-game"].determinize
    state = random_position("the-game", 3, 4, 9)
    view = engine.view(state, 0)
    sampled = determinize(view, random.Random(1))
    hidden = Counter(card for seat in (1, 2) for card in sampled.hands[seat]) + Counter(sampled.draw_pile)
    real = Counter(card for seat in (1, 2) for card in state.hands[seat]) + Counter(state.draw_pile)
    assert hidden == real  # the same cards, in other places
    assert sampled.hands[0] == state.hands[0]


@pytest.mark.parametrize("slug", SLUGS)
def test_determinize_refuses_a_view_whose_cards_do_not_add_up(slug):
    engine, determinize = ENGINES[slug], MODULES[slug].determinize
    view = engine.view(random_position(slug, max(engine.min_players, 2), 3, 5), 0)
    count = {"the-game": "draw_pile", "ten": "deck_count", "split": "draw_pile", "sequence-stacks": "draw_pile"}[slug]
    view[count] += 1
    with pytest.raises(ValueError):
        determinize(view, random.Random(0))
