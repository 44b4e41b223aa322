"""Background work for notifications; each task takes ids, calls a service and is safe to run twice
(a notification's UNIQUE(user, kind, key) and the mail's claim see to it)."""
from __future__ import annotations

from notifications import services
from server.celery import idempotent_task


@idempotent_task
def match_finished_notify_task(match_id: int) -> int:
    """A match ended (MATCH_FINISHED_TASKS): its people are told."""
    return len(services.match_finished_notify(match_id=match_id))


@idempotent_task
def round_notify_task(tournament_id: int, seq: int) -> int:
    """A round was paired or started (TOURNAMENT_EVENT_TASKS): its people are told."""
    return len(services.round_notify(tournament_id=tournament_id, seq=seq))


@idempotent_task
def judging_notify_task(tournament_id: int, seq: int) -> int:
    """A judge was called, or ruled (JUDGING_EVENT_TASKS): the judges, or the caller, are told."""
    return len(services.judging_notify(tournament_id=tournament_id, seq=seq))


@idempotent_task
def turn_notify_sweep_task() -> int:
    """Periodic (beat): people a table has waited on for NOTIFY_TURN_DELAY_SECONDS are told."""
    return services.turn_notify_sweep()


@idempotent_task
def notification_email_task(notification_id: int) -> bool:
    """Mails one notification to its person (sent by name from the services)."""
    return services.notification_email_send(notification_id=notification_id)
