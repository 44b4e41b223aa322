"""Who sits where: a person joins or leaves an open table and its creator seats bots; at a running
match a person gives up their seat (`seat_resign`), hands an away person's seat to the bot
(`seat_claim`), or passes at once in interrupt windows (`seat_auto_pass_set`).
"""
from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import notify
from games.bots import BOTS
from games.engines import ENGINES
from games.models import (
    Event,
    Invitation,
    Match,
    Seat,
)
from games.selectors import deck_chosen_by_creator
from games.services._append import table_fact_append, user_actor
from games.services.concessions import concession_settle
from games.services.tables import _open_match_for_update
from games.state import state_at_head
from server.errors import bad_request, conflict, forbidden, match_not_found


def _free_seat(match: Match, seat: int | None) -> int:
    taken = set(Seat.objects.filter(match=match).values_list("seat", flat=True))
    if seat is None:
        free = [s for s in range(match.players) if s not in taken]
        if not free:
            raise conflict("table_full", _("Every seat is taken."))
        return free[0]
    if not 0 <= seat < match.players:
        raise bad_request("bad_seat", _("Seats run from 0 to %(last)s.") % {"last": match.players - 1})
    if seat in taken:
        raise conflict("seat_taken", _("Seat %(seat)s is taken.") % {"seat": seat})
    return seat


def match_join(
    *, match_id: int, user: User, seat: int | None = None, confirm_chosen_deck: bool = False, invited: bool = False
) -> Seat:
    """Sits a person at an open table, in the given seat or the first free one.

    At a table whose creator chose the deck (and so may know every hand) only with
    `confirm_chosen_deck`: the joiner says they know. At a private table only through an
    invitation: its link (`invitation_accept`), or one addressed to this person, in its seat.
    """
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.private and not invited and match.created_by_id != user.pk:
            addressed = _invitation_addressed_to(match, user)
            if addressed is None or (addressed.seat is not None and seat not in (None, addressed.seat)):
                raise forbidden("private_table", _("This table is private: sit down through an invitation link."))
            seat = addressed.seat if addressed.seat is not None else seat
        if deck_chosen_by_creator(match) and match.created_by_id != user.pk and not confirm_chosen_deck:
            raise conflict(
                "chosen_deck_not_confirmed",
                _(
                    "The table's creator chose the deck, so they may know every hand. "
                    'Send "confirm_chosen_deck": true to sit down anyway.'
                ),
            )
        if Seat.objects.filter(match=match, user=user).exists():
            raise conflict("already_seated", _("You already sit at this table."))
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
        return Seat.objects.create(match=match, seat=_free_seat(match, seat), user=user)


def _invitation_addressed_to(match: Match, user: User) -> Invitation | None:
    """A live invitation of this table addressed to this person (its seat first), if any."""
    live = Invitation.objects.filter(match=match, invitee=user, revoked_at__isnull=True, expires_at__gt=timezone.now())
    return live.order_by(F("seat").asc(nulls_last=True), "pk").first()


def match_leave(*, match_id: int, user: User) -> None:
    """Leaves an open table."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        deleted, _by_model = Seat.objects.filter(match=match, user=user).delete()
        if not deleted:
            raise forbidden("not_seated", _("You do not sit at this table."))
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))


def match_seat_bot(*, match_id: int, user: User, bot: str, seat: int | None = None) -> Seat:
    """The table's creator seats a bot, by name, from the game's bots."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.created_by_id != user.pk:
            raise forbidden("not_table_owner", _("Only the table's creator seats bots."))
        if bot not in BOTS.get(match.game, {}):
            raise bad_request(
                "unknown_bot",
                _("%(game)s has no bot %(bot)s.") % {"game": match.game, "bot": repr(bot)},
                bots=sorted(BOTS.get(match.game, {})),
            )
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
        return Seat.objects.create(match=match, seat=_free_seat(match, seat), bot=bot)


def seat_resign(*, match_id: int, user: User) -> int:
    """A seated person gives up a running match: from then on the game's fallback bot plays their
    seat to the end (as an abandoned seat's, `games.turns.bot_move`) and it ranks after every seat
    that played on (`selectors.result_ranks`). Recorded as a table fact, `SeatResigned`, by its
    person. In a cooperative game the team plays on with the bot (or, if everyone still playing
    has agreed to concede, the team's concession is carried: `concession_settle`). Returns the seat."""
    with transaction.atomic():
        match, row = _running_seat_for_update(match_id, user)
        _seat_give_up(match, row, fact="SeatResigned", actor=user_actor(user))
    return row.seat


def seat_claim(*, match_id: int, user: User, seat: int, present: set[int]) -> int:
    """A seated person claims a seat whose person has left the table: once the match has waited on
    that seat for `CLAIM_SEAT_AFTER_SECONDS` since its last event while its person has no socket at
    the table (`present`: the seats with one, `games.presence`), the fallback bot plays it as if
    it had resigned (`SeatClaimed`, by the claimer). With or without a clock: without one, a table
    someone walked away from waited for ever."""
    with transaction.atomic():
        match, mine = _running_seat_for_update(match_id, user)
        row = Seat.objects.filter(match=match, seat=seat).first()
        if row is None or row.user_id is None or row.abandoned or row.pk == mine.pk:
            raise conflict("seat_not_claimable", _("Only another person's seat that they still play can be claimed."))
        state = state_at_head(match.pk, match.game, match.last_seq)
        waited = (timezone.now() - Event.objects.get(match=match, seq=match.last_seq).created).total_seconds()
        needed = settings.CLAIM_SEAT_AFTER_SECONDS
        if seat not in ENGINES[match.game].to_act(state) or seat in present or waited < needed:
            raise conflict(
                "seat_not_claimable",
                _("A seat can be claimed once the table has waited %(seconds)s seconds on it with its player away.")
                % {"seconds": needed},
                seconds_left=max(0, round(needed - waited)) if seat not in present else None,
            )
        _seat_give_up(match, row, fact="SeatClaimed", actor=user_actor(user))
    return seat


def _running_seat_for_update(match_id: int, user: User) -> tuple[Match, Seat]:
    """The running match, locked, and the caller's seat at it, which they still play."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    row = Seat.objects.filter(match=match, user=user).first()
    if row is None:
        raise forbidden("not_seated", _("You do not sit at this table."))
    if match.status != Match.Status.RUNNING:
        raise conflict("match_not_running", _("The match is not running."))
    if row.abandoned:
        raise conflict("seat_given_up", _("Your seat is played by the bot already."))
    return match, row


def _seat_give_up(match: Match, row: Seat, *, fact: str, actor: str) -> None:
    """The fallback bot plays the seat from now on; the fact's append schedules its turn if due."""
    Seat.objects.filter(pk=row.pk).update(abandoned=True)
    table_fact_append(match_id=match.pk, fact={"type": fact, "seat": row.seat}, actor=actor)
    concession_settle(match.pk)  # everyone still playing may have agreed to concede already
    transaction.on_commit(lambda: notify.match_seats_changed(match.pk))


def seat_auto_pass_set(*, match_id: int, user: User, enabled: bool) -> bool:
    """A seated person chooses to pass at once in interrupt windows; takes effect from the next window."""
    updated = Seat.objects.filter(match_id=match_id, user=user).update(auto_pass=enabled)
    if not updated:
        if not Match.objects.filter(pk=match_id).exists():
            raise match_not_found(match_id)
        raise forbidden("not_seated", _("You do not sit at this table."))
    return enabled
