"""Webhooks: signed with HMAC-SHA256, retried with back-off by Celery, delivered once."""

from __future__ import annotations

import datetime as dt
import socket

import pytest
from django.utils import timezone

from server.errors import ApplicationError
from tests.conftest import client_for
from tests.tournaments.builders import finish_round, make_tournament, reloaded
from tests.tournaments.receiver import tls_for, webhook_receiver
from tournaments import services, webhooks
from tournaments.models import Webhook, WebhookDelivery
from tournaments.tasks import webhook_deliver_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def local_receiver(settings):
    """Webhooks may reach the test receiver on http://127.0.0.1, which production never allows."""
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    settings.WEBHOOK_ALLOW_HTTP = True


def hooked(organiser, url: str, kinds=None):
    tournament = make_tournament(organiser, bots=2, options={"rounds": 1})
    hook = webhooks.webhook_create(tournament_id=tournament.pk, user=organiser, url=url, kinds=kinds)
    return tournament, hook


def test_the_organiser_registers_a_webhook_and_gets_its_secret(alice, bob):
    tournament = make_tournament(alice)
    answer = client_for(alice).post(
        f"/api/tournaments/{tournament.pk}/webhooks", {"url": "https://example.org/hook"}, format="json"
    )
    assert answer.status_code == 201
    created = answer.json()
    assert len(created["secret"]) == 64
    assert created["kinds"] == ["field.changed", "result.recorded", "round.paired", "tournament.finished"]
    listed = client_for(alice).get(f"/api/tournaments/{tournament.pk}/webhooks").json()
    assert [h["id"] for h in listed] == [created["id"]]
    assert client_for(bob).get(f"/api/tournaments/{tournament.pk}/webhooks").status_code == 403
    answer = client_for(bob).post(
        f"/api/tournaments/{tournament.pk}/webhooks", {"url": "https://evil.example/"}, format="json"
    )
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_organiser"
    gone = client_for(alice).delete(f"/api/tournaments/{tournament.pk}/webhooks/{created['id']}")
    assert gone.status_code == 204
    assert client_for(alice).get(f"/api/tournaments/{tournament.pk}/webhooks").json() == []


def test_a_webhook_needs_an_http_url_and_known_kinds(alice):
    tournament = make_tournament(alice)
    for url, kinds, code in [
        ("ftp://example.org/x", None, "bad_url"),
        ("https://example.org", ["moves"], "bad_kinds"),
    ]:
        with pytest.raises(ApplicationError) as refused:
            webhooks.webhook_create(tournament_id=tournament.pk, user=alice, url=url, kinds=kinds)
        assert refused.value.code == code


def test_each_subscribed_event_gets_one_delivery(alice):
    tournament, hook = hooked(
        alice, "https://example.org/hook", kinds=["round.paired", "tournament.finished"]
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    finish_round(tournament)
    assert reloaded(tournament).status == "finished"
    kinds = list(
        WebhookDelivery.objects.filter(webhook=hook).order_by("pk").values_list("kind", "event__type")
    )
    assert kinds == [("round.paired", "RoundPaired"), ("tournament.finished", "TournamentFinished")]


def test_a_delivery_is_signed_and_retried_after_a_failure(alice, local_receiver):
    with webhook_receiver(500) as receiver:
        tournament, hook = hooked(alice, receiver.url)
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        delivery = WebhookDelivery.objects.get(webhook=hook, kind="round.paired")
        before = timezone.now()
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "pending"
        delivery.refresh_from_db()
        assert (delivery.attempts, delivery.last_status) == (1, 500)
        assert delivery.next_attempt_at >= before + dt.timedelta(seconds=webhooks.backoff_seconds(1))
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "delivered"
        assert (
            webhooks.webhook_deliver(delivery_id=delivery.pk) == "delivered"
        )  # a repeated task sends nothing
    assert len(receiver.requests) == 2
    first, second = receiver.requests
    assert first.body == second.body and second.signed_with(hook.secret)
    assert not second.signed_with("another secret")
    assert second.headers["X-Cardleague-Event"] == "round.paired"
    assert second.headers["X-Cardleague-Delivery"] == str(delivery.pk)
    payload = second.json
    assert payload["kind"] == "round.paired" and payload["tournament"] == tournament.pk
    assert payload["event"]["type"] == "RoundPaired" and payload["event"]["data"]["round"] == 1


def test_celery_retries_a_failed_delivery_with_back_off(alice, eager_tasks, local_receiver):
    with webhook_receiver(500, 503) as receiver:
        tournament, hook = hooked(alice, receiver.url, kinds=["round.paired"])
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        delivery = WebhookDelivery.objects.get(webhook=hook)
        webhook_deliver_task.delay(delivery.pk)
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 3
    assert [r.signed_with(hook.secret) for r in receiver.requests] == [True, True, True]


def test_the_back_off_doubles_up_to_an_hour():
    assert [webhooks.backoff_seconds(n) for n in (1, 2, 3)] == [10, 20, 40]
    assert webhooks.backoff_seconds(30) == 3600


def test_the_task_waits_the_back_off_of_the_attempts_made(alice, local_receiver):
    with webhook_receiver(500, 500) as receiver:
        tournament, hook = hooked(alice, receiver.url, kinds=["round.paired"])
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        delivery = WebhookDelivery.objects.get(webhook=hook)
        waits = [webhooks.retry_countdown(delivery_id=delivery.pk)]  # none made yet: as after one
        for _ in range(2):
            webhooks.webhook_deliver(delivery_id=delivery.pk)
            waits.append(webhooks.retry_countdown(delivery_id=delivery.pk))
    assert waits == [webhooks.backoff_seconds(1), webhooks.backoff_seconds(1), webhooks.backoff_seconds(2)]


def test_a_delivery_is_given_up_after_its_last_attempt(alice, local_receiver):
    with webhook_receiver(*[500] * webhooks.MAX_ATTEMPTS) as receiver:
        tournament, hook = hooked(alice, receiver.url, kinds=["round.paired"])
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        delivery = WebhookDelivery.objects.get(webhook=hook)
        statuses = [
            webhooks.webhook_deliver(delivery_id=delivery.pk) for _ in range(webhooks.MAX_ATTEMPTS + 1)
        ]
    assert statuses == ["pending"] * (webhooks.MAX_ATTEMPTS - 1) + ["failed", "failed"]
    assert len(receiver.requests) == webhooks.MAX_ATTEMPTS


def test_an_unreachable_endpoint_counts_as_a_failed_attempt(alice, local_receiver):
    with webhook_receiver() as receiver:
        url = receiver.url
    tournament, hook = hooked(alice, url, kinds=["round.paired"])  # nobody listens there any more
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "pending"
    delivery.refresh_from_db()
    assert delivery.last_status is None and delivery.last_error


def test_the_sweep_finds_deliveries_whose_task_was_lost(alice):
    tournament, hook = hooked(alice, "https://example.org/hook", kinds=["round.paired"])
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    assert webhooks.deliveries_overdue() == []
    assert webhooks.deliveries_overdue(now=timezone.now() + dt.timedelta(minutes=5)) == [delivery.pk]


# Server-side request forgery: any user may organise a tournament, and the worker POSTs from
# inside the deployment. These run with production's settings unless they say otherwise.


def resolver(monkeypatch, name: str, *answers: tuple[str, ...]) -> list[str]:
    """socket.getaddrinfo answers `name` with each answer in turn (the last one from then on), as a
    DNS server in an attacker's hands may; other names resolve as usual. Returns the lookups of it."""
    real, lookups, queue = socket.getaddrinfo, [], list(answers)

    def getaddrinfo(host, port, *args, **kwargs):
        if host != name:
            return real(host, port, *args, **kwargs)
        lookups.append(host)
        answer = queue.pop(0) if len(queue) > 1 else queue[0]
        return [
            (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))
            if ":" in address
            else (socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))
            for address in answer
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return lookups


def delivered_once(organiser, url: str) -> WebhookDelivery:
    """A webhook for `url` and one attempt at its first delivery."""
    tournament, hook = hooked(organiser, url, kinds=["round.paired"])
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    webhooks.webhook_deliver(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    return delivery


REFUSED_AT_THE_ENDPOINT = [
    "https://127.0.0.1/hook",  # loopback
    "https://127.8.9.10:6379/",  # all of 127/8 is loopback (Redis listens there)
    "https://localhost/hook",  # a name resolving to loopback
    "https://10.0.0.5/",
    "https://172.16.0.1/",
    "https://192.168.1.1/",  # private
    "https://100.64.0.1/",  # carrier-grade NAT
    "https://169.254.169.254/latest/meta-data/",  # link-local: a cloud's metadata service
    "https://0.0.0.0:5432/",  # unspecified: reaches this machine
    "https://224.0.0.1/",  # multicast
    "https://240.0.0.1/",  # reserved
    "https://[::1]/",  # IPv6 loopback
    "https://[::]/",
    "https://[::ffff:127.0.0.1]/",  # IPv4-mapped loopback
    "https://[::ffff:169.254.169.254]/",
    "https://[fe80::1]/",  # IPv6 link-local
    "https://[fc00::1]/",  # unique local
    "https://[ff02::1]/",  # multicast
]


@pytest.mark.parametrize("url", REFUSED_AT_THE_ENDPOINT)
def test_registration_refuses_a_url_of_a_loopback_private_link_local_or_reserved_address(alice, bob, url):
    """Prevents SSRF: an organiser could point the worker at this machine's or the network's
    internal services; the endpoint refuses with 400 webhook_url_refused and writes nothing
    (anyone else is refused before the URL is looked at)."""
    tournament = make_tournament(alice)
    endpoint = f"/api/tournaments/{tournament.pk}/webhooks"
    assert client_for().post(endpoint, {"url": url}, format="json").status_code == 401
    outsider = client_for(bob).post(endpoint, {"url": url}, format="json")
    assert outsider.status_code == 403 and outsider.json()["error"]["code"] == "not_organiser"
    answer = client_for(alice).post(endpoint, {"url": url}, format="json")
    assert answer.status_code == 400, answer.json()
    error = answer.json()["error"]
    assert error["code"] == "webhook_url_refused" and "public" in error["message"]
    assert not Webhook.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "https://2130706433/",  # decimal 127.0.0.1
        "https://0177.0.0.1/",  # octal
        "https://0x7f.1/",  # hexadecimal, short form
        "https://127.1/",
        "https://0/",  # 0.0.0.0
        "https://[::127.0.0.1]/",  # IPv4-compatible IPv6
        "https://[64:ff9b::a9fe:a9fe]/",  # NAT64 of 169.254.169.254
        "https://[2002:a00:1::1]/",  # 6to4 of 10.0.0.1
        "https://[fec0::1]/",  # deprecated site-local, which ipaddress still calls global
        "https://LocalHost:443/",
    ],
)
def test_registration_refuses_odd_spellings_of_internal_addresses(alice, url):
    """Prevents SSRF through spellings a resolver reads as loopback or private but a text check of
    the URL would miss (the endpoint's URL field turns some away first; the service refuses all)."""
    tournament = make_tournament(alice)
    with pytest.raises(ApplicationError) as refused:
        webhooks.webhook_create(tournament_id=tournament.pk, user=alice, url=url)
    assert refused.value.code == "webhook_url_refused"
    answer = client_for(alice).post(f"/api/tournaments/{tournament.pk}/webhooks", {"url": url}, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] in ("webhook_url_refused", "invalid_input")
    assert not Webhook.objects.exists()


def test_registration_refuses_a_name_with_any_private_address_among_its_answers(alice, monkeypatch):
    """Prevents SSRF through a name that resolves to a public and a private address at once (the
    connection might take either)."""
    resolver(monkeypatch, "mixed.example", ("93.184.216.34", "10.0.0.1"))
    tournament = make_tournament(alice)
    answer = client_for(alice).post(
        f"/api/tournaments/{tournament.pk}/webhooks", {"url": "https://mixed.example/hook"}, format="json"
    )
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "webhook_url_refused"


def test_registration_refuses_http_unless_a_setting_allows_it(alice, settings):
    """Prevents deliveries (and their signatures) sent in clear: https only, as in production."""
    tournament = make_tournament(alice)
    url = f"/api/tournaments/{tournament.pk}/webhooks"
    answer = client_for(alice).post(url, {"url": "http://example.org/hook"}, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "webhook_url_refused"
    assert "https" in answer.json()["error"]["message"]
    settings.WEBHOOK_ALLOW_HTTP = True
    assert client_for(alice).post(url, {"url": "http://example.org/hook"}, format="json").status_code == 201


def test_a_rebinding_name_is_checked_again_at_delivery_and_nothing_is_sent(alice, settings, monkeypatch):
    """Prevents DNS rebinding: a name public when registered that resolves to loopback later gets
    no delivery; the attempt fails (and is retried like any failure)."""
    settings.WEBHOOK_ALLOW_HTTP = True  # the receiver speaks http; private addresses stay refused
    with webhook_receiver(name="rebinding.example") as receiver:
        resolver(monkeypatch, "rebinding.example", ("93.184.216.34",), ("127.0.0.1",))
        delivery = delivered_once(alice, receiver.url)
    assert receiver.requests == []
    assert delivery.status == "pending" and delivery.attempts == 1 and delivery.last_status is None
    assert "public addresses" in delivery.last_error


def test_a_delivery_connects_to_the_address_it_checked_not_to_a_second_answer(
    alice, local_receiver, monkeypatch
):
    """Prevents DNS rebinding between the check and the connection: a delivery resolves the name
    once and connects to that answer, never asking again (the second answer leads nowhere)."""
    with webhook_receiver(name="pinned.example") as receiver:
        url = receiver.url
        tournament, hook = hooked(alice, url, kinds=["round.paired"])  # does not resolve yet
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        lookups = resolver(monkeypatch, "pinned.example", ("127.0.0.1",), ("127.0.0.2",))
        delivery = WebhookDelivery.objects.get(webhook=hook)
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "delivered"
    assert len(lookups) == 1 and len(receiver.requests) == 1
    assert receiver.requests[0].headers["Host"] == url.split("/")[2]  # pinned.example:port


def test_a_redirect_to_an_internal_url_is_not_followed(alice, local_receiver):
    """Prevents SSRF through a redirect: the worker does not follow a 3xx (to an internal URL or
    anywhere); it is a failed attempt, retried as failures are."""
    with webhook_receiver() as internal, webhook_receiver(302, location=internal.url) as receiver:
        delivery = delivered_once(alice, receiver.url)
    assert len(receiver.requests) == 1 and internal.requests == []
    assert (delivery.status, delivery.last_status) == ("pending", 302)
    assert "redirects are not followed" in delivery.last_error


def test_a_stored_webhook_is_not_delivered_once_its_address_or_scheme_is_refused(alice, settings):
    """Prevents a webhook registered while private addresses or http were allowed (or before this
    check) from reaching them later: every delivery checks the URL again."""
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = settings.WEBHOOK_ALLOW_HTTP = True
    with webhook_receiver() as receiver:
        tournament, hook = hooked(alice, receiver.url, kinds=["round.paired"])
        services.tournament_start(tournament_id=tournament.pk, user=alice)
        delivery = WebhookDelivery.objects.get(webhook=hook)
        settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "pending"
        delivery.refresh_from_db()
        assert "public addresses" in delivery.last_error
        settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES, settings.WEBHOOK_ALLOW_HTTP = True, False
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "pending"
        delivery.refresh_from_db()
        assert "https" in delivery.last_error
    assert receiver.requests == [] and delivery.attempts == 2


def test_an_https_delivery_checks_the_certificate_against_the_url_host_name(
    alice, settings, monkeypatch, tmp_path
):
    """Prevents pinning from weakening TLS: the connection goes to the checked address, yet the
    server name sent and the certificate checked are the URL's host's (a certificate for another
    name is refused, nothing is sent)."""
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True  # https to a receiver on 127.0.0.1
    resolver(monkeypatch, "hooks.example", ("127.0.0.1",))
    right, ca_file = tls_for("hooks.example", tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(ca_file))  # the test CA instead of the system's
    with webhook_receiver(name="hooks.example", tls=right) as receiver:
        delivery = delivered_once(alice, receiver.url)
    assert delivery.status == "delivered" and receiver.requests[0].signed_with(delivery.webhook.secret)
    (tmp_path / "other").mkdir()
    wrong, other_ca = tls_for("other.example", tmp_path / "other")
    monkeypatch.setenv("SSL_CERT_FILE", str(other_ca))
    with webhook_receiver(name="hooks.example", tls=wrong) as receiver:
        delivery = delivered_once(alice, receiver.url)
    assert receiver.requests == [] and delivery.status == "pending"
    assert "certificate" in delivery.last_error.lower()
