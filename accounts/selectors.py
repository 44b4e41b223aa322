"""Reads of accounts."""
from __future__ import annotations

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import ApiToken, User


def token_list(*, user: User) -> QuerySet[ApiToken]:
    """`user`'s API tokens that still work, newest first."""
    return ApiToken.objects.filter(user=user, expires__gt=timezone.now())
