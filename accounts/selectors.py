"""Reads of accounts."""
from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import ApiToken, MutedSender, User


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """`user`'s API tokens that still work, newest first."""
    return ApiToken.objects.filter(user=user, expires__gt=timezone.now())


def muted_sender_list(*, user: User) -> QuerySet[MutedSender]:
    """The senders `user` muted who still have an account, most recent first."""
    return MutedSender.objects.filter(user=user, sender__is_active=True).select_related("sender")
