"""Background work for tables; each task takes ids, calls a service and is safe to run twice."""
from __future__ import annotations

from django.conf import settings

from games import demo, reviews, turns
from server.celery import idempotent_task


@idempotent_task
def bot_move_task(match_id: int, seat: int, expected_seq: int, postponed_token: str = "") -> bool:
    """A bot moves for its seat if the match is still where the task was queued (and its
    table's creator has bot moves left this minute: else it is queued again for later)."""
    return turns.bot_move(match_id=match_id, seat=seat, expected_seq=expected_seq, postponed_token=postponed_token)


@idempotent_task
def clock_expire_task(match_id: int, seat: int, expected_seq: int) -> bool:
    """A seat's time ran out if the match is still waiting on that decision."""
    return turns.clock_expire(match_id=match_id, seat=seat, expected_seq=expected_seq)


@idempotent_task
def window_close_task(match_id: int, deadline: str) -> int:
    """An interrupt window closes with a pass for everyone still asked, if it is still open."""
    return turns.window_close(match_id=match_id, deadline=deadline)


@idempotent_task
def window_pass_task(match_id: int, seat: int) -> bool:
    """A seat that passes automatically in interrupt windows passes now."""
    return turns.window_pass(match_id=match_id, seat=seat)


@idempotent_task
def sweep_task() -> dict[str, int]:
    """Periodic (beat): re-sends overdue clocks, windows and bot turns that a lost task left."""
    return turns.sweep()


@idempotent_task
def demo_top_up_task() -> list[int]:
    """Periodic (beat, while the demo is on): starts bot tables in place of the demo's that ended."""
    # The beat sends this only while DEMO is on; a copy left in the embedded default's queue
    # (it outlives the run) must not start tables for a server run without the demo.
    if not settings.DEMO:
        return []
    return [match.pk for match in demo.demo_tables_top_up()]


@idempotent_task
def demo_table_finished_task(match_id: int) -> list[int]:
    """A match ended (MATCH_FINISHED_TASKS while the demo is on): a demo table is replaced at once."""
    if not settings.DEMO:
        return []
    return [match.pk for match in demo.demo_table_replace(match_id)]


@idempotent_task
def match_review_task(match_id: int, asked: bool = False) -> bool:
    """A finished match's review (MATCH_FINISHED_TASKS, or asked for by a reader): computed and
    kept once; a copy that finds it kept does nothing."""
    return reviews.review_compute(match_id, asked=asked)
