"""What this app does when games tells of a fact (games.signals): it calls a service, no more."""
from __future__ import annotations

from django.dispatch import receiver

from games.signals import invitation_addressed, matches_unsealed
from notifications import services


@receiver(invitation_addressed, dispatch_uid="notifications.invited")
def _invited(sender, *, invitation, **kwargs) -> None:
    services.invitation_notify(invitation=invitation)


@receiver(matches_unsealed, dispatch_uid="notifications.unsealed")
def _unsealed(sender, *, match_ids, **kwargs) -> None:
    services.held_invitations_notify(match_ids=match_ids)
