"""Who is really there: the organiser's rules for the field, and the names of the decisions they make.

Pure Python (no Django): a tournament keeps its rules as a JSON object (`Tournament.field_rules`,
also written into its `TournamentCreated` event) and every change to the field that a rule makes
is an event whose data names the rule (`rule`, one of `RULES`) and says why in a sentence (`why`).

- check_in_minutes: the check-in window before `starts_at` (null: no check-in; without a start
  time the window is open all through registration). People who have not checked in when the
  tournament starts are dropped (CheckInMissed); bots are always in.
- waitlist: how many may wait past `max_entrants` (0: none, registration is refused when full).
  A seat freed before the start (a withdrawal, or a missed check-in at the start) goes to the
  first in line (PlayerPromoted); with check-in on, only someone who has checked in is promoted
  at the start. Whoever still waits when the tournament starts is not admitted (WaitlistClosed).
- late_entry: people may join a running Swiss (PlayerLateEntered) until `late_entry_until_round`
  has begun: their first round is at most that round (null: half the rounds, rounded up, as
  lichess allows joining "until half the rounds have started").
- late_entry_award: what a late entrant scores for the rounds they missed: "bye" (one bye, a
  bye's points, in the last round they missed: the format then gives them no pairing bye while
  anyone has none) or "zero".
- reentry: a player who dropped may come back by themselves (the organiser may always re-admit
  them) (PlayerReentered). Missed rounds score nothing and count as no bye, so leaving and
  rejoining never earns a bye (the lichess leave-and-rejoin exploit, lila#12497).
- no_show_seconds: a person who, this long after their table opened, has not played a move of
  their own while the clock has played for them forfeits the table (NoShowsForfeited); separate
  from the turn clock, which only plays the move.
- no_show_drop_after: after this many forfeits a player is dropped from the next round
  (PlayerDropped); null: never.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

# Formats whose field may change after the start: a Swiss pairs whoever is there each round. A
# bracket or a round robin fixes its schedule from the field at the start.
CHANGING_FIELD_FORMATS = frozenset({"swiss", "swiss-tables"})
AWARDS = ("bye", "zero")

# The rule each decision names, with the sentence its `why` starts from.
RULES: dict[str, str] = {
    "waitlist.joined": "The tournament was full: registration joined the waitlist.",
    "waitlist.promoted": "A seat was freed before the start: the first on the waitlist took it.",
    "waitlist.closed": "The tournament started: nobody left on the waitlist was admitted.",
    "check_in.checked_in": "The player checked in.",
    "check_in.missed": "The player had not checked in when the tournament started.",
    "drop.requested": "The player dropped.",
    "drop.by_organiser": "The organiser dropped the player.",
    "late_entry.joined": "The player joined late.",
    "reentry.player": "The player came back after dropping (re-entry allowed).",
    "reentry.organiser": "The organiser re-admitted the player.",
    "no_show.forfeit": "Absent from the table: the table is forfeited.",
    "no_show.dropped": "Too many forfeits: the player is dropped.",
}


@dataclass(frozen=True)
class FieldRules:
    """The organiser's rules for the field; the defaults change nothing of a tournament's field."""

    check_in_minutes: int | None = None
    waitlist: int = 0
    late_entry: bool = False
    late_entry_until_round: int | None = None
    late_entry_award: str = "bye"
    reentry: bool = False
    no_show_seconds: int | None = None
    no_show_drop_after: int | None = None

    @classmethod
    def parse(cls, raw: Mapping[str, Any] | None, *, format: str = "swiss") -> FieldRules:
        """The rules from a JSON object (ValueError on unknown keys or bad values)."""
        raw = dict(raw or {})
        unknown = sorted(set(raw) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"unknown field rules: {', '.join(unknown)}")
        for name in ("check_in_minutes", "late_entry_until_round", "no_show_seconds", "no_show_drop_after"):
            _check_int(name, raw.get(name), low=1, optional=True)
        _check_int("waitlist", raw.get("waitlist", 0), low=0)
        for name in ("late_entry", "reentry"):
            if not isinstance(raw.get(name, False), bool):
                raise ValueError(f"{name} must be true or false, not {raw[name]!r}")  # noqa: TRY004 - one error for every bad rule
        if raw.get("late_entry_award", "bye") not in AWARDS:
            raise ValueError(f"late_entry_award must be one of {', '.join(AWARDS)}, not {raw['late_entry_award']!r}")
        rules = cls(**raw)
        if (rules.late_entry or rules.reentry) and format not in CHANGING_FIELD_FORMATS:
            raise ValueError(
                f"late entry and re-entry need a format that pairs each round anew "
                f"({', '.join(sorted(CHANGING_FIELD_FORMATS))}), not {format}"
            )
        if rules.no_show_drop_after is not None and rules.no_show_seconds is None:
            raise ValueError("no_show_drop_after needs no_show_seconds")
        return rules

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def late_entry_last_round(self, total_rounds: int) -> int:
        """The last round a late entrant may first play in."""
        if self.late_entry_until_round is not None:
            return self.late_entry_until_round
        return math.ceil(total_rounds / 2)


def why(rule: str, detail: str = "") -> str:
    """The decision's sentence: the rule's, then what made it here."""
    return f"{RULES[rule]} {detail}".strip()


def _check_int(name: str, value: Any, *, low: int, optional: bool = False) -> None:
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low or value > 10**6:
        raise ValueError(f"{name} must be an integer from {low} to 1000000, not {value!r}")
