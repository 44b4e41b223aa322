"""Invitations to an open table (a link, or one addressed to a person by name, within hourly
limits) and rematches of a finished match.
"""
from __future__ import annotations

import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.tokens import key_hash
from games import notify
from games.models import (
    Invitation,
    Match,
    Seat,
)
from games.services.deals import shuffles_commit
from games.services.seats import _free_seat, match_join
from games.services.tables import _check_open_tables, _open_match_for_update, match_start
from games.signals import invitation_addressed
from server.errors import ApplicationError, bad_request, conflict, forbidden, match_not_found, not_found

INVITATION_SECONDS_MAX = 30 * 24 * 3600


def invitation_create(
    *, match_id: int, user: User, seat: int | None = None, expires_in: int = 7 * 24 * 3600, username: str | None = None
) -> tuple[Invitation, str]:
    """The table's creator makes an invitation link (for a seat, or any free one); returns it and
    its token, which is shown this once: only its SHA-256 is kept. With `username`, the link is
    that person's alone and is sent to them (`games.signals.invitation_addressed`)."""
    if not 60 <= expires_in <= INVITATION_SECONDS_MAX:
        raise bad_request(
            "bad_expiry",
            _("An invitation lasts from 60 to %(invitation_seconds_max)s seconds.")
            % {"invitation_seconds_max": INVITATION_SECONDS_MAX},
        )
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.created_by_id != user.pk:
            raise forbidden("not_table_owner", _("Only the table's creator invites."))
        if seat is not None:
            _free_seat(match, seat)  # a seat that exists and is free now
        invitee = _invitee(match, username) if username is not None else None
        if invitee is not None:
            _within_invitation_limits(user, invitee)
        token = secrets.token_urlsafe(24)
        invitation = Invitation.objects.create(
            match=match, token_sha256=key_hash(token), seat=seat, created_by=user, invitee=invitee,
            expires_at=timezone.now() + timedelta(seconds=expires_in),
        )
        if invitee is not None:
            invitation_addressed.send(sender=Invitation, invitation=invitation)
    return invitation, token


def _invitee(match: Match, username: str) -> User:
    """The active person a table's creator invites by name, who does not sit there yet."""
    invitee = User.objects.filter(username=username, is_active=True).first()
    if invitee is None:
        raise not_found("user_not_found", _("There is no player %(username)s.") % {"username": repr(username)})
    if Seat.objects.filter(match=match, user=invitee).exists():
        raise conflict("already_seated", _("%(username)s already sits at this table.") % {"username": username})
    return invitee


def _within_invitation_limits(sender: User, invitee: User) -> None:
    """Invitations by name tell their invitee, titled with the sender's name (issue #39: 30 in
    2 s flooded a person's notifications): at most `INVITATIONS_PER_HOUR_PER_SENDER` a sender
    sends and `INVITATIONS_PER_HOUR_PER_INVITEE` a person receives, over the last hour (429).
    Both rows are locked (in id order: no deadlock) so that invitations sent at once are counted
    one after another."""
    list(User.objects.select_for_update().filter(pk__in=[sender.pk, invitee.pk]).order_by("pk").values_list("pk"))
    recent = Invitation.objects.filter(invitee__isnull=False, created_at__gte=timezone.now() - timedelta(hours=1))
    limit = settings.INVITATIONS_PER_HOUR_PER_SENDER
    if recent.filter(created_by=sender).count() >= limit:
        raise ApplicationError(
            "invitations_rate_limited",
            _("You may invite people by name at most %(limit)s times an hour: wait a little.") % {"limit": limit},
            extra={"per_hour": limit},
        )
    limit = settings.INVITATIONS_PER_HOUR_PER_INVITEE
    if recent.filter(invitee=invitee).count() >= limit:
        raise ApplicationError(
            "invitee_rate_limited",
            _("This person was invited %(limit)s times in the last hour, the most allowed: try later.") % {"limit": limit},
            extra={"per_hour": limit},
        )


def invitation_revoke(*, match_id: int, invitation_id: int, user: User) -> Invitation:
    """The table's creator revokes an invitation: its link sits nobody from now on."""
    invitation = Invitation.objects.filter(pk=invitation_id, match_id=match_id).select_related("match").first()
    if invitation is None:
        raise not_found(
            "invitation_not_found",
            _("Table %(match_id)s has no invitation %(invitation_id)s.")
            % {"match_id": match_id, "invitation_id": invitation_id},
        )
    if invitation.match.created_by_id != user.pk:
        raise forbidden("not_table_owner", _("Only the table's creator revokes its invitations."))
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_valid(token: str) -> Invitation:
    """The invitation a link names, if it may still sit someone: else 404, or 409 with why not."""
    invitation = Invitation.objects.filter(token_sha256=key_hash(token)).select_related("match").first()
    if invitation is None:
        raise not_found("invitation_not_found", _("No invitation has this link."))
    if invitation.revoked_at is not None:
        raise conflict("invitation_revoked", _("The table's creator revoked this invitation."))
    if invitation.expires_at <= timezone.now():
        raise conflict("invitation_expired", _("This invitation has expired: ask for a new link."))
    if invitation.match.status != Match.Status.OPEN:
        raise conflict("match_not_open", _("The match has already started."))
    return invitation


def invitation_accept(*, token: str, user: User, confirm_chosen_deck: bool = False) -> Seat:
    """Sits the link's holder at its table: in its seat, or the first free one."""
    invitation = invitation_valid(token)
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        raise forbidden("invitation_for_someone_else", _("This invitation was sent to another player."))
    return match_join(
        match_id=invitation.match_id, user=user, seat=invitation.seat, confirm_chosen_deck=confirm_chosen_deck,
        invited=True,
    )


def rematch_offer(*, match_id: int, user: User) -> Match:
    """A player of a finished match offers a rematch: a new table of the same people, bots and
    options (the server shuffles: a chosen deck is not dealt again), seats rotated so that the
    source's seat 1 moves first. It starts once every person has accepted; the offerer has, and
    bots need not. One rematch a match: a second offer answers 409 with the first one's id."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        source = Match.objects.select_for_update().filter(pk=match_id).first()
        if source is None:
            raise match_not_found(match_id)
        if source.status != Match.Status.FINISHED or source.origin != Match.Origin.PLAYED:
            raise conflict("rematch_not_possible", _("A rematch follows a match played here, once it has ended."))
        seats = list(Seat.objects.filter(match=source).order_by("seat"))
        if not any(seat.user_id == user.pk for seat in seats):
            raise forbidden("not_seated", _("Only the match's players offer a rematch."))
        existing = Match.objects.filter(rematch_of=source).values_list("pk", flat=True).first()
        if existing is not None:
            raise conflict(
                "rematch_exists",
                _("Table %(existing)s is this match's rematch.") % {"existing": existing},
                rematch=existing,
            )
        _check_open_tables(user)
        shuffle = shuffles_commit(1)[0] if source.shuffle_id else None
        match = Match.objects.create(
            game=source.game, players=source.players, options={k: v for k, v in source.options.items() if k != "deck"},
            rated=source.rated, created_by=user, clock_seconds=source.clock_seconds, private=source.private,
            shuffle=shuffle, seed_sha256=shuffle.seed_sha256 if shuffle else "", rematch_of=source,
            spectator_policy=source.spectator_policy, spectator_delay_moves=source.spectator_delay_moves,
        )
        rotated = seats[1:] + seats[:1]
        Seat.objects.bulk_create([
            Seat(match=match, seat=i, user_id=old.user_id, bot=old.bot, ready=old.user_id in (None, user.pk))
            for i, old in enumerate(rotated)
        ])
        everyone_ready = all(old.user_id in (None, user.pk) for old in rotated)
    if everyone_ready:  # a rematch against bots only
        return match_start(match_id=match.pk, user=None)
    return match


def rematch_accept(*, match_id: int, user: User) -> Match:
    """A person seated at a rematch accepts it; the last acceptance starts it."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.rematch_of_id is None:
            raise conflict("not_a_rematch", _("This table is not a rematch: its creator starts it."))
        if not Seat.objects.filter(match=match, user=user).update(ready=True):
            raise forbidden("not_seated", _("You do not sit at this table."))
        seats = Seat.objects.filter(match=match)
        everyone_ready = seats.count() == match.players and not seats.filter(ready=False).exists()
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
    if everyone_ready:
        return match_start(match_id=match_id, user=None)
    return match
