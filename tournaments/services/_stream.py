"""The tournament's event stream, and the reads and guards every topic shares.

Every write appends events to the tournament's stream (`_append`) inside one transaction that
holds the tournament's row lock (`select_for_update`): one writer at a time per tournament, so
`seq` stays gapless and a decision (pair round 3, record match 42's result) is taken on the
head it saw. Tournament writes are rare next to moves, so a lock beats an optimistic retry
loop here; moves never take it. `UNIQUE(tournament, seq)`, `UNIQUE(tournament, key)` and the
rounds' and tables' unique constraints back the lock up: a second pairing of a round, or a
second result for a match, fails instead of being written.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from server.celery import send_on_commit
from server.errors import conflict, forbidden, not_found
from tournaments import fold, projections, webhooks
from tournaments.field_rules import FieldRules
from tournaments.models import Entrant, Round, RoundTable, StandingRow, Tournament, TournamentEvent

# Tasks further ahead than this are left to the periodic sweep (a broker holds ETA tasks in memory).
_ETA_HORIZON = dt.timedelta(hours=1)


class Step(StrEnum):
    """What `tournament_advance` did, one value per step (`_advance_step`, `_pair_next`). The tasks
    return them and the tests read them, as the plain strings they were before the enum."""

    STARTED = "started"
    CANCELLED = "cancelled"
    PAIRED = "paired"
    TABLES_STARTED = "tables-started"
    ROUND_STARTED = "round-started"
    RESULTS = "results"
    ROUND_COMPLETED = "round-completed"
    NO_SHOWS = "no-shows"
    DEADLINE = "deadline"
    PLAYED_OUT = "played-out"
    FINISHED = "finished"


def actor_of(user: User | None) -> str:
    return f"user:{user.pk}" if user is not None else "server"


def _locked(tournament_id: int) -> Tournament:
    """The tournament's row, locked until the transaction ends (the stream's single writer)."""
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise not_found("tournament_not_found", _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id})
    return tournament


def _append(
    tournament: Tournament,
    kind: str,
    data: dict[str, Any],
    *,
    actor: str,
    key: str | None = None,
    state: fold.State | None = None,
) -> TournamentEvent | None:
    """Appends one event at the head and folds it into the projections. Lock: the caller holds
    the tournament's row. With `key`, an event already recorded under it is not appended again
    (returns None). `state`: the caller's state at the head, which the projection may fold the
    event into and use (`projections.apply`); the caller must not use it afterwards."""
    if key is not None and TournamentEvent.objects.filter(tournament=tournament, key=key).exists():
        return None
    seq = tournament.last_seq + 1
    row = TournamentEvent.objects.create(
        tournament=tournament, seq=seq, type=kind, data=data, actor=actor, key=key
    )
    Tournament.objects.filter(pk=tournament.pk).update(last_seq=seq)
    tournament.last_seq = seq
    projections.apply(tournament, row, state)
    webhooks.deliveries_create(tournament, row)
    if paths := settings.TOURNAMENT_EVENT_TASKS.get(kind):
        for path in paths:
            send_on_commit(path, tournament.pk, seq)
    return row


def _state(tournament: Tournament) -> fold.State:
    return projections.state_of(tournament)


def _rules(tournament: Tournament) -> FieldRules:
    return FieldRules(**tournament.field_rules)


def _schedule(tournament_id: int, when: dt.datetime) -> None:
    """After commit, asks a worker to advance the tournament at `when` (the sweep catches the rest)."""
    if when - timezone.now() > _ETA_HORIZON:
        return
    send_on_commit("tournaments.tasks.tournament_advance_task", tournament_id, eta=when)


def _acted_on(tournament: Tournament, user: User, entrant_id: int | None) -> Entrant:
    """The caller's own entry (`entrant_id` None), or the entrant named, whom only the organiser
    may act for unless it is the caller's."""
    if entrant_id is None:
        entrant = Entrant.objects.filter(tournament=tournament, user=user).first()
        if entrant is None:
            raise not_found("not_registered", _("You are not registered for this tournament."))
        return entrant
    entrant = _entrant(tournament, entrant_id)
    if entrant.user_id != user.pk:
        _require_organiser(tournament, user)
    return entrant


def _entrant(tournament: Tournament, entrant_id: int) -> Entrant:
    entrant = Entrant.objects.filter(tournament=tournament, pk=entrant_id).first()
    if entrant is None:
        raise not_found(
            "entrant_not_found",
            _("Tournament %(tournament_id)s has no entrant %(entrant_id)s.")
            % {"tournament_id": tournament.pk, "entrant_id": entrant_id},
        )
    return entrant


def _require_organiser(tournament: Tournament, user: User | None) -> None:
    if user is None or user.pk != tournament.organiser_id:
        raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))


def _require_registration(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.REGISTRATION:
        raise conflict("registration_closed", _("Registration is closed: the tournament has started or ended."))


def _require_running(tournament: Tournament) -> None:
    if tournament.status != Tournament.Status.RUNNING:
        raise conflict("tournament_not_running", _("The tournament is not running."))


def _require_not_over(tournament: Tournament) -> None:
    if tournament.status in (Tournament.Status.FINISHED, Tournament.Status.CANCELLED):
        raise conflict("tournament_over", _("The tournament has ended."))


def _require_room(tournament: Tournament) -> None:
    if not _has_room(tournament):
        raise conflict(
            "tournament_full",
            _("The tournament takes %(max_entrants)s players.") % {"max_entrants": tournament.max_entrants},
        )


def _has_room(tournament: Tournament) -> bool:
    if tournament.max_entrants is None:
        return True
    if tournament.status != Tournament.Status.REGISTRATION:  # withdrawn players keep their rows
        active = Entrant.objects.filter(tournament=tournament, status=Entrant.Status.ACTIVE).count()
        return active < tournament.max_entrants
    # Registration is open, so the standings list exactly the active entrants, in order: the last
    # position is their number (an index read, where counting them would read the whole field).
    active = (
        StandingRow.objects.filter(tournament=tournament).order_by("-position").values_list("position", flat=True).first()
        or 0
    )
    return active < tournament.max_entrants


def _latest_round(tournament: Tournament) -> Round | None:
    return Round.objects.filter(tournament=tournament).order_by("-number").first()


def _round_begun(rnd: Round) -> bool:
    """Somebody sits at a table of the round (it started, or a batch of its tables did)."""
    return rnd.started_at is not None or RoundTable.objects.filter(round=rnd, match__isnull=False).exists()


def _first_unstarted(tournament: Tournament) -> int:
    """The first round nobody has sat down for yet (a player leaving misses it)."""
    latest = _latest_round(tournament)
    if latest is None:
        return 1
    return latest.number + 1 if _round_begun(latest) else latest.number
