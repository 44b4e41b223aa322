"""Webhooks: an organiser's program hears of a tournament's events as they happen.

A delivery row is written in the same transaction as the event (an outbox), and a Celery task
sends it after commit: `POST` of a JSON body signed with the webhook's secret,
`X-Cardleague-Signature: sha256=<hex HMAC-SHA256 of the body>`. A failed attempt (no answer,
or any status but 2xx) is tried again with exponential back-off; after `MAX_ATTEMPTS` the
delivery is marked failed. Delivery is at least once: a receiver keys on
`X-Cardleague-Delivery` to drop repeats.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import os
import secrets
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from server.errors import bad_request, forbidden, not_found

log = logging.getLogger(__name__)

# Event type -> the kind a webhook subscribes to.
KINDS: dict[str, str] = {
    "RoundPaired": "round.paired",
    "TableResult": "result.recorded",
    "ForfeitAwarded": "result.recorded",
    "ResultCorrected": "result.recorded",
    "TournamentFinished": "tournament.finished",
}
ALL_KINDS = sorted(set(KINDS.values()))
SIGNATURE_HEADER = "X-Cardleague-Signature"
MAX_ATTEMPTS = 8
_TIMEOUT_SECONDS = 10


def backoff_seconds(attempts: int) -> float:
    """Seconds before the next try after `attempts` failed ones: base·2^(n−1), at most an hour."""
    # A setting if the project defines one, else the environment (tests shorten it for a worker).
    base = float(
        getattr(settings, "TOURNAMENT_WEBHOOK_BACKOFF_SECONDS", None)
        or os.environ.get("TOURNAMENT_WEBHOOK_BACKOFF_SECONDS", "10")
    )
    return min(3600.0, base * 2 ** max(0, attempts - 1))


def sign(secret: str, body: bytes) -> str:
    """The signature header's value for a body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def webhook_create(*, tournament_id: int, user: Any, url: str, kinds: list[str] | None = None) -> Any:
    """The organiser registers an endpoint; the answer carries the secret that signs every body."""
    from tournaments.models import Tournament, Webhook

    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise not_found("tournament_not_found", f"There is no tournament {tournament_id}.")
    if user.pk != tournament.organiser_id:
        raise forbidden("not_organiser", "Only the tournament's organiser may do that.")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise bad_request("bad_url", "A webhook URL is an http or https URL.")
    kinds = sorted(set(kinds or ALL_KINDS))
    unknown = sorted(set(kinds) - set(ALL_KINDS))
    if unknown:
        raise bad_request("bad_kinds", f"Unknown kinds: {', '.join(unknown)}.", kinds=ALL_KINDS)
    return Webhook.objects.create(tournament=tournament, url=url, secret=secrets.token_hex(32), kinds=kinds)


def webhook_delete(*, tournament_id: int, webhook_id: int, user: Any) -> None:
    """The organiser removes an endpoint; deliveries not yet made are dropped."""
    from tournaments.models import Webhook

    hook = (
        Webhook.objects.filter(pk=webhook_id, tournament_id=tournament_id)
        .select_related("tournament")
        .first()
    )
    if hook is None:
        raise not_found("webhook_not_found", f"Tournament {tournament_id} has no webhook {webhook_id}.")
    if user.pk != hook.tournament.organiser_id:
        raise forbidden("not_organiser", "Only the tournament's organiser may do that.")
    hook.active = False
    hook.save(update_fields=["active"])


def deliveries_create(tournament: Any, event: Any) -> int:
    """Outbox rows for a new event, one per subscribed webhook; sent after commit."""
    from tournaments.models import WebhookDelivery

    kind = KINDS.get(event.type)
    if kind is None:
        return 0
    hooks = [hook for hook in tournament.webhooks.filter(active=True) if kind in hook.kinds]
    if not hooks:
        return 0
    rows = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(webhook=hook, event=event, kind=kind, next_attempt_at=timezone.now())
            for hook in hooks
        ]
    )
    ids = [row.pk for row in rows]
    transaction.on_commit(lambda: send_later(ids))
    return len(rows)


def send_later(delivery_ids: list[int], *, countdown: float | None = None) -> None:
    from tournaments.tasks import webhook_deliver_task

    for delivery_id in delivery_ids:
        try:
            webhook_deliver_task.apply_async((delivery_id,), countdown=countdown)
        except Exception:  # noqa: BLE001 - the row is committed: the sweep sends it again
            log.warning("could not queue webhook delivery %s; the sweep will", delivery_id, exc_info=True)


def body_of(delivery: Any) -> bytes:
    """The delivered JSON body (deal seeds stay hidden: they are secret while a round is played)."""
    from tournaments.selectors import event_public

    event = delivery.event
    payload = {
        "delivery": delivery.pk,
        "kind": delivery.kind,
        "tournament": event.tournament_id,
        "event": event_public(event, reveal_deals=False),
    }
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str).encode()


def webhook_deliver(*, delivery_id: int) -> str:
    """One attempt at a delivery; returns its status after it ("pending" means try again later).

    A delivery already made (or given up) is not sent again, so a repeated task does nothing.
    """
    from tournaments.models import WebhookDelivery

    delivery = WebhookDelivery.objects.select_related("webhook", "event").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return delivery.status if delivery is not None else "missing"
    if not delivery.webhook.active:
        WebhookDelivery.objects.filter(pk=delivery_id).update(
            status=WebhookDelivery.Status.FAILED, last_error="webhook removed"
        )
        return WebhookDelivery.Status.FAILED
    body = body_of(delivery)
    status_code, error = _post(delivery, body)
    attempts = delivery.attempts + 1
    if status_code is not None and 200 <= status_code < 300:
        WebhookDelivery.objects.filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING).update(
            status=WebhookDelivery.Status.DELIVERED,
            attempts=attempts,
            last_status=status_code,
            last_error="",
            delivered_at=timezone.now(),
            next_attempt_at=None,
        )
        return WebhookDelivery.Status.DELIVERED
    gave_up = attempts >= MAX_ATTEMPTS
    WebhookDelivery.objects.filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING).update(
        status=WebhookDelivery.Status.FAILED if gave_up else WebhookDelivery.Status.PENDING,
        attempts=attempts,
        last_status=status_code,
        last_error=error[:300],
        next_attempt_at=None if gave_up else timezone.now() + dt.timedelta(seconds=backoff_seconds(attempts)),
    )
    return WebhookDelivery.Status.FAILED if gave_up else WebhookDelivery.Status.PENDING


def _post(delivery: Any, body: bytes) -> tuple[int | None, str]:
    request = urllib.request.Request(
        delivery.webhook.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": "cardleague-webhooks/1",
            SIGNATURE_HEADER: sign(delivery.webhook.secret, body),
            "X-Cardleague-Delivery": str(delivery.pk),
            "X-Cardleague-Event": delivery.kind,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT_SECONDS) as answer:  # noqa: S310 - http(s) only
            return answer.status, ""
    except urllib.error.HTTPError as exc:
        return exc.code, f"HTTP {exc.code}"
    except (urllib.error.URLError, OSError) as exc:
        return None, str(exc)


def deliveries_overdue(*, now: dt.datetime | None = None, grace: float = 60.0) -> list[int]:
    """Pending deliveries whose next try is long overdue (a lost task): for the periodic sweep."""
    from tournaments.models import WebhookDelivery

    now = now or timezone.now()
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=now - dt.timedelta(seconds=grace)
        ).values_list("pk", flat=True)[:500]
    )
