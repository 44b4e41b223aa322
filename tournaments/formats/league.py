"""Leagues: a season of matchdays on a calendar, each matchday a round of an inner format.

The inner format is any other format (`format` option, default "round-robin"; a
season of Swiss rounds or of Swiss tables works the same way) and takes the same
options. The calendar gives each matchday its date:

- `start`: the first matchday's date (without it, pairings carry no date: the server
  gives a league created without one the day it starts, `services.start._start`);
- `every_days`: days between matchdays (default 7, weekly), or
- `weekdays`: the weekdays play falls on (0 = Monday ... 6 = Sunday), e.g. [1, 4]
  for Tuesdays and Fridays, from `start` on;
- `skip_dates`: dates with no play (holidays); a matchday falling there moves to the
  next slot of the calendar, and the rest of the season moves with it.

The standings table is the inner format's (points by finishing position and
tie-breaks, or mean team score for a cooperative game).
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from tournaments.formats import (
    double_elimination,
    round_robin,
    single_elimination,
    swiss,
    swiss_tables,
    table_elimination,
)
from tournaments.formats._common import Field, History, Options, Pairing
from tournaments.formats.base import Format

INNER_FORMATS: dict[str, Format] = {
    module.FORMAT.slug: module.FORMAT
    for module in (single_elimination, double_elimination, round_robin, swiss, swiss_tables,
                   table_elimination)
}
_CALENDAR_KEYS = frozenset({"format", "start", "every_days", "weekdays", "skip_dates"})


class LeagueFormat(Format):
    """A league: the inner format's rounds as dated matchdays."""

    slug = "league"

    def inner(self, options: Mapping[str, Any] | Options | None = None) -> Format:
        """The inner format named by the `format` option."""
        if isinstance(options, Options):
            name = options.format
        else:
            name = (options or {}).get("format", "round-robin")
        if name not in INNER_FORMATS:
            raise ValueError(f"a league plays one of {', '.join(sorted(INNER_FORMATS))}, not {name!r}")
        return INNER_FORMATS[name]

    def options(self, raw: Mapping[str, Any] | Options | None = None) -> Options:
        inner = self.inner(raw)
        opts = Options.parse(raw, inner.option_keys | _CALENDAR_KEYS)
        inner.options(opts)  # the inner format's own checks
        return opts

    def total_rounds(self, entrant_count: int,
                     options: Mapping[str, Any] | Options | None = None) -> int | None:
        opts = self.options(options)
        return self.inner(opts).total_rounds(entrant_count, opts)

    def bye_points(self, options: Options) -> Fraction:
        return self.inner(options).bye_points(options)

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        pairing = self.inner(options)._pair(field_, options, history)
        if pairing is None or options.start is None:
            return pairing
        day = matchday_date(options.start, pairing.round, every_days=options.every_days,
                            weekdays=options.weekdays, skip=options.skip_dates)
        return replace(pairing, date=day)

    def calendar(self, entrant_count: int,
                 options: Mapping[str, Any] | Options | None = None) -> list[dt.date]:
        """Every matchday's date, when the season's length is known in advance (else [])."""
        opts = self.options(options)
        count = self.total_rounds(entrant_count, opts)
        if opts.start is None or count is None:
            return []
        return matchday_dates(opts.start, count, every_days=opts.every_days, weekdays=opts.weekdays,
                              skip=opts.skip_dates)


FORMAT = LeagueFormat()


def matchday_dates(start: dt.date, count: int, *, every_days: int = 7, weekdays: Sequence[int] = (),
                   skip: Sequence[dt.date] = ()) -> list[dt.date]:
    """The dates of the first `count` matchdays."""
    slots = _slots(start, every_days, weekdays, frozenset(skip))
    return [next(slots) for _ in range(count)]


def matchday_date(start: dt.date, number: int, *, every_days: int = 7, weekdays: Sequence[int] = (),
                  skip: Sequence[dt.date] = ()) -> dt.date:
    """The date of matchday `number` (1-based)."""
    return matchday_dates(start, number, every_days=every_days, weekdays=weekdays, skip=skip)[-1]


def _slots(start: dt.date, every_days: int, weekdays: Sequence[int],
           skip: frozenset[dt.date]) -> Iterator[dt.date]:
    day, step = start, dt.timedelta(days=1 if weekdays else every_days)
    while True:
        if (not weekdays or day.weekday() in weekdays) and day not in skip:
            yield day
        try:
            day += step
        except OverflowError:
            raise ValueError("the calendar runs past the year 9999") from None
