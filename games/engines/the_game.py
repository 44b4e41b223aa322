"""The Game (slug `the-game`): a cooperative game of four piles, 1 to 5 players (shared/rules/the-game.md).

Two piles climb from 1 and two fall from 100; the team tries to lay all 98 number cards
(2..99) on them. A turn plays at least its minimum (2 while the draw pile lasts, then 1,
R1), may go on, then refills the hand (R7). The game ends won when every card is played
(R9) or lost as soon as the current seat is below its minimum with no legal card (R10), or
when the team concedes (`concede`, an extension of the contract: the server asks it once every
person still playing a seat has agreed); the team's score is the number of cards never played
(lower is better).

Cards are strings in a move, an event or a view and ints inside the state.
"""
from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from games.engines._common import Engine, IllegalMove, deal_hidden, is_int, opening_deck, unseen_cards

_LOWEST_CARD = 2
_HIGHEST_CARD = 99
_CANONICAL_DECK = [str(number) for number in range(_LOWEST_CARD, _HIGHEST_CARD + 1)]  # canonical order
_HAND_SIZE = {1: 8, 2: 7, 3: 6, 4: 6, 5: 6}  # Setup, step 3
_MINIMUM_WITH_DRAW_PILE = 2  # R1
_MINIMUM_WITHOUT_DRAW_PILE = 1  # R1
_BACKWARDS_STEP = 10  # R4
# Piles 0 and 1 climb from 1, piles 2 and 3 fall from 100.
_PILE_DIRECTIONS = ("up", "up", "down", "down")
_PILE_BASES = (1, 1, 100, 100)
_CARD_NUMBERS = {card: int(card) for card in _CANONICAL_DECK}
_OPTIONS = ("deck",)
_VERSION = 1  # the rules this module plays; recorded in GameStarted (a log without one is version 1)

PHASE_PLAY = "play"
PHASE_PLAY_OR_END = "play_or_end"
PHASE_FINISHED = "finished"


# --- state --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GameState:
    """Everything the rules need; cards are ints. Immutable: `evolve` returns a new one."""

    players: int
    hand_size: int
    hands: tuple[tuple[int, ...], ...]  # per seat, ascending
    draw_pile: tuple[int, ...]  # top card first
    piles: tuple[tuple[int, ...], ...]  # per pile, the cards played on it, bottom first
    current: int | None = None
    required: int = _MINIMUM_WITH_DRAW_PILE
    played_this_turn: int = 0
    finished: bool = False
    won: bool = False
    stuck_seat: int | None = None
    conceded: bool = False


def _update(state: GameState, **changes: Any) -> GameState:
    """`dataclasses.replace(state, **changes)`, about four times faster: replay speed rests on it."""
    new = object.__new__(GameState)
    new.__dict__.update(state.__dict__, **changes)
    return new


# Events (the stored log). Cards are strings, as in moves and views.


class GameStarted(TypedDict):
    type: str
    version: int
    players: int
    seed: Any
    options: dict[str, Any]  # as given, `deck` included
    deck: list[str]  # all 98 cards, top first
    hand_size: int


class TurnStarted(TypedDict):
    type: str
    seat: int
    minimum: int  # R1


class CardPlayed(TypedDict):
    type: str
    seat: int
    card: str
    pile: int
    backwards: bool  # R4


class TurnEnded(TypedDict):
    type: str
    seat: int


class CardsDrawn(TypedDict):
    type: str
    seat: int
    cards: list[str]  # top first; another seat sees {"type", "seat", "count"} instead


class GameEnded(TypedDict):
    type: str
    won: bool
    reason: str  # "all_cards_played" (R9) or "stuck" (R10)
    stuck_seat: int | None
    cards_left: int


class TeamConceded(TypedDict):
    type: str
    cards_left: int  # as GameEnded's: the team's score, lower is better


# --- the engine -----------------------------------------------------------------------------------


class TheGameEngine(Engine):
    slug = "the-game"
    min_players = 1
    max_players = 5
    version = _VERSION
    known_options = _OPTIONS
    cooperative = True

    def _canonical_deck(self, players: int) -> list[str]:
        return list(_CANONICAL_DECK)  # the same 98 cards at every player count (Components)

    def _opening(self, players: int, seed: int, options: dict[str, Any]) -> list[Mapping[str, Any]]:
        """GameStarted with the whole deck order, then seat 0's first turn (minimum 2)."""
        deck = opening_deck(options, _CANONICAL_DECK, seed)
        if "deck" in options:
            options["deck"] = list(deck)  # the event keeps its own copy, not the caller's list
        started: GameStarted = {
            "type": "GameStarted",
            "version": _VERSION,
            "players": players,
            "seed": seed,
            "options": options,
            "deck": deck,
            "hand_size": _HAND_SIZE[players],
        }
        # The first turn always has 68+ cards in the draw pile and a playable hand (R1, R10).
        return [started, {"type": "TurnStarted", "seat": 0, "minimum": _MINIMUM_WITH_DRAW_PILE}]

    # --- decide ---

    def decide(self, state: GameState, seat: int, move: Any) -> list[Mapping[str, Any]]:
        """The events one move causes; raises IllegalMove (codes in the rules page's order)."""
        if state.finished:
            raise IllegalMove("game_over", "the game has ended")
        if seat != state.current or isinstance(seat, bool):
            raise IllegalMove("not_your_turn", f"it is seat {state.current}'s turn")
        if not isinstance(move, dict) or not isinstance(move.get("action"), str):
            raise IllegalMove("malformed_move", "a move is an object with a string 'action'")
        action = move["action"]
        if action == "play":
            return self._decide_play(state, seat, move)
        if action == "end_turn":
            return self._decide_end_turn(state, seat)
        raise IllegalMove("unknown_action", f"unknown action {action!r}; expected 'play' or 'end_turn'")

    def _decide_play(self, state: GameState, seat: int, move: dict[str, Any]) -> list[Mapping[str, Any]]:
        card, pile = move.get("card"), move.get("pile")
        if not isinstance(card, str) or not is_int(pile):
            raise IllegalMove("malformed_move", "a play needs a string 'card' and an integer 'pile'")
        if not 0 <= pile < len(_PILE_BASES):
            raise IllegalMove("bad_pile", f"pile must be 0 to 3, not {pile}")
        number = _CARD_NUMBERS.get(card)  # exactly the notation: "7", never "07" or " 7"
        if number is None or number not in state.hands[seat]:
            raise IllegalMove("card_not_in_hand", f"card {card!r} is not in your hand")
        top = _top(state, pile)
        if not _accepts(pile, top, number):
            raise IllegalMove("pile_rejects_card", f"pile {pile} (top {top}) does not accept {card}")
        played: CardPlayed = {
            "type": "CardPlayed",
            "seat": seat,
            "card": card,
            "pile": pile,
            "backwards": number == top + _backwards_offset(pile),
        }
        after = self.evolve(state, played)
        if not any(after.hands) and not after.draw_pile:
            return [played, _game_ended(after, won=True, stuck_seat=None)]  # R9
        if after.played_this_turn < after.required and not _has_legal_play(after, seat):
            return [played, _game_ended(after, won=False, stuck_seat=seat)]  # R10 after a play
        return [played]

    def _decide_end_turn(self, state: GameState, seat: int) -> list[Mapping[str, Any]]:
        if state.played_this_turn < state.required:
            raise IllegalMove(
                "minimum_not_met", f"play {state.required - state.played_this_turn} more card(s) first"
            )
        events: list[Mapping[str, Any]] = [{"type": "TurnEnded", "seat": seat}]
        drawn = state.draw_pile[: state.hand_size - len(state.hands[seat])]  # R7
        if drawn:
            events.append({"type": "CardsDrawn", "seat": seat, "cards": [str(card) for card in drawn]})
        after = state
        for event in events:
            after = self.evolve(after, event)
        next_seat = _next_seat(seat, after.hands)  # R8; someone holds a card, or the game was won
        minimum = _MINIMUM_WITH_DRAW_PILE if after.draw_pile else _MINIMUM_WITHOUT_DRAW_PILE  # R1
        started: TurnStarted = {"type": "TurnStarted", "seat": next_seat, "minimum": minimum}
        events.append(started)
        after = self.evolve(after, started)
        if not _has_legal_play(after, next_seat):
            events.append(_game_ended(after, won=False, stuck_seat=next_seat))  # R10 at turn start
        return events

    def concede(self, state: GameState) -> list[Mapping[str, Any]]:
        """The team gives up: the game ends lost at once, scored as a loss (the cards never played)."""
        if state.finished:
            raise IllegalMove("game_over", "the game has ended")
        conceded: TeamConceded = {"type": "TeamConceded", "cards_left": _cards_left(state)}
        return [conceded]

    # --- evolve ---

    def evolve(self, state: GameState | None, event: Mapping[str, Any]) -> GameState:
        """Applies one event this engine produced; pure."""
        return _EVOLVERS[event["type"]](state, event)

    # --- queries ---

    def to_act(self, state: GameState) -> list[int]:
        if state.finished:
            return []
        assert state.current is not None  # a seat has the turn from the first TurnStarted on
        return [state.current]

    def legal_moves(self, state: GameState, seat: int) -> list[dict[str, Any]]:
        """Every play (cards ascending, then piles ascending), then end_turn in phase play_or_end."""
        if state.finished or seat != state.current or isinstance(seat, bool):
            return []
        moves = [
            {"action": "play", "card": str(card), "pile": pile}
            for card in state.hands[seat]
            for pile in range(len(_PILE_BASES))
            if _accepts(pile, _top(state, pile), card)
        ]
        if _phase(state) == PHASE_PLAY_OR_END:
            moves.append({"action": "end_turn"})
        return moves

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see: its own hand, the piles, the public counts."""
        self.check_view_seat(seat, state.players)
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "to_act": self.to_act(state),
            "phase": _phase(state),
            "finished": state.finished,
            "outcome": self.outcome(state),
            "hand": None if seat is None else [str(card) for card in state.hands[seat]],
            "seats": [{"seat": s, "hand_count": len(hand)} for s, hand in enumerate(state.hands)],
            "piles": [
                {
                    "pile": pile,
                    "direction": _PILE_DIRECTIONS[pile],
                    "base": str(_PILE_BASES[pile]),
                    "top": str(_top(state, pile)),
                    "cards": [str(card) for card in cards],
                }
                for pile, cards in enumerate(state.piles)
            ],
            "draw_pile": len(state.draw_pile),
            "hand_size": state.hand_size,
            "current": None if state.finished else state.current,
            "required": state.required,
            "played_this_turn": state.played_this_turn,
            "cards_left": _cards_left(state),
        }

    def redact(self, event: Mapping[str, Any], seat: int | None) -> Mapping[str, Any] | None:
        """The deck order and seed never leave GameStarted; another seat's draw becomes a count."""
        kind = event["type"]
        if kind == "GameStarted":
            players, hand_size = event["players"], event["hand_size"]
            dealt = event["deck"][: players * hand_size]
            redacted = {key: value for key, value in event.items() if key not in ("deck", "seed")}
            redacted["options"] = {key: value for key, value in event["options"].items() if key != "deck"}
            redacted["hand"] = None if seat is None else _sorted_cards(dealt[seat::players])
            redacted["draw_pile"] = len(event["deck"]) - len(dealt)
            return redacted
        if kind == "CardsDrawn" and seat != event["seat"]:
            return {"type": "CardsDrawn", "seat": event["seat"], "count": len(event["cards"])}
        return event

    def outcome(self, state: GameState) -> dict[str, Any] | None:
        """None while the game runs; then the team's shared result (cards left, lower is better)."""
        if not state.finished:
            return None
        cards_left = _cards_left(state)
        return {
            "finished": True,
            "cooperative": True,
            "won": state.won,
            "ranks": [1] * state.players,
            "scores": [cards_left] * state.players,
            "winners": list(range(state.players)) if state.won else [],
            "detail": {
                "cards_left": cards_left,
                "in_hands": cards_left - len(state.draw_pile),
                "in_draw_pile": len(state.draw_pile),
                "reason": "all_cards_played" if state.won else "conceded" if state.conceded else "stuck",
                "stuck_seat": state.stuck_seat,
            },
        }


# --- evolve handlers, one per event type -----------------------------------------------------------


def _on_game_started(state: None, event: Mapping[str, Any]) -> GameState:
    players, hand_size = event["players"], event["hand_size"]
    deck = [int(card) for card in event["deck"]]
    dealt = players * hand_size
    return GameState(
        players=players,
        hand_size=hand_size,
        hands=tuple(tuple(sorted(deck[seat:dealt:players])) for seat in range(players)),
        draw_pile=tuple(deck[dealt:]),
        piles=((),) * len(_PILE_BASES),
    )


def _on_turn_started(state: GameState, event: Mapping[str, Any]) -> GameState:
    return _update(state, current=event["seat"], required=event["minimum"], played_this_turn=0)


def _on_card_played(state: GameState, event: Mapping[str, Any]) -> GameState:
    seat, card, pile = event["seat"], int(event["card"]), event["pile"]
    hands = list(state.hands)
    hands[seat] = tuple(held for held in hands[seat] if held != card)
    piles = list(state.piles)
    piles[pile] = piles[pile] + (card,)
    return _update(
        state, hands=tuple(hands), piles=tuple(piles), played_this_turn=state.played_this_turn + 1
    )


def _on_turn_ended(state: GameState, event: Mapping[str, Any]) -> GameState:
    return state  # the draw and the next turn are their own events


def _on_cards_drawn(state: GameState, event: Mapping[str, Any]) -> GameState:
    seat, drawn = event["seat"], tuple(int(card) for card in event["cards"])
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hands[seat] + drawn))
    return _update(state, hands=tuple(hands), draw_pile=state.draw_pile[len(drawn) :])


def _on_game_ended(state: GameState, event: Mapping[str, Any]) -> GameState:
    return _update(state, finished=True, won=event["won"], stuck_seat=event["stuck_seat"])


def _on_team_conceded(state: GameState, event: Mapping[str, Any]) -> GameState:
    return _update(state, finished=True, won=False, stuck_seat=None, conceded=True)


_EVOLVERS: dict[str, Callable[[Any, Mapping[str, Any]], GameState]] = {
    "GameStarted": _on_game_started,
    "TurnStarted": _on_turn_started,
    "CardPlayed": _on_card_played,
    "TurnEnded": _on_turn_ended,
    "CardsDrawn": _on_cards_drawn,
    "GameEnded": _on_game_ended,
    "TeamConceded": _on_team_conceded,
}


# --- helpers ----------------------------------------------------------------------------------------


def _phase(state: GameState) -> str:
    if state.finished:
        return PHASE_FINISHED
    return PHASE_PLAY if state.played_this_turn < state.required else PHASE_PLAY_OR_END  # R5


def _top(state: GameState, pile: int) -> int:
    cards = state.piles[pile]
    return cards[-1] if cards else _PILE_BASES[pile]


def _backwards_offset(pile: int) -> int:
    """The backwards trick's card minus the top: -10 on an up pile, +10 on a down pile (R4)."""
    return -_BACKWARDS_STEP if _PILE_DIRECTIONS[pile] == "up" else _BACKWARDS_STEP


def _accepts(pile: int, top: int, card: int) -> bool:
    """R3 and R4. The trick never reaches an empty pile: 1 - 10 and 100 + 10 are no cards."""
    if card == top + _backwards_offset(pile):
        return True
    return card > top if _PILE_DIRECTIONS[pile] == "up" else card < top


def _has_legal_play(state: GameState, seat: int) -> bool:
    tops = [_top(state, pile) for pile in range(len(_PILE_BASES))]
    return any(_accepts(pile, tops[pile], card) for card in state.hands[seat] for pile in range(len(tops)))


def _next_seat(seat: int, hands: tuple[tuple[int, ...], ...]) -> int:
    """R8: the first seat to the left (possibly `seat` itself) that holds a card."""
    players = len(hands)
    for step in range(1, players + 1):
        candidate = (seat + step) % players
        if hands[candidate]:
            return candidate
    return seat  # unreachable: an end_turn with no card anywhere would have been a win (R9)


def _cards_left(state: GameState) -> int:
    return sum(len(hand) for hand in state.hands) + len(state.draw_pile)


def _game_ended(state: GameState, *, won: bool, stuck_seat: int | None) -> GameEnded:
    return {
        "type": "GameEnded",
        "won": won,
        "reason": "all_cards_played" if won else "stuck",
        "stuck_seat": stuck_seat,
        "cards_left": _cards_left(state),
    }



def _sorted_cards(cards: list[str]) -> list[str]:
    return sorted(cards, key=int)


_DEALS_TRIED = 1000  # the real deal is one that works, so some deal soon does


def determinize(view: Mapping[str, Any], rng: random.Random) -> GameState:
    """A state `seat` could be in, given its view: the other hands and the draw pile dealt at random.

    The unseen cards (2..99 less the seat's hand and the piles) are shuffled with `rng` into
    the other hands, by their counts, and the draw pile; `view(state, seat)` is `view` again.
    While another seat's turn goes on short of its minimum, it holds a playable card (else the
    game would have ended, R10): the deal is made again until it does.
    For the search bots (games/bots/search.py): they sample what the seat cannot know.
    """
    seat = view["seat"]
    counts = [entry["hand_count"] for entry in view["seats"]]
    piles = tuple(tuple(int(card) for card in pile["cards"]) for pile in view["piles"])
    seen = list(view["hand"]) + [str(card) for pile in piles for card in pile]
    others = [s for s in range(view["players"]) if s != seat]
    unseen = unseen_cards(_CANONICAL_DECK, seen, sum(counts[s] for s in others) + view["draw_pile"])
    outcome = view["outcome"]
    current = view["to_act"][0] if view["to_act"] else None
    state = None
    for _ in range(_DEALS_TRIED):
        *dealt, draw_pile = deal_hidden(unseen, [counts[s] for s in others] + [view["draw_pile"]], rng)
        hands = [tuple(sorted(int(card) for card in view["hand"]))] * view["players"]
        for other, cards in zip(others, dealt, strict=True):
            hands[other] = tuple(sorted(int(card) for card in cards))
        state = GameState(
            players=view["players"],
            hand_size=view["hand_size"],
            hands=tuple(hands),
            draw_pile=tuple(int(card) for card in draw_pile),
            piles=piles,
            current=current,
            required=view["required"],
            played_this_turn=view["played_this_turn"],
            finished=view["finished"],
            won=bool(outcome and outcome["won"]),
            stuck_seat=outcome["detail"]["stuck_seat"] if outcome else None,
            conceded=bool(outcome and outcome["detail"]["reason"] == "conceded"),
        )
        if current is None or current == seat or state.played_this_turn >= state.required or _has_legal_play(state, current):
            break  # the seat whose turn goes on has a card to play, or the game would have ended (R10)
    assert state is not None  # _DEALS_TRIED > 0
    return state


ENGINE = TheGameEngine()
