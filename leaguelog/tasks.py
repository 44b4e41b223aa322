"""Background work for the league log: the integrator, run by beat every LOG_INTEGRATE_SECONDS."""
from __future__ import annotations

from leaguelog import services
from server.celery import idempotent_task
from server.errors import ApplicationError

# The log refuses to go on from a database behind its mirror (a restore it cannot recover from): the
# service has logged why, and beat asks again at the next tick; a retry would only say it twice.
_REFUSALS = ("log_behind_mirror", "log_mirror_disagrees")


@idempotent_task
def log_integrate_task() -> int:
    """Periodic (beat): appends every pending fact that may be logged and signs a checkpoint."""
    try:
        appended = total = services.log_integrate()
    except ApplicationError as refusal:
        if refusal.code not in _REFUSALS:
            raise
        return 0
    while appended == services.INTEGRATE_BATCH:
        appended = services.log_integrate()
        total += appended
    return total
