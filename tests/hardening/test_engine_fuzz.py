"""Every engine, fuzzed: any JSON as a move from any seat gets events or IllegalMove, never another
exception, and a refused move changes nothing."""
from __future__ import annotations

import json
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES, IllegalMove

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


def move_like(legal: list[dict]) -> st.SearchStrategy:
    """Arbitrary JSON, and legal moves with one field replaced by arbitrary JSON."""
    actions = sorted({m.get("action") for m in legal if isinstance(m.get("action"), str)}) or ["play"]
    mutated = st.builds(
        lambda base, key, value: {**base, key: value},
        st.sampled_from(legal) if legal else st.just({"action": "play"}),
        st.sampled_from(sorted({k for m in legal for k in m}) or ["action"]),
        json_values,
    )
    return json_values | mutated | st.fixed_dictionaries({"action": st.sampled_from(actions)}, optional={"x": json_values})


def mid_game(slug: str, players: int, seed: int, steps: int):
    engine = ENGINES[slug]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    for _ in range(steps):
        if engine.outcome(state) is not None:
            break
        seat = rng.choice(engine.to_act(state))
        for event in engine.decide(state, seat, rng.choice(engine.legal_moves(state, seat))):
            state = engine.evolve(state, event)
    return state


def observe(engine, state, players) -> str:
    return json.dumps([engine.view(state, s) for s in [*range(players), None]] + [engine.to_act(state)], sort_keys=True)


@pytest.mark.parametrize("slug", sorted(ENGINES))
@given(data=st.data())
def test_any_json_move_from_any_seat_is_events_or_illegal_and_a_refusal_changes_nothing(slug, data):
    engine = ENGINES[slug]
    players = data.draw(st.integers(engine.min_players, engine.max_players), label="players")
    state = mid_game(slug, players, data.draw(st.integers(0, 2**31), label="seed"), data.draw(st.integers(0, 60)))
    seat = data.draw(st.integers(-2, players + 1) | json_values, label="seat")
    legal = engine.legal_moves(state, seat) if isinstance(seat, int) and 0 <= seat < players else []
    move = data.draw(move_like(legal or engine.legal_moves(state, engine.to_act(state)[0]) if engine.to_act(state) else []),
                     label="move")
    before = observe(engine, state, players)
    try:
        events = engine.decide(state, seat, move)
    except IllegalMove as refused:
        assert isinstance(refused.code, str) and refused.code and isinstance(refused.message, str)
        assert observe(engine, state, players) == before
        return
    # Accepted: a legal move, maybe in a non-canonical form or with fields its action ignores.
    assert isinstance(events, list) and events and isinstance(move, dict)
    assert observe(engine, state, players) == before  # decide never changes the state it is given
    json.dumps(events)
