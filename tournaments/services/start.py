"""The start: the field settled (check-in, waitlist), its ratings frozen, round 1 paired."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from server.errors import conflict, english_or
from tournaments import fold
from tournaments.field_rules import why
from tournaments.models import Entrant, Tournament
from tournaments.selectors import check_in_opens_at
from tournaments.services._stream import _append, _has_room, _locked, _require_organiser, _rules, _state, actor_of
from tournaments.services.field import _promote
from tournaments.services.rounds import _pair_next
from tournaments.services.seeding import entrant_ratings


def tournament_start(*, tournament_id: int, user: User | None, now: dt.datetime | None = None) -> Tournament:
    """Closes registration, freezes the field and its ratings, pairs round 1 and starts it when due.

    `user` must be the organiser; None is the server at the tournament's start time.
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if user is not None:
            _require_organiser(tournament, user)
        if tournament.status != Tournament.Status.REGISTRATION:
            raise conflict("already_started", _("The tournament has already started."))
        _start(tournament, actor=actor_of(user), now=now)
    return tournament


def _start(tournament: Tournament, *, actor: str, now: dt.datetime) -> None:
    _settle_field(tournament, actor=actor, now=now)
    state = _state(tournament)
    field = list(state["order"])
    if len(field) < 2:
        raise conflict(
            "too_few_entrants", _("A tournament needs at least two entrants; %(count)s registered.") % {"count": len(field)}
        )
    ratings = entrant_ratings(tournament, field)
    started: dict[str, Any] = {"field": field, "ratings": ratings}
    if tournament.format == "league" and not tournament.options.get("start"):
        # A league without a first matchday's date plays it the day it starts, and its calendar
        # (every_days, weekdays, skip_dates) runs from there: the event fixes the date.
        started["start"] = now.astimezone(dt.UTC).date().isoformat()
    if _rules(tournament).late_entry and "rounds" in fold.format_of(state).option_keys:
        # Late entrants must not lengthen the tournament: its rounds are those of the field now.
        started["rounds"] = fold.format_of(state).total_rounds(len(field), fold.format_options(state))
    try:
        with transaction.atomic():  # a field the format cannot pair leaves nothing behind
            _append(
                tournament,
                "TournamentStarted",
                started,
                actor=actor,
                key="started",
            )
            _pair_next(tournament, actor=actor, now=now)
    except ValueError as exc:
        tournament.refresh_from_db(fields=["last_seq", "status"])  # the savepoint took back its events
        raise conflict(
            "cannot_pair", english_or(f"The format cannot pair this field: {exc}", _("The format cannot pair this field."))
        ) from None


def _settle_field(tournament: Tournament, *, actor: str, now: dt.datetime) -> None:
    """At the start: people who did not check in are dropped, checked-in people on the waitlist
    take the seats freed in line, and whoever still waits is not admitted. Lock held.

    An organiser who starts before the check-in window has opened drops nobody for it: nobody
    could have checked in."""
    rules = _rules(tournament)
    state = _state(tournament)
    opens = check_in_opens_at(tournament)
    checking = rules.check_in_minutes is not None and (opens is None or now >= opens)
    if checking:
        checked_in = set(state["checked_in"])
        for entrant in list(state["order"]):
            person = state["entrants"][str(entrant)]
            if person["bot"] or entrant in checked_in:  # bots are always in
                continue
            _append(
                tournament,
                "CheckInMissed",
                {
                    "entrant": entrant, "from_round": None, "rule": "check_in.missed",
                    "why": why("check_in.missed", f"The window was {rules.check_in_minutes} minutes."),
                },
                actor=actor,
            )
    waiting = list(
        Entrant.objects.filter(tournament=tournament, status=Entrant.Status.WAITLISTED).order_by("waitlist_order")
    )
    for entrant in waiting:
        if not _has_room(tournament):
            break
        if checking and not entrant.checked_in:
            continue  # not there: the seat goes to the next in line who is
        _promote(tournament, entrant, detail="Seats were free when the tournament started.", actor=actor)
    left = list(
        Entrant.objects.filter(tournament=tournament, status=Entrant.Status.WAITLISTED)
        .order_by("waitlist_order")
        .values_list("pk", flat=True)
    )
    if left:
        _append(
            tournament,
            "WaitlistClosed",
            {"entrants": left, "rule": "waitlist.closed", "why": why("waitlist.closed")},
            actor=actor,
        )
