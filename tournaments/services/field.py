"""The field: registering, bots, withdrawing, the waitlist, check-in, late entry, re-entry and
disqualification (the rules: `tournaments.field_rules`)."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.bots import BOTS
from server.errors import bad_request, conflict, forbidden, not_found
from tournaments import fold
from tournaments.field_rules import CHANGING_FIELD_FORMATS as _CHANGING_FIELD
from tournaments.field_rules import why
from tournaments.models import Entrant, Tournament
from tournaments.selectors import check_in_opens_at
from tournaments.services._stream import (
    _acted_on,
    _append,
    _entrant,
    _first_unstarted,
    _has_room,
    _locked,
    _require_not_over,
    _require_organiser,
    _require_registration,
    _require_room,
    _require_running,
    _rules,
    _schedule,
    _state,
    actor_of,
)
from tournaments.services.rounds import _repair_unstarted
from tournaments.services.seeding import entrant_ratings


def entrant_register(*, tournament_id: int, user: User) -> Entrant:
    """A person enters a tournament open for registration; past `max_entrants` they join its
    waitlist (if it has one); a running Swiss open to late entry takes them late."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.status == Tournament.Status.RUNNING and _rules(tournament).late_entry:
            return _late_enter(tournament, user)
        _require_registration(tournament)
        entrant = Entrant.objects.filter(tournament=tournament, user=user).first()
        if entrant is not None and entrant.status == Entrant.Status.ACTIVE:
            raise conflict("already_registered", _("You are already registered for this tournament."))
        if entrant is not None and entrant.status == Entrant.Status.WAITLISTED:
            raise conflict("already_waitlisted", _("You are already on this tournament's waitlist."))
        if not _has_room(tournament):
            return _waitlist_join(tournament, user, entrant)
        if entrant is None:
            entrant = Entrant.objects.create(tournament=tournament, user=user, name=user.shown_name)
        _append(
            tournament,
            "PlayerRegistered",
            {"entrant": entrant.pk, "user": user.pk, "bot": ""},
            actor=actor_of(user),
        )
        entrant.refresh_from_db()
    return entrant


def _logged_name(entrant: Entrant) -> str:
    """An entrant as an event's text names it: a bot by its name, a person by the entrant's id.

    Events never change, so a person's name written in one would outlive the account's deletion
    (issue #39): their events carry the ids (`entrant`, `user`) and readers take the name from the
    `Entrant` row, which the deletion rewrites."""
    return entrant.name if entrant.bot else f"entrant {entrant.pk}"


def _check_bot_entrants(user: User, entered: int) -> None:
    """Refuses a bot entrant past `MAX_BOT_ENTRANTS_PER_TOURNAMENT` unless the organiser is staff
    (409 `too_many_bot_entrants`): every bot seat is bot moves on the worker that also serves
    everyone's tables and clocks, and one organiser could enter thousands (issue #39)."""
    cap = settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT
    if not user.is_staff and entered >= cap:
        raise conflict(
            "too_many_bot_entrants",
            _("This tournament has %(cap)s bots, the most an organiser may enter.") % {"cap": cap},
            max=cap,
        )


def entrant_bot_add(*, tournament_id: int, user: User, bot: str, name: str | None = None) -> Entrant:
    """The organiser enters a bot (by name) while registration is open."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        _require_registration(tournament)
        if bot not in BOTS.get(tournament.game, {}):
            raise bad_request(
                "unknown_bot",
                _("%(game)s has no bot %(bot)s.") % {"game": tournament.game, "bot": repr(bot)},
                bots=sorted(BOTS.get(tournament.game, {})),
            )
        _require_room(tournament)
        bots = Entrant.objects.filter(tournament=tournament).exclude(bot="")
        _check_bot_entrants(user, bots.count())
        if name:
            if bots.filter(name=name).exists():
                raise conflict("name_taken", _("A bot called %(name)s is already entered.") % {"name": repr(name)})
        else:
            # One past the number of the last bot of its kind entered (an index read, not a count
            # of the field), walking on past a name taken by a bot named by hand.
            last = bots.filter(bot=bot).order_by("-pk").values_list("name", flat=True).first() or ""
            _head, _space, tail = last.rpartition(" ")
            number = int(tail) + 1 if last.startswith(f"{bot} ") and tail.isdigit() else 1
            while bots.filter(name=f"{bot} {number}").exists():
                number += 1
            name = f"{bot} {number}"
        # The lock makes the check above final: no other bot is entered meanwhile.
        entrant = Entrant.objects.create(tournament=tournament, bot=bot, name=name)
        _append(
            tournament,
            "PlayerRegistered",
            {"entrant": entrant.pk, "name": name, "user": None, "bot": bot},
            actor=actor_of(user),
        )
    return entrant


def entrant_withdraw(*, tournament_id: int, user: User, entrant_id: int | None = None) -> Entrant:
    """A player withdraws (the organiser may withdraw anyone): before the start they leave the
    field; after it they are not paired again, and results so far stand."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entrant = _acted_on(tournament, user, entrant_id)
        _require_not_over(tournament)
        waiting = entrant.status == Entrant.Status.WAITLISTED and tournament.status == Tournament.Status.REGISTRATION
        if entrant.status != Entrant.Status.ACTIVE and not waiting:
            raise conflict("already_withdrawn", _("%(name)s has already left the tournament.") % {"name": entrant.name})
        from_round = None if tournament.status == Tournament.Status.REGISTRATION else _first_unstarted(tournament)
        rule = "drop.requested" if entrant.user_id == user.pk else "drop.by_organiser"
        detail = "" if from_round is None else f"Not paired from round {from_round}; results so far stand."
        _append(
            tournament,
            "PlayerWithdrawn",
            {"entrant": entrant.pk, "from_round": from_round, "rule": rule, "why": why(rule, detail)},
            actor=actor_of(user),
        )
        if from_round is None and not waiting:
            _promote_next(tournament, freed_by=_logged_name(entrant))
        if from_round is not None:
            _repair_unstarted(tournament, actor=actor_of(user), reason=f"{_logged_name(entrant)} withdrew")
            _schedule(tournament.pk, timezone.now())
        entrant.refresh_from_db()
    return entrant


def _waitlist_join(tournament: Tournament, user: User, entrant: Entrant | None) -> Entrant:
    """The tournament is full: the person waits in line, if the waitlist has room. Lock held."""
    rules = _rules(tournament)
    waiting = Entrant.objects.filter(tournament=tournament, status=Entrant.Status.WAITLISTED).count()
    if waiting >= rules.waitlist:
        full = (
            _("The tournament takes %(max_entrants)s players and its waitlist of %(waitlist)s is full.")
            if rules.waitlist
            else _("The tournament takes %(max_entrants)s players.")
        )
        raise conflict("tournament_full", full % {"max_entrants": tournament.max_entrants, "waitlist": rules.waitlist})
    if entrant is None:
        entrant = Entrant.objects.create(tournament=tournament, user=user, name=user.shown_name)
    _append(
        tournament,
        "PlayerWaitlisted",
        {
            "entrant": entrant.pk, "user": user.pk, "bot": "",
            "rule": "waitlist.joined",
            "why": why("waitlist.joined", f"max_entrants is {tournament.max_entrants}; number {waiting + 1} in line."),
        },
        actor=actor_of(user),
    )
    entrant.refresh_from_db()
    return entrant


def _promote_next(tournament: Tournament, *, freed_by: str) -> Entrant | None:
    """A seat was freed before the start: the first in line takes it (told on the page). Lock held."""
    first = (
        Entrant.objects.filter(tournament=tournament, status=Entrant.Status.WAITLISTED)
        .order_by("waitlist_order")
        .first()
    )
    if first is None or not _has_room(tournament):
        return None
    _promote(tournament, first, detail=f"{freed_by} left the field.", actor="server")
    return first


def _promote(tournament: Tournament, entrant: Entrant, *, detail: str, actor: str) -> None:
    _append(
        tournament,
        "PlayerPromoted",
        {"entrant": entrant.pk, "rule": "waitlist.promoted", "why": why("waitlist.promoted", detail)},
        actor=actor,
    )


def entrant_check_in(*, tournament_id: int, user: User, now: dt.datetime | None = None) -> Entrant:
    """A registered (or waitlisted) person checks in during the check-in window."""
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if _rules(tournament).check_in_minutes is None:
            raise conflict("no_check_in", _("This tournament has no check-in: being registered is enough."))
        _require_registration(tournament)
        opens = check_in_opens_at(tournament)
        if opens is not None and now < opens:
            raise conflict(
                "check_in_not_open",
                _("Check-in opens at %(time)s.") % {"time": opens.isoformat()},
                opens_at=opens.isoformat(),
            )
        entrant = Entrant.objects.filter(
            tournament=tournament, user=user, status__in=[Entrant.Status.ACTIVE, Entrant.Status.WAITLISTED]
        ).first()
        if entrant is None:
            raise not_found("not_registered", _("You are not registered for this tournament."))
        if entrant.checked_in:
            raise conflict("already_checked_in", _("You have already checked in."))
        _append(
            tournament,
            "PlayerCheckedIn",
            {"entrant": entrant.pk, "rule": "check_in.checked_in", "why": why("check_in.checked_in")},
            actor=actor_of(user),
        )
        entrant.refresh_from_db()
    return entrant


def _total_rounds(state: fold.State) -> int | None:
    fmt = fold.format_of(state)
    return fmt.total_rounds(len(fold.entrants(state)), fold.format_options(state))


def _late_enter(tournament: Tournament, user: User) -> Entrant:
    """A person joins a running Swiss before its late-entry round has begun. Lock held."""
    rules = _rules(tournament)
    entrant = Entrant.objects.filter(tournament=tournament, user=user).first()
    if entrant is not None:
        if entrant.status == Entrant.Status.ACTIVE:
            raise conflict("already_registered", _("You are already playing in this tournament."))
        if entrant.status == Entrant.Status.DISQUALIFIED:
            raise conflict("disqualified", _("You were disqualified from this tournament."))
        if entrant.seed_order is not None:  # dropped after playing: that is a re-entry
            raise conflict("use_reentry", _("You dropped from this tournament: re-enter instead (POST …/reenter)."))
    state = _state(tournament)
    first_round = _first_unstarted(tournament)
    last = rules.late_entry_last_round(_total_rounds(state) or 0)
    if first_round > last:
        raise conflict(
            "late_entry_closed", _("Late entry closed when round %(last)s began.") % {"last": last}, last_round=last
        )
    _require_room(tournament)
    if entrant is None:
        entrant = Entrant.objects.create(tournament=tournament, user=user, name=user.shown_name)
    rating = entrant_ratings(tournament, [entrant.pk])[str(entrant.pk)]
    missed = first_round - 1
    bye_round = missed if rules.late_entry_award == "bye" and missed >= 1 else None
    award = (
        f"Missed rounds: {missed}; a bye's points for round {bye_round}{', zero for the others' if missed > 1 else ''}."
        if bye_round is not None
        else f"Missed rounds: {missed}; they score zero."
    )
    _append(
        tournament,
        "PlayerLateEntered",
        {
            "entrant": entrant.pk, "user": user.pk, "bot": "",
            "first_round": first_round, "rating": rating, "bye_round": bye_round,
            "rule": "late_entry.joined",
            "why": why("late_entry.joined", f"Late entry is open until round {last}. {award}"),
        },
        actor=actor_of(user),
    )
    _repair_unstarted(tournament, actor=actor_of(user), reason=f"{_logged_name(entrant)} joined late")
    _schedule(tournament.pk, timezone.now())
    entrant.refresh_from_db()
    return entrant


def entrant_reenter(*, tournament_id: int, user: User, entrant_id: int | None = None) -> Entrant:
    """A player who dropped comes back from the next round not begun: by themselves where the
    tournament allows re-entry, or re-admitted by the organiser. Missed rounds score nothing."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        entrant = _acted_on(tournament, user, entrant_id)
        by_organiser = user.pk == tournament.organiser_id
        _require_running(tournament)
        if tournament.format not in _CHANGING_FIELD:
            raise conflict(
                "no_reentry",
                _("A %(format)s cannot take players back: its schedule is fixed.") % {"format": tournament.format},
            )
        if not by_organiser and not _rules(tournament).reentry:
            raise forbidden("reentry_not_allowed", _("This tournament does not allow re-entry; ask the organiser."))
        if entrant.status != Entrant.Status.WITHDRAWN or entrant.withdrawn_from_round is None:
            raise conflict("not_dropped", _("%(name)s has not dropped from this tournament.") % {"name": entrant.name})
        state = _state(tournament)
        first_round = _first_unstarted(tournament)
        total = _total_rounds(state) or 0
        if first_round > total:
            raise conflict("no_rounds_left", _("No round is left to play."))
        if not by_organiser:  # a late entrant may have taken the seat; the organiser may add one
            _require_room(tournament)
        rule = "reentry.organiser" if entrant.user_id != user.pk else "reentry.player"
        _append(
            tournament,
            "PlayerReentered",
            {
                "entrant": entrant.pk, "from_round": first_round, "rule": rule,
                "why": why(rule, f"Paired again from round {first_round}; missed rounds score zero and no bye."),
            },
            actor=actor_of(user),
        )
        _repair_unstarted(tournament, actor=actor_of(user), reason=f"{_logged_name(entrant)} came back")
        _schedule(tournament.pk, timezone.now())
        entrant.refresh_from_db()
    return entrant


def entrant_disqualify(*, tournament_id: int, user: User, entrant_id: int, reason: str) -> Entrant:
    """The organiser disqualifies a player: not paired from the next round not started, listed
    last in the standings. Results already played stand (award forfeits for those that should not)."""
    if not reason.strip():
        raise bad_request("reason_required", _("A disqualification needs a reason."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        _require_running(tournament)
        entrant = _entrant(tournament, entrant_id)
        if entrant.status == Entrant.Status.DISQUALIFIED:
            raise conflict("already_disqualified", _("%(name)s is already disqualified.") % {"name": entrant.name})
        _append(
            tournament,
            "PlayerDisqualified",
            {"entrant": entrant.pk, "from_round": _first_unstarted(tournament), "reason": reason.strip()},
            actor=actor_of(user),
        )
        _repair_unstarted(tournament, actor=actor_of(user), reason=f"{_logged_name(entrant)} disqualified")
        _schedule(tournament.pk, timezone.now())
        entrant.refresh_from_db()
    return entrant
