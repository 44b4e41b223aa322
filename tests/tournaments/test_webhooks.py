"""Webhooks: signed with HMAC-SHA256, retried with back-off by Celery, delivered once."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from server.celery import app
from server.errors import ApplicationError
from tests.conftest import client_for
from tests.tournaments.builders import finish_round, make_tournament, reloaded
from tests.tournaments.receiver import webhook_receiver
from tournaments import services, webhooks
from tournaments.models import WebhookDelivery
from tournaments.tasks import webhook_deliver_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager_tasks():
    """Tasks run where they are sent (retries too), as a worker would run them."""
    previous = app.conf.task_always_eager
    app.conf.CELERY_TASK_ALWAYS_EAGER = True  # the namespaced key: the plain one is shadowed by settings
    yield
    app.conf.CELERY_TASK_ALWAYS_EAGER = previous


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
    assert created["kinds"] == ["result.recorded", "round.paired", "tournament.finished"]
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
