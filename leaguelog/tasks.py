"""Background work for the league log: the integrator, run by beat every LOG_INTEGRATE_SECONDS."""
from __future__ import annotations

from leaguelog import services
from server.celery import idempotent_task


@idempotent_task
def log_integrate_task() -> int:
    """Periodic (beat): appends every pending fact that may be logged and signs a checkpoint."""
    appended = total = services.log_integrate()
    while appended == services.INTEGRATE_BATCH:
        appended = services.log_integrate()
        total += appended
    return total
