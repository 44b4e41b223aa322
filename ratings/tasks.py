"""Background work for ratings: takes ids, calls a service, safe to run twice."""
from __future__ import annotations

from ratings import services
from server.celery import idempotent_task


@idempotent_task
def match_rate_task(match_id: int) -> int:
    """Rates a finished match, with every other its ladder has pending (the first of a round's
    queued tasks rates the round, the others find their match rated); a replay does nothing."""
    return services.match_rate(match_id=match_id, through_latest=True)


@idempotent_task
def revisions_sweep_task() -> list[int]:
    """Periodic: the revisions of matches whose tournament changed the result, should a task have been lost."""
    return services.revisions_sweep()
