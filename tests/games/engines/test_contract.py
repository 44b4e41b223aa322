"""The engine contract (shared/ENGINE.md), checked for every game in ENGINES at once.

Each game's rule-by-rule scenarios with fixed decks live in its own file (`test_<game>.py`);
this suite holds what every engine promises: its registration, `start`'s refusals, the
`canonical_deck` that `start` shuffles, replay as the fold of `evolve`, and random playouts
under `to_act` / `legal_moves` / `decide` (open_spiel's `random_sim_test`). The shared checker
`../shared/tools/check_engines.py`, which CI also runs on its own, plays one deep game per
engine and player count here when it is present.
"""
from __future__ import annotations

import functools
import importlib.util
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engines import ENGINES, Engine, IllegalMove
from games.engines._common import seeded_shuffle

SLUGS = sorted(ENGINES)

# ENGINE.md, Where engines live; each rules page's player count.
PLAYER_RANGES = {"ten": (2, 5), "the-game": (1, 5), "sequence-stacks": (2, 6), "split": (2, 6)}

# Deck size per player count, from each rules page (shared/rules/<slug>.md).
DECK_SIZES = {
    "ten": {2: 99, 3: 114, 4: 129, 5: 129},  # Cards removed for fewer players
    "the-game": dict.fromkeys(range(1, 6), 98),  # Components: 98 distinct cards at every count
    "sequence-stacks": {2: 112, **dict.fromkeys(range(3, 7), 120)},  # Components
    "split": dict.fromkeys(range(2, 7), 104),  # The deck: 104 half-cards, all counts
}
# Games whose rules say every card of the deck is unique.
UNIQUE_CARDS = {"the-game", "split"}

COMMON_VIEW_KEYS = ("game", "players", "seat", "to_act", "phase", "finished", "outcome", "hand", "seats")
MAX_DECISIONS = 20_000  # as the shared checker: every game ends well before

CHECKER = Path(__file__).resolve().parents[3].parent / "shared" / "tools" / "check_engines.py"


def player_counts(slug: str) -> range:
    engine = ENGINES[slug]
    return range(engine.min_players, engine.max_players + 1)


def players_and_seeds(slug: str) -> st.SearchStrategy:
    return st.tuples(st.sampled_from(player_counts(slug)), st.integers(0, 2**62))


def observe(engine: Engine, state, players: int) -> str:
    """Everything a client can observe of `state`, as canonical JSON."""
    seats = list(range(players))
    return json.dumps({
        "to_act": engine.to_act(state),
        "outcome": engine.outcome(state),
        "views": [engine.view(state, seat) for seat in [*seats, None]],
        "legal": [engine.legal_moves(state, seat) for seat in seats],
    }, sort_keys=True)


# --- registration ----------------------------------------------------------------------------------


def test_the_registry_holds_exactly_the_four_games_of_the_contract():
    assert set(ENGINES) == set(PLAYER_RANGES)


@pytest.mark.parametrize("slug", SLUGS)
def test_each_engine_is_registered_under_its_slug_with_its_player_range(slug):
    engine = ENGINES[slug]
    assert isinstance(engine, Engine)
    assert engine.slug == slug
    assert (engine.min_players, engine.max_players) == PLAYER_RANGES[slug]


# --- start -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_start_refuses_a_player_count_out_of_range_or_not_an_integer(slug):
    engine = ENGINES[slug]
    for players in (engine.min_players - 1, engine.max_players + 1, 0, -1, "2", 2.0, True, None):
        with pytest.raises(ValueError):
            engine.start(players, 1)


@pytest.mark.parametrize("slug", SLUGS)
def test_start_refuses_a_seed_that_is_not_an_integer(slug):
    engine = ENGINES[slug]
    for seed in ("seed", "1", 1.5, None, True, [1]):
        with pytest.raises(ValueError, match="seed must be an integer"):
            engine.start(engine.max_players, seed)


@pytest.mark.parametrize("slug", SLUGS)
def test_start_refuses_unknown_options_and_options_that_are_not_an_object(slug):
    engine = ENGINES[slug]
    with pytest.raises(ValueError, match="unknown options: no_such_option"):
        engine.start(engine.max_players, 1, {"no_such_option": 1})
    for options in ([("deck", [])], "deck", 3):
        with pytest.raises(ValueError, match="options must be an object"):
            engine.start(engine.max_players, 1, options)


@pytest.mark.parametrize("slug", SLUGS)
def test_start_refuses_a_deck_option_that_is_not_the_deck_for_that_player_count(slug):
    engine = ENGINES[slug]
    for players in player_counts(slug):
        deck = engine.canonical_deck(players)
        for wrong in (deck[:-1], [*deck[:-1], "??"], [*deck, deck[0]], "".join(deck), [*deck[:-1], 7]):
            with pytest.raises(ValueError):
                engine.start(players, 1, {"deck": wrong})


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_start_opens_with_game_started_recording_players_seed_and_options(slug, data):
    engine = ENGINES[slug]
    players, seed = data.draw(players_and_seeds(slug))
    events = engine.start(players, seed)
    started = events[0]
    assert started["type"] == "GameStarted"
    assert (started["players"], started["seed"], started["options"]) == (players, seed, {})
    assert engine.start(players, seed) == events  # the seed alone fixes the opening
    json.dumps(events)


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_start_takes_a_deck_option_as_the_order_of_the_first_deal_and_keeps_its_own_copy(slug, data):
    engine = ENGINES[slug]
    players, seed = data.draw(players_and_seeds(slug))
    deck = data.draw(st.permutations(engine.canonical_deck(players)))
    given = list(deck)
    started = engine.start(players, seed, {"deck": given})[0]
    assert started["options"]["deck"] == deck
    given.reverse()
    assert started["options"]["deck"] == deck  # the event does not share the caller's list
    # Every engine names its opening deck "deck" (not fixed by the contract; the server reads it).
    assert started["deck"] == deck


# --- canonical_deck ----------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
def test_the_canonical_deck_has_the_size_the_rules_give_for_each_player_count(slug):
    engine = ENGINES[slug]
    sizes = {players: len(engine.canonical_deck(players)) for players in player_counts(slug)}
    assert sizes == DECK_SIZES[slug]


@pytest.mark.parametrize("slug", sorted(UNIQUE_CARDS))
def test_the_canonical_deck_holds_each_card_once_where_the_rules_say_cards_are_unique(slug):
    engine = ENGINES[slug]
    for players in player_counts(slug):
        deck = engine.canonical_deck(players)
        assert len(set(deck)) == len(deck)


@pytest.mark.parametrize("slug", SLUGS)
def test_the_canonical_deck_is_sorted_with_copies_side_by_side_and_a_new_list_each_time(slug):
    engine = ENGINES[slug]
    for players in player_counts(slug):
        deck = engine.canonical_deck(players)
        assert all(isinstance(card, str) and card for card in deck)
        counts = Counter(deck)
        assert [card for card in dict.fromkeys(deck) for _ in range(counts[card])] == deck
        deck.clear()
        assert len(engine.canonical_deck(players)) == DECK_SIZES[slug][players]


@pytest.mark.parametrize("slug", SLUGS)
def test_the_canonical_deck_refuses_a_player_count_out_of_range(slug):
    engine = ENGINES[slug]
    for players in (engine.min_players - 1, engine.max_players + 1, "2", True):
        with pytest.raises(ValueError):
            engine.canonical_deck(players)


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_without_a_deck_option_start_shuffles_the_canonical_deck_with_the_seed(slug, data):
    engine = ENGINES[slug]
    players, seed = data.draw(players_and_seeds(slug))
    expected = engine.canonical_deck(players)
    random.Random(seed).shuffle(expected)
    assert engine.start(players, seed)[0]["deck"] == expected
    assert expected == seeded_shuffle(engine.canonical_deck(players), seed, 0)


# --- replay ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_replay_of_the_opening_is_the_fold_of_evolve_from_nothing(slug, data):
    engine = ENGINES[slug]
    players, seed = data.draw(players_and_seeds(slug))
    events = engine.start(players, seed)
    assert engine.replay(events) == functools.reduce(engine.evolve, events, None)


# --- random playouts ---------------------------------------------------------------------------------


def check_outcome(engine: Engine, outcome: dict, players: int) -> None:
    """ENGINE.md, outcome: the shape, competition ranks, and the cooperative form."""
    assert outcome["finished"] is True
    ranks, scores, winners = outcome["ranks"], outcome["scores"], outcome["winners"]
    assert len(ranks) == len(scores) == players and isinstance(outcome["detail"], dict)
    assert all(rank == 1 + sum(other < rank for other in ranks) for rank in ranks)  # "1224"
    assert set(winners) <= set(range(players))
    if outcome["cooperative"]:
        assert ranks == [1] * players and len(set(scores)) == 1
        assert winners == (list(range(players)) if outcome["won"] else [])
    else:
        assert all(ranks[seat] == 1 for seat in winners)


def check_seats_asked(engine: Engine, state, players: int) -> list[int]:
    """`legal_moves` is non-empty exactly for the seats in `to_act`; returns `to_act`."""
    to_act = engine.to_act(state)
    assert to_act and len(set(to_act)) == len(to_act)
    for seat in range(players):
        assert bool(engine.legal_moves(state, seat)) == (seat in to_act), (seat, to_act)
    return to_act


def check_view(engine: Engine, state, players: int, seat: int) -> None:
    view = engine.view(state, seat)
    assert all(key in view for key in COMMON_VIEW_KEYS)
    assert (view["game"], view["players"], view["seat"]) == (engine.slug, players, seat)
    assert view["to_act"] == engine.to_act(state) and view["outcome"] == engine.outcome(state)
    assert len(view["seats"]) == players and isinstance(view["hand"], list)
    assert engine.view(state, None)["hand"] is None
    json.dumps(view)
    for bad in (-1, players, True):
        with pytest.raises(ValueError):
            engine.view(state, bad)


def check_refusals(engine: Engine, state, players: int, to_act: list[int]) -> None:
    """Out-of-turn, out-of-range and unknown moves are IllegalMove, and leave the state as it was."""
    before = observe(engine, state, players)
    legal = engine.legal_moves(state, to_act[0])
    idle = [seat for seat in range(players) if seat not in to_act]
    for seat in [*idle[:1], -1, players]:
        with pytest.raises(IllegalMove) as refused:
            engine.decide(state, seat, legal[0])
        assert refused.value.code == "not_your_turn"
    for move in ({"action": "no-such-action"}, {}, None, "play"):
        with pytest.raises(IllegalMove):
            engine.decide(state, to_act[0], move)
    assert observe(engine, state, players) == before


def playout(engine: Engine, players: int, seed: int, rng: random.Random, deep_every: int):
    """A uniform random game, checking the contract on the way; returns its events and final state."""
    events = engine.start(players, seed)
    state = engine.replay(events)
    for decision in range(MAX_DECISIONS):
        if engine.outcome(state) is not None:
            return events, state
        to_act = check_seats_asked(engine, state, players)
        seat = rng.choice(to_act)
        deep = decision % deep_every == 0
        if deep:
            check_view(engine, state, players, seat)
            check_refusals(engine, state, players, to_act)
            before = observe(engine, state, players)
        new = engine.decide(state, seat, rng.choice(engine.legal_moves(state, seat)))
        assert isinstance(new, list) and new and all(isinstance(event["type"], str) for event in new)
        json.dumps(new)
        if deep:
            assert observe(engine, state, players) == before  # decide never changes its state
        for event in new:
            state = engine.evolve(state, event)
        events.extend(new)
    raise AssertionError(f"{engine.slug} did not end within {MAX_DECISIONS} decisions")


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_a_random_game_keeps_the_contract_to_its_end(slug, data):
    engine = ENGINES[slug]
    players, seed = data.draw(players_and_seeds(slug))
    events, state = playout(engine, players, seed, random.Random(seed), deep_every=7)
    outcome = engine.outcome(state)
    check_outcome(engine, outcome, players)
    assert engine.to_act(state) == [] and not any(engine.legal_moves(state, s) for s in range(players))
    for seat in [*range(players), -1]:
        with pytest.raises(IllegalMove) as refused:
            engine.decide(state, seat, {"action": "no-such-action"})
        assert refused.value.code == "game_over"
    assert engine.replay(events) == state
    assert engine.replay(events) == functools.reduce(engine.evolve, events, None)
    assert observe(engine, engine.replay(events), players) == observe(engine, state, players)


@pytest.mark.parametrize("slug", SLUGS)
def test_redacted_openings_keep_neither_the_deck_order_nor_the_seed(slug):
    engine = ENGINES[slug]
    for players in player_counts(slug):
        for event in engine.start(players, 12345):
            for seat in [*range(players), None]:
                redacted = engine.redact(event, seat)
                if redacted is None:
                    continue
                assert redacted["type"] == event["type"]
                assert "seed" not in redacted and "deck" not in redacted
                assert "deck" not in redacted.get("options", {})


# --- the shared checker ------------------------------------------------------------------------------


def _shared_checker():
    if not CHECKER.is_file():
        pytest.skip(f"the shared checker is not at {CHECKER}")
    spec = importlib.util.spec_from_file_location("check_engines", CHECKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(("slug", "players"), [(slug, n) for slug in SLUGS for n in player_counts(slug)])
def test_the_shared_checker_passes_a_deep_game_for_each_player_count(slug, players):
    checker = _shared_checker()
    rng = random.Random(f"contract:{slug}:{players}")
    try:
        checker.play_one(ENGINES[slug], IllegalMove, players, rng.randrange(2**31), rng, deep=True)
    except checker.Failure as failure:
        pytest.fail(f"check_engines: {slug} players={players}: {failure}")
