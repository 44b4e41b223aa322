"""The search bots (games/bots/search.py, issue #44): levels by budget, and never more than the seat sees.

The leak test builds, for positions of every game, two real states that show the bot's seat
the same view but hold different hidden cards (the second is the first's hidden cards dealt
again, by `determinize`), asks the bot through the path the server takes (the view and the
legal moves of each real state) with the same seed, and finds the same choice.
"""
from __future__ import annotations

import importlib
import math
import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.bots import BOTS, STRONG_BOT
from games.bots.search import LEVELS, Level, SearchBot
from games.engines import ENGINES

SLUGS = sorted(ENGINES)
LEVEL_NAMES = ["search-easy", "search-medium", "search-hard"]
DETERMINIZE = {slug: importlib.import_module(f"games.engines.{slug.replace('-', '_')}").determinize for slug in ENGINES}
HIDDEN = {  # where each game keeps what some seat cannot see, in its state
    "the-game": lambda state, seat: [hand for other, hand in enumerate(state.hands) if other != seat] + [state.draw_pile],
    "ten": lambda state, seat: [state.deck[state.drawn:]],
    "split": lambda state, seat: [sorted(hand) for other, hand in enumerate(state.hands) if other != seat]
    + [state.deck[state.pile_pos:]],
    "sequence-stacks": lambda state, seat: [hand for other, hand in enumerate(state.hands) if other != seat]
    + [state.draw[state.draw_pos:], state.set_aside],
}


def unbounded(slug: str, playouts: int = 16) -> SearchBot:
    """The game's search bot with no clock: its choice is a function of the view and the seed alone."""
    wired = BOTS[slug]["search-easy"]
    assert isinstance(wired, SearchBot)
    return SearchBot(slug, Level("search-test", playouts, cap_seconds=math.inf), wired.determinize, wired.rollout,
                     wired.evaluate, wired.horizon)


def position_to_decide(slug: str, players: int, seed: int, steps: int):
    """After up to `steps` decisions by the heuristic bots, a state and a seat that has a choice to make."""
    engine, strong = ENGINES[slug], BOTS[slug][STRONG_BOT[slug]]
    rng = random.Random(seed)
    state = engine.replay(engine.start(players, seed))
    found = None
    for _ in range(steps):
        acting = engine.to_act(state)
        if not acting:
            break
        seat = rng.choice(acting)
        legal = engine.legal_moves(state, seat)
        if len(legal) > 1:
            found = (state, seat)
        move = strong.choose(engine.view(state, seat), legal, rng)
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
    return found


def choice(bot, engine, state, seat: int, seed: int) -> dict:
    """What the bot plays in `state`, asked as the server asks it (games.turns)."""
    return bot.choose(engine.view(state, seat), engine.legal_moves(state, seat), random.Random(seed))


def test_every_game_offers_the_three_search_levels_and_keeps_its_heuristic_bot_as_the_strong_one():
    assert [level.name for level in LEVELS] == LEVEL_NAMES
    assert [level.playouts for level in LEVELS] == sorted(level.playouts for level in LEVELS)
    for slug in SLUGS:
        assert set(LEVEL_NAMES) <= set(BOTS[slug])
        assert not STRONG_BOT[slug].startswith("search")
        for name in LEVEL_NAMES:
            assert BOTS[slug][name].name == name


@pytest.mark.parametrize("slug", SLUGS)
@given(data=st.data())
def test_the_choice_does_not_change_with_the_cards_the_seat_cannot_see(slug, data):
    engine = ENGINES[slug]
    players = data.draw(st.integers(engine.min_players, min(engine.max_players, 4)))
    seed, steps = data.draw(st.integers(0, 2**32)), data.draw(st.integers(1, 120))
    found = position_to_decide(slug, players, seed, steps)
    if found is None:
        return
    real, seat = found
    view = engine.view(real, seat)
    other = DETERMINIZE[slug](view, random.Random(seed + 1))  # a second real state: the hidden cards dealt again
    assert engine.view(other, seat) == view
    hidden, hidden_other = HIDDEN[slug](real, seat), HIDDEN[slug](other, seat)
    assert Counter(c for part in hidden for c in part) == Counter(c for part in hidden_other for c in part)
    bot = unbounded(slug)
    chosen = choice(bot, engine, real, seat, seed)
    assert chosen in engine.legal_moves(real, seat)
    assert choice(bot, engine, other, seat, seed) == chosen


@pytest.mark.parametrize("slug", SLUGS)
def test_the_leak_test_deals_other_hidden_cards_than_the_real_ones(slug):
    """The leak test would prove nothing if the second state held the same hidden cards."""
    engine = ENGINES[slug]
    differ = 0
    for seed in range(5):
        found = position_to_decide(slug, max(engine.min_players, 2), seed, 20)
        assert found is not None
        real, seat = found
        other = DETERMINIZE[slug](engine.view(real, seat), random.Random(seed + 1))
        differ += [list(part) for part in HIDDEN[slug](real, seat)] != [list(part) for part in HIDDEN[slug](other, seat)]
    assert differ == 5


@pytest.mark.parametrize("slug", SLUGS)
def test_a_search_bot_is_deterministic_given_its_rng_and_plays_a_legal_move(slug):
    engine = ENGINES[slug]
    bot = unbounded(slug)
    for seed in range(3):
        found = position_to_decide(slug, max(engine.min_players, 2), seed, 30)
        assert found is not None
        state, seat = found
        first = choice(bot, engine, state, seat, seed)
        assert first in engine.legal_moves(state, seat)
        assert choice(bot, engine, state, seat, seed) == first


@pytest.mark.parametrize("slug", SLUGS)
def test_when_the_clock_cuts_in_the_bot_plays_its_best_move_so_far(slug):
    engine = ENGINES[slug]
    wired = BOTS[slug]["search-hard"]
    assert isinstance(wired, SearchBot)
    hurried = SearchBot(slug, Level("search-hurried", 10_000, cap_seconds=0.0), wired.determinize, wired.rollout,
                        wired.evaluate, wired.horizon)
    state, seat = position_to_decide(slug, max(engine.min_players, 2), 1, 30)
    assert choice(hurried, engine, state, seat, 1) in engine.legal_moves(state, seat)


_PLAYOUTS = 160  # the search bot's budget in the tests of its choice below


def _discard_position():
    """A Sequence Stacks position whose seat may discard any of several different cards, and the
    discard the heuristic bot chooses there."""
    engine, strong = ENGINES["sequence-stacks"], BOTS["sequence-stacks"][STRONG_BOT["sequence-stacks"]]
    for seed in range(50):
        found = position_to_decide("sequence-stacks", 2, seed, 40)
        state, seat = found
        legal = engine.legal_moves(state, seat)
        discards = {move["card"] for move in legal if move["action"] == "discard"}
        if len(discards) >= 3 and len(legal) <= _PLAYOUTS // 8:  # every move a candidate (SearchBot._candidates)
            favourite = strong.choose(engine.view(state, seat), legal, random.Random(0))
            if favourite["action"] == "discard":
                return state, seat, favourite, sorted(discards - {favourite["card"]})
    raise AssertionError("no position with three discards in 50 games")


def _judged_by_discard(card: str | None) -> SearchBot:
    """The search bot of Sequence Stacks judging a move by whether it leaves `card` on top of the
    seat's discard pile (nothing else counts; None: every move is worth the same), straight after it."""
    wired = BOTS["sequence-stacks"]["search-hard"]

    def evaluate(view: dict) -> float:
        return float(card is not None and view["seats"][view["seat"]]["discard"][-1:] == [card])

    return SearchBot("sequence-stacks", Level("search-test", _PLAYOUTS, cap_seconds=math.inf), wired.determinize,
                     wired.rollout, evaluate, horizon=0)


def test_the_search_leaves_the_heuristics_move_for_one_that_is_better_on_every_deal():
    """Successive halving must leave the last stage's candidates to be weighed, not only the
    heuristic's move (which it never drops): a discard worth 1 on every deal beats one worth 0."""
    engine = ENGINES["sequence-stacks"]
    state, seat, favourite, others = _discard_position()
    for target in others:
        for seed in range(3):
            chosen = choice(_judged_by_discard(target), engine, state, seat, seed)
            assert chosen == {**favourite, "card": target}


def test_the_search_keeps_the_heuristics_move_when_no_move_is_better():
    engine = ENGINES["sequence-stacks"]
    state, seat, favourite, _ = _discard_position()
    for seed in range(3):
        assert choice(_judged_by_discard(None), engine, state, seat, seed) == favourite


@pytest.mark.parametrize("level", LEVEL_NAMES)
def test_the_games_levels_play_tights_move_without_a_search(level, monkeypatch):
    """The Game's search is not trusted to leave `tight` (games/bots/the_game.py): every level plays
    its move, and deals no hidden cards to search with."""
    engine, tight = ENGINES["the-game"], BOTS["the-game"]["tight"]

    def searched(view, rng):
        raise AssertionError("The Game's level searched")

    monkeypatch.setattr(BOTS["the-game"][level], "determinize", searched)
    for seed in range(5):
        state, seat = position_to_decide("the-game", 2, seed, 30)
        view, legal = engine.view(state, seat), engine.legal_moves(state, seat)
        assert choice(BOTS["the-game"][level], engine, state, seat, seed) == tight.choose(view, legal, random.Random(seed))


def test_a_single_legal_move_is_played_without_a_search():
    bot = BOTS["ten"]["search-hard"]
    only = [{"action": "draw"}]
    assert bot.choose({}, only, random.Random(0)) == only[0]


@pytest.mark.slow
@pytest.mark.parametrize("slug", SLUGS)
def test_the_easy_level_plays_whole_games_against_the_heuristic_bot(slug):
    engine = ENGINES[slug]
    players = max(engine.min_players, 2)
    rng = random.Random(4)
    state = engine.replay(engine.start(players, 4))
    seats = [BOTS[slug]["search-easy"], BOTS[slug][STRONG_BOT[slug]]]
    while engine.outcome(state) is None:
        seat = engine.to_act(state)[0]
        legal = engine.legal_moves(state, seat)
        move = seats[seat % 2].choose(engine.view(state, seat), legal, rng)
        assert move in legal
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
