"""What this app does when games tells of a fact (games.signals): it sends a task, no more."""
from __future__ import annotations

from django.dispatch import receiver

from games.models import Match
from games.signals import matches_unsealed
from server.celery import send_on_commit


@receiver(matches_unsealed, dispatch_uid="ratings.unsealed")
def _unsealed(sender, *, match_ids, **kwargs) -> None:
    """A duplicate deal is done: its rated matches, left out while sealed (`selectors.ratable_matches`), are rated now."""
    for match_id in Match.objects.filter(pk__in=match_ids, rated=True, status=Match.Status.FINISHED).values_list(
        "pk", flat=True
    ):
        send_on_commit("ratings.tasks.match_rate_task", match_id)
