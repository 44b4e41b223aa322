"""Reads of accounts."""
from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import ApiToken, InvitationsFrom, MutedSender, User
from games.models import Match, Seat


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """`user`'s API tokens that still work, newest first."""
    return ApiToken.objects.filter(user=user, expires__gt=timezone.now())


def muted_sender_list(*, user: User) -> QuerySet[MutedSender]:
    """The senders `user` muted who still have an account, most recent first."""
    return MutedSender.objects.filter(user=user, sender__is_active=True).select_related("sender")


def invitation_wanted(*, invitee_id: int, sender_id: int) -> bool:
    """Whether an invitation by name from `sender_id` reaches `invitee_id`: not if the invitee
    muted the sender, or takes invitations from nobody, or only from people they have played
    with (sat at the same match, once it started here) and the sender is not one of them."""
    if MutedSender.objects.filter(user_id=invitee_id, sender_id=sender_id).exists():
        return False
    policy = User.objects.filter(pk=invitee_id).values_list("invitations_from", flat=True).first()
    if policy == InvitationsFrom.NOBODY:
        return False
    if policy == InvitationsFrom.PLAYED_WITH:
        return played_together(invitee_id, sender_id)
    return True


def played_together(user_id: int, other_id: int) -> bool:
    """Whether two people sat at one match that started here (an imported log proves nothing)."""
    started = Seat.objects.filter(
        user_id=user_id, match__origin=Match.Origin.PLAYED, match__started_at__isnull=False
    ).values("match_id")
    return Seat.objects.filter(user_id=other_id, match_id__in=started).exists()
