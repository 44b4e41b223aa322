"""A finished match's review, kept (`MatchReview`): read by whoever may replay the match,
computed once in the background (`games.tasks.match_review_task`) by `games.review`."""
from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.models import Event, Match, MatchReview, Seat
from games.replay import decision_points
from games.review import REVIEW_VERSION, review_events
from server.celery import send_on_commit
from server.errors import bad_request, forbidden, not_found

TASK = "games.tasks.match_review_task"
# A review still pending this long after it was asked for is asked for again: its task was lost
# (a broker restart; the task is idempotent, so a second copy only finds the work done).
RESEND_AFTER = timedelta(minutes=15)


def _current(review: MatchReview) -> bool:
    return review.version == REVIEW_VERSION and review.playouts == settings.REVIEW_PLAYOUTS


def review_read(match: Match, user: User | None) -> tuple[str, dict[str, Any] | None]:
    """("done", the analysis), ("pending", None) or ("none", None), for a person the replay
    serves (the caller has checked that they may know of the table). Asking for a review not yet
    computed (a match that ended before reviews were made, or with bots only) queues it when the
    asker played at the table or is staff, and is told "none" otherwise: a review costs a worker's
    core for seconds to minutes, on the queue bots move from, so nobody may queue the reviews of
    every demo table by walking their ids."""
    if match.status != Match.Status.FINISHED:
        raise not_found("review_not_ready", _("A match's review opens once the match has ended."))
    if not match.revealed and not (user is not None and user.is_staff):
        # As the replay: the review shows every hand, secret while a duplicate deal is still played.
        raise forbidden("match_running", _("A match can be replayed once it has ended."))
    review = MatchReview.objects.filter(match=match).first()
    if review is not None and review.status == MatchReview.Status.DONE and _current(review):
        return "done", review.analysis
    now = timezone.now()
    asking = review is None or review.status == MatchReview.Status.DONE or review.requested_at < now - RESEND_AFTER
    if asking and not (user is not None and (user.is_staff or Seat.objects.filter(match=match, user=user).exists())):
        return "none", None
    if review is None:
        review, created = MatchReview.objects.get_or_create(match=match)
        if created:
            send_on_commit(TASK, match.pk, True)
    elif review.status == MatchReview.Status.DONE or review.requested_at < now - RESEND_AFTER:
        MatchReview.objects.filter(pk=review.pk).update(status=MatchReview.Status.PENDING, requested_at=now)
        send_on_commit(TASK, match.pk, True)
    return "pending", None


def review_compute(match_id: int, *, asked: bool = False) -> bool:
    """Computes and keeps a finished match's review unless a current one is kept already.
    Told of every match that ends (`asked` False), it reviews those with a person seated, while
    REVIEW_AFTER_MATCH is on; asked for (`review_read`), any. True when it computed one."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.Status.FINISHED:
        return False
    if not asked and not (
        settings.REVIEW_AFTER_MATCH and Seat.objects.filter(match=match, user__isnull=False).exists()
    ):
        return False
    kept = MatchReview.objects.filter(match=match).first()
    if kept is not None and kept.status == MatchReview.Status.DONE and _current(kept):
        return False
    events = Event.objects.filter(match=match, kind=Event.Kind.ENGINE).order_by("seq").values_list("seq", "data")
    playouts = settings.REVIEW_PLAYOUTS
    analysis = review_events(match.game, list(events), list(decision_points(match)), playouts=playouts)
    with transaction.atomic():
        MatchReview.objects.update_or_create(
            match=match,
            defaults={
                "status": MatchReview.Status.DONE, "version": REVIEW_VERSION, "playouts": playouts,
                "analysis": analysis, "computed_at": timezone.now(),
            },
        )
    return True


def review_lead_seat(match_id: int, user: User, seq: int) -> int:
    """The seat of a person who may lead the shared review to position `seq` (the frame's
    refusals otherwise): the match has ended and is public, they sit at it, `seq` is a position of it."""
    match = Match.objects.filter(pk=match_id).first()
    if match is None or match.status != Match.Status.FINISHED:
        raise not_found("review_not_ready", _("A match's review opens once the match has ended."))
    if not match.revealed:
        raise forbidden("match_running", _("A match can be replayed once it has ended."))
    seat = Seat.objects.filter(match=match, user=user).values_list("seat", flat=True).first()
    if seat is None:
        raise forbidden("not_seated", _("Only the table's players lead or follow its shared review."))
    if not 0 < seq <= match.last_seq:
        raise bad_request("bad_seq", _("seq runs from 1 to %(last_seq)s.") % {"last_seq": match.last_seq})
    return seat
