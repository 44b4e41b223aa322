"""Background work for tables; each task takes ids, calls a service and is safe to run twice."""
from __future__ import annotations

from celery import shared_task

from games import services


@shared_task(acks_late=True)
def bot_move_task(match_id: int, seat: int, expected_seq: int) -> bool:
    """A bot moves for its seat if the match is still where the task was queued."""
    return services.bot_move(match_id=match_id, seat=seat, expected_seq=expected_seq)
