"""Helpers shared by the engines (shared/ENGINE.md). Pure Python: no Django, no I/O, no clock."""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeGuard, TypeVar

_StateT = TypeVar("_StateT", bound=tuple[Any, ...])


class IllegalMove(Exception):
    """A move that `decide` refuses; `code` is stable and machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Engine:
    """Base for engines: subclasses set slug/min_players/max_players and implement the contract.

    `start` and `canonical_deck` check their arguments here and call the engine's own
    `_opening` and `_canonical_deck`. `replay` is the fold of `evolve` from nothing (state `None`), so every engine's
    `evolve` must accept `None` as the state before `GameStarted`.
    """

    slug: str = ""
    min_players: int = 1
    max_players: int = 1
    known_options: tuple[str, ...] = ("deck",)  # the keys `start` accepts in `options`

    def start(self, players: int, seed: int, options: dict[str, Any] | None = None) -> list[Any]:
        """The opening events: the arguments are checked here, once, then the game's `_opening`.

        A bad player count, a seed that is not an integer or an unknown option raises ValueError.
        """
        self.check_players(players)
        if not is_int(seed):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        return self._opening(players, seed, check_options(options, self.known_options))

    def _opening(self, players: int, seed: int, options: dict[str, Any]) -> list[Any]:  # pragma: no cover - abstract
        """GameStarted and what follows it; `options` is a new dict holding known keys only."""
        raise NotImplementedError

    def replay(self, events: Iterable[dict[str, Any]]) -> Any:
        state = None
        evolve = self.evolve
        for event in events:
            state = evolve(state, event)
        return state

    def evolve(self, state: Any, event: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    # The rest of the contract (shared/ENGINE.md), declared so callers of `ENGINES[slug]` are
    # checked. States, events and moves are each engine's own shapes: `Any` here.
    version: int

    def decide(self, state: Any, seat: int, move: Any) -> list[Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def to_act(self, state: Any) -> list[int]:  # pragma: no cover - abstract
        raise NotImplementedError

    def legal_moves(self, state: Any, seat: int) -> list[dict[str, Any]]:  # pragma: no cover - abstract
        raise NotImplementedError

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def redact(self, event: Any, seat: int | None) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def outcome(self, state: Any) -> dict[str, Any] | None:  # pragma: no cover - abstract
        raise NotImplementedError

    # A cooperative game's team may give the game up together (the proposed extension of
    # shared/ENGINE.md, `concede`). No seat's move: the server appends these events once every
    # person still playing a seat has agreed, and the verifier asks `concede` for them again.
    cooperative: bool = False

    def concede(self, state: Any) -> list[Any]:
        """The events of the team conceding the game now (a loss); IllegalMove `game_not_cooperative`
        in a game without a team, `game_over` once it has ended."""
        raise IllegalMove("game_not_cooperative", f"{self.slug} is not a cooperative game: there is no team to concede")

    def canonical_deck(self, players: int) -> list[str]:
        """The game's deck for `players`, in the rules page's canonical card order (a new list).

        It is the deck `start` shuffles with the seed and the multiset `options["deck"]` must
        match; tournaments deal duplicate decks from it. A bad player count raises ValueError.
        """
        self.check_players(players)
        return self._canonical_deck(players)

    def _canonical_deck(self, players: int) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def check_players(self, players: Any) -> None:
        """`start` and `canonical_deck` refuse a player count outside the game's range (ValueError)."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be an integer, not {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.slug} takes {self.min_players} to {self.max_players} players, not {players}")

    @staticmethod
    def check_view_seat(seat: Any, players: int) -> None:
        """`view` refuses a seat that is neither None nor in range (ValueError)."""
        if seat is None:
            return
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be None or 0..{players - 1}, not {seat!r}")


def check_options(options: dict[str, Any] | None, allowed: Iterable[str]) -> dict[str, Any]:
    """Returns the options as a dict, refusing unknown keys (ValueError)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ValueError("options must be an object")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"unknown options: {', '.join(map(str, unknown))}")
    return dict(options)


def opening_deck(options: dict[str, Any], canonical: Sequence[str], seed: int) -> list[str]:
    """The first deal's deck, top card first: `options["deck"]` if given, else the seeded shuffle.

    `canonical` is the deck for this player count in the rules page's canonical order.
    A given deck must be exactly that multiset (ValueError otherwise).
    """
    given = options.get("deck")
    if given is None:
        return seeded_shuffle(canonical, seed, 0)
    if not isinstance(given, list) or not all(isinstance(card, str) for card in given):
        raise ValueError("options.deck must be a list of card strings")
    if Counter(given) != Counter(canonical):
        raise ValueError("options.deck is not exactly the deck for this player count")
    return list(given)


def seeded_shuffle(canonical: Sequence[str], seed: int, k: int) -> list[str]:
    """The k-th shuffle of a game (k = 0 for the opening deck), as ENGINE.md fixes it.

    The caller passes the cards already sorted in canonical order.
    """
    cards = list(canonical)
    random.Random(seed if k == 0 else f"{seed}:{k}").shuffle(cards)
    return cards


def replacer(state_type: type[_StateT]) -> Callable[..., _StateT]:
    """A fast `state._replace(**changes)` for a NamedTuple state type: replay speed rests on it.

    `_replace` builds a dict of every field and pops each one; this copies the values and
    writes only the changed fields: about twice as fast for the two or three fields an event
    usually changes (timeit: 0.6-0.9 µs against 1.0-1.7 µs on Ten, Sequence Stacks and Split).
    An unknown field name raises KeyError where `_replace` raises ValueError.
    """
    position = {name: index for index, name in enumerate(state_type._fields)}  # type: ignore[attr-defined]
    new = tuple.__new__

    def replace(state: _StateT, **changes: Any) -> _StateT:
        values = list(state)
        for name, value in changes.items():
            values[position[name]] = value
        return new(state_type, values)

    replace.__qualname__ = replace.__name__ = f"replace_{state_type.__name__}"
    return replace


def competition_ranks(scores: Sequence[float], *, higher_is_better: bool = True) -> list[int]:
    """Standard competition ranks ("1224"): tied seats share a rank and the next rank skips."""
    sign = -1 if higher_is_better else 1
    keys = [sign * score for score in scores]
    return [1 + sum(1 for other in keys if other < key) for key in keys]


def is_int(value: object) -> TypeGuard[int]:
    """True for a JSON integer; booleans are not integers in a move."""
    return isinstance(value, int) and not isinstance(value, bool)


def unseen_cards(deck: Iterable[str], seen: Iterable[str], count: int) -> list[str]:
    """The deck less every card a view shows, as a multiset in the deck's order: what `determinize` deals.

    `count` is how many hidden places the view counts (other hands, face-down piles); a view
    whose seen cards do not leave exactly that many is not one the engine could have shown
    (ValueError).
    """
    left = Counter(deck)
    left.subtract(seen)
    if any(copies < 0 for copies in left.values()):
        raise ValueError("the view shows a card the deck does not hold")
    cards = list(left.elements())
    if len(cards) != count:
        raise ValueError(f"the view hides {count} cards, but {len(cards)} are unseen")
    return cards


def deal_hidden(cards: list[str], sizes: Sequence[int], rng: random.Random) -> list[list[str]]:
    """`cards` shuffled with `rng` and cut into parts of `sizes` (their sum is `len(cards)`)."""
    shuffled = list(cards)
    rng.shuffle(shuffled)
    parts, start = [], 0
    for size in sizes:
        parts.append(shuffled[start : start + size])
        start += size
    return parts
