"""A series in the feed and webhooks (issue #46 item 1): its decisions read in order from a feed
anyone may follow, and an organiser's program told of them (`series.changed`) and of what moves
the standings in the tournaments it counts (`series.standings`: one finishing, a finished one's
result changed), signed as a tournament's webhooks are."""

from __future__ import annotations

import datetime as dt

import pytest

from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.tournaments.builders import finish_round, make_tournament, reloaded
from tests.tournaments.receiver import webhook_receiver
from tests.tournaments.series_builders import finished_in_order
from tournaments import services, webhooks
from tournaments.models import Entrant, RoundTable, WebhookDelivery

pytestmark = pytest.mark.django_db

SEASON = {"starts_on": dt.date(2026, 1, 1), "ends_on": dt.date(2026, 12, 31)}


@pytest.fixture
def local_receiver(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = True
    settings.WEBHOOK_ALLOW_HTTP = True


@pytest.fixture
def circuit(db) -> dict:
    olga = make_user("olga")
    series = services.series_create(organiser=olga, name="Winter circuit", games=["sequence-stacks"], **SEASON)
    return {"olga": olga, "series": series, "other": make_user("mallory"), "staff": make_user("sam", staff=True)}


def test_the_feed_gives_the_decisions_in_order_from_any_position(circuit):
    olga, series = circuit["olga"], circuit["series"]
    tournament = make_tournament(olga, bots=2, options={"rounds": 1})
    services.series_event_add(series_id=series.pk, user=olga, tournament_id=tournament.pk, tier=1)
    services.series_rules_set(series_id=series.pk, user=olga, rules={"points": {"1": [10, 5]}, "best": 2})
    url = f"/api/series/{series.pk}/decisions"
    feed = client_for().get(url).json()
    assert [d["type"] for d in feed["decisions"]] == ["SeriesCreated", "SeriesEventAdded", "SeriesRulesSet"]
    assert [d["seq"] for d in feed["decisions"]] == [1, 2, 3] and feed["head"] == 3 and feed["next"] == 3
    assert feed["decisions"][1]["data"] == {"tournament": tournament.pk, "tier": 1}
    assert feed["decisions"][1]["actor"] == f"user:{olga.pk}"
    rest = client_for().get(url, {"after": 1, "limit": 1}).json()
    assert [d["seq"] for d in rest["decisions"]] == [2] and rest["next"] == 2 and rest["head"] == 3
    assert client_for().get(url, {"after": 3}).json()["decisions"] == []
    for bad in ({"after": -1}, {"limit": 0}, {"limit": 10_000}):
        answer = client_for().get(url, bad)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_input"
    assert client_for().get("/api/series/999999/decisions").status_code == 404


@pytest.mark.parametrize(
    ("persona", "status"), [("anonymous", 401), ("other", 403), ("organiser", 201), ("staff", 201)]
)
def test_only_the_series_organiser_or_staff_registers_a_webhook(circuit, persona, status):
    who = {"anonymous": None, "other": circuit["other"], "organiser": circuit["olga"], "staff": circuit["staff"]}[persona]
    url = f"/api/series/{circuit['series'].pk}/webhooks"
    answer = client_for(who).post(url, {"url": "https://example.org/hook"}, format="json")
    assert answer.status_code == status
    listed = client_for(who).get(url)
    if status == 201:
        assert answer.json()["kinds"] == ["series.changed", "series.standings"] and len(answer.json()["secret"]) == 64
        assert [hook["id"] for hook in listed.json()] == [answer.json()["id"]]
        assert client_for(who).delete(f"{url}/{answer.json()['id']}").status_code == 204
        assert client_for(who).get(url).json() == []
        assert client_for(who).delete(f"{url}/{answer.json()['id']}").status_code == 404
    else:
        assert listed.status_code == status if status == 401 else listed.json()["error"]["code"] == "not_series_organiser"
        assert "secret" not in listed.content.decode()


def test_a_series_webhook_takes_the_series_kinds_only(circuit):
    with pytest.raises(ApplicationError) as refused:
        webhooks.series_webhook_create(
            series_id=circuit["series"].pk, user=circuit["olga"], url="https://example.org/hook", kinds=["round.paired"]
        )
    assert refused.value.code == "bad_kinds"


def test_a_decision_is_delivered_signed_to_the_series_webhook(circuit, local_receiver):
    olga, series = circuit["olga"], circuit["series"]
    tournament = make_tournament(olga, bots=2, options={"rounds": 1})
    with webhook_receiver() as receiver:
        hook = webhooks.series_webhook_create(series_id=series.pk, user=olga, url=receiver.url)
        services.series_event_add(series_id=series.pk, user=olga, tournament_id=tournament.pk, tier=1)
        delivery = WebhookDelivery.objects.get(webhook=hook)
        assert (delivery.kind, delivery.decision.type, delivery.event) == ("series.changed", "SeriesEventAdded", None)
        assert webhooks.webhook_deliver(delivery_id=delivery.pk) == "delivered"
    (request,) = receiver.requests
    assert request.signed_with(hook.secret) and request.headers["X-Cardleague-Event"] == "series.changed"
    assert request.json["series"] == series.pk and request.json["kind"] == "series.changed"
    assert request.json["decision"]["type"] == "SeriesEventAdded"
    assert request.json["decision"]["data"] == {"tournament": tournament.pk, "tier": 1}


def test_a_counted_tournament_finishing_and_a_late_correction_reach_the_standings_webhook(circuit, local_receiver):
    olga, series = circuit["olga"], circuit["series"]
    tournament = make_tournament(olga, bots=2, options={"rounds": 1})
    uncounted = make_tournament(olga, bots=2, options={"rounds": 1})
    services.series_event_add(series_id=series.pk, user=olga, tournament_id=tournament.pk, tier=1)
    hook = webhooks.series_webhook_create(
        series_id=series.pk, user=olga, url="https://example.org/hook", kinds=["series.standings"]
    )
    for each in (tournament, uncounted):
        services.tournament_start(tournament_id=each.pk, user=olga)
        finish_round(each)
        assert reloaded(each).status == "finished"
    table = RoundTable.objects.get(round__tournament=tournament)
    services.result_correct(tournament_id=tournament.pk, user=olga, round_number=1, table_number=table.number,
                            ranks=[2, 1], reason="the score sheet was misread")
    delivered = WebhookDelivery.objects.filter(webhook=hook).order_by("pk")
    assert list(delivered.values_list("kind", "event__type", "event__tournament")) == [
        ("series.standings", "TournamentFinished", tournament.pk),
        ("series.standings", "ResultCorrected", tournament.pk),
    ]
    with webhook_receiver() as receiver:
        hook.url = receiver.url
        hook.save(update_fields=["url"])
        first = WebhookDelivery.objects.filter(webhook=hook).order_by("pk").first()
        assert webhooks.webhook_deliver(delivery_id=first.pk) == "delivered"
    body = receiver.requests[0].json
    assert body["series"] == series.pk and body["tournament"] == tournament.pk and body["event"]["type"] == "TournamentFinished"


def test_results_recorded_while_a_counted_tournament_runs_are_not_standings_news(circuit):
    olga, series = circuit["olga"], circuit["series"]
    alice, bob = make_user("alice"), make_user("bob")
    finished = finished_in_order(olga, [alice, bob])
    running = make_tournament(olga, bots=4, options={"rounds": 2})
    for each in (finished, running):
        services.series_event_add(series_id=series.pk, user=olga, tournament_id=each.pk, tier=1)
    hook = webhooks.series_webhook_create(
        series_id=series.pk, user=olga, url="https://example.org/hook", kinds=["series.standings"]
    )
    services.tournament_start(tournament_id=running.pk, user=olga)
    finish_round(running)  # round 1 of 2: results and a new round, the tournament still running
    assert reloaded(running).status == "running"
    table = RoundTable.objects.filter(round__tournament=running, round__number=1).first()
    entrant = Entrant.objects.get(pk=table.seats[0])
    services.forfeit_award(tournament_id=running.pk, user=olga, round_number=1, table_number=table.number,
                           forfeited=[entrant.pk], reason="late")
    assert not WebhookDelivery.objects.filter(webhook=hook).exists()
