"""Reads of notifications and of the choices where they reach a person."""
from __future__ import annotations

from typing import TypedDict

from django.db.models import QuerySet

from accounts.models import InvitationsFrom, MutedSender, User
from games.selectors import played_together
from notifications.models import Kind, Notification, NotificationPreference

# Where a kind reaches a person who never chose (no NotificationPreference row).
DEFAULT_CHOICE: Choice = {"browser": True, "email": False}
# Notifications a socket sends on connect, newest first.
LATEST_ON_CONNECT = 10


class Choice(TypedDict):
    browser: bool
    email: bool


def preferences_of(*, user_ids: list[int], kinds: list[str]) -> dict[str, dict[int, Choice]]:
    """Each kind's choice of each person: `{kind: {user id: {"browser", "email"}}}`, defaults filled in."""
    found = {
        (p.kind, p.user_id): Choice(browser=p.browser, email=p.email)
        for p in NotificationPreference.objects.filter(user_id__in=user_ids, kind__in=kinds)
    }
    return {kind: {u: found.get((kind, u), Choice(**DEFAULT_CHOICE)) for u in user_ids} for kind in kinds}


def preferences(*, user: User) -> dict[str, Choice]:
    """The person's choice for every kind."""
    return {kind: by_user[user.pk] for kind, by_user in preferences_of(user_ids=[user.pk], kinds=Kind.values).items()}


def notification_list(*, user_id: int, unread: bool = False) -> QuerySet[Notification]:
    """The person's own notifications, newest first (only the unread ones with `unread`)."""
    rows = Notification.objects.filter(user_id=user_id)
    return rows.filter(read_at__isnull=True) if unread else rows


def unread_count(*, user_id: int) -> int:
    return Notification.objects.filter(user_id=user_id, read_at__isnull=True).count()


def unread_after(*, user_id: int, after_id: int) -> list[Notification]:
    """The person's unread notifications newer than `after_id`, oldest first (what a socket has not sent)."""
    rows = Notification.objects.filter(user_id=user_id, read_at__isnull=True, pk__gt=after_id).order_by("pk")
    return list(rows[:LATEST_ON_CONNECT])


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
