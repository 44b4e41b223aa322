"""Webhooks: an organiser's program hears of a tournament's events, or a series', as they happen.

A series' webhook hears of its decisions (`series.changed`: rules set, a tournament counted,
moved to another tier or dropped) and of what moves its standings in the tournaments it counts
(`series.standings`: one finishing, a finished one's result corrected).

A delivery row is written in the same transaction as the event (an outbox), and a Celery task
sends it after commit: `POST` of a JSON body signed with the webhook's secret,
`X-Cardleague-Signature: sha256=<hex HMAC-SHA256 of the body>`. A failed attempt (no answer,
or any status but 2xx) is tried again with exponential back-off; after `MAX_ATTEMPTS` the
delivery is marked failed. Delivery is at least once: a receiver keys on
`X-Cardleague-Delivery` to drop repeats.

Any user may organise a tournament, so a webhook URL is an attacker's choice and the worker that
POSTs it sits inside the deployment (server-side request forgery). A URL is refused unless it is
https and every address its host resolves to is public: checked at registration and again at
each delivery, which then connects to the very addresses it checked (a name whose answer changes
between the check and the connection, DNS rebinding, gets nowhere). Redirects are not followed.
The settings `WEBHOOK_ALLOW_HTTP` and `WEBHOOK_ALLOW_PRIVATE_ADDRESSES` lift this, for tests only.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import ipaddress
import json
import logging
import secrets
import socket
import ssl
from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from server.celery import send_now
from server.errors import ApplicationError, bad_request, forbidden, not_found
from tournaments.models import Series, Tournament, Webhook, WebhookDelivery
from tournaments.selectors import event_public, result_held, series_decision_public

log = logging.getLogger(__name__)

# Event type -> the kind a webhook subscribes to.
KINDS: dict[str, str] = {
    "RoundPaired": "round.paired",
    "TableResult": "result.recorded",
    "ForfeitAwarded": "result.recorded",
    "ResultCorrected": "result.recorded",
    "TournamentFinished": "tournament.finished",
    # Who is really there (tournaments.field_rules): each names the rule that made it.
    "NoShowsForfeited": "result.recorded",
    "PlayerWithdrawn": "field.changed",
    "PlayerWaitlisted": "field.changed",
    "PlayerCheckedIn": "field.changed",
    "PlayerPromoted": "field.changed",
    "CheckInMissed": "field.changed",
    "WaitlistClosed": "field.changed",
    "PlayerLateEntered": "field.changed",
    "PlayerReentered": "field.changed",
    "PlayerDropped": "field.changed",
}
ALL_KINDS = sorted(set(KINDS.values()))
SERIES_CHANGED = "series.changed"
SERIES_STANDINGS = "series.standings"
SERIES_KINDS = [SERIES_CHANGED, SERIES_STANDINGS]
# A counted tournament's events that move the series' standings: its end, and a result changed after it.
_SERIES_STANDINGS_EVENTS = frozenset({"TournamentFinished", "ResultCorrected"})
SIGNATURE_HEADER = "X-Cardleague-Signature"
MAX_ATTEMPTS = 8
_TIMEOUT_SECONDS = 10


def backoff_seconds(attempts: int) -> float:
    """Seconds before the next try after `attempts` failed ones: base·2^(n−1), at most an hour."""
    base = settings.TOURNAMENT_WEBHOOK_BACKOFF_SECONDS
    return min(3600.0, base * 2 ** max(0, attempts - 1))


def retry_countdown(*, delivery_id: int) -> float:
    """Seconds before a pending delivery's next try: the back-off after its failed attempts (one if none yet)."""
    attempts = WebhookDelivery.objects.filter(pk=delivery_id).values_list("attempts", flat=True).first()
    return backoff_seconds(attempts or 1)


def sign(secret: str, body: bytes) -> str:
    """The signature header's value for a body."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def webhook_create(*, tournament_id: int, user: Any, url: str, kinds: list[str] | None = None) -> Any:
    """The organiser registers an endpoint; the answer carries the secret that signs every body."""
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        raise not_found("tournament_not_found", _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id})
    if user.pk != tournament.organiser_id:
        raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))
    return _webhook_new(url, kinds, ALL_KINDS, tournament=tournament)


def series_webhook_create(*, series_id: int, user: Any, url: str, kinds: list[str] | None = None) -> Any:
    """The series' organiser (or staff) registers an endpoint for the series."""
    return _webhook_new(url, kinds, SERIES_KINDS, series=_managed_series(series_id, user))


def _webhook_new(url: str, kinds: list[str] | None, known: list[str], **owner: Any) -> Any:
    _scheme, host, port, _path = _url_split(url)
    kinds = sorted(set(kinds or known))
    unknown = sorted(set(kinds) - set(known))
    if unknown:
        raise bad_request("bad_kinds", _("Unknown kinds: %(kinds)s.") % {"kinds": ', '.join(unknown)}, kinds=known)
    try:
        _addresses_checked(host, port)
    except OSError:
        pass  # a name that does not resolve now (a DNS outage) may later: each delivery checks again
    return Webhook.objects.create(url=url, secret=secrets.token_hex(32), kinds=kinds, **owner)


def _managed_series(series_id: int, user: Any) -> Series:
    series = Series.objects.filter(pk=series_id).first()
    if series is None:
        raise not_found("series_not_found", _("There is no series %(series_id)s.") % {"series_id": series_id})
    if not (user.is_staff or user.pk == series.organiser_id):
        raise forbidden("not_series_organiser", _("Only the series' organiser (or staff) may do that."))
    return series


def webhook_delete(*, tournament_id: int, webhook_id: int, user: Any) -> None:
    """The organiser removes an endpoint; deliveries not yet made are dropped."""
    hook = (
        Webhook.objects.filter(pk=webhook_id, tournament_id=tournament_id)
        .select_related("tournament")
        .first()
    )
    if hook is None or hook.tournament is None:
        raise not_found(
            "webhook_not_found",
            _("Tournament %(tournament_id)s has no webhook %(webhook_id)s.")
            % {"tournament_id": tournament_id, "webhook_id": webhook_id},
        )
    if user.pk != hook.tournament.organiser_id:
        raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))
    hook.active = False
    hook.save(update_fields=["active"])


def series_webhook_delete(*, series_id: int, webhook_id: int, user: Any) -> None:
    """The series' organiser (or staff) removes an endpoint; deliveries not yet made are dropped."""
    series = _managed_series(series_id, user)
    if not Webhook.objects.filter(pk=webhook_id, series=series, active=True).update(active=False):
        raise not_found(
            "webhook_not_found",
            _("Series %(series_id)s has no webhook %(webhook_id)s.") % {"series_id": series_id, "webhook_id": webhook_id},
        )


def deliveries_create(tournament: Any, event: Any) -> int:
    """Outbox rows for a new event, one per subscribed webhook; sent after commit, but for a
    result held while its duplicate deal is played (`result_held`): held (no next attempt) until
    the round is over (`deliveries_release`)."""
    made = _series_deliveries_create(tournament, event)
    kind = KINDS.get(event.type)
    if kind is None:
        return made
    hooks = [hook for hook in tournament.webhooks.filter(active=True) if kind in hook.kinds]
    if not hooks:
        return made
    held = result_held(event)
    rows = WebhookDelivery.objects.bulk_create(
        [
            WebhookDelivery(webhook=hook, event=event, kind=kind, next_attempt_at=None if held else timezone.now())
            for hook in hooks
        ]
    )
    ids = [row.pk for row in rows]
    if not held:
        transaction.on_commit(lambda: send_later(ids))
    return made + len(rows)


def _series_deliveries_create(tournament: Any, event: Any) -> int:
    """Outbox rows for the webhooks of the series that count `tournament`, when `event` moves their
    standings: its end, or a result corrected once it has finished (a finished tournament holds no
    result back: every round is over)."""
    if event.type not in _SERIES_STANDINGS_EVENTS:
        return 0
    if event.type != "TournamentFinished" and tournament.status != Tournament.Status.FINISHED:
        return 0
    hooks = Webhook.objects.filter(series__events__tournament=tournament, active=True)
    return _deliveries_now([hook for hook in hooks if SERIES_STANDINGS in hook.kinds], SERIES_STANDINGS, event=event)


def series_deliveries_create(series: Any, decision: Any) -> int:
    """Outbox rows for a series' new decision, one per webhook of the series that hears of them."""
    hooks = [hook for hook in series.webhooks.filter(active=True) if SERIES_CHANGED in hook.kinds]
    return _deliveries_now(hooks, SERIES_CHANGED, decision=decision)


def _deliveries_now(hooks: list[Any], kind: str, **delivered: Any) -> int:
    if not hooks:
        return 0
    rows = WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(webhook=hook, kind=kind, next_attempt_at=timezone.now(), **delivered) for hook in hooks]
    )
    ids = [row.pk for row in rows]
    transaction.on_commit(lambda: send_later(ids))
    return len(rows)


def deliveries_release(tournament: Any) -> int:
    """Sends the deliveries held for results (`result_held`) that are held no more: called once
    the round is over and its matches unsealed. Returns how many."""
    held = WebhookDelivery.objects.filter(
        webhook__tournament=tournament, status=WebhookDelivery.Status.PENDING, next_attempt_at__isnull=True
    ).select_related("event")
    ids = [delivery.pk for delivery in held if delivery.event is not None and not result_held(delivery.event)]
    if ids:
        WebhookDelivery.objects.filter(pk__in=ids).update(next_attempt_at=timezone.now())
        transaction.on_commit(lambda: send_later(ids))
    return len(ids)


def send_later(delivery_ids: list[int], *, countdown: float | None = None) -> None:
    for delivery_id in delivery_ids:
        send_now("tournaments.tasks.webhook_deliver_task", delivery_id, countdown=countdown)


def body_of(delivery: Any) -> bytes:
    """The delivered JSON body (deal seeds stay hidden: they are secret while a round is played).
    A series' webhook names its series, and the decision or the counted tournament's event."""
    payload: dict[str, Any] = {"delivery": delivery.pk, "kind": delivery.kind}
    if delivery.webhook.series_id is not None:
        payload["series"] = delivery.webhook.series_id
    if delivery.decision is not None:
        payload["decision"] = series_decision_public(delivery.decision)
    else:
        payload["tournament"] = delivery.event.tournament_id
        payload["event"] = event_public(delivery.event, reveal_deals=False)
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str).encode()


def webhook_deliver(*, delivery_id: int) -> str:
    """One attempt at a delivery; returns its status after it ("pending" means try again later).

    A delivery already made (or given up) is not sent again, so a repeated task does nothing.
    """
    delivery = WebhookDelivery.objects.select_related("webhook", "event", "decision").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != WebhookDelivery.Status.PENDING:
        return delivery.status if delivery is not None else "missing"
    # A task sent early (a sweep, a replay): `deliveries_release` sends it.
    if delivery.event is not None and result_held(delivery.event):
        return WebhookDelivery.Status.PENDING
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
    """One POST to the webhook's URL, checked again now: (the status, or None; an error for the log)."""
    try:
        target = _target(delivery.webhook.url)
    except ApplicationError as refused:
        return None, str(refused.message)
    except OSError as exc:  # the name does not resolve
        return None, str(exc)
    connection = (_PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection)(target)
    try:
        connection.request(
            "POST",
            target.path,
            body=body,
            headers={
                "Content-Type": "application/json",
                "User-Agent": "cardleague-webhooks/1",
                SIGNATURE_HEADER: sign(delivery.webhook.secret, body),
                "X-Cardleague-Delivery": str(delivery.pk),
                "X-Cardleague-Event": delivery.kind,
            },
        )
        status = connection.getresponse().status
    except (OSError, http.client.HTTPException) as exc:  # ssl errors are OSErrors
        return None, str(exc) or type(exc).__name__
    finally:
        connection.close()
    if 200 <= status < 300:
        return status, ""
    if 300 <= status < 400:
        # Following would send the worker wherever the receiver says, past every check above.
        return status, f"HTTP {status}: redirects are not followed"
    return status, f"HTTP {status}"


@dataclass(frozen=True)
class _Target:
    """A webhook URL taken apart, with the addresses its host resolved to, every one of them checked."""

    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def _target(url: str) -> _Target:
    scheme, host, port, path = _url_split(url)
    return _Target(scheme, host, port, path, _addresses_checked(host, port))


def _url_split(url: str) -> tuple[str, str, int, str]:
    """(scheme, ASCII host, port, path with query) of an acceptable URL; refuses http unless allowed."""
    parts = urlsplit(url)
    try:
        port = parts.port
        host = (parts.hostname or "").encode("idna").decode("ascii")
    except (ValueError, UnicodeError):  # a port past 65535, a label too long
        host = ""
    if parts.scheme not in ("http", "https") or not host:
        raise bad_request("bad_url", _("A webhook URL is an http or https URL."))
    if parts.username is not None or parts.password is not None:
        raise bad_request("bad_url", _("A webhook URL carries no user name or password (they are not sent)."))
    if parts.scheme == "http" and not settings.WEBHOOK_ALLOW_HTTP:
        raise bad_request(
            "webhook_url_refused", _("A webhook URL must be https: deliveries are not sent in clear.")
        )
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    return parts.scheme, host, port, path


def _addresses_checked(host: str, port: int) -> tuple[str, ...]:
    """Every address `host` resolves to now, if all are public; OSError if it does not resolve.

    The resolver reads every spelling (`2130706433`, `0177.0.0.1`, `[::ffff:127.0.0.1]`) as the
    connection would, so its answers are what is checked, not the URL's text.
    """
    answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    # An IPv4 or IPv6 address's text: getaddrinfo answers in no other family (the stubs allow them all).
    addresses = tuple(dict.fromkeys(cast(str, sockaddr[0]) for *_, sockaddr in answers))
    if not settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES and not all(map(_is_public, addresses)):
        raise bad_request(
            "webhook_url_refused",
            _(
                "A webhook URL's host must resolve to public addresses only, not to loopback, private, link-local, "
                "multicast or reserved ones."
            ),
        )
    return addresses


def _is_public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%")[0])  # a link-local IPv6 answer may carry its scope
    if isinstance(ip, ipaddress.IPv6Address):
        # An IPv4 address inside IPv6 (mapped, 6to4, NAT64's 64:ff9b::/96) reaches that IPv4 address.
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in _NAT64:
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None:
            return _is_public(str(embedded))
        if ip.is_site_local:  # deprecated fec0::/10, which is_global still counts as global
            return False
    return ip.is_global and not ip.is_multicast and not ip.is_reserved


_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """http.client, connected to the addresses already checked instead of resolving the host again.

    The host name still gives the Host header (and, below, TLS's server name), so a receiver sees
    an ordinary request; only the connection is pinned. The standard library, because urllib.request
    resolves again and follows redirects, and httpx and urllib3 are not production dependencies;
    overriding `connect` is all the pinning takes, and http.client follows no redirect.
    """

    def __init__(self, target: _Target):
        super().__init__(target.host, target.port, timeout=_TIMEOUT_SECONDS)
        self._addresses = target.addresses

    def connect(self) -> None:
        self.sock = self._connect_checked()

    def _connect_checked(self) -> socket.socket:
        error: OSError = OSError("no address to connect to")
        for address in self._addresses:  # in the resolver's order, as socket.create_connection does
            try:
                return socket.create_connection((address, self.port), self.timeout)
            except OSError as exc:
                error = exc
        raise error


class _PinnedHTTPSConnection(_PinnedHTTPConnection):
    """The same over TLS: the server name sent (SNI) and the certificate checked are the URL's host's."""

    default_port = 443

    def connect(self) -> None:
        context = ssl.create_default_context()  # the system's CAs; hostname checked, certificate required
        self.sock = context.wrap_socket(self._connect_checked(), server_hostname=self.host)


def deliveries_overdue(*, now: dt.datetime | None = None, grace: float = 60.0) -> list[int]:
    """Pending deliveries whose next try is long overdue (a lost task): for the periodic sweep."""
    now = now or timezone.now()
    return list(
        WebhookDelivery.objects.filter(
            status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=now - dt.timedelta(seconds=grace)
        ).values_list("pk", flat=True)[:500]
    )
