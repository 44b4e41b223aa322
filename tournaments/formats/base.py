"""The format contract: the base class every pairing format derives from.

Pure Python, as the rest of `tournaments.formats`. It sits above the shapes (`_common`), the
duplicate deals and the standings it combines, so none of those needs to import it back.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from tournaments import standings as _standings
from tournaments.formats._common import COMMON_KEYS, Entrant, Field, History, Options, Pairing, PlayerId, Result, Table
from tournaments.formats.duplicate import with_deals


class Format:
    """Base of every format: `next_round`, `standings`, `total_rounds`.

    Subclasses set `slug`, `option_keys`, `two_player` and implement `_pair`.
    """

    slug: str = ""
    option_keys: frozenset[str] = COMMON_KEYS
    two_player: bool = True
    default_bye_points: Fraction = Fraction(1)

    def options(self, raw: Mapping[str, Any] | Options | None = None) -> Options:
        """The validated options (ValueError on unknown keys or bad values)."""
        options = Options.parse(raw, self.option_keys)
        if self.two_player and not options.min_players <= 2 <= options.max_players:
            raise ValueError(f"{self.slug} seats two players a table; the game takes "
                             f"{options.min_players} to {options.max_players}")
        if options.cooperative and self.two_player:
            raise ValueError(f"{self.slug} needs a competitive game")
        return options

    def next_round(self, entrants: Sequence[Entrant | PlayerId],
                   options: Mapping[str, Any] | Options | None = None,
                   history: History | None = None) -> Pairing | None:
        """The next round's pairing given everything so far, or None when the format is finished."""
        field_, opts, past = self._inputs(entrants, options, history)
        pairing = self._pair(field_, opts, past)
        if pairing is not None and opts.duplicate:
            pairing = with_deals(pairing, opts.seed)
        return pairing

    def standings(self, entrants: Sequence[Entrant | PlayerId],
                  options: Mapping[str, Any] | Options | None = None,
                  history: History | None = None) -> list[_standings.Standing]:
        """The standings table, best first, with this format's bye points."""
        opts = self.options(options)
        return _standings.standings(entrants, history or History(), bye_points=self.bye_points(opts),
                                    cooperative=opts.cooperative, seeding=opts.seeding)

    def total_rounds(self, entrant_count: int,
                     options: Mapping[str, Any] | Options | None = None) -> int | None:
        """How many rounds the format plays for that many entrants, if known in advance."""
        return None

    def _inputs(self, entrants: Sequence[Entrant | PlayerId], options: Mapping[str, Any] | Options | None,
                history: History | None) -> tuple[Field, Options, History]:
        """Validated options, the history (empty if None) and the field in seed order."""
        opts = self.options(options)
        past = history or History()
        field_ = Field.build(entrants, opts.seeding, past)
        if len(field_.entrants) < 2:
            raise ValueError("a tournament needs at least two entrants")
        return field_, opts, past

    def bye_points(self, options: Options) -> Fraction:
        return self.default_bye_points if options.bye_points is None else options.bye_points

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        raise NotImplementedError  # pragma: no cover - abstract


def play(fmt: Format, entrants: Sequence[Entrant | PlayerId], options: Mapping[str, Any] | Options | None,
         outcome: Callable[[int, Table], Result], history: History | None = None,
         max_rounds: int = 10_000) -> tuple[list[Pairing], History]:
    """Plays a format to its end with `outcome(round, table) -> Result` (simulations, demos, tests)."""
    past = history or History()
    rounds = []
    for _ in range(max_rounds):
        pairing = fmt.next_round(entrants, options, past)
        if pairing is None:
            break
        rounds.append(pairing)
        past = past.with_round(pairing, [outcome(pairing.round, table) for table in pairing.tables])
    return rounds, past
