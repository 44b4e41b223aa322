"""Sequence Stacks (slug `sequence-stacks`), 2 to 6 players (shared/rules/sequence-stacks.md).

Players build shared stacks running 1-5 in one colour (piles 0-1 blue, 2-3 red) from their
hands and from the top of their own face-up discard pile, in Skip-Bo fashion: draw up to five
at the start of a turn, play any number of cards, end the turn with a discard. Laying the
fifth card of a stack opens a Block window for the opponents (R5); if nobody blocks, the
player takes a chip of the stack's colour (R6). Five chips with at least two of each colour
win (R15); a stalemate (R16) or the turn limit (R17) ends the game without a winner.

Cards are strings everywhere (events, views and state); hands are kept sorted in the
canonical card order. Draws, reshuffles, the engine's own passes and ended turns are events
written by `decide`; `evolve` only applies them.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, NamedTuple

from games.engines._common import (
    Engine,
    IllegalMove,
    competition_ranks,
    deal_hidden,
    is_int,
    opening_deck,
    replacer,
    seeded_shuffle,
    unseen_cards,
)

# --- constants ------------------------------------------------------------------------------------

_VERSION = 1
_HAND_SIZE = 5  # Setup 2, R1, R7
_PILE_SIZE = 5  # R3
_PILE_COLORS = ("B", "B", "R", "R")  # Ambiguity 3: piles 0-1 blue, 2-3 red
_CHIPS_PER_COLOR = 20  # Components, Ambiguity 12
_TURNS_PER_SEAT = 100  # R17's default turn limit, per player
_COLORS = ("R", "B")  # chip tuples are (red, blue)
_COLOR_INDEX = {"R": 0, "B": 1}

_SEQUENCE_CARDS = ("B1", "B2", "B3", "B4", "B5", "BW", "R1", "R2", "R3", "R4", "R5", "RW")
_ACTION_CARDS = ("skip", "reverse", "block", "steal_card", "steal_chip")
_CANONICAL_ORDER = _SEQUENCE_CARDS + _ACTION_CARDS
_RANK = {card: index for index, card in enumerate(_CANONICAL_ORDER)}
_CARD_COLOR = {card: card[0] for card in _SEQUENCE_CARDS}
_CARD_NUMBER = {card: (0 if card[1] == "W" else int(card[1])) for card in _SEQUENCE_CARDS}  # 0: wild

# Components table: copies of each card, 3-6 players and 2 players (Ambiguity 2).
_COPIES = {
    "many": {**{card: (7 if card[1] == "W" else 9) for card in _SEQUENCE_CARDS},
             "skip": 3, "reverse": 3, "block": 3, "steal_card": 3, "steal_chip": 4},
    "two": {**{card: (7 if card[1] == "W" else 9) for card in _SEQUENCE_CARDS},
            "skip": 2, "reverse": 0, "block": 2, "steal_card": 2, "steal_chip": 2},
}
_OPTIONS = ("deck", "turn_limit")

PHASE_PLAY = "play"
PHASE_BLOCK = "block"
PHASE_FINISHED = "finished"

_SOURCES = ("hand", "discard")


def canonical_deck(players: int) -> list[str]:
    """The deck for a player count, sorted in canonical card order (Components)."""
    copies = _COPIES["two" if players == 2 else "many"]
    return [card for card in _CANONICAL_ORDER for _ in range(copies[card])]


# --- state ----------------------------------------------------------------------------------------


class GameState(NamedTuple):
    """Everything the rules need. Immutable: `evolve` returns a new one sharing the rest."""

    players: int
    seed: Any
    turn_limit: int
    blocks_in_deck: int  # R5: 3, or 2 with two players
    hands: tuple[tuple[str, ...], ...]  # per seat, canonical order
    draw: tuple[str, ...]  # the draw pile is draw[draw_pos:], top card first
    draw_pos: int
    set_aside: tuple[str, ...]  # finished stacks, oldest first (face down)
    shuffles: int  # reshuffles so far (R2's k)
    piles: tuple[tuple[str, ...], ...]  # four sequence piles, bottom first
    action_discard: tuple[str, ...]  # oldest first
    discards: tuple[tuple[str, ...], ...]  # personal discard piles, bottom first
    chips: tuple[tuple[int, int], ...]  # per seat (red, blue)
    supply: tuple[int, int]  # (red, blue)
    active: int
    direction: int
    skips: int
    turn: int
    dry_turns: int  # consecutive dry turns ended so far (R16)
    turn_wet: bool  # a card was drawn or laid on a pile during the current turn (R16)
    phase: str
    completion: int | None  # the finished pile while a Block window is open (R5)
    waiting: tuple[int, ...]  # window seats that have not answered yet, in window order
    reason: str | None
    winner: int | None


_replace = replacer(GameState)  # `state._replace(**changes)`, about twice as fast (replay speed)


# --- the engine -------------------------------------------------------------------------------------


class SequenceStacksEngine(Engine):
    slug = "sequence-stacks"
    min_players = 2
    max_players = 6
    version = _VERSION
    known_options = _OPTIONS

    def _canonical_deck(self, players: int) -> list[str]:
        return canonical_deck(players)

    def _opening(self, players: int, seed: int, options: dict[str, Any]) -> list[dict[str, Any]]:
        """GameStarted with the whole deck order, then seat 0's first turn (Setup, R1)."""
        if "turn_limit" in options:
            limit = options["turn_limit"]
            if not is_int(limit) or limit < 1:
                raise ValueError(f"options.turn_limit must be a positive integer, not {limit!r}")
        deck = opening_deck(options, canonical_deck(players), seed)
        if options.get("deck") is None:
            options.pop("deck", None)
        else:
            options["deck"] = list(deck)  # the event keeps its own copy, not the caller's list
        events = [{
            "type": "GameStarted",
            "version": _VERSION,
            "players": players,
            "seed": seed,
            "options": options,
            "deck": deck,
        }]
        state = self.evolve(None, events[0])
        self._start_turn(state, events, 0)
        return events

    # --- decide ---

    def decide(self, state: GameState, seat: int, move: Any) -> list[dict[str, Any]]:
        """The events one move causes; raises IllegalMove (codes in the rules page's order)."""
        if state.phase == PHASE_FINISHED:
            raise IllegalMove("game_over", "the game has ended")
        if not is_int(seat) or seat not in self.to_act(state):
            raise IllegalMove("not_your_turn", f"seat {seat!r} is not asked to act now")
        if not isinstance(move, dict) or not isinstance(move.get("action"), str):
            raise IllegalMove("malformed_move", "a move is an object with a string 'action'")
        handler = _DECIDERS.get(move["action"])
        if handler is None:
            raise IllegalMove("unknown_action", f"unknown action {move['action']!r}")
        return handler(self, state, seat, move)

    def _decide_play(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        card, pile = move.get("card"), move.get("pile")
        if not isinstance(card, str) or not is_int(pile):
            raise IllegalMove("malformed_move", "play needs a string 'card' and an integer 'pile'")
        source = _parse_source(move)
        _require_phase(state, PHASE_PLAY)
        _require_card(state, seat, source, card)
        if not 0 <= pile < len(_PILE_COLORS):
            raise IllegalMove("bad_pile", f"pile must be 0 to 3, not {pile}")
        if not _fits(card, pile, state.piles[pile]):
            raise IllegalMove("pile_rejects_card", f"pile {pile} does not take {card}")  # R3
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "CardPlayed", "seat": seat, "card": card, "pile": pile,
                                      "source": source})
        if len(state.piles[pile]) == _PILE_SIZE:
            self._open_window(state, events, pile)  # R5
        else:
            self._after_play(state, events)
        return events

    def _decide_discard(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        card = move.get("card")
        if not isinstance(card, str):
            raise IllegalMove("malformed_move", "discard needs a string 'card'")
        _require_phase(state, PHASE_PLAY)
        _require_card(state, seat, "hand", card)
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "CardDiscarded", "seat": seat, "card": card})
        self._end_turn(state, events, automatic=False)  # R13
        return events

    def _decide_end_turn(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        _require_phase(state, PHASE_PLAY)
        if state.hands[seat]:
            raise IllegalMove("hand_not_empty", "end the turn with a discard while you hold cards")  # R13
        events: list[dict[str, Any]] = []
        self._end_turn(state, events, automatic=False)
        return events

    def _decide_skip(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        return self._simple_action(state, seat, move, "skip", "SkipPlayed")  # R9

    def _decide_reverse(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        return self._simple_action(state, seat, move, "reverse", "ReversePlayed")  # R10

    def _simple_action(self, state: GameState, seat: int, move: dict[str, Any], card: str, kind: str) -> list[dict[str, Any]]:
        source = _parse_source(move)
        _require_phase(state, PHASE_PLAY)
        _require_card(state, seat, source, card)
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": kind, "seat": seat, "source": source})
        self._after_play(state, events)
        return events

    def _decide_steal_card(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        target = move.get("target")
        if not is_int(target):
            raise IllegalMove("malformed_move", "steal_card needs an integer 'target'")
        source = _parse_source(move)
        _require_phase(state, PHASE_PLAY)
        _require_card(state, seat, source, "steal_card")
        _require_opponent(state, seat, target)
        if not state.discards[target]:
            raise IllegalMove("nothing_to_steal", f"seat {target}'s discard pile is empty")  # R11
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "CardStolen", "seat": seat, "source": source, "target": target,
                                      "card": state.discards[target][-1]})
        self._after_play(state, events)
        return events

    def _decide_steal_chip(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        target, color = move.get("target"), move.get("color")
        if not is_int(target) or not isinstance(color, str) or color not in _COLOR_INDEX:
            raise IllegalMove("malformed_move", "steal_chip needs an integer 'target' and a 'color' R or B")
        source = _parse_source(move)
        _require_phase(state, PHASE_PLAY)
        _require_card(state, seat, source, "steal_chip")
        _require_opponent(state, seat, target)
        if not state.chips[target][_COLOR_INDEX[color]]:
            raise IllegalMove("nothing_to_steal", f"seat {target} holds no {color} chip")
        if _steal_would_win(state.chips[seat], color):
            raise IllegalMove("steal_would_win", "Steal-a-Chip cannot give you a winning set")  # R12
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "ChipStolen", "seat": seat, "source": source, "target": target,
                                      "color": color})
        self._after_play(state, events)
        return events

    def _decide_pass(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        _require_phase(state, PHASE_BLOCK)
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "BlockPassed", "seat": seat, "automatic": False})
        if not state.waiting:
            self._score(state, events)  # R6: everyone passed
        return events

    def _decide_block(self, state: GameState, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        _require_phase(state, PHASE_BLOCK)
        if "block" not in state.hands[seat]:
            raise IllegalMove("no_block_card", "you hold no Block card")
        pile = state.completion
        assert pile is not None  # the Block phase is the window a completed pile opens (R5)
        events: list[dict[str, Any]] = []
        state = _push(state, events, {"type": "SequenceBlocked", "seat": seat, "pile": pile,
                                      "color": _PILE_COLORS[pile]})  # R6: the first Block wins
        self._after_play(state, events)
        return events

    # --- what follows a move (draws, windows, turn ends), written as events ---

    def _open_window(self, state: GameState, events: list[dict[str, Any]], pile: int) -> None:
        """R5: every opponent in window order; those that may not block pass at once."""
        active, players = state.active, state.players
        window = [(active + state.direction * step) % players for step in range(1, players)]
        state = _push(state, events, {"type": "SequenceCompleted", "seat": active, "pile": pile,
                                      "color": _PILE_COLORS[pile], "window": window})
        blocks_seen = _face_up_blocks(state)
        for seat in window:
            if not state.hands[seat] or blocks_seen >= state.blocks_in_deck:
                state = _push(state, events, {"type": "BlockPassed", "seat": seat, "automatic": True})
        if not state.waiting:
            self._score(state, events)

    def _score(self, state: GameState, events: list[dict[str, Any]]) -> None:
        """R6 after every pass: the stack is set aside and a chip taken if any is left; R15."""
        pile = state.completion
        assert pile is not None  # scoring follows a completed pile (R6)
        color = _PILE_COLORS[pile]
        chip = state.supply[_COLOR_INDEX[color]] > 0
        state = _push(state, events, {"type": "SequenceScored", "seat": state.active, "pile": pile,
                                      "color": color, "chip": chip})
        if chip and _is_winning(state.chips[state.active]):
            _push(state, events, {"type": "GameEnded", "reason": "five_chips", "winners": [state.active]})
            return
        self._after_play(state, events)

    def _after_play(self, state: GameState, events: list[dict[str, Any]]) -> None:
        """R7: an emptied hand draws five; then R13's automatic end of a turn without choice."""
        if not state.hands[state.active]:
            state = self._draw(state, events, state.active, _HAND_SIZE)
        self._settle(state, events)

    def _settle(self, state: GameState, events: list[dict[str, Any]]) -> None:
        """R13: a seat whose only legal move is end_turn ends its turn automatically."""
        if not state.hands[state.active] and not _discard_top_moves(state, state.active):
            self._end_turn(state, events, automatic=True)

    def _end_turn(self, state: GameState, events: list[dict[str, Any]], *, automatic: bool) -> None:
        """R13 ends the turn; R16 and R17 may end the game; else R14 picks the next seat."""
        seat = state.active
        state = _push(state, events, {"type": "TurnEnded", "seat": seat, "automatic": automatic})
        if state.dry_turns >= 2 * state.players:
            _push(state, events, {"type": "GameEnded", "reason": "stalemate", "winners": []})
            return
        if state.turn >= state.turn_limit:
            _push(state, events, {"type": "GameEnded", "reason": "turn_limit", "winners": []})
            return
        self._start_turn(state, events, (seat + state.direction * (1 + state.skips)) % state.players)

    def _start_turn(self, state: GameState, events: list[dict[str, Any]], seat: int) -> None:
        """R1: count the turn, top the hand up to five, then perhaps an automatic end (R13)."""
        state = _push(state, events, {"type": "TurnStarted", "seat": seat, "turn": state.turn + 1})
        missing = _HAND_SIZE - len(state.hands[seat])
        if missing > 0:
            state = self._draw(state, events, seat, missing)
        self._settle(state, events)

    def _draw(self, state: GameState, events: list[dict[str, Any]], seat: int, count: int) -> GameState:
        """R2: draw one by one, reshuffling the set-aside pile only when a card is needed."""
        while count > 0:
            available = len(state.draw) - state.draw_pos
            if available == 0:
                if not state.set_aside:
                    break  # R2: the draw stops short
                k = state.shuffles + 1
                order = seeded_shuffle(sorted(state.set_aside, key=_RANK.__getitem__), state.seed, k)
                state = _push(state, events, {"type": "DrawPileReshuffled", "k": k, "order": order})
                available = len(order)
            taken = min(count, available)
            cards = list(state.draw[state.draw_pos:state.draw_pos + taken])
            state = _push(state, events, {"type": "CardsDrawn", "seat": seat, "cards": cards})
            count -= taken
        return state

    # --- evolve ---

    def evolve(self, state: GameState | None, event: dict[str, Any]) -> GameState:
        """Applies one event this engine produced; pure."""
        return _EVOLVERS[event["type"]](state, event)

    # --- queries ---

    def to_act(self, state: GameState) -> list[int]:
        if state.phase == PHASE_PLAY:
            return [state.active]
        if state.phase == PHASE_BLOCK:
            return list(state.waiting)
        return []

    def legal_moves(self, state: GameState, seat: int) -> list[dict[str, Any]]:
        """One move per distinct legal choice (Moves); [] for a seat not in to_act."""
        if state.phase == PHASE_PLAY:
            if seat != state.active or not is_int(seat):
                return []
            hand = state.hands[seat]
            distinct = list(dict.fromkeys(hand))
            moves = [move for card in distinct for move in _card_moves(state, seat, card, "hand")]
            moves += _discard_top_moves(state, seat)
            moves += [{"action": "discard", "card": card} for card in distinct]
            if not hand:
                moves.append({"action": "end_turn"})
            return moves
        if state.phase == PHASE_BLOCK and is_int(seat) and seat in state.waiting:
            if "block" in state.hands[seat]:
                return [{"action": "pass"}, {"action": "block"}]
            return [{"action": "pass"}]
        return []

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see: its own hand and everything public (View)."""
        self.check_view_seat(seat, state.players)
        completion = state.completion
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "to_act": self.to_act(state),
            "phase": state.phase,
            "finished": state.phase == PHASE_FINISHED,
            "outcome": self.outcome(state),
            "hand": None if seat is None else list(state.hands[seat]),
            "seats": [
                {"seat": s, "hand_size": len(state.hands[s]),
                 "chips": {"R": state.chips[s][0], "B": state.chips[s][1]},
                 "discard": list(state.discards[s])}
                for s in range(state.players)
            ],
            "active": state.active,
            "direction": state.direction,
            "skips": state.skips,
            "turn": state.turn,
            "turn_limit": state.turn_limit,
            "dry_turns": state.dry_turns,
            "piles": [{"color": color, "cards": list(cards)}
                      for color, cards in zip(_PILE_COLORS, state.piles, strict=True)],
            "draw_pile": len(state.draw) - state.draw_pos,
            "set_aside": len(state.set_aside),
            "action_discard": list(state.action_discard),
            "supply": {"R": state.supply[0], "B": state.supply[1]},
            "completion": None if completion is None else {
                "seat": state.active, "pile": completion, "color": _PILE_COLORS[completion]},
        }

    def redact(self, event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
        """The deck and seed leave GameStarted, others' draws become counts, reshuffles a count."""
        kind = event["type"]
        if kind == "GameStarted":
            players = event["players"]
            redacted = {key: value for key, value in event.items() if key not in ("deck", "seed")}
            redacted["options"] = {key: value for key, value in event["options"].items() if key != "deck"}
            if seat is not None:
                redacted["hand"] = list(_sorted_cards(event["deck"][seat:_HAND_SIZE * players:players]))
            return redacted
        if kind == "CardsDrawn" and seat != event["seat"]:
            return {"type": "CardsDrawn", "seat": event["seat"], "count": len(event["cards"])}
        if kind == "DrawPileReshuffled":
            return {"type": "DrawPileReshuffled", "k": event["k"], "count": len(event["order"])}
        return dict(event)

    def outcome(self, state: GameState) -> dict[str, Any] | None:
        """None while the game runs; then progress scores and their competition ranks."""
        if state.phase != PHASE_FINISHED:
            return None
        scores = [min(_HAND_SIZE, min(red, 3) + min(blue, 3)) for red, blue in state.chips]
        return {
            "finished": True,
            "ranks": competition_ranks(scores),
            "scores": scores,
            "winners": [] if state.winner is None else [state.winner],
            "cooperative": False,
            "detail": {
                "reason": state.reason,
                "chips": [{"R": red, "B": blue} for red, blue in state.chips],
                "turns": state.turn,
            },
        }


_DECIDERS: dict[str, Callable[[SequenceStacksEngine, GameState, int, dict[str, Any]], list[dict[str, Any]]]] = {
    "play": SequenceStacksEngine._decide_play,
    "discard": SequenceStacksEngine._decide_discard,
    "end_turn": SequenceStacksEngine._decide_end_turn,
    "skip": SequenceStacksEngine._decide_skip,
    "reverse": SequenceStacksEngine._decide_reverse,
    "steal_card": SequenceStacksEngine._decide_steal_card,
    "steal_chip": SequenceStacksEngine._decide_steal_chip,
    "pass": SequenceStacksEngine._decide_pass,
    "block": SequenceStacksEngine._decide_block,
}


# --- evolve handlers, one per event type -----------------------------------------------------------


def _on_game_started(state: None, event: dict[str, Any]) -> GameState:
    players, deck = event["players"], event["deck"]
    dealt = _HAND_SIZE * players
    return GameState(
        players=players,
        seed=event["seed"],
        turn_limit=event["options"].get("turn_limit", _TURNS_PER_SEAT * players),
        blocks_in_deck=_COPIES["two" if players == 2 else "many"]["block"],
        hands=tuple(_sorted_cards(deck[seat:dealt:players]) for seat in range(players)),
        draw=tuple(deck[dealt:]),
        draw_pos=0,
        set_aside=(),
        shuffles=0,
        piles=((),) * len(_PILE_COLORS),
        action_discard=(),
        discards=((),) * players,
        chips=((0, 0),) * players,
        supply=(_CHIPS_PER_COLOR, _CHIPS_PER_COLOR),
        active=0,
        direction=1,
        skips=0,
        turn=0,
        dry_turns=0,
        turn_wet=False,
        phase=PHASE_PLAY,
        completion=None,
        waiting=(),
        reason=None,
        winner=None,
    )


def _on_turn_started(state: GameState, event: dict[str, Any]) -> GameState:
    return _replace(state, active=event["seat"], turn=event["turn"], skips=0, turn_wet=False)


def _on_cards_drawn(state: GameState, event: dict[str, Any]) -> GameState:
    seat, cards = event["seat"], event["cards"]
    hands = _set(state.hands, seat, _sorted_cards(state.hands[seat] + tuple(cards)))
    return _replace(state, hands=hands, draw_pos=state.draw_pos + len(cards), turn_wet=True)


def _on_draw_pile_reshuffled(state: GameState, event: dict[str, Any]) -> GameState:
    return _replace(state, draw=tuple(event["order"]), draw_pos=0, set_aside=(), shuffles=event["k"])


def _on_card_played(state: GameState, event: dict[str, Any]) -> GameState:
    seat, card, pile = event["seat"], event["card"], event["pile"]
    hands, discards = _taken(state, seat, event["source"], card)
    piles = _set(state.piles, pile, state.piles[pile] + (card,))
    return _replace(state, hands=hands, discards=discards, piles=piles, turn_wet=True)


def _on_sequence_completed(state: GameState, event: dict[str, Any]) -> GameState:
    return _replace(state, phase=PHASE_BLOCK, completion=event["pile"], waiting=tuple(event["window"]))


def _on_block_passed(state: GameState, event: dict[str, Any]) -> GameState:
    seat = event["seat"]
    return _replace(state, waiting=tuple(s for s in state.waiting if s != seat))


def _on_sequence_scored(state: GameState, event: dict[str, Any]) -> GameState:
    seat, pile = event["seat"], event["pile"]
    chips, supply = state.chips, state.supply
    if event["chip"]:
        index = _COLOR_INDEX[event["color"]]
        chips = _set(chips, seat, _bump(chips[seat], index, 1))
        supply = _bump(supply, index, -1)
    return _replace(
        state,
        set_aside=state.set_aside + state.piles[pile], piles=_set(state.piles, pile, ()),
        chips=chips, supply=supply, phase=PHASE_PLAY, completion=None, waiting=(),
    )


def _on_sequence_blocked(state: GameState, event: dict[str, Any]) -> GameState:
    seat, pile = event["seat"], event["pile"]
    return _replace(
        state,
        hands=_set(state.hands, seat, _without(state.hands[seat], "block")),
        action_discard=state.action_discard + ("block",),
        set_aside=state.set_aside + state.piles[pile], piles=_set(state.piles, pile, ()),
        phase=PHASE_PLAY, completion=None, waiting=(),
    )


def _on_skip_played(state: GameState, event: dict[str, Any]) -> GameState:
    hands, discards = _taken(state, event["seat"], event["source"], "skip")
    return _replace(state, hands=hands, discards=discards, action_discard=state.action_discard + ("skip",),
                   skips=state.skips + 1)


def _on_reverse_played(state: GameState, event: dict[str, Any]) -> GameState:
    hands, discards = _taken(state, event["seat"], event["source"], "reverse")
    return _replace(state, hands=hands, discards=discards, action_discard=state.action_discard + ("reverse",),
                   direction=-state.direction)


def _on_card_stolen(state: GameState, event: dict[str, Any]) -> GameState:
    seat, target, card = event["seat"], event["target"], event["card"]
    hands, discards = _taken(state, seat, event["source"], "steal_card")
    discards = _set(discards, target, discards[target][:-1])
    hands = _set(hands, seat, _sorted_cards(hands[seat] + (card,)))
    return _replace(state, hands=hands, discards=discards,
                   action_discard=state.action_discard + ("steal_card",))


def _on_chip_stolen(state: GameState, event: dict[str, Any]) -> GameState:
    seat, target, index = event["seat"], event["target"], _COLOR_INDEX[event["color"]]
    hands, discards = _taken(state, seat, event["source"], "steal_chip")
    chips = _set(state.chips, target, _bump(state.chips[target], index, -1))
    chips = _set(chips, seat, _bump(chips[seat], index, 1))
    return _replace(state, hands=hands, discards=discards, chips=chips,
                   action_discard=state.action_discard + ("steal_chip",))


def _on_card_discarded(state: GameState, event: dict[str, Any]) -> GameState:
    seat, card = event["seat"], event["card"]
    return _replace(state, hands=_set(state.hands, seat, _without(state.hands[seat], card)),
                   discards=_set(state.discards, seat, state.discards[seat] + (card,)))


def _on_turn_ended(state: GameState, event: dict[str, Any]) -> GameState:
    return _replace(state, dry_turns=0 if state.turn_wet else state.dry_turns + 1)  # R16


def _on_game_ended(state: GameState, event: dict[str, Any]) -> GameState:
    winners = event["winners"]
    return _replace(state, phase=PHASE_FINISHED, reason=event["reason"],
                   winner=winners[0] if winners else None, waiting=(), completion=None)


_EVOLVERS: dict[str, Callable[[Any, dict[str, Any]], GameState]] = {
    "GameStarted": _on_game_started,
    "TurnStarted": _on_turn_started,
    "CardsDrawn": _on_cards_drawn,
    "DrawPileReshuffled": _on_draw_pile_reshuffled,
    "CardPlayed": _on_card_played,
    "SequenceCompleted": _on_sequence_completed,
    "BlockPassed": _on_block_passed,
    "SequenceScored": _on_sequence_scored,
    "SequenceBlocked": _on_sequence_blocked,
    "SkipPlayed": _on_skip_played,
    "ReversePlayed": _on_reverse_played,
    "CardStolen": _on_card_stolen,
    "ChipStolen": _on_chip_stolen,
    "CardDiscarded": _on_card_discarded,
    "TurnEnded": _on_turn_ended,
    "GameEnded": _on_game_ended,
}


# --- helpers ----------------------------------------------------------------------------------------


def _push(state: GameState, events: list[dict[str, Any]], event: dict[str, Any]) -> GameState:
    """Records an event `decide` is writing and returns the state after it."""
    events.append(event)
    return _EVOLVERS[event["type"]](state, event)


def _parse_source(move: dict[str, Any]) -> str:
    source = move.get("source", "hand")
    if not isinstance(source, str) or source not in _SOURCES:
        raise IllegalMove("malformed_move", "source must be 'hand' or 'discard'")
    return source


def _require_phase(state: GameState, phase: str) -> None:
    if state.phase != phase:
        what = "only in a Block window" if phase == PHASE_BLOCK else "not during a Block window"
        raise IllegalMove("wrong_phase", f"that action is allowed {what}")


def _require_card(state: GameState, seat: int, source: str, card: str) -> None:
    if source == "hand":
        if card not in state.hands[seat]:
            raise IllegalMove("card_not_in_hand", f"{card!r} is not in your hand")
        return
    pile = state.discards[seat]
    if not pile or pile[-1] != card:
        raise IllegalMove("card_not_on_discard", f"{card!r} is not the top of your discard pile")


def _require_opponent(state: GameState, seat: int, target: int) -> None:
    if not 0 <= target < state.players or target == seat:
        raise IllegalMove("bad_target", f"target must be an opponent's seat, not {target}")


def _fits(card: str, pile: int, cards: tuple[str, ...]) -> bool:
    """R3: the pile's colour, and the next number or a wild standing for it."""
    if _CARD_COLOR.get(card) != _PILE_COLORS[pile] or len(cards) >= _PILE_SIZE:
        return False
    number = _CARD_NUMBER[card]
    return number == 0 or number == len(cards) + 1


def _card_moves(state: GameState, seat: int, card: str, source: str) -> list[dict[str, Any]]:
    """The play or action moves `card` at `source` allows now (R3, R4, R8-R12); never Block."""
    if card in _CARD_COLOR:
        return [{"action": "play", "card": card, "pile": pile, "source": source}
                for pile in range(len(_PILE_COLORS)) if _fits(card, pile, state.piles[pile])]
    if card == "skip" or card == "reverse":
        return [{"action": card, "source": source}]
    if card == "steal_card":
        return [{"action": "steal_card", "target": target, "source": source}
                for target in range(state.players) if target != seat and state.discards[target]]
    if card == "steal_chip":
        return [{"action": "steal_chip", "target": target, "color": color, "source": source}
                for target in range(state.players) if target != seat
                for index, color in enumerate(_COLORS)
                if state.chips[target][index] and not _steal_would_win(state.chips[seat], color)]
    return []


def _discard_top_moves(state: GameState, seat: int) -> list[dict[str, Any]]:
    pile = state.discards[seat]
    return _card_moves(state, seat, pile[-1], "discard") if pile else []


def _face_up_blocks(state: GameState) -> int:
    """R5: Block cards lying face up, on the action discard pile and the personal piles."""
    return state.action_discard.count("block") + sum(pile.count("block") for pile in state.discards)


def _is_winning(chips: tuple[int, int]) -> bool:
    red, blue = chips
    return red >= 2 and blue >= 2 and red + blue >= 5  # R15


def _steal_would_win(chips: tuple[int, int], color: str) -> bool:
    return _is_winning(_bump(chips, _COLOR_INDEX[color], 1))  # R12


def _taken(state: GameState, seat: int, source: str, card: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """Hands and discard piles after `seat` took `card` from `source`."""
    if source == "hand":
        return _set(state.hands, seat, _without(state.hands[seat], card)), state.discards
    return state.hands, _set(state.discards, seat, state.discards[seat][:-1])


def _set(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return items[:index] + (value,) + items[index + 1:]


def _bump(pair: tuple[int, int], index: int, delta: int) -> tuple[int, int]:
    return (pair[0] + delta, pair[1]) if index == 0 else (pair[0], pair[1] + delta)


def _without(hand: tuple[str, ...], card: str) -> tuple[str, ...]:
    index = hand.index(card)
    return hand[:index] + hand[index + 1:]


def _sorted_cards(cards: Any) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_RANK.__getitem__))


def determinize(view: dict[str, Any], rng: random.Random) -> GameState:
    """A state with this view: the other hands, the draw pile and the set-aside stacks dealt with `rng`.

    The unseen cards (the deck less the seat's hand, the piles and the discards) go to the
    other hands, by their counts, the draw pile and the face-down set-aside cards; the seed of
    later reshuffles is drawn from `rng` too, as it is hidden. The view does not say whether
    the turn has yet drawn or laid a card (R16's count of dry turns): taken as yes, the usual
    case once a turn has begun. For the search bots (games/bots/search.py).
    """
    players, seat = view["players"], view["seat"]
    seats = view["seats"]
    piles = tuple(tuple(pile["cards"]) for pile in view["piles"])
    seen = [*view["hand"], *view["action_discard"], *(card for pile in piles for card in pile)]
    seen += [card for entry in seats for card in entry["discard"]]
    others = [s for s in range(players) if s != seat]
    sizes = [seats[s]["hand_size"] for s in others] + [view["draw_pile"], view["set_aside"]]
    *dealt, draw, set_aside = deal_hidden(unseen_cards(canonical_deck(players), seen, sum(sizes)), sizes, rng)
    hands = [tuple(view["hand"])] * players
    for other, cards in zip(others, dealt, strict=True):
        hands[other] = _sorted_cards(cards)
    completion = view["completion"]
    outcome = view["outcome"]
    winners = outcome["winners"] if outcome else []
    return GameState(
        players=players,
        seed=rng.getrandbits(32),
        turn_limit=view["turn_limit"],
        blocks_in_deck=_COPIES["two" if players == 2 else "many"]["block"],
        hands=tuple(hands),
        draw=tuple(draw),
        draw_pos=0,
        set_aside=tuple(set_aside),
        shuffles=0,
        piles=piles,
        action_discard=tuple(view["action_discard"]),
        discards=tuple(tuple(entry["discard"]) for entry in seats),
        chips=tuple((entry["chips"]["R"], entry["chips"]["B"]) for entry in seats),
        supply=(view["supply"]["R"], view["supply"]["B"]),
        active=view["active"],
        direction=view["direction"],
        skips=view["skips"],
        turn=view["turn"],
        dry_turns=view["dry_turns"],
        turn_wet=True,
        phase=view["phase"],
        completion=None if completion is None else completion["pile"],
        waiting=tuple(view["to_act"]) if view["phase"] == PHASE_BLOCK else (),
        reason=outcome["detail"]["reason"] if outcome else None,
        winner=winners[0] if winners else None,
    )


ENGINE = SequenceStacksEngine()
