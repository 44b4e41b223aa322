"""What this app does when another app tells of a fact (accounts.signals): accounts never imports
this app."""
from __future__ import annotations

from django.dispatch import receiver

from accounts.signals import account_deleted
from tournaments.models import Entrant


@receiver(account_deleted, dispatch_uid="tournaments.account_deleted")
def _account_deleted(sender, *, user, **kwargs) -> None:
    """A tournament shows each entrant by the name copied at registration: that copy goes with the
    account, in the deletion's transaction."""
    Entrant.objects.filter(user=user).update(name=user.display_name)
