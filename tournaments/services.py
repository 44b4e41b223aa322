"""Operations on tournaments: create, register, start, advance, correct.

Every write appends events to the tournament's stream (`_append`) inside one transaction that
holds the tournament's row lock (`select_for_update`): one writer at a time per tournament, so
`seq` stays gapless and a decision (pair round 3, record match 42's result) is taken on the
head it saw. Tournament writes are rare next to moves, so a lock beats an optimistic retry
loop here; moves never take it. `UNIQUE(tournament, seq)`, `UNIQUE(tournament, key)` and the
rounds' and tables' unique constraints back the lock up: a second pairing of a round, or a
second result for a match, fails instead of being written.

`tournament_advance` is the scheduler's one entry point: it does whatever is due now (start
the tournament, start a round, record finished tables, finish a round at its deadline, pair
the next round, finish) and is safe to run at any time, twice, or late.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import secrets
from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db import DatabaseError, transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import services as game_services
from games import turns
from games.bots import BOTS
from games.engines import ENGINES
from games.engines._common import seeded_shuffle
from games.models import SPECTATOR_DELAY_MOVES_DEFAULT, Match, Seat, Shuffle, SpectatorPolicy
from games.selectors import (
    result_ranks,
    seats_never_moved,
    seats_no_show,  # its own line: away from the games imports others change
)
from ratings import math as rmath
from ratings.models import Pool
from ratings.selectors import current_pairs
from server.celery import send_on_commit
from server.errors import ApplicationError, bad_request, conflict, english_or, forbidden, not_found
from tournaments import fold, pairing_check, projections, webhooks
from tournaments.field_rules import CHANGING_FIELD_FORMATS as _CHANGING_FIELD
from tournaments.field_rules import FieldRules, why
from tournaments.formats import FORMATS, Pairing, forfeit_result
from tournaments.models import Entrant, Round, RoundTable, StandingRow, Tournament, TournamentEvent
from tournaments.selectors import COOPERATIVE_GAMES, check_in_opens_at, format_options_raw

log = logging.getLogger(__name__)

DEFAULT_CLOCK_SECONDS = 120
DEFAULT_ROUND_SECONDS = 2 * 3600
# Option keys the server sets itself (from the game and the tournament's seed).
_SERVER_OPTIONS = frozenset({"min_players", "max_players", "cooperative", "seed"})
# Tasks further ahead than this are left to the periodic sweep (a broker holds ETA tasks in memory).
_ETA_HORIZON = dt.timedelta(hours=1)
_MAX_STEPS = 500


def actor_of(user: User | None) -> str:
    return f"user:{user.pk}" if user is not None else "server"


# --- the event store ---------------------------------------------------------------------------


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


# --- creating and registering ------------------------------------------------------------------


def tournament_create(
    *,
    organiser: User,
    name: str,
    game: str,
    format: str,
    options: dict[str, Any] | None = None,
    match_options: dict[str, Any] | None = None,
    starts_at: dt.datetime | None = None,
    round_seconds: int | None = DEFAULT_ROUND_SECONDS,
    clock_seconds: int = DEFAULT_CLOCK_SECONDS,
    rated: bool = True,
    max_entrants: int | None = None,
    contributed_shuffle: bool = False,
    field_rules: dict[str, Any] | None = None,
    spectator_policy: str = SpectatorPolicy.OPEN,
    spectator_delay_moves: int = SPECTATOR_DELAY_MOVES_DEFAULT,
) -> Tournament:
    """Creates a tournament open for registration; with `starts_at` it starts by itself then.
    Its tables are watched as `spectator_policy` says (`games.services.spectator_policy_checked`).

    With `contributed_shuffle` each round's tables are dealt from the server's seed committed at
    the pairing and what their seated people send before the round starts (`games.shuffle`); the
    round then starts `TOURNAMENT_SHUFFLE_SECONDS` after its pairing, at the earliest."""
    if game not in ENGINES:
        raise bad_request("unknown_game", _("No game is called %(game)s.") % {"game": repr(game)}, games=sorted(ENGINES))
    if format not in FORMATS:
        raise bad_request(
            "unknown_format", _("No format is called %(format)s.") % {"format": repr(format)}, formats=sorted(FORMATS)
        )
    options = dict(options or {})
    reserved = sorted(_SERVER_OPTIONS & set(options))
    if reserved:
        raise bad_request("bad_options", _("The server sets %(options)s itself.") % {"options": ', '.join(reserved)})
    full = format_options_raw(game=game, options=options)
    try:
        FORMATS[format].options(full)
    except ValueError as exc:
        raise bad_request("bad_options", english_or(str(exc), _("The format does not take those options."))) from None
    if contributed_shuffle and full.get("duplicate"):
        raise bad_request(
            "duplicate_with_contributed_shuffle",
            _("Duplicate deals give every table of a round one deck, so no table's players can add to its shuffle."),
        )
    match_options = dict(match_options or {})
    _check_match_options(game, match_options)
    rules = _field_rules_checked(format, field_rules)
    spectator_policy, spectator_delay_moves = game_services.spectator_policy_checked(spectator_policy, spectator_delay_moves)
    seed = secrets.randbits(62)
    seed_sha256 = hashlib.sha256(str(seed).encode()).hexdigest()
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            game=game,
            format=format,
            options=full,
            match_options=match_options,
            organiser=organiser,
            starts_at=starts_at,
            round_seconds=round_seconds,
            clock_seconds=clock_seconds,
            rated=rated,
            max_entrants=max_entrants,
            field_rules=rules,
            seed=seed,
            seed_sha256=seed_sha256,
            contributed_shuffle=contributed_shuffle,
            spectator_policy=spectator_policy,
            spectator_delay_moves=spectator_delay_moves,
        )
        _append(
            tournament,
            "TournamentCreated",
            {
                "name": name,
                "game": game,
                "format": format,
                "options": full,
                "match_options": match_options,
                "starts_at": starts_at.isoformat() if starts_at else None,
                "round_seconds": round_seconds,
                "clock_seconds": clock_seconds,
                "rated": rated,
                "organiser": organiser.pk,
                "seed_sha256": seed_sha256,
                "contributed_shuffle": contributed_shuffle,
                **({"field_rules": rules} if rules else {}),
                # Only when not open, so an open tournament's first event is as it always was.
                **({"spectator_policy": spectator_policy} if spectator_policy != SpectatorPolicy.OPEN else {}),
                **({"spectator_delay_moves": spectator_delay_moves} if spectator_policy == SpectatorPolicy.DELAYED else {}),
            },
            actor=actor_of(organiser),
            key="created",
        )
        if starts_at is not None:
            _schedule(tournament.pk, starts_at)
    return tournament


def _field_rules_checked(format: str, raw: dict[str, Any] | None) -> dict[str, Any]:
    """The organiser's field rules, validated; {} when none were given (nothing changes)."""
    if not raw:
        return {}
    try:
        return FieldRules.parse(raw, format=format).as_dict()
    except (TypeError, ValueError) as exc:
        raise bad_request(
            "bad_field_rules", english_or(str(exc), _("The check-in, waitlist, late entry or no-show rules are not valid."))
        ) from None


def _rules(tournament: Tournament) -> FieldRules:
    return FieldRules(**tournament.field_rules)


def _check_match_options(game: str, match_options: dict[str, Any]) -> None:
    if "deck" in match_options:
        raise bad_request("bad_options", _("A tournament's tables are dealt by the server: no deck."))
    engine = ENGINES[game]
    try:
        engine.start(max(2, engine.min_players), 0, match_options)
    except ValueError as exc:
        raise bad_request(
            "bad_options", english_or(f"match_options: {exc}", _("The game does not take those match_options."))
        ) from None


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


# --- the field: waitlist, check-in, late entry, re-entry (tournaments.field_rules) ----------------


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


# --- starting, pairing, rounds ------------------------------------------------------------------


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


def _rated_as(entrant: Entrant) -> tuple[str, Pool]:
    """The competitor an entrant is rated as, and the pool of the ladder it is looked up in."""
    if entrant.user_id is not None:
        return rmath.user_competitor(entrant.user_id), Pool.PEOPLE
    return rmath.bot_competitor(entrant.bot), Pool.BOTS


def entrant_ratings(tournament: Tournament, field: Sequence[int]) -> dict[str, float | None]:
    """Each entrant's conservative rating (μ − 3σ) in the game, frozen at the start for seeding
    and tie-breaks; None where the ratings app has no entry (seeded by registration order then).

    People are looked up in the people's ladder, bots in the bots' (ratings.selectors.current_pairs).
    """
    rows = {e.pk: e for e in Entrant.objects.filter(pk__in=field)}
    wanted = {entrant_id: _rated_as(rows[entrant_id]) for entrant_id in field}
    found: dict[tuple[str, str], float] = {}
    for pool in {pool for _game, pool in wanted.values()}:
        competitors = sorted({competitor for competitor, p in wanted.values() if p == pool})
        try:
            with transaction.atomic():  # a savepoint: ratings' tables missing must not spoil the start
                pairs = current_pairs(tournament.game, pool, competitors)
        except DatabaseError:
            log.warning("ratings unavailable for seeding tournament %s", tournament.pk, exc_info=True)
            continue
        for competitor, ((mu, sigma), _games) in pairs.items():
            found[(competitor, pool)] = float(mu - 3 * sigma)
    return {str(entrant_id): found.get(wanted[entrant_id]) for entrant_id in field}


def _pair_next(tournament: Tournament, *, actor: str, now: dt.datetime) -> str:
    """Pairs the next round (and starts it when due) or finishes the tournament. Lock held."""
    state = _state(tournament)
    fmt = fold.format_of(state)
    options = fold.format_options(state, seed=tournament.seed)
    field, past = fold.entrants(state), fold.history(state)
    pairing = fmt.next_round(field, options, past)
    if pairing is None:
        _finish(tournament, actor=actor)
        return "finished"
    # Judged on the very inputs the format paired from, and kept with the round as it was paired.
    quality = pairing_check.round_report(fmt.slug, field, options, past, pairing)
    starts_at = _round_starts_at(tournament, pairing, now)
    tables = [
        {"table": index, "seats": list(table.seats), "bracket": table.match, "deal": table.deal}
        for index, table in enumerate(pairing.tables, start=1)
    ]
    if tournament.contributed_shuffle:
        # Committed before anyone can contribute; the round waits for the contributions.
        for table, shuffle in zip(tables, game_services.shuffles_commit(len(tables))):
            table["seed_sha256"] = shuffle.seed_sha256
        starts_at = max(starts_at, now + dt.timedelta(seconds=settings.TOURNAMENT_SHUFFLE_SECONDS))
    attempt = state["unpaired"].get(str(pairing.round), 0)
    _append(
        tournament,
        "RoundPaired",
        {
            "round": pairing.round,
            "tables": tables,
            "byes": list(pairing.byes),
            "starts_at": starts_at.isoformat(),
            "date": pairing.date.isoformat() if pairing.date else None,
            "quality": quality,
        },
        actor=actor,
        key=f"paired:{pairing.round}:{attempt}",
        state=state,  # read at the head above: the re-ranking need not read every row again
    )
    if starts_at <= now and len(pairing.tables) <= settings.TOURNAMENT_TABLES_PER_BATCH:
        rnd = Round.objects.get(tournament=tournament, number=pairing.round)
        _round_start_batch(tournament, rnd, actor=actor, now=now)
        return "round-started"
    _schedule(tournament.pk, starts_at)  # a big round opens in batches, each its own transaction
    return "paired"


def _round_starts_at(tournament: Tournament, pairing: Pairing, now: dt.datetime) -> dt.datetime:
    """A league matchday starts on its date at the tournament's time of day; other rounds at once."""
    if pairing.date is None:
        return now
    clock = (
        tournament.starts_at.astimezone(dt.UTC).timetz()
        if tournament.starts_at
        else dt.time(tzinfo=dt.UTC)
    )
    return max(now, dt.datetime.combine(pairing.date, clock))


def _seated_as(entrant: Entrant) -> User | str:
    """Who sits for an entrant: its user, or its bot by name."""
    if entrant.user_id:
        assert entrant.user is not None  # its user_id is set
        return entrant.user
    return entrant.bot


def _round_start_batch(tournament: Tournament, rnd: Round, *, actor: str, now: dt.datetime) -> bool:
    """Opens the round's next batch of tables (people and bots seated, turn clocks on) and records
    them; the last batch starts the round. True when the round has started. Lock held.

    Each batch is one transaction with its matches, so a worker killed mid-way leaves whole
    batches only: every table is opened once, the next call goes on from the first without a match.
    """
    size = settings.TOURNAMENT_TABLES_PER_BATCH
    waiting = list(RoundTable.objects.filter(round=rnd, match__isnull=True).order_by("number")[: size + 1])
    batch, last = waiting[:size], len(waiting) <= size
    people = {s for table in batch for s in table.seats}
    entrants = {e.pk: e for e in Entrant.objects.filter(pk__in=people).select_related("user")}
    committed = [table.seed_sha256 for table in batch if table.seed_sha256]
    shuffles = Shuffle.objects.in_bulk(committed, field_name="seed_sha256") if committed else {}
    seated = []
    for table in batch:
        seats = [_seated_as(entrants[e]) for e in table.seats]
        options = dict(tournament.match_options)
        if table.deal is not None:
            options["deck"] = duplicate_deck(tournament.game, len(seats), table.deal)
        # A duplicate deal stays sealed: other tables play the same deck until the round ends.
        seated.append(
            game_services.SeatedTable(
                seats=seats, options=options, sealed=table.deal is not None, shuffle=shuffles.get(table.seed_sha256)
            )
        )
    matches = game_services.matches_start_seated(
        game=tournament.game,
        tables=seated,
        created_by=tournament.organiser,
        rated=tournament.rated,
        clock_seconds=tournament.clock_seconds,
        spectator_policy=tournament.spectator_policy,
        spectator_delay_moves=tournament.spectator_delay_moves,
    )
    tables = [{"table": table.number, "match": match.pk} for table, match in zip(batch, matches)]
    if not last:
        _append(
            tournament,
            "TablesStarted",
            {"round": rnd.number, "tables": tables},
            actor=actor,
            key=f"tables:{rnd.number}:{batch[0].number}",
        )
        _schedule(tournament.pk, now)
        return False
    deadline = now + dt.timedelta(seconds=tournament.round_seconds) if tournament.round_seconds else None
    _append(
        tournament,
        "RoundStarted",
        {"round": rnd.number, "tables": tables, "deadline": deadline.isoformat() if deadline else None},
        actor=actor,
        key=f"started:{rnd.number}",
    )
    if deadline is not None:
        _schedule(tournament.pk, deadline)
    _no_show_schedule(tournament, now)
    if not RoundTable.objects.filter(round=rnd).exists():  # a round of byes only is complete at once
        _schedule(tournament.pk, now)
    return True


def _no_shows_pending(now: dt.datetime) -> set[int]:
    """Running tournaments with a no-show rule whose current round's no-show time is up unchecked
    (for the sweep: a lost task must not leave an absent player's table waiting to the deadline)."""
    due = set()
    ruled = Tournament.objects.filter(
        status=Tournament.Status.RUNNING, field_rules__no_show_seconds__gte=1
    ).only("pk", "field_rules")
    for tournament in ruled:
        rnd = _latest_round(tournament)
        if rnd is not None and rnd.completed_at is None and _no_shows_due(tournament, rnd, now):
            due.add(tournament.pk)
    return due


def _no_show_schedule(tournament: Tournament, started: dt.datetime) -> None:
    """A round just started: advance again when its no-show time is up (if the rules set one)."""
    seconds = _rules(tournament).no_show_seconds
    if seconds is not None:
        _schedule(tournament.pk, started + dt.timedelta(seconds=seconds))


def duplicate_deck(game: str, players: int, deal: int) -> list[str]:
    """The shared deck of a duplicate deal: the game's seeded shuffle of its canonical deck."""
    return seeded_shuffle(canonical_deck(game, players), deal, 0)


def canonical_deck(game: str, players: int) -> list[str]:
    """The game's deck for a player count in canonical order, as its engine gives it (ENGINE.md)."""
    return ENGINES[game].canonical_deck(players)


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


def _repair_unstarted(tournament: Tournament, *, actor: str, reason: str) -> bool:
    """A paired round nobody sits at yet is paired again, so it follows a change (a correction,
    a withdrawal, a disqualification). Rounds begun stand. Lock held."""
    latest = _latest_round(tournament)
    if latest is None or _round_begun(latest) or tournament.status != Tournament.Status.RUNNING:
        return False
    _append(tournament, "RoundUnpaired", {"round": latest.number, "reason": reason}, actor=actor)
    _pair_next(tournament, actor=actor, now=timezone.now())
    return True


def _finish(tournament: Tournament, *, actor: str) -> None:
    state = _state(tournament)
    rows = fold.standings(state)
    champion = None
    options = fold.format_options(state)
    placing = fold.bracket_format(state, options)
    if hasattr(placing, "champion") and len(fold.entrants(state)) >= 2:
        champion = placing.champion(fold.entrants(state), options, fold.history(state))
    if champion is None and rows:
        champion = rows[0]["entrant"]
    _append(
        tournament,
        "TournamentFinished",
        {
            "standings": [
                {
                    "entrant": row["entrant"],
                    "rank": row["rank"],
                    "place": row["place"],
                    "points": row["points"],
                }
                for row in rows
            ],
            "champion": champion,
        },
        actor=actor,
        key="finished",
    )


def _cancel(tournament: Tournament, *, reason: str) -> None:
    _append(tournament, "TournamentCancelled", {"reason": reason}, actor="server", key="cancelled")


# --- the scheduler's entry point ----------------------------------------------------------------


def tournament_advance(*, tournament_id: int, now: dt.datetime | None = None) -> list[str]:
    """Does everything that is due: returns the steps taken (empty when nothing was due).

    Each step is its own transaction under the tournament's lock; finishing unfinished tables
    at a deadline happens between steps, without the lock (it plays many moves).
    """
    done: list[str] = []
    for _step in range(_MAX_STEPS):
        step, play_out = _advance_step(tournament_id, now or timezone.now())
        ended = [turns.match_play_out(match_id=match_id) for match_id in play_out]
        if step is None:
            if not play_out or not all(ended):
                break
            step = "played-out"  # tables left running past the deadline: record them next
        done.append(step)
    return done


def _advance_step(tournament_id: int, now: dt.datetime) -> tuple[str | None, list[int]]:
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return None, []
        if tournament.status == Tournament.Status.REGISTRATION:
            if tournament.starts_at is None or tournament.starts_at > now:
                return None, []
            try:
                with transaction.atomic():
                    _start(tournament, actor="server", now=now)
            except ApplicationError as exc:
                tournament.refresh_from_db(fields=["last_seq", "status"])
                _cancel(tournament, reason=str(exc.message))
                return "cancelled", []
            return "started", []
        if tournament.status != Tournament.Status.RUNNING:
            return None, []
        rnd = _latest_round(tournament)
        if rnd is None:
            return _pair_next(tournament, actor="server", now=now), []
        if rnd.started_at is None:
            if rnd.starts_at > now:
                return None, []
            started = _round_start_batch(tournament, rnd, actor="server", now=now)
            return ("round-started" if started else "tables-started"), []
        if _record_finished_tables(tournament, rnd):
            return "results", []
        if not _waiting_tables(rnd).exists():
            if rnd.completed_at is None:
                _append(
                    tournament,
                    "RoundCompleted",
                    {"round": rnd.number},
                    actor="server",
                    key=f"completed:{rnd.number}",
                )
                # Nobody plays this round's deals any more: its matches may show their decks.
                game_services.matches_unseal(
                    match_ids=list(rnd.tables.exclude(match=None).values_list("match_id", flat=True))
                )
                webhooks.deliveries_release(tournament)  # its results, held while its deals were played
                return "round-completed", []
            return _pair_next(tournament, actor="server", now=now), []
        if _no_shows_due(tournament, rnd, now):
            # A forfeited table's match decides nothing more: it is played out, without the lock.
            return "no-shows", _no_shows_forfeit(tournament, rnd)
        if rnd.deadline is not None and rnd.deadline <= now:
            running = _running_matches(rnd)
            if rnd.deadline_passed_at is None:
                _append(
                    tournament,
                    "RoundDeadlinePassed",
                    {"round": rnd.number, "tables": _absent_at_deadline(rnd)},
                    actor="clock",
                    key=f"deadline:{rnd.number}",
                )
                return "deadline", running
            return (None, running) if running else (None, [])
    return None, []


def _waiting_tables(rnd: Round) -> Any:
    """The round's tables without a result (the partial index `table_waiting`)."""
    return RoundTable.objects.filter(round=rnd, result__isnull=True)


def _running_matches(rnd: Round) -> list[int]:
    return list(
        Match.objects.filter(tournament_table__round=rnd, status=Match.Status.RUNNING)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _absent_at_deadline(rnd: Round) -> list[dict[str, Any]]:
    """For each table still playing: the people seated who never made a move of their own."""
    found = []
    for table in _waiting_tables(rnd).exclude(match=None).order_by("number"):
        gone = [table.seats[seat] for seat in seats_never_moved(table.match_id)]
        if gone:
            found.append({"table": table.number, "absent": sorted(gone)})
    return found


def _record_finished_tables(tournament: Tournament, rnd: Round) -> int:
    """Records the result of every table whose match has ended and that has no result yet."""
    waiting = (
        _waiting_tables(rnd).filter(match__status=Match.Status.FINISHED).select_related("match").order_by("match_id")
    )
    return sum(_table_result_append(tournament, rnd, table, table.match) for table in waiting)


def _table_result_append(tournament: Tournament, rnd: Round, table: RoundTable, match: Match) -> bool:
    """Appends a finished match's result to its table (once: keyed by the match). Lock held."""
    event = _append(
        tournament,
        "TableResult",
        {"round": rnd.number, "table": table.number, "match": match.pk, **_result_from_match(tournament, table, match)},
        actor="server",
        key=f"match:{match.pk}",
    )
    return event is not None


def _result_from_match(tournament: Tournament, table: RoundTable, match: Match) -> dict[str, Any]:
    """The table's result: the match's ranks as `result_ranks` counts them (seats abandoned on the
    clock after the rest, people absent at the deadline tied last: the absent forfeit); a
    cooperative game's team score."""
    outcome = match.outcome or {}
    absent = set(table.absent)
    absent_seats = {index for index, entrant in enumerate(table.seats) if entrant in absent}
    forfeited = sorted(absent)
    if outcome.get("cooperative"):
        return {"ranks": None, "team_score": outcome["scores"][0], "forfeited": forfeited}
    abandoned = set(Seat.objects.filter(match=match, abandoned=True).values_list("seat", flat=True))
    return {
        "ranks": result_ranks(list(outcome["ranks"]), abandoned, absent_seats),
        "team_score": None,
        "forfeited": forfeited,
    }


def tournament_match_finished(*, match_id: int) -> list[str]:
    """A match ended: if it is a tournament table, its result is recorded at once (whatever the
    tournament's size: one table, its players' standing rows), and when it was the round's last
    table the tournament advances (the round completed, the next paired and started, or the end)."""
    tournament_id = (
        RoundTable.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True).first()
    )
    if tournament_id is None:
        return []
    with transaction.atomic():
        tournament = _locked(tournament_id)
        table = RoundTable.objects.select_related("round", "match").get(match_id=match_id)
        rnd, match = table.round, table.match
        assert match is not None  # the table was found by its match
        if rnd.started_at is None:  # a match of a round still opening its tables: advancing records it
            recorded = None
        elif (
            tournament.status != Tournament.Status.RUNNING
            or table.result is not None
            or match.status != Match.Status.FINISHED
        ):
            return []
        else:
            recorded = _table_result_append(tournament, rnd, table, match)
            if recorded and _waiting_tables(rnd).exists():
                return ["results"]
    return (["results"] if recorded else []) + tournament_advance(tournament_id=tournament_id)


def tournaments_due(*, now: dt.datetime | None = None) -> list[int]:
    """Tournaments with something due that a lost task may have left: for the periodic sweep."""
    now = now or timezone.now()
    due: set[int] = set(
        Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now).values_list(
            "pk", flat=True
        )
    )
    running = Round.objects.filter(tournament__status=Tournament.Status.RUNNING)
    due |= set(
        running.filter(started_at__isnull=True, starts_at__lte=now).values_list("tournament_id", flat=True)
    )
    late = running.filter(started_at__isnull=False, completed_at__isnull=True, deadline__lte=now)
    due |= set(late.values_list("tournament_id", flat=True))
    open_tables = RoundTable.objects.filter(round=OuterRef("pk"), result__isnull=True)
    done = running.filter(started_at__isnull=False, completed_at__isnull=True).exclude(Exists(open_tables))
    due |= set(done.values_list("tournament_id", flat=True))
    unrecorded = RoundTable.objects.filter(
        round__tournament__status=Tournament.Status.RUNNING,
        result__isnull=True,
        match__status=Match.Status.FINISHED,
    )
    due |= set(unrecorded.values_list("round__tournament_id", flat=True))
    due |= _no_shows_pending(now)
    for tournament_id in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list(
        "pk", flat=True
    ):
        latest = Round.objects.filter(tournament_id=tournament_id).order_by("-number").first()
        if latest is None or latest.completed_at is not None:
            due.add(tournament_id)  # a complete round not followed by the next (or the end)
    return sorted(due)


# --- corrections ---------------------------------------------------------------------------------


def result_correct(
    *,
    tournament_id: int,
    user: User,
    round_number: int,
    table_number: int,
    reason: str,
    ranks: list[int] | None = None,
    team_score: float | None = None,
    forfeited: list[int] | None = None,
) -> dict[str, Any]:
    """The organiser sets a table's result (with a reason). Standings follow; a round paired
    but not started is paired again; a bracket refuses a change that later rounds contradict."""
    if not reason.strip():
        raise bad_request("reason_required", _("A correction needs a reason."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        if tournament.status not in (Tournament.Status.RUNNING, Tournament.Status.FINISHED):
            raise conflict("tournament_not_running", _("The tournament has not started."))
        state = _state(tournament)
        table = _started_table(state, round_number, table_number)
        forfeited = sorted(set(forfeited or []))
        result = _checked_result(tournament, table, ranks, team_score, forfeited)
        data = {"round": round_number, "table": table_number, **result, "reason": reason.strip()}
        _check_consistent(state, "ResultCorrected", data)
        _append(tournament, "ResultCorrected", data, actor=actor_of(user))
        _result_changed(table["match"])
        _repair_unstarted(
            tournament, actor=actor_of(user), reason=f"result of round {round_number} corrected"
        )
        _schedule(tournament.pk, timezone.now())
        return fold.table_of(_state(tournament), round_number, table_number)


def forfeit_award(
    *, tournament_id: int, user: User, round_number: int, table_number: int, forfeited: list[int], reason: str
) -> dict[str, Any]:
    """The organiser awards a table by forfeit: the players named lose it (ranked last); the
    rest share first place. A cooperative table scores the whole deck left."""
    if not reason.strip():
        raise bad_request("reason_required", _("A forfeit needs a reason."))
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _require_organiser(tournament, user)
        _require_running(tournament)
        state = _state(tournament)
        table = _started_table(state, round_number, table_number)
        gone = sorted(set(forfeited))
        if not gone or not set(gone) <= set(table["seats"]):
            raise bad_request("bad_forfeit", _("Name one or more players seated at the table."))
        result = _forfeit_of(tournament, round_number, table["seats"], gone)
        data = {"round": round_number, "table": table_number, **result, "reason": reason.strip()}
        _check_consistent(state, "ForfeitAwarded", data)
        _append(tournament, "ForfeitAwarded", data, actor=actor_of(user))
        _result_changed(table["match"])
        _repair_unstarted(tournament, actor=actor_of(user), reason=f"forfeit in round {round_number}")
        _schedule(tournament.pk, timezone.now())
        return fold.table_of(_state(tournament), round_number, table_number)


def table_shuffle_contribute(
    *, tournament_id: int, user: User, round_number: int, table_number: int, value: str
) -> None:
    """A person seated at a paired table adds to its shuffle, until the round deals its tables.

    No tournament lock: a round's people all send theirs in the same seconds. The shuffle's own
    lock orders each contribution against the deal (`games.services.shuffle_contribution_save`).
    """
    table = RoundTable.objects.filter(
        round__tournament_id=tournament_id, round__number=round_number, number=table_number
    ).first()
    if table is None:
        if not Tournament.objects.filter(pk=tournament_id).exists():
            raise not_found(
                "tournament_not_found",
                _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id},
            )
        raise not_found(
            "table_not_found",
            _("Round %(round_number)s has no table %(table_number)s.")
            % {"round_number": round_number, "table_number": table_number},
        )
    if not table.seed_sha256:
        raise conflict("shuffle_not_contributed", _("This table's deal is the server's alone: it takes no contributions."))
    if not Entrant.objects.filter(pk__in=table.seats, user=user).exists():
        raise forbidden("not_seated", _("You do not sit at this table."))
    shuffle_id = Shuffle.objects.filter(seed_sha256=table.seed_sha256).values_list("pk", flat=True).get()
    game_services.shuffle_contribution_save(shuffle_id=shuffle_id, user=user, value=value)


def _forfeit_of(tournament: Tournament, round_number: int, seats: list[int], gone: list[int]) -> dict[str, Any]:
    """A forfeited table's result: the players named lose it (ranked last), the rest share first
    place; a cooperative table scores the whole deck left."""
    if tournament.game in COOPERATIVE_GAMES:
        return {"ranks": None, "team_score": len(canonical_deck(tournament.game, len(seats))), "forfeited": gone}
    ranks = forfeit_result(round_number, seats, gone).ranks
    return {"ranks": list(ranks or ()), "team_score": None, "forfeited": gone}


def _no_shows_due(tournament: Tournament, rnd: Round, now: dt.datetime) -> bool:
    seconds = _rules(tournament).no_show_seconds
    if seconds is None or rnd.started_at is None or rnd.started_at + dt.timedelta(seconds=seconds) > now:
        return False
    return not TournamentEvent.objects.filter(tournament=tournament, key=f"no-shows:{rnd.number}").exists()


def _no_shows_forfeit(tournament: Tournament, rnd: Round) -> list[int]:
    """The round's no-show time is up: each person absent from a table still playing forfeits it
    (one event for the round, naming the rule even when nobody was absent), and a player with too
    many forfeits is dropped from the next round. Returns the forfeited tables' matches. Lock held."""
    rules = _rules(tournament)
    tables, matches = [], []
    running = _waiting_tables(rnd).filter(match__status=Match.Status.RUNNING).order_by("number")
    for table in running:
        gone = sorted(table.seats[seat] for seat in seats_no_show(table.match_id))
        if gone:
            tables.append({"table": table.number, **_forfeit_of(tournament, rnd.number, table.seats, gone)})
            matches.append(table.match_id)
    detail = (
        f"No move of their own in the {rules.no_show_seconds} seconds after their table opened, "
        "while the clock played for them."
    )
    _append(
        tournament,
        "NoShowsForfeited",
        {"round": rnd.number, "tables": tables, "rule": "no_show.forfeit", "why": why("no_show.forfeit", detail)},
        actor="clock",
        key=f"no-shows:{rnd.number}",
    )
    for match_id in matches:
        _result_changed(match_id)
    limit = rules.no_show_drop_after
    if limit is None:
        return matches
    gone = sorted({entrant for table in tables for entrant in table["forfeited"]})
    counts = dict(
        StandingRow.objects.filter(tournament=tournament, entrant_id__in=gone).values_list("entrant_id", "forfeits")
    )
    for entrant in Entrant.objects.filter(pk__in=gone, status=Entrant.Status.ACTIVE).order_by("pk"):
        if counts.get(entrant.pk, 0) < limit:
            continue
        _append(
            tournament,
            "PlayerDropped",
            {
                "entrant": entrant.pk, "from_round": rnd.number + 1, "rule": "no_show.dropped",
                "why": why("no_show.dropped", f"{counts[entrant.pk]} forfeits; the limit is {limit}."),
            },
            actor="clock",
        )
    return matches


def _result_changed(match_id: int | None) -> None:
    """After commit, tells every task in `TABLE_RESULT_CHANGED_TASKS` (ratings) that the result
    of the table playing `match_id` changed (a table without a match changes no rating)."""
    if match_id is None:
        return
    for path in settings.TABLE_RESULT_CHANGED_TASKS:
        send_on_commit(path, match_id)


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


def _started_table(state: fold.State, round_number: int, table_number: int) -> dict[str, Any]:
    rnd = state["rounds"].get(str(round_number))
    if rnd is None:
        raise not_found("round_not_found", _("There is no round %(round_number)s.") % {"round_number": round_number})
    try:
        table = fold.table_of(state, round_number, table_number)
    except KeyError:
        raise not_found(
            "table_not_found",
            _("Round %(round_number)s has no table %(table_number)s.")
            % {"round_number": round_number, "table_number": table_number},
        ) from None
    if rnd["started_at"] is None:
        raise conflict("round_not_started", _("Round %(round_number)s has not started.") % {"round_number": round_number})
    return table


def _checked_result(
    tournament: Tournament,
    table: dict[str, Any],
    ranks: list[int] | None,
    team_score: float | None,
    forfeited: list[int],
) -> dict[str, Any]:
    if not set(forfeited) <= set(table["seats"]):
        raise bad_request("bad_result", _("Forfeited players must be seated at the table."))
    if tournament.game in COOPERATIVE_GAMES:
        if team_score is None or ranks is not None:
            raise bad_request("bad_result", _("A cooperative table's result is its team score (cards left)."))
        return {"ranks": None, "team_score": team_score, "forfeited": forfeited}
    if team_score is not None or ranks is None:
        raise bad_request("bad_result", _("A table's result is one rank per seat (1 is best)."))
    if len(ranks) != len(table["seats"]) or not all(
        isinstance(r, int) and 1 <= r <= len(ranks) for r in ranks
    ):
        raise bad_request(
            "bad_result", _("Give one rank from 1 to %(count)s per seat, in seat order.") % {"count": len(table['seats'])}
        )
    return {"ranks": list(ranks), "team_score": None, "forfeited": forfeited}


def _check_consistent(state: fold.State, kind: str, data: dict[str, Any]) -> None:
    """Refuses a change the format cannot make sense of (a bracket whose later rounds contradict it)."""
    after = fold.evolve(
        state,
        {"seq": state["last_seq"] + 1, "type": kind, "data": data, "created": timezone.now().isoformat()},
    )
    try:
        fold.standings(after)
        options = fold.format_options(after)
        placing = fold.bracket_format(after, options)
        if hasattr(placing, "bracket"):
            drawn = placing.bracket(fold.entrants(after), options, fold.history(after))
            _check_seated_as_drawn(after, drawn)
    except ValueError as exc:
        raise conflict(
            "correction_conflicts",
            english_or(f"Later rounds contradict that result: {exc}", _("Later rounds contradict that result.")),
        ) from None


def _check_seated_as_drawn(state: fold.State, drawn: Any) -> None:
    """Every bracket table already started still seats the players the bracket now puts there."""
    for rnd in fold.rounds_in_order(state):
        for table in rnd["tables"]:
            if not table["match"]:
                continue
            if table["bracket"] and set(drawn.match(table["bracket"]).players) != set(table["seats"]):
                raise ValueError(f"match {table['bracket']} of round {rnd['number']} is already being played")


# --- scheduling ------------------------------------------------------------------------------------


def _schedule(tournament_id: int, when: dt.datetime) -> None:
    """After commit, asks a worker to advance the tournament at `when` (the sweep catches the rest)."""
    if when - timezone.now() > _ETA_HORIZON:
        return
    send_on_commit("tournaments.tasks.tournament_advance_task", tournament_id, eta=when)
