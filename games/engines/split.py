"""Split: draw and discard half-cards, lay matches, upgrade and steal them, over three rounds.

The rules are shared/rules/split.md (rule numbers R1-R17 and decisions D1-D13 below refer
to it). 2 to 6 players, the full 104-card deck of half-cards (`7Ht`: top half of the seven of
hearts), nine cards each, three rounds with the dealer rotating to the player who ended the
previous round.

Events are plain JSON objects, past tense; their shapes are the TypedDicts below. `start` gives
one event, `GameStarted`, which records round 1's whole deck (the deal, the row card and the draw
pile, top first) and so is also round 1's opening event; rounds 2 and 3 open with `RoundStarted`,
which records that round's deck the same way.

State is an immutable `_State` (a NamedTuple); `evolve` returns a new one. `decide` folds its
own events through `evolve` to find the automatic follow-ups (a weak bonus with no possible
trade, a seat in `last_matches` with no possible match, the end of a round, the next deal).
"""
from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any, NamedTuple, TypedDict

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

# ---------------------------------------------------------------------------------------------
# Constants

_RANKS = "A23456789TJQK"
_SUITS = "SHDC"
_CANONICAL: tuple[str, ...] = tuple(f"{r}{s}{h}" for r in _RANKS for s in _SUITS for h in "tb")
_ORDER = {card: index for index, card in enumerate(_CANONICAL)}
_RED = {"S": False, "H": True, "D": True, "C": False}

_HAND_SIZE = 9  # Setup: nine cards each
_ROUNDS = 3  # R15: three rounds
_MATCH_BOXES = 6  # score pad: six markable boxes per match row
_NEGATIVE_BOXES = 12  # score pad: twelve markable boxes per negative row
_MULTIPLIER = {rank: 3 if rank == "A" else 2 if rank in "TJQK" else 1 for rank in _RANKS}
_RANK_INDEX = {rank: index for index, rank in enumerate(_RANKS)}

_WEAK, _STRONG, _PERFECT = 0, 1, 2  # strength order: weak < strong < perfect
_KIND_NAMES = ("weak", "strong", "perfect")

# Phases (view["phase"]); `_ROUND_OVER` and `_BETWEEN` are transient: decide always moves past them.
_DRAW = "draw"
_PLAY = "play"
_PERFECT_BONUS = "perfect_bonus"
_STRONG_BONUS = "strong_bonus"
_WEAK_BONUS = "weak_bonus"
_LAST_MATCHES = "last_matches"
_FINISHED = "finished"
_ROUND_OVER = "round_over"
_BETWEEN = "between_rounds"
_BONUS_PHASE = (_WEAK_BONUS, _STRONG_BONUS, _PERFECT_BONUS)  # indexed by kind

_PHASE_ACTIONS = {
    _DRAW: frozenset({"draw", "take"}),
    _PLAY: frozenset({"match", "upgrade", "discard"}),
    _PERFECT_BONUS: frozenset({"penalize"}),
    _STRONG_BONUS: frozenset({"bonus_draw", "skip"}),
    _WEAK_BONUS: frozenset({"trade", "skip"}),
    _LAST_MATCHES: frozenset({"match", "done"}),
}
_ACTIONS = frozenset().union(*_PHASE_ACTIONS.values())


def _triangle(k: int) -> int:
    return k * (k + 1) // 2


# Row values by mark count (uncapped counts are looked up through min(count, boxes)).
_MATCH_VALUE = tuple(
    tuple(_MULTIPLIER[rank] * _triangle(k) for k in range(_MATCH_BOXES + 1)) for rank in _RANKS
)
_NEGATIVE_VALUE = tuple(_triangle(k) for k in range(_NEGATIVE_BOXES + 1))


# ---------------------------------------------------------------------------------------------
# State


class _Match(NamedTuple):
    id: int
    owner: int
    top: str
    bottom: str
    covered: tuple[str, ...] = ()


class _State(NamedTuple):
    version: int
    players: int
    seed: int
    round: int  # 1, 2 or 3 (0 only while GameStarted is folded)
    dealer: int
    phase: str
    current: int | None
    hands: tuple[frozenset[str], ...]
    deck: tuple[str, ...]  # this round's deck, top first; the draw pile is deck[pile_pos:]
    pile_pos: int
    row: tuple[str, ...]  # the discard row, oldest first
    matches: tuple[_Match, ...]  # this round's matches; matches[i].id == base_id + i
    base_id: int
    must_use: str | None
    had_turn: tuple[bool, ...]
    first_turn: bool  # the current turn is the current player's first of the round (R16)
    waiting: tuple[int, ...]  # seats still to come in last_matches after `current`
    ender: int | None
    end_reason: str | None
    match_marks: tuple[tuple[int, ...], ...]  # per seat, 13 uncapped counts
    negative_marks: tuple[tuple[int, ...], ...]  # per seat, 3 uncapped counts
    enders: tuple[int, ...]


_replace = replacer(_State)  # `state._replace(**changes)`, about twice as fast (replay speed)


# Event shapes (every event also has "type": its class name without the leading underscore).


class _GameStarted(TypedDict):  # also round 1's opening event: dealer players - 1
    version: int
    players: int
    seed: int
    options: dict[str, Any]  # as given; "deck" (if given) is the round-1 deck
    deck: list[str]  # round 1's deck, as in _RoundStarted


class _RoundStarted(TypedDict):  # rounds 2 and 3 (R15)
    round: int
    dealer: int
    players: int  # lets redact find a seat's dealt cards
    deck: list[str]  # top first: 9 per seat round-robin from the dealer's left, the row card, the pile


class _CardDrawn(TypedDict):  # also BonusCardDrawn (R11)
    seat: int
    card: str


class _CardsTaken(TypedDict):  # R3
    seat: int
    cards: list[str]  # the taken row cards, oldest first; cards[0] is the must-use card


class _MatchMade(TypedDict):  # R7
    seat: int
    id: int
    top: str
    bottom: str
    kind: str


class _MatchUpgraded(TypedDict):  # R8, R9
    seat: int
    id: int
    card: str
    covered: str
    kind: str  # the new kind
    previous_owner: int


class _PlayerPenalized(TypedDict):  # R10
    seat: int
    target: int


class _BonusSkipped(TypedDict):  # R11, R12
    seat: int
    bonus: str  # "strong" or "weak"
    automatic: bool  # the engine skipped a weak bonus with no possible trade


class _MatchesTraded(TypedDict):  # R12
    seat: int
    give: int
    take: int
    other: int  # the seat that receives `give`


class _CardDiscarded(TypedDict):  # R13
    seat: int
    card: str


class _LastMatchesDone(TypedDict):  # R16
    seat: int
    automatic: bool  # the seat had no match left to make


class _RoundEnded(TypedDict):  # R14
    round: int
    ender: int
    reason: str  # "went_out" or "pile_empty"
    match_ranks: list[list[str]]  # per seat, the rank of each match it owns
    cards_left: list[int]  # per seat


class _GameEnded(TypedDict):
    scores: list[int]
    ranks: list[int]


# View shapes (shared/rules/split.md, View).


class _MatchView(TypedDict):
    id: int
    owner: int
    top: str
    bottom: str
    kind: str
    covered: list[str]


class _SeatView(TypedDict):
    seat: int
    hand_size: int
    had_turn: bool
    match_rows: dict[str, int]
    negative_rows: list[int]
    match_points: int
    negative_points: int
    score: int


def _kind(top: str, bottom: str) -> int:
    if top[1] == bottom[1]:
        return _PERFECT
    return _STRONG if _RED[top[1]] == _RED[bottom[1]] else _WEAK


def _match_kind(match: _Match) -> int:
    return _kind(match.top, match.bottom)


# ---------------------------------------------------------------------------------------------
# The engine


class SplitEngine(Engine):
    """Split for 2 to 6 players (shared/rules/split.md)."""

    slug = "split"
    min_players = 2
    max_players = 6
    version = 1

    # -- start ---------------------------------------------------------------------------------

    def _canonical_deck(self, players: int) -> list[str]:
        return list(_CANONICAL)  # the whole 104-card deck at every player count (Setup)

    def _opening(self, players: int, seed: int, options: dict[str, Any]) -> list[dict[str, Any]]:
        """The opening event: GameStarted, with round 1's deck."""
        deck = opening_deck(options, _CANONICAL, seed)
        if options.get("deck") is not None:
            options["deck"] = list(deck)
        return [{"type": "GameStarted", "version": self.version, "players": players, "seed": seed,
                 "options": options, "deck": deck}]

    # -- decide --------------------------------------------------------------------------------

    def decide(self, state: _State, seat: int, move: dict[str, Any]) -> list[dict[str, Any]]:
        """Validates `move` by `seat` and returns the events it causes, automatic ones included."""
        if state.phase == _FINISHED:
            raise IllegalMove("game_over", "the game has ended")
        if not is_int(seat) or seat != state.current or state.phase not in _PHASE_ACTIONS:
            raise IllegalMove("not_your_turn", f"seat {seat!r} is not to act")
        if not isinstance(move, dict):
            raise IllegalMove("malformed_move", "a move is a JSON object")
        action = move.get("action")
        if not isinstance(action, str) or action not in _ACTIONS:
            raise IllegalMove("unknown_action", f"unknown action {action!r}")
        if action not in _PHASE_ACTIONS[state.phase]:
            raise IllegalMove("wrong_phase", f"{action} is not allowed in phase {state.phase}")
        log = _Log(state)
        _DECIDERS[action](log, state, seat, move)
        _settle(log)
        return log.events

    # -- evolve --------------------------------------------------------------------------------

    def evolve(self, state: _State | None, event: dict[str, Any]) -> _State:
        """Pure fold step over the engine's own events."""
        return _EVOLVERS[event["type"]](state, event)

    # -- to_act / legal_moves ------------------------------------------------------------------

    def to_act(self, state: _State) -> list[int]:
        """The one seat whose decision is awaited, or [] when finished."""
        if state.phase in _PHASE_ACTIONS:
            assert state.current is not None  # a phase of decisions has a seat to decide
            return [state.current]
        return []

    def legal_moves(self, state: _State, seat: int) -> list[dict[str, Any]]:
        """Every move decide accepts from `seat` now, in canonical form."""
        phase = state.phase
        if seat != state.current or phase not in _PHASE_ACTIONS or not is_int(seat):
            return []
        if phase == _DRAW:
            return [{"action": "draw"}] + [
                {"action": "take", "card": state.row[i]} for i in _takeable_positions(state, seat)
            ]
        if phase == _PLAY:
            return _play_moves(state, seat)
        if phase == _PERFECT_BONUS:
            return [{"action": "penalize", "seat": t} for t in range(state.players) if t != seat]
        if phase == _STRONG_BONUS:
            return [{"action": "bonus_draw"}, {"action": "skip"}]
        if phase == _WEAK_BONUS:
            trades = [{"action": "trade", "give": give, "take": take} for give, take in _trades(state, seat)]
            return trades + [{"action": "skip"}]
        # last_matches
        return [{"action": "match", "cards": [top, bottom]} for top, bottom in _pairs(state.hands[seat])] + [
            {"action": "done"}
        ]

    # -- view ----------------------------------------------------------------------------------

    def view(self, state: _State, seat: int | None) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see."""
        self.check_view_seat(seat, state.players)
        finished = state.phase == _FINISHED
        outcome = self.outcome(state)
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "to_act": self.to_act(state),
            "phase": state.phase,
            "finished": finished,
            "outcome": outcome,
            "hand": None if seat is None else _sorted_cards(state.hands[seat]),
            "seats": [_seat_view(state, s) for s in range(state.players)],
            "round": state.round,
            "dealer": state.dealer,
            "current": None if finished else state.current,
            "draw_pile": len(state.deck) - state.pile_pos,
            "discard_row": list(state.row),
            "matches": [_match_view(match) for match in state.matches],
            "must_use": state.must_use,
            "round_enders": list(state.enders),
        }

    # -- redact --------------------------------------------------------------------------------

    def redact(self, event: dict[str, Any], seat: int | None) -> dict[str, Any] | None:
        """The event as `seat` may see it: no deck order, no seed, no other seat's drawn card."""
        kind = event.get("type")
        if kind == "GameStarted":
            options = {k: v for k, v in event.get("options", {}).items() if k != "deck"}
            deal = _redacted_deal(event["deck"], event["players"], event["players"] - 1, seat)
            return {"type": "GameStarted", "version": event.get("version"), "players": event["players"],
                    "options": options, "round": 1, **deal}
        if kind == "RoundStarted":
            deal = _redacted_deal(event["deck"], event["players"], event["dealer"], seat)
            return {"type": "RoundStarted", "round": event["round"], "players": event["players"], **deal}
        if kind in ("CardDrawn", "BonusCardDrawn") and event.get("seat") != seat:
            return {"type": kind, "seat": event["seat"]}
        return dict(event)

    # -- outcome -------------------------------------------------------------------------------

    def outcome(self, state: _State) -> dict[str, Any] | None:
        """Ranks by pad total, then fewer negative boxes (D12); None while the game runs."""
        if state.phase != _FINISHED:
            return None
        scores, match_points, negative_points, boxes = _standings(state)
        ranks = _ranks(scores, boxes)
        return {
            "finished": True,
            "ranks": ranks,
            "scores": scores,
            "winners": [s for s, rank in enumerate(ranks) if rank == 1],
            "cooperative": False,
            "detail": {
                "match_points": match_points,
                "negative_points": negative_points,
                "negative_boxes": boxes,
                "round_enders": list(state.enders),
            },
        }


_DEALS_TRIED = 1000  # the real deal is one that works, so some deal soon does


def determinize(view: dict[str, Any], rng: random.Random) -> _State:
    """A state with this view: the other hands and the draw pile dealt at random with `rng`.

    The unseen cards (this round's deck less the seat's hand, the row, the matches and the row
    card another seat must use) go to the other hands, by their counts, and the pile, dealt again
    until that seat can use the card (the other cards a seat took from the row are public in the
    log but not in the view: they are dealt as unseen). The seed of later rounds is drawn from
    `rng` too, as it is hidden. What the view does not say is inferred from the phase: the
    ender of a last-matches phase is the seat with no cards, and a turn is its seat's first
    while some seat has had no turn this round. For the search bots (games/bots/search.py).
    """
    players, seat, phase = view["players"], view["seat"], view["phase"]
    seats = view["seats"]
    matches = tuple(_Match(match["id"], match["owner"], match["top"], match["bottom"], tuple(match["covered"]))
                    for match in view["matches"])
    current, must_use = view["current"], view["must_use"]
    # The row card another seat has just taken and must use is in its hand, face up (R3).
    shown = {current: [must_use]} if must_use is not None and current != seat else {}
    seen = [*view["hand"], *view["discard_row"], *(card for cards in shown.values() for card in cards)]
    seen += [card for match in matches for card in (match.top, match.bottom, *match.covered)]
    others = [s for s in range(players) if s != seat]
    sizes = [seats[s]["hand_size"] - len(shown.get(s, ())) for s in others] + [view["draw_pile"]]
    unseen = unseen_cards(_CANONICAL if view["round"] else (), seen, sum(sizes))
    had_turn = tuple(entry["had_turn"] for entry in seats)
    ender, waiting = None, ()
    if phase == _LAST_MATCHES:
        ender = next(s for s in range(players) if not seats[s]["hand_size"])
        order = [(ender + step) % players for step in range(1, players)]  # R16: from the ender's left
        waiting = tuple(s for s in order[order.index(current) + 1 :] if not had_turn[s])
    state = None
    for _ in range(_DEALS_TRIED):
        *dealt, pile = deal_hidden(unseen, sizes, rng)
        hands = [frozenset(view["hand"])] * players
        for other, cards in zip(others, dealt, strict=True):
            hands[other] = frozenset([*cards, *shown.get(other, ())])
        state = _State(
            version=ENGINE.version,
            players=players,
            seed=rng.getrandbits(32),
            round=view["round"],
            dealer=view["dealer"],
            phase=phase,
            current=current,
            hands=tuple(hands),
            deck=tuple(pile),
            pile_pos=0,
            row=tuple(view["discard_row"]),
            matches=matches,
            base_id=matches[0].id if matches else 1,
            must_use=must_use,
            had_turn=had_turn,
            first_turn=not all(had_turn),
            waiting=waiting,
            ender=ender,
            end_reason="went_out" if ender is not None else None,
            match_marks=tuple(tuple(entry["match_rows"][rank] for rank in _RANKS) for entry in seats),
            negative_marks=tuple(tuple(entry["negative_rows"]) for entry in seats),
            enders=tuple(view["round_enders"]),
        )
        if not shown or ENGINE.legal_moves(state, current):
            break  # a seat takes from the row only a card it can use at once (R3): deal again until so
    assert state is not None  # _DEALS_TRIED > 0
    return state


ENGINE = SplitEngine()


# ---------------------------------------------------------------------------------------------
# decide: one handler per action; each validates, then emits through the log.


class _Log:
    """The events decide is producing, with the state they lead to."""

    __slots__ = ("state", "events")

    def __init__(self, state: _State) -> None:
        self.state = state
        self.events: list[dict[str, Any]] = []

    def emit(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        self.state = _EVOLVERS[event["type"]](self.state, event)


def _decide_draw(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    # R1: the pile is never empty in phase draw (drawing its last card ends the round, R2).
    log.emit({"type": "CardDrawn", "seat": seat, "card": state.deck[state.pile_pos]})


def _decide_take(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    card = _card_field(move, "card")
    if card not in state.row:
        raise IllegalMove("card_not_in_row", f"{card} is not in the discard row")
    position = state.row.index(card)
    if position not in _takeable_positions(state, seat):
        raise IllegalMove("card_not_playable", f"{card} could not be used in a match or an upgrade (R3)")
    log.emit({"type": "CardsTaken", "seat": seat, "cards": list(state.row[position:])})


def _decide_match(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    cards = move.get("cards")
    if not isinstance(cards, list) or len(cards) != 2 or not all(isinstance(c, str) for c in cards):
        raise IllegalMove("malformed_move", "match needs cards: [top half, bottom half]")
    hand = state.hands[seat]
    for card in cards:
        if card not in hand:
            raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    if state.phase == _PLAY:
        if state.must_use is not None and state.must_use not in cards:
            raise IllegalMove("must_use_taken_card", f"first use the taken card {state.must_use} (R5)")
        if len(hand) < 3:
            raise IllegalMove("must_keep_a_card", "you must keep a card to discard (R6)")
    first, second = cards
    if first == second or first[0] != second[0] or first[2] == second[2]:
        raise IllegalMove("not_a_match", "a match is one top and one bottom half of the same rank (R7)")
    top, bottom = (first, second) if first[2] == "t" else (second, first)
    log.emit({"type": "MatchMade", "seat": seat, "id": state.base_id + len(state.matches), "top": top,
              "bottom": bottom, "kind": _KIND_NAMES[_kind(top, bottom)]})


def _decide_upgrade(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    card = _card_field(move, "card")
    match_id = move.get("match")
    if not is_int(match_id):
        raise IllegalMove("malformed_move", "upgrade needs an integer match id")
    if card not in state.hands[seat]:
        raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    if state.must_use is not None and card != state.must_use:
        raise IllegalMove("must_use_taken_card", f"first use the taken card {state.must_use} (R5)")
    if len(state.hands[seat]) < 2:
        raise IllegalMove("must_keep_a_card", "you must keep a card to discard (R6)")
    match = _find_match(state, match_id)
    new_kind = _upgraded_kind(match, card)
    if new_kind is None:
        raise IllegalMove("not_an_upgrade", f"{card} does not make match {match_id} stronger (R8)")
    covered = match.top if card[2] == "t" else match.bottom
    log.emit({"type": "MatchUpgraded", "seat": seat, "id": match_id, "card": card, "covered": covered,
              "kind": _KIND_NAMES[new_kind], "previous_owner": match.owner})


def _decide_discard(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    card = _card_field(move, "card")
    if card not in state.hands[seat]:
        raise IllegalMove("card_not_in_hand", f"{card} is not in your hand")
    if state.must_use is not None:
        raise IllegalMove("must_use_taken_card", f"first use the taken card {state.must_use} (R5)")
    log.emit({"type": "CardDiscarded", "seat": seat, "card": card})


def _decide_penalize(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    target = move.get("seat")
    if not is_int(target):
        raise IllegalMove("malformed_move", "penalize needs an integer seat")
    if target == seat or not 0 <= target < state.players:
        raise IllegalMove("bad_target", "penalize another player's seat (R10)")
    log.emit({"type": "PlayerPenalized", "seat": seat, "target": target})


def _decide_bonus_draw(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    # R11: the pile is never empty here (its last card would have ended the round, R2).
    log.emit({"type": "BonusCardDrawn", "seat": seat, "card": state.deck[state.pile_pos]})


def _decide_skip(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    bonus = "strong" if state.phase == _STRONG_BONUS else "weak"
    log.emit({"type": "BonusSkipped", "seat": seat, "bonus": bonus, "automatic": False})


def _decide_trade(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    give_id, take_id = move.get("give"), move.get("take")
    if not is_int(give_id) or not is_int(take_id):
        raise IllegalMove("malformed_move", "trade needs integer give and take match ids")
    give, take = _find_match(state, give_id), _find_match(state, take_id)
    if give.owner != seat or take.owner == seat or _match_kind(give) != _match_kind(take):
        raise IllegalMove("bad_trade", "trade a match of yours for another player's of the same kind (R12)")
    log.emit({"type": "MatchesTraded", "seat": seat, "give": give_id, "take": take_id, "other": take.owner})


def _decide_done(log: _Log, state: _State, seat: int, move: dict[str, Any]) -> None:
    log.emit({"type": "LastMatchesDone", "seat": seat, "automatic": False})


_DECIDERS: dict[str, Callable[[_Log, _State, int, dict[str, Any]], None]] = {
    "draw": _decide_draw,
    "take": _decide_take,
    "match": _decide_match,
    "upgrade": _decide_upgrade,
    "discard": _decide_discard,
    "penalize": _decide_penalize,
    "bonus_draw": _decide_bonus_draw,
    "skip": _decide_skip,
    "trade": _decide_trade,
    "done": _decide_done,
}


def _current(state: _State) -> int:
    """The seat to act, in a phase that has one (every phase of decisions does)."""
    assert state.current is not None
    return state.current


def _settle(log: _Log) -> None:
    """Emits the engine's own moves until a seat has a real decision (or the game is over)."""
    while True:
        state = log.state
        phase = state.phase
        if phase == _WEAK_BONUS and not _trades(state, _current(state)):
            # R12 / D7: no possible trade, the engine skips the bonus.
            log.emit({"type": "BonusSkipped", "seat": state.current, "bonus": "weak", "automatic": True})
        elif phase == _LAST_MATCHES and not _pairs(state.hands[_current(state)]):
            # R16 / D10: a seat that cannot make a match is done automatically.
            log.emit({"type": "LastMatchesDone", "seat": state.current, "automatic": True})
        elif phase == _ROUND_OVER:
            log.emit(_round_ended(state))
        elif phase == _BETWEEN:
            if state.round < _ROUNDS:
                # R15: the k-th reshuffle (k = 1 before round 2, 2 before round 3); the ender deals.
                deck = seeded_shuffle(_CANONICAL, state.seed, state.round)
                log.emit({"type": "RoundStarted", "round": state.round + 1, "dealer": state.enders[-1],
                          "players": state.players, "deck": deck})
            else:
                scores, _, _, boxes = _standings(state)
                log.emit({"type": "GameEnded", "scores": scores, "ranks": _ranks(scores, boxes)})
        else:
            return


def _round_ended(state: _State) -> dict[str, Any]:
    """R14: each match marks its owner's rank row; each card in hand marks the round's negative row."""
    match_ranks: list[list[str]] = [[] for _ in range(state.players)]
    for match in state.matches:
        match_ranks[match.owner].append(match.top[0])
    return {"type": "RoundEnded", "round": state.round, "ender": state.ender, "reason": state.end_reason,
            "match_ranks": match_ranks, "cards_left": [len(hand) for hand in state.hands]}


# ---------------------------------------------------------------------------------------------
# evolve: one handler per event type.


def _on_game_started(_state: None, event: _GameStarted) -> _State:
    players = event["players"]
    state = _State(
        version=event.get("version", 1), players=players, seed=event["seed"], round=0, dealer=players - 1,
        phase=_BETWEEN, current=None, hands=(frozenset(),) * players, deck=(), pile_pos=0, row=(),
        matches=(), base_id=1, must_use=None, had_turn=(False,) * players, first_turn=False, waiting=(),
        ender=None, end_reason=None, match_marks=((0,) * len(_RANKS),) * players,
        negative_marks=((0,) * _ROUNDS,) * players, enders=(),
    )
    # Round 1: seat players - 1 deals, so seat 0 moves first (D4).
    return _deal(state, 1, players - 1, event["deck"])


def _on_round_started(state: _State, event: _RoundStarted) -> _State:
    return _deal(state, event["round"], event["dealer"], event["deck"])


def _deal(state: _State, round_number: int, dealer: int, cards: list[str]) -> _State:
    players = state.players
    deck = tuple(cards)
    first = (dealer + 1) % players
    dealt = players * _HAND_SIZE
    # Setup: one card at a time, round-robin from the first player.
    hands = tuple(frozenset(deck[(seat - first) % players:dealt:players]) for seat in range(players))
    return _replace(
        state,
        round=round_number, dealer=dealer, phase=_DRAW, current=first, hands=hands, deck=deck,
        pile_pos=dealt + 1, row=(deck[dealt],), matches=(), base_id=state.base_id + len(state.matches),
        must_use=None, had_turn=(False,) * players, first_turn=False, waiting=(), ender=None, end_reason=None,
    )


def _on_card_drawn(state: _State, event: _CardDrawn) -> _State:
    # The hottest handlers edit a list of the fields in place of _replace(): replay speed.
    seat = event["seat"]
    values = list(state)
    values[_HANDS] = _put(state.hands, seat, state.hands[seat].union((event["card"],)))
    values[_PILE_POS] = state.pile_pos + 1
    first_turn = not state.had_turn[seat]
    if first_turn:
        values[_HAD_TURN] = _put(state.had_turn, seat, True)
    values[_FIRST_TURN] = first_turn
    values[_PHASE] = _PLAY
    return _maybe_pile_empty(_new_tuple(_State, values), seat)


def _on_bonus_card_drawn(state: _State, event: _CardDrawn) -> _State:
    seat = event["seat"]
    state = _replace(
        state,
        hands=_put(state.hands, seat, state.hands[seat].union((event["card"],))), pile_pos=state.pile_pos + 1,
        phase=_PLAY,
    )
    return _maybe_pile_empty(state, seat)


def _maybe_pile_empty(state: _State, seat: int) -> _State:
    if state.pile_pos < len(state.deck):
        return state
    # R2: the last card of the pile ends the round at once; obligations lapse.
    return _replace(state, phase=_ROUND_OVER, ender=seat, end_reason="pile_empty", must_use=None)


def _on_cards_taken(state: _State, event: _CardsTaken) -> _State:
    seat = event["seat"]
    cards = event["cards"]
    return _replace(
        state,
        hands=_put(state.hands, seat, state.hands[seat].union(cards)),
        row=state.row[: len(state.row) - len(cards)],
        had_turn=_put(state.had_turn, seat, True), first_turn=not state.had_turn[seat], phase=_PLAY,
        must_use=cards[0],
    )


def _on_match_made(state: _State, event: _MatchMade) -> _State:
    seat, top, bottom = event["seat"], event["top"], event["bottom"]
    must_use = state.must_use
    if must_use == top or must_use == bottom:
        must_use = None
    phase = state.phase if state.phase == _LAST_MATCHES else _BONUS_PHASE[_kind(top, bottom)]
    return _replace(
        state,
        hands=_put(state.hands, seat, state.hands[seat] - {top, bottom}),
        matches=state.matches + (_Match(event["id"], seat, top, bottom),), must_use=must_use, phase=phase,
    )


def _on_match_upgraded(state: _State, event: _MatchUpgraded) -> _State:
    seat, card = event["seat"], event["card"]
    index = event["id"] - state.base_id
    match = state.matches[index]
    covered = match.covered + (event["covered"],)
    if card[2] == "t":
        upgraded = _Match(match.id, seat, card, match.bottom, covered)
    else:
        upgraded = _Match(match.id, seat, match.top, card, covered)
    return _replace(
        state,
        hands=_put(state.hands, seat, state.hands[seat] - {card}),
        matches=_put(state.matches, index, upgraded),
        must_use=None if state.must_use == card else state.must_use,
        phase=_BONUS_PHASE[_match_kind(upgraded)],
    )


def _on_player_penalized(state: _State, event: _PlayerPenalized) -> _State:
    target = event["target"]
    marks = state.negative_marks[target]
    column = state.round - 1
    marks = marks[:column] + (marks[column] + 1,) + marks[column + 1:]
    return _replace(state, negative_marks=_put(state.negative_marks, target, marks), phase=_PLAY)


def _on_bonus_skipped(state: _State, event: _BonusSkipped) -> _State:
    return _replace(state, phase=_PLAY)


def _on_matches_traded(state: _State, event: _MatchesTraded) -> _State:
    base = state.base_id
    give_index, take_index = event["give"] - base, event["take"] - base
    matches = state.matches
    matches = _put(matches, give_index, matches[give_index]._replace(owner=event["other"]))
    matches = _put(matches, take_index, matches[take_index]._replace(owner=event["seat"]))
    return _replace(state, matches=matches, phase=_PLAY)


def _on_card_discarded(state: _State, event: _CardDiscarded) -> _State:
    seat, card = event["seat"], event["card"]
    hand = state.hands[seat].difference((card,))
    hands = _put(state.hands, seat, hand)
    row = state.row + (card,)
    if hand:
        # R13: the turn passes to the left.
        values = list(state)
        values[_HANDS] = hands
        values[_ROW] = row
        values[_CURRENT] = (seat + 1) % state.players
        values[_PHASE] = _DRAW
        values[_FIRST_TURN] = False
        return _new_tuple(_State, values)
    state = _replace(state, hands=hands, row=row, ender=seat, end_reason="went_out")
    if state.first_turn:
        # R16: those without a turn yet lay their last matches, in turn order from the left.
        players = state.players
        waiting = tuple(
            s for s in ((seat + step) % players for step in range(1, players)) if not state.had_turn[s]
        )
        if waiting:
            return _replace(state, phase=_LAST_MATCHES, current=waiting[0], waiting=waiting[1:])
    return _replace(state, phase=_ROUND_OVER)


def _on_last_matches_done(state: _State, event: _LastMatchesDone) -> _State:
    if state.waiting:
        return _replace(state, current=state.waiting[0], waiting=state.waiting[1:])
    return _replace(state, phase=_ROUND_OVER, current=state.ender)


def _on_round_ended(state: _State, event: _RoundEnded) -> _State:
    column = state.round - 1
    match_marks = list(state.match_marks)
    negative_marks = list(state.negative_marks)
    for seat, ranks in enumerate(event["match_ranks"]):
        if ranks:
            row = list(match_marks[seat])
            for rank in ranks:
                row[_RANK_INDEX[rank]] += 1
            match_marks[seat] = tuple(row)
    for seat, cards in enumerate(event["cards_left"]):
        if cards:
            row = list(negative_marks[seat])
            row[column] += cards
            negative_marks[seat] = tuple(row)
    return _replace(
        state,
        match_marks=tuple(match_marks), negative_marks=tuple(negative_marks),
        enders=state.enders + (event["ender"],),
        phase=_BETWEEN, must_use=None,
    )


def _on_game_ended(state: _State, event: _GameEnded) -> _State:
    return _replace(state, phase=_FINISHED, current=None)


_EVOLVERS: dict[str, Callable[[Any, Any], _State]] = {
    "GameStarted": _on_game_started,
    "RoundStarted": _on_round_started,
    "CardDrawn": _on_card_drawn,
    "BonusCardDrawn": _on_bonus_card_drawn,
    "CardsTaken": _on_cards_taken,
    "MatchMade": _on_match_made,
    "MatchUpgraded": _on_match_upgraded,
    "PlayerPenalized": _on_player_penalized,
    "BonusSkipped": _on_bonus_skipped,
    "MatchesTraded": _on_matches_traded,
    "CardDiscarded": _on_card_discarded,
    "LastMatchesDone": _on_last_matches_done,
    "RoundEnded": _on_round_ended,
    "GameEnded": _on_game_ended,
}


# ---------------------------------------------------------------------------------------------
# legal_moves helpers


def _pairs(hand: frozenset[str]) -> list[tuple[str, str]]:
    """Every (top, bottom) pair of the same rank in `hand`, in canonical order (R7)."""
    by_rank: dict[str, tuple[list[str], list[str]]] = {}
    for card in hand:
        entry = by_rank.get(card[0])
        if entry is None:
            entry = by_rank[card[0]] = ([], [])
        entry[card[2] == "b"].append(card)
    pairs: list[tuple[str, str]] = []
    for tops, bottoms in by_rank.values():
        if tops and bottoms:
            pairs.extend((top, bottom) for top in tops for bottom in bottoms)
    pairs.sort(key=lambda pair: (_ORDER[pair[0]], _ORDER[pair[1]]))
    return pairs


def _upgraded_kind(match: _Match, card: str) -> int | None:
    """The kind `card` would give `match`, or None if that is no upgrade (R8)."""
    if card[0] != match.top[0]:
        return None
    new = _kind(card, match.bottom) if card[2] == "t" else _kind(match.top, card)
    return new if new > _kind(match.top, match.bottom) else None


def _upgrades(state: _State, cards: Any) -> list[tuple[str, int]]:
    """Every (card, match id) upgrade with one of `cards` (R8)."""
    ranks: dict[str, list[str]] = {}
    for card in _sorted_cards(cards):  # a stable order across processes (str hashes vary)
        ranks.setdefault(card[0], []).append(card)
    found = []
    for match in state.matches:
        for card in ranks.get(match.top[0], ()):
            if _upgraded_kind(match, card) is not None:
                found.append((card, match.id))
    return found


def _upgrading_cards(matches: tuple[_Match, ...]) -> set[str]:
    """Every card that would upgrade at least one of `matches` (R8)."""
    cards = set()
    for match in matches:
        kind = _kind(match.top, match.bottom)
        if kind == _PERFECT:
            continue
        rank, top, bottom = match.top[0], match.top, match.bottom
        for suit in _SUITS:
            if _kind(rank + suit + "t", bottom) > kind:
                cards.add(rank + suit + "t")
            if _kind(top, rank + suit + "b") > kind:
                cards.add(rank + suit + "b")
    return cards


def _takeable_positions(state: _State, seat: int) -> list[int]:
    """Row positions whose card is playable (R3): usable with it and every later card in hand."""
    row = state.row
    hand_size = len(state.hands[seat])
    halves = {card[:1] + card[2] for card in state.hands[seat]}
    upgraders = _upgrading_cards(state.matches)
    positions = []
    for position in range(len(row) - 1, -1, -1):
        card = row[position]
        after = hand_size + len(row) - position  # hand size once taken
        partner = card[0] + ("b" if card[2] == "t" else "t")
        # R6: a match must leave a card (after >= 3), an upgrade too (after >= 2, always true).
        if card in upgraders or (after >= 3 and partner in halves):
            positions.append(position)
        halves.add(card[0] + card[2])
    positions.reverse()
    return positions


def _play_moves(state: _State, seat: int) -> list[dict[str, Any]]:
    """Phase play: matches, upgrades, discards, narrowed by R5 and R6."""
    hand = state.hands[seat]
    must_use = state.must_use
    moves: list[dict[str, Any]] = []
    if len(hand) >= 3:  # R6
        moves.extend(
            {"action": "match", "cards": [top, bottom]}
            for top, bottom in _pairs(hand)
            if must_use is None or must_use == top or must_use == bottom
        )
    if len(hand) >= 2:  # R6
        cards = hand if must_use is None else (must_use,)
        moves.extend({"action": "upgrade", "card": card, "match": match_id}
                     for card, match_id in _upgrades(state, cards))
    if must_use is None:
        moves.extend({"action": "discard", "card": card} for card in _sorted_cards(hand))
    return moves


def _trades(state: _State, seat: int) -> list[tuple[int, int]]:
    """Every (give, take) pair of match ids for a weak bonus trade (R12)."""
    mine = [match for match in state.matches if match.owner == seat]
    if not mine:
        return []
    theirs = [match for match in state.matches if match.owner != seat]
    return [
        (give.id, take.id)
        for give in mine
        for take in theirs
        if _match_kind(give) == _match_kind(take)
    ]


# ---------------------------------------------------------------------------------------------
# view / redact / outcome helpers


def _sorted_cards(cards: Any) -> list[str]:
    return sorted(cards, key=_ORDER.__getitem__)


def _match_view(match: _Match) -> _MatchView:
    return {"id": match.id, "owner": match.owner, "top": match.top, "bottom": match.bottom,
            "kind": _KIND_NAMES[_match_kind(match)], "covered": list(match.covered)}


def _pad_points(state: _State, seat: int) -> tuple[int, int]:
    return _marks_points(state.match_marks[seat], state.negative_marks[seat])


@functools.lru_cache(maxsize=4096)
def _marks_points(match_marks: tuple[int, ...], negative_marks: tuple[int, ...]) -> tuple[int, int]:
    """A pad's match and negative points. Memoised: a view reads every seat's, and the search
    bots read thousands of views a move over pads that seldom change (40 % of a move's time)."""
    match_points = sum(_MATCH_VALUE[index][min(count, _MATCH_BOXES)] for index, count in enumerate(match_marks))
    negative_points = sum(_NEGATIVE_VALUE[min(count, _NEGATIVE_BOXES)] for count in negative_marks)
    return match_points, negative_points


def _seat_view(state: _State, seat: int) -> _SeatView:
    match_points, negative_points = _pad_points(state, seat)
    return {
        "seat": seat,
        "hand_size": len(state.hands[seat]),
        "had_turn": state.had_turn[seat],
        "match_rows": dict(zip(_RANKS, state.match_marks[seat], strict=True)),
        "negative_rows": list(state.negative_marks[seat]),
        "match_points": match_points,
        "negative_points": negative_points,
        "score": match_points - negative_points,
    }


def _standings(state: _State) -> tuple[list[int], list[int], list[int], list[int]]:
    """Per seat: pad total, match points, negative points, negative boxes marked (uncapped)."""
    points = [_pad_points(state, seat) for seat in range(state.players)]
    match_points = [m for m, _ in points]
    negative_points = [n for _, n in points]
    scores = [m - n for m, n in points]
    boxes = [sum(marks) for marks in state.negative_marks]
    return scores, match_points, negative_points, boxes


def _ranks(scores: list[int], boxes: list[int]) -> list[int]:
    # Higher total first, then fewer negative boxes (D12); the box count is far below 10**6.
    return competition_ranks([score * 1_000_000 - box for score, box in zip(scores, boxes, strict=True)])


def _redacted_deal(deck: list[str], players: int, dealer: int, seat: int | None) -> dict[str, Any]:
    """A round's opening as a seat sees it: the dealer, the row card, and its own nine cards."""
    dealt = players * _HAND_SIZE
    deal: dict[str, Any] = {"dealer": dealer, "discard_row": [deck[dealt]]}
    if seat is not None:
        first = (dealer + 1) % players
        deal["hand"] = _sorted_cards(deck[(seat - first) % players:dealt:players])
    return deal


# ---------------------------------------------------------------------------------------------
# private helpers


_new_tuple = tuple.__new__  # the hottest handlers write a few fields by position, below


_HANDS, _PILE_POS, _HAD_TURN, _FIRST_TURN, _PHASE, _ROW, _CURRENT = (
    _State._fields.index(name)
    for name in ("hands", "pile_pos", "had_turn", "first_turn", "phase", "row", "current")
)


def _put(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    """`items` with `items[index]` replaced by `value` (a new tuple)."""
    return items[:index] + (value,) + items[index + 1:]


def _card_field(move: dict[str, Any], key: str) -> str:
    card = move.get(key)
    if not isinstance(card, str):
        raise IllegalMove("malformed_move", f"{key} must be a card string")
    return card


def _find_match(state: _State, match_id: int) -> _Match:
    index = match_id - state.base_id
    if not 0 <= index < len(state.matches):
        raise IllegalMove("no_such_match", f"there is no match {match_id} on the table")
    return state.matches[index]
