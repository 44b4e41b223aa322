"""What this app does when games tells of a fact (games.signals): it calls a service, no more."""
from __future__ import annotations

from django.dispatch import receiver

from games.signals import invitation_addressed
from notifications import services


@receiver(invitation_addressed, dispatch_uid="notifications.invited")
def _invited(sender, *, invitation, **kwargs) -> None:
    services.invitation_notify(invitation=invitation)
