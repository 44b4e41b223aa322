"""Background work for tournaments: each task takes ids, calls a service and is safe to run twice."""

from __future__ import annotations

from server.celery import idempotent_task
from tournaments import services, webhooks


@idempotent_task
def tournament_match_finished_task(match_id: int) -> list[str]:
    """A match ended (MATCH_FINISHED_TASKS): a tournament table's result is recorded and the
    tournament advanced (the round completed, the next paired and started, or the end)."""
    return services.tournament_match_finished(match_id=match_id)


@idempotent_task
def tournament_advance_task(tournament_id: int) -> list[str]:
    """Does whatever is due in a tournament now: its start, a round's start or deadline, the next round."""
    return services.tournament_advance(tournament_id=tournament_id)


@idempotent_task
def tournament_sweep_task() -> dict[str, int]:
    """Periodic (beat): advances every tournament with something due, and re-sends webhook
    deliveries whose task was lost."""
    due = services.tournaments_due()
    for tournament_id in due:
        tournament_advance_task.delay(tournament_id)
    overdue = webhooks.deliveries_overdue()
    webhooks.send_later(overdue)
    return {"tournaments": len(due), "deliveries": len(overdue)}


@idempotent_task(bind=True, max_retries=webhooks.MAX_ATTEMPTS)
def webhook_deliver_task(self, delivery_id: int) -> str:
    """One attempt at a webhook delivery; a failed one is tried again with exponential back-off."""
    status = webhooks.webhook_deliver(delivery_id=delivery_id)
    if status == "pending":
        raise self.retry(countdown=webhooks.retry_countdown(delivery_id=delivery_id))
    return status
