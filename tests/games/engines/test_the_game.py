"""The Game engine, rule by rule (shared/rules/the-game.md), with fixed decks."""
from __future__ import annotations

import itertools
import json
import random

import pytest

from games.engines import ENGINES, IllegalMove
from games.engines.the_game import ENGINE

ALL_CARDS = [str(number) for number in range(2, 100)]


# --- builders ---------------------------------------------------------------------------------------


def deck_for(hands: list[list[int]], draw: list[int] = ()) -> list[str]:
    """A deck (top first) dealing `hands` round-robin, then `draw`, then every other card ascending."""
    size = len(hands[0])
    assert all(len(hand) == size for hand in hands)
    dealt = [hands[seat][i] for i in range(size) for seat in range(len(hands))]
    rest = [number for number in range(2, 100) if number not in dealt and number not in draw]
    return [str(number) for number in dealt + list(draw) + rest]


def new_game(hands: list[list[int]], draw: list[int] = ()):
    """The state and events of a fresh game with those hands."""
    events = ENGINE.start(len(hands), 0, {"deck": deck_for(hands, draw)})
    return ENGINE.replay(events), events


def act(state, seat: int, move: dict, events: list[dict] | None = None):
    """Decides and applies one move; returns the new state and the move's events."""
    new = ENGINE.decide(state, seat, move)
    for event in new:
        state = ENGINE.evolve(state, event)
    if events is not None:
        events.extend(new)
    return state, new


def play(card: int, pile: int) -> dict:
    return {"action": "play", "card": str(card), "pile": pile}


END = {"action": "end_turn"}


def hand(state, seat: int) -> list[int]:
    return [int(card) for card in ENGINE.view(state, seat)["hand"]]


def tops(state) -> list[int]:
    return [int(pile["top"]) for pile in ENGINE.view(state, None)["piles"]]


def play_whole_hand_upwards(state, seat: int, events: list[dict]):
    """Plays every card of the hand, ascending, each on the first up pile below it."""
    for card in hand(state, seat):
        pile = 0 if card > tops(state)[0] else 1
        state, _ = act(state, seat, play(card, pile), events)
        if ENGINE.outcome(state):
            break
    return state


# --- start and setup ------------------------------------------------------------------------------


def test_it_is_registered_with_its_player_range():
    assert ENGINES["the-game"] is ENGINE
    assert (ENGINE.slug, ENGINE.min_players, ENGINE.max_players) == ("the-game", 1, 5)


@pytest.mark.parametrize(
    "players,hand_size,draw_pile", [(1, 8, 90), (2, 7, 84), (3, 6, 80), (4, 6, 74), (5, 6, 68)]
)
def test_start_deals_the_hand_size_and_leaves_the_rest_as_draw_pile(players, hand_size, draw_pile):
    events = ENGINE.start(players, 42)
    started = events[0]
    assert started["type"] == "GameStarted"
    assert (started["players"], started["seed"], started["hand_size"]) == (players, 42, hand_size)
    assert started["version"] == ENGINE.version == 1
    assert sorted(started["deck"], key=int) == ALL_CARDS
    assert events[1:] == [{"type": "TurnStarted", "seat": 0, "minimum": 2}]
    state = ENGINE.replay(events)
    view = ENGINE.view(state, 0)
    assert view["draw_pile"] == draw_pile and view["hand_size"] == hand_size
    assert [entry["hand_count"] for entry in view["seats"]] == [hand_size] * players


def test_the_shuffle_is_random_random_seed_over_the_canonical_order():
    expected = [str(number) for number in range(2, 100)]
    random.Random(7).shuffle(expected)
    assert ENGINE.start(3, 7)[0]["deck"] == expected


def test_it_deals_round_robin_from_the_top_starting_with_seat_0():
    deck = [str(number) for number in range(99, 1, -1)]  # 99 on top
    state = ENGINE.replay(ENGINE.start(3, 0, {"deck": deck}))
    assert hand(state, 0) == sorted([99, 96, 93, 90, 87, 84])
    assert hand(state, 1) == sorted([98, 95, 92, 89, 86, 83])
    assert hand(state, 2) == sorted([97, 94, 91, 88, 85, 82])


@pytest.mark.parametrize("players", [0, 6, -1, True, "2", 2.0])
def test_start_refuses_a_player_count_out_of_range(players):
    with pytest.raises(ValueError):
        ENGINE.start(players, 1)


@pytest.mark.parametrize(
    "options",
    [
        {"variant": "x"},
        {"deck": ALL_CARDS[:-1]},
        {"deck": ALL_CARDS[:-1] + ["2"]},
        {"deck": ALL_CARDS[:-1] + ["1"]},
        {"deck": [int(card) for card in ALL_CARDS]},
        {"deck": ["02"] + ALL_CARDS[1:]},
        {"deck": "2,3,4"},
    ],
)
def test_start_refuses_bad_options(options):
    with pytest.raises(ValueError):
        ENGINE.start(2, 1, options)


def test_a_given_deck_is_recorded_and_not_shared_with_the_caller():
    deck = list(reversed(ALL_CARDS))
    events = ENGINE.start(1, 0, {"deck": deck})
    deck.reverse()
    assert events[0]["deck"] == list(reversed(ALL_CARDS))
    assert events[0]["options"]["deck"] == list(reversed(ALL_CARDS))


# --- R1 to R7: a turn -----------------------------------------------------------------------------------


def test_legal_moves_list_cards_ascending_then_piles_then_end_turn():
    state, _ = new_game([[9, 10, 50, 98, 3, 4, 5, 6]])
    legal = ENGINE.legal_moves(state, 0)
    assert legal[:4] == [play(3, pile) for pile in range(4)]
    ascending = ["3", "4", "5", "6", "9", "10", "50", "98"]
    assert [move["card"] for move in legal] == [card for card in ascending for _ in range(4)]
    state, _ = act(state, 0, play(50, 0))
    state, _ = act(state, 0, play(10, 2))
    assert ENGINE.legal_moves(state, 0) == [
        play(3, 1), play(3, 2), play(3, 3),
        play(4, 1), play(4, 2), play(4, 3),
        play(5, 1), play(5, 2), play(5, 3),
        play(6, 1), play(6, 2), play(6, 3),
        play(9, 1), play(9, 2), play(9, 3),
        play(98, 0), play(98, 1), play(98, 3),
        END,
    ]


def test_only_the_current_seat_has_legal_moves():
    state, _ = new_game([[2, 3, 4, 5, 6, 7, 8]] + [[10, 11, 12, 13, 14, 15, 16]])
    assert ENGINE.to_act(state) == [0]
    assert ENGINE.legal_moves(state, 1) == []
    assert ENGINE.legal_moves(state, 5) == []


def test_r3_up_piles_take_greater_cards_and_down_piles_smaller():
    state, _ = new_game([[40, 35, 60, 65, 50, 51, 52, 53]])
    state, _ = act(state, 0, play(40, 0))
    state, _ = act(state, 0, play(60, 2))
    for move in (play(35, 0), play(65, 2)):
        with pytest.raises(IllegalMove) as error:
            ENGINE.decide(state, 0, move)
        assert error.value.code == "pile_rejects_card"
    state, _ = act(state, 0, play(50, 0))
    state, _ = act(state, 0, play(53, 2))
    assert tops(state) == [50, 1, 53, 100]


def test_r4_backwards_trick_is_exactly_ten_against_the_direction():
    state, _ = new_game([[26, 16, 15, 77, 87, 88, 50, 51]])
    state, _ = act(state, 0, play(26, 0))
    _, events = act(state, 0, play(16, 0))
    assert events == [{"type": "CardPlayed", "seat": 0, "card": "16", "pile": 0, "backwards": True}]
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(state, 0, play(15, 0))  # 11 below is no trick
    assert error.value.code == "pile_rejects_card"
    state, _ = act(state, 0, play(77, 2))
    _, events = act(state, 0, play(87, 2))
    assert events[0]["backwards"] is True
    with pytest.raises(IllegalMove):
        ENGINE.decide(state, 0, play(88, 2))


def test_r4_a_trick_counts_toward_the_minimum_and_can_repeat():
    state, _ = new_game([[36, 26, 16, 6, 50, 51, 52, 53]])
    state, _ = act(state, 0, play(36, 0))
    state, _ = act(state, 0, play(26, 0))
    assert ENGINE.view(state, 0)["phase"] == "play_or_end"
    state, _ = act(state, 0, play(16, 0))
    state, events = act(state, 0, play(6, 0))
    assert events[0]["backwards"] is True and tops(state)[0] == 6


def test_r4_no_trick_on_an_empty_pile():
    """1 - 10 and 100 + 10 are no cards: 11 on a base 1 and 90 on a base 100 are plain plays."""
    state, _ = new_game([[11, 90, 91, 92, 93, 94, 95, 96]])
    _, events = act(state, 0, play(11, 0))
    assert events[0]["backwards"] is False
    _, events = act(state, 0, play(90, 2))
    assert events[0]["backwards"] is False


def test_r5_r6_the_turn_needs_its_minimum_before_it_can_end():
    state, _ = new_game([[10, 20, 30, 40, 50, 60, 70, 80]])
    view = ENGINE.view(state, 0)
    assert (view["phase"], view["required"], view["played_this_turn"]) == ("play", 2, 0)
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(state, 0, END)
    assert error.value.code == "minimum_not_met"
    state, _ = act(state, 0, play(10, 0))
    assert ENGINE.view(state, 0)["phase"] == "play"
    assert END not in ENGINE.legal_moves(state, 0)
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(state, 0, END)
    assert error.value.code == "minimum_not_met"
    state, _ = act(state, 0, play(20, 0))
    view = ENGINE.view(state, 0)
    assert (view["phase"], view["played_this_turn"]) == ("play_or_end", 2)
    assert ENGINE.legal_moves(state, 0)[-1] == END


def test_r5_a_seat_may_play_on_past_the_minimum():
    state, _ = new_game([[10, 20, 30, 40, 50, 60, 70, 80]])
    for card in (10, 20, 30, 40, 50):
        state, _ = act(state, 0, play(card, 0))
    view = ENGINE.view(state, 0)
    assert (view["phase"], view["played_this_turn"], view["hand"]) == ("play_or_end", 5, ["60", "70", "80"])


def test_r7_end_turn_draws_back_to_the_hand_size_from_the_top():
    state, _ = new_game([[10, 20, 30, 40, 50, 60, 70], [11, 21, 31, 41, 51, 61, 71]], draw=[99, 2, 98, 3])
    state, _ = act(state, 0, play(10, 0))
    state, _ = act(state, 0, play(20, 0))
    state, _ = act(state, 0, play(30, 0))
    state, events = act(state, 0, END)
    assert events == [
        {"type": "TurnEnded", "seat": 0},
        {"type": "CardsDrawn", "seat": 0, "cards": ["99", "2", "98"]},
        {"type": "TurnStarted", "seat": 1, "minimum": 2},
    ]
    assert hand(state, 0) == [2, 40, 50, 60, 70, 98, 99]
    view = ENGINE.view(state, 1)
    assert (view["draw_pile"], view["current"], view["phase"], view["played_this_turn"]) == (81, 1, "play", 0)


# --- R1, R8, R9: the end of the draw pile and a win ------------------------------------------------------


def test_a_solo_game_played_in_order_runs_out_the_draw_pile_then_wins():
    """R1 (minimum 1 once the draw pile is empty), R8 (the same seat again), R9 (win at once)."""
    state, events = new_game([list(range(2, 10))], draw=list(range(10, 100)))
    minimums = []
    for _ in range(12):
        state = play_whole_hand_upwards(state, 0, events)
        state, new = act(state, 0, END, events)
        minimums.append(new[-1]["minimum"])
    assert minimums == [2] * 11 + [1]  # the twelfth turn drew the last two cards
    view = ENGINE.view(state, 0)
    assert (view["hand"], view["draw_pile"], view["required"]) == (["98", "99"], 0, 1)
    state, _ = act(state, 0, play(98, 0), events)
    assert ENGINE.view(state, 0)["phase"] == "play_or_end"
    state, new = act(state, 0, END, events)
    assert new == [{"type": "TurnEnded", "seat": 0}, {"type": "TurnStarted", "seat": 0, "minimum": 1}]
    state, _ = act(state, 0, play(99, 0), events)
    assert events[-1] == {
        "type": "GameEnded", "won": True, "reason": "all_cards_played", "stuck_seat": None, "cards_left": 0
    }
    assert events[-2]["type"] == "CardPlayed"  # R9: no end_turn after the last card
    assert ENGINE.outcome(state) == {
        "finished": True,
        "cooperative": True,
        "won": True,
        "ranks": [1],
        "scores": [0],
        "winners": [0],
        "detail": {
            "cards_left": 0, "in_hands": 0, "in_draw_pile": 0, "reason": "all_cards_played",
            "stuck_seat": None,
        },
    }
    assert ENGINE.to_act(state) == [] and ENGINE.legal_moves(state, 0) == []
    assert ENGINE.view(state, 0)["phase"] == "finished" and ENGINE.view(state, 0)["current"] is None
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(state, 0, END)
    assert error.value.code == "game_over"
    assert ENGINE.replay(events) == state


def test_r8_a_seat_with_an_empty_hand_is_skipped_once_the_draw_pile_is_empty():
    deck = [str(number) for number in range(2, 100)]  # deals 2, 4, .., 14 to seat 0, 3, 5, .., 15 to seat 1
    events = ENGINE.start(2, 0, {"deck": deck})
    state = ENGINE.replay(events)
    starts = []
    while ENGINE.outcome(state) is None:
        seat = ENGINE.to_act(state)[0]
        if seat == 1 and ENGINE.view(state, seat)["draw_pile"] == 0:
            state, _ = act(state, seat, play(hand(state, seat)[0], 0), events)  # one card a turn
        else:
            state = play_whole_hand_upwards(state, seat, events)
        if ENGINE.outcome(state) is None:
            state, new = act(state, seat, END, events)
            counts = [entry["hand_count"] for entry in ENGINE.view(state, None)["seats"]]
            starts.append((new[-1]["seat"], new[-1]["minimum"], counts))
    assert starts[11] == (0, 1, [7, 7])  # seat 1 drew the last 7 cards
    assert starts[12] == (1, 1, [0, 7])  # seat 0 played out its hand
    assert starts[13] == (1, 1, [0, 6])  # seat 0 is skipped: seat 1 again
    assert ENGINE.outcome(state)["won"] is True


# --- R10: stuck ------------------------------------------------------------------------------------------


def blocked_piles_game():
    """Solo: the first turn plays 99 and 98 up, 4 and 3 down, keeping 2 and cards that fit nowhere."""
    state, events = new_game([[99, 98, 4, 3, 2, 40, 41, 42]], draw=[43, 44, 45, 46, 47])
    for move in (play(99, 0), play(98, 1), play(4, 2), play(3, 3)):
        state, _ = act(state, 0, move, events)
    return state, events


def test_r10_in_play_or_end_with_no_legal_card_the_only_move_is_ending_the_turn():
    state, events = blocked_piles_game()
    state, _ = act(state, 0, play(2, 3), events)
    assert ENGINE.legal_moves(state, 0) == [END]
    assert ENGINE.to_act(state) == [0] and ENGINE.outcome(state) is None


def test_r10_the_game_is_lost_when_a_turn_starts_with_nothing_playable():
    state, events = blocked_piles_game()
    state, _ = act(state, 0, play(2, 3), events)
    state, new = act(state, 0, END, events)
    assert [event["type"] for event in new] == ["TurnEnded", "CardsDrawn", "TurnStarted", "GameEnded"]
    assert new[-1] == {
        "type": "GameEnded", "won": False, "reason": "stuck", "stuck_seat": 0, "cards_left": 93
    }
    assert ENGINE.outcome(state) == {
        "finished": True,
        "cooperative": True,
        "won": False,
        "ranks": [1],
        "scores": [93],
        "winners": [],
        "detail": {"cards_left": 93, "in_hands": 8, "in_draw_pile": 85, "reason": "stuck", "stuck_seat": 0},
    }
    assert ENGINE.to_act(state) == [] and ENGINE.view(state, 0)["phase"] == "finished"


def test_r10_a_play_that_leaves_the_seat_short_of_its_minimum_loses_at_once():
    state, events = blocked_piles_game()
    state, new = act(state, 0, END, events)  # draws 43 to 46: hand 2, 40..46, and 2 still fits
    assert new[-1] == {"type": "TurnStarted", "seat": 0, "minimum": 2}
    state, new = act(state, 0, play(2, 2), events)
    assert [event["type"] for event in new] == ["CardPlayed", "GameEnded"]
    assert new[-1]["cards_left"] == 93  # the played card counts as played
    assert ENGINE.outcome(state)["detail"]["stuck_seat"] == 0
    assert ENGINE.replay(events) == state


def test_r10_the_stuck_seat_is_the_one_whose_turn_it_is():
    state, _ = new_game([[99, 98, 4, 3, 2, 40, 41], [50, 51, 52, 53, 54, 55, 56]])
    for move in (play(99, 0), play(98, 1), play(4, 2), play(3, 3)):
        state, _ = act(state, 0, move)
    state, new = act(state, 0, END)
    assert new[-2:] == [
        {"type": "TurnStarted", "seat": 1, "minimum": 2},
        {"type": "GameEnded", "won": False, "reason": "stuck", "stuck_seat": 1, "cards_left": 94},
    ]
    assert ENGINE.outcome(state)["scores"] == [94, 94] and ENGINE.outcome(state)["ranks"] == [1, 1]


# --- errors -----------------------------------------------------------------------------------------


@pytest.fixture
def two_players():
    state, _ = new_game([[10, 20, 30, 40, 50, 60, 70], [11, 21, 31, 41, 51, 61, 71]])
    return state


@pytest.mark.parametrize(
    "seat,move,code",
    [
        (1, play(11, 0), "not_your_turn"),
        (2, play(10, 0), "not_your_turn"),
        (-1, play(10, 0), "not_your_turn"),
        (None, play(10, 0), "not_your_turn"),
        (1, "junk", "not_your_turn"),
        (0, "play", "malformed_move"),
        (0, None, "malformed_move"),
        (0, {}, "malformed_move"),
        (0, {"action": None}, "malformed_move"),
        (0, {"action": 3}, "malformed_move"),
        (0, {"action": "play", "card": 10, "pile": 0}, "malformed_move"),
        (0, {"action": "play", "card": "10", "pile": "0"}, "malformed_move"),
        (0, {"action": "play", "card": "10", "pile": True}, "malformed_move"),
        (0, {"action": "play", "card": "10", "pile": 0.0}, "malformed_move"),
        (0, {"action": "play", "card": "10"}, "malformed_move"),
        (0, {"action": "play", "card": ["10"], "pile": 9}, "malformed_move"),
        (0, {"action": "pass"}, "unknown_action"),
        (0, {"action": "PLAY", "card": "10", "pile": 0}, "unknown_action"),
        (0, play(10, 4), "bad_pile"),
        (0, play(10, -1), "bad_pile"),
        (0, {"action": "play", "card": "07", "pile": 9}, "bad_pile"),
        (0, play(11, 0), "card_not_in_hand"),
        (0, {"action": "play", "card": "010", "pile": 0}, "card_not_in_hand"),
        (0, {"action": "play", "card": " 10", "pile": 0}, "card_not_in_hand"),
        (0, {"action": "play", "card": "1", "pile": 0}, "card_not_in_hand"),
        (0, {"action": "play", "card": "100", "pile": 2}, "card_not_in_hand"),
        (0, {"action": "end_turn"}, "minimum_not_met"),
    ],
)
def test_decide_refuses_with_the_codes_in_the_rules_order(two_players, seat, move, code):
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(two_players, seat, move)
    assert error.value.code == code


def test_a_rejected_card_is_pile_rejects_card(two_players):
    state, _ = act(two_players, 0, play(30, 0))
    with pytest.raises(IllegalMove) as error:
        ENGINE.decide(state, 0, play(10, 0))
    assert error.value.code == "pile_rejects_card"


def test_fields_a_move_does_not_use_are_ignored(two_players):
    _, events = act(two_players, 0, {"action": "play", "card": "10", "pile": 0, "note": "hi"})
    assert events[0]["card"] == "10"


def test_decide_leaves_the_state_it_is_given_unchanged(two_players):
    before = ENGINE.view(two_players, 0)
    ENGINE.decide(two_players, 0, play(10, 0))
    assert ENGINE.view(two_players, 0) == before


# --- view, redact, replay ---------------------------------------------------------------------------------


def test_the_view_shows_own_hand_in_numeric_order_and_public_counts(two_players):
    state, _ = act(two_players, 0, play(10, 2))
    view = ENGINE.view(state, 0)
    assert view["hand"] == ["20", "30", "40", "50", "60", "70"]
    assert view["seats"] == [{"seat": 0, "hand_count": 6}, {"seat": 1, "hand_count": 7}]
    assert view["piles"] == [
        {"pile": 0, "direction": "up", "base": "1", "top": "1", "cards": []},
        {"pile": 1, "direction": "up", "base": "1", "top": "1", "cards": []},
        {"pile": 2, "direction": "down", "base": "100", "top": "10", "cards": ["10"]},
        {"pile": 3, "direction": "down", "base": "100", "top": "100", "cards": []},
    ]
    common = ("game", "players", "seat", "to_act", "phase", "finished", "outcome")
    assert {key: view[key] for key in common} == {
        "game": "the-game", "players": 2, "seat": 0, "to_act": [0], "phase": "play", "finished": False,
        "outcome": None,
    }
    assert (view["draw_pile"], view["hand_size"], view["current"], view["required"]) == (84, 7, 0, 2)
    assert (view["played_this_turn"], view["cards_left"]) == (1, 97)


def test_the_view_hides_other_hands_and_spectators_see_none(two_players):
    other = json.dumps(ENGINE.view(two_players, 1))
    assert not any(f'"{card}"' in other for card in ("10", "20", "30", "40", "50", "60", "70"))
    spectator = ENGINE.view(two_players, None)
    assert spectator["hand"] is None
    assert not any(f'"{card}"' in json.dumps(spectator) for card in ("10", "11", "20", "21"))


@pytest.mark.parametrize("seat", [2, -1, True, "0"])
def test_the_view_refuses_a_seat_out_of_range(two_players, seat):
    with pytest.raises(ValueError):
        ENGINE.view(two_players, seat)


def test_redact_hides_the_deck_and_the_seed_and_gives_each_seat_its_deal():
    deck = deck_for([[10, 20, 30, 40, 50, 60, 70], [11, 21, 31, 41, 51, 61, 71]])
    started = ENGINE.start(2, 5, {"deck": deck})[0]
    deals = ["10", "20", "30", "40", "50", "60", "70"], ["11", "21", "31", "41", "51", "61", "71"]
    for seat, dealt in enumerate(deals):
        redacted = ENGINE.redact(started, seat)
        assert redacted == {
            "type": "GameStarted", "version": 1, "players": 2, "options": {}, "hand_size": 7, "hand": dealt,
            "draw_pile": 84,
        }
    assert ENGINE.redact(started, None)["hand"] is None
    assert "deck" in started and started["options"]["deck"] == deck  # the stored event is untouched


def test_redact_turns_another_seats_draw_into_a_count():
    drawn = {"type": "CardsDrawn", "seat": 1, "cards": ["5", "60"]}
    assert ENGINE.redact(drawn, 1) == drawn
    assert ENGINE.redact(drawn, 0) == {"type": "CardsDrawn", "seat": 1, "count": 2}
    assert ENGINE.redact(drawn, None) == {"type": "CardsDrawn", "seat": 1, "count": 2}
    played = {"type": "CardPlayed", "seat": 0, "card": "5", "pile": 2, "backwards": False}
    assert ENGINE.redact(played, None) == played


def test_a_log_from_before_engine_versions_replays_the_same():
    """Regression: logs stored before GameStarted carried `version` must still replay (as version 1)."""
    events = ENGINE.start(2, 3)
    old = [{key: value for key, value in events[0].items() if key != "version"}] + events[1:]
    assert ENGINE.replay(old) == ENGINE.replay(events)


# --- whole games ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_games_keep_every_card_and_replay_to_the_same_state(players):
    rng = random.Random(players)
    for seed in range(20):
        events = ENGINE.start(players, seed)
        state = ENGINE.replay(events)
        while ENGINE.outcome(state) is None:
            seat = ENGINE.to_act(state)[0]
            state, _ = act(state, seat, rng.choice(ENGINE.legal_moves(state, seat)), events)
            view = ENGINE.view(state, None)
            on_piles = [card for pile in view["piles"] for card in pile["cards"]]
            assert len(on_piles) + view["cards_left"] == 98
            for pile in view["piles"]:
                cards = [int(pile["base"])] + [int(card) for card in pile["cards"]]
                for below, above in itertools.pairwise(cards):
                    ahead = above > below if pile["direction"] == "up" else above < below
                    assert ahead or abs(above - below) == 10
        outcome = ENGINE.outcome(state)
        assert 1 <= outcome["detail"]["cards_left"] <= 96 or outcome["won"]
        detail = outcome["detail"]
        assert detail["in_hands"] + detail["in_draw_pile"] == detail["cards_left"]
        assert ENGINE.replay(events) == state
