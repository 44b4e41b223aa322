"""/metrics: who may read it (the network, never the account), what it counts, and the dashboard
that reads it. In-process: the ASGI application as uvicorn calls it, the worker's own server
in a thread (tests/server/test_metrics_scrape.py scrapes real server processes)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from asgiref.sync import async_to_sync
from channels.testing import HttpCommunicator
from django.conf import settings
from django.test import override_settings
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from accounts.services import user_token
from games.models import Match
from leaguelog.models import Kind, LogPending
from server import metrics, metrics_endpoint
from server.asgi import application
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.servers import free_port

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "docker" / "grafana-dashboard.json"


async def scrape(peer: str, headers: list[tuple[bytes, bytes]] | None = None) -> dict:
    communicator = HttpCommunicator(application, "GET", "/metrics", headers=headers or [])
    communicator.scope["client"] = (peer, 40000)
    return await communicator.get_response(timeout=10)


def families(text: str) -> dict:
    return {family.name: family for family in text_string_to_metric_families(text)}


def sample(text: str, name: str, **labels: str) -> float | None:
    for family in text_string_to_metric_families(text):
        for found in family.samples:
            if found.name == name and all(found.labels.get(key) == value for key, value in labels.items()):
                return found.value
    return None


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("peer", ["127.0.0.1", "::1"])
async def test_anyone_on_an_allowed_address_reads_the_metrics_without_signing_in(peer):
    answer = await scrape(peer)
    assert answer["status"] == 200
    headers = dict(answer["headers"])
    assert headers[b"content-type"].startswith(b"text/plain; version=0.0.4")
    text = answer["body"].decode()
    assert "cardleague_moves_total" in families(text) or "cardleague_moves" in families(text)
    # Read at scrape time: the broker's queue and the league log's backlog.
    assert sample(text, "cardleague_celery_queue_length", queue="celery") is not None
    assert sample(text, "cardleague_leaguelog_pending_facts") is not None


async def test_another_address_is_refused_in_the_error_shape():
    answer = await scrape("198.51.100.7")
    assert answer["status"] == 403
    body = json.loads(answer["body"])
    assert body["error"]["code"] == "metrics_forbidden"
    assert "METRICS_ALLOWED_NETWORKS" in body["error"]["message"]
    assert b"cardleague_" not in answer["body"]


async def test_the_refusal_is_in_the_readers_language():
    answer = await scrape("198.51.100.7", [(b"accept-language", b"cy")])
    assert answer["status"] == 403
    assert json.loads(answer["body"])["error"]["message"].startswith("Ni chaiff")
    assert dict(answer["headers"])[b"content-language"] == b"cy"


@pytest.mark.django_db
def test_signed_in_staff_on_another_address_are_refused_too():
    """The metrics are the network's to read, not an account's: a staff token changes nothing."""
    token = user_token(user=make_user("operator", staff=True))
    answer = async_to_sync(scrape)("198.51.100.7", [(b"authorization", f"Token {token}".encode())])
    assert answer["status"] == 403


async def test_x_forwarded_for_from_an_untrusted_peer_opens_nothing():
    answer = await scrape("198.51.100.7", [(b"x-forwarded-for", b"127.0.0.1")])
    assert answer["status"] == 403


@override_settings(TRUSTED_PROXIES=["10.0.0.2"], METRICS_ALLOWED_NETWORKS=["192.0.2.0/24"])
def test_behind_a_trusted_proxy_the_forwarded_client_is_the_one_that_counts():
    assert metrics_endpoint.allowed("10.0.0.2", "203.0.113.5, 192.0.2.9")
    assert not metrics_endpoint.allowed("10.0.0.2", "192.0.2.9, 203.0.113.5")
    assert not metrics_endpoint.allowed("10.0.0.2")  # the proxy itself is not in the networks
    assert not metrics_endpoint.allowed("198.51.100.200", "192.0.2.9")  # not a proxy: its header is the client's word


def test_by_default_only_this_machine_may_read_them():
    assert [str(network) for network in settings.METRICS_ALLOWED_NETWORKS] == ["127.0.0.1/32", "::1/128"]


@pytest.mark.django_db(transaction=True)
def test_the_league_logs_lag_is_the_age_of_the_oldest_fact_not_yet_logged():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    Match.objects.filter(pk=match_id).update(finished_at=timezone.now() - timedelta(seconds=90))
    LogPending.objects.all().delete()
    LogPending.objects.create(kind=Kind.MATCH, source_id=match_id)
    LogPending.objects.create(kind=Kind.MATCH, source_id=match_id + 1000)  # younger: queued later
    text = async_to_sync(scrape)("127.0.0.1")["body"].decode()
    assert sample(text, "cardleague_leaguelog_pending_facts") == 2
    assert 90 <= sample(text, "cardleague_leaguelog_oldest_pending_seconds") < 150
    LogPending.objects.all().delete()
    text = async_to_sync(scrape)("127.0.0.1")["body"].decode()
    assert sample(text, "cardleague_leaguelog_oldest_pending_seconds") == 0


def moves_counted(game: str, lane: str, outcome: str) -> float:
    return REGISTRY.get_sample_value("cardleague_moves_total", {"game": game, "lane": lane, "outcome": outcome}) or 0.0


@pytest.mark.django_db
def test_a_move_through_the_api_is_counted_and_timed_by_game_lane_and_outcome():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    played, refused = moves_counted("the-game", "django", "played"), moves_counted("the-game", "django", "refused")
    timed = REGISTRY.get_sample_value("cardleague_move_seconds_count", {"game": "the-game", "lane": "django"}) or 0.0
    view = client_for(alice).get(f"/api/matches/{match_id}/view").json()
    answer = client_for(alice).post(f"/api/matches/{match_id}/moves", {"move": view["legal_moves"][0]}, format="json")
    assert answer.status_code == 200
    stale = client_for(alice).post(
        f"/api/matches/{match_id}/moves", {"move": view["legal_moves"][0], "expected_seq": 0}, format="json"
    )
    assert stale.status_code == 409
    assert moves_counted("the-game", "django", "played") == played + 1
    assert moves_counted("the-game", "django", "refused") == refused + 1
    assert REGISTRY.get_sample_value("cardleague_move_seconds_count", {"game": "the-game", "lane": "django"}) == timed + 1


@pytest.mark.django_db
def test_a_retry_under_the_same_idempotency_key_counts_as_repeated_not_played():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    view = client_for(alice).get(f"/api/matches/{match_id}/view").json()
    body = {"move": view["legal_moves"][0]}
    client = client_for(alice)
    played, repeated = moves_counted("the-game", "django", "played"), moves_counted("the-game", "django", "repeated")
    for _ in range(2):
        assert client.post(f"/api/matches/{match_id}/moves", body, format="json", HTTP_IDEMPOTENCY_KEY="k1").status_code == 200
    assert moves_counted("the-game", "django", "played") == played + 1
    assert moves_counted("the-game", "django", "repeated") == repeated + 1


def test_the_worker_serves_its_own_metrics_to_allowed_addresses_only():
    port = free_port()
    servers: list = []

    def make(host, port, app, server_class, handler_class):
        from wsgiref.simple_server import make_server  # noqa: PLC0415

        server = make_server(host, port, app, server_class, handler_class=handler_class)
        servers.append(server)
        return server

    metrics_endpoint._served.clear()
    try:
        metrics_endpoint.serve(port, host="127.0.0.1", make=make)
        metrics.celery_task_seconds.labels("tests.task", "success").observe(0.01)
        answer = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
        assert answer.status_code == 200
        assert sample(answer.text, "cardleague_celery_task_seconds_count", task="tests.task", outcome="success") >= 1
        assert "cardleague_celery_queue_length" not in answer.text  # the web processes read those
        with override_settings(METRICS_ALLOWED_NETWORKS=["192.0.2.0/24"]):
            refused = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "metrics_forbidden"
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
        metrics_endpoint._served.clear()


def test_a_celery_task_is_timed_by_name_and_outcome():
    from games.tasks import sweep_task  # noqa: PLC0415

    labels = {"task": sweep_task.name, "outcome": "success"}
    before = REGISTRY.get_sample_value("cardleague_celery_task_seconds_count", labels) or 0.0
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sweep_task, "run", lambda: {})  # the timing is what is tested, not the sweep
        sweep_task.apply()
    assert REGISTRY.get_sample_value("cardleague_celery_task_seconds_count", labels) == before + 1


def exported_names() -> set[str]:
    """Every metric name the server exports (the recorded ones and those read at scrape time)."""
    names = set(metrics.SCRAPED)
    for collector in (metrics.moves, metrics.move_seconds, metrics.group_commit_batch, metrics.sockets_open,
                      metrics.event_loop_lag, metrics.throttle_refusals, metrics.celery_task_seconds,
                      metrics.celery_task_wait_seconds, metrics.rating_lag_seconds, metrics.bot_moves_delayed):
        for family in collector.describe():
            names.add(family.name)
            names.update({f"{family.name}_total"} if family.type == "counter" else set())
            if family.type == "histogram":
                names.update({f"{family.name}_bucket", f"{family.name}_sum", f"{family.name}_count"})
    return names


def test_every_panel_of_the_dashboard_reads_a_metric_the_server_exports():
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["title"] and dashboard["schemaVersion"] >= 30
    panels = dashboard["panels"]
    exported = exported_names()
    read = set()
    for panel in panels:
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            names = set(re.findall(r"\bcardleague_[a-z_]+", target["expr"]))
            assert names, f"{panel['title']}: {target['expr']}"
            assert names <= exported, f"{panel['title']} reads {names - exported}"
            read |= names
    # The panels an operator looks at first.
    for wanted in ("cardleague_moves_total", "cardleague_move_seconds_bucket", "cardleague_sockets_open",
                   "cardleague_celery_queue_length", "cardleague_celery_task_seconds_bucket",
                   "cardleague_leaguelog_oldest_pending_seconds", "cardleague_throttle_refusals_total",
                   "cardleague_event_loop_lag_seconds_bucket"):
        assert wanted in read, wanted


@pytest.mark.processes
def test_a_process_that_has_ended_keeps_its_counts_but_not_its_open_sockets(tmp_path, monkeypatch):
    """A uvicorn or Celery child that dies says nothing: its sockets are not open any more."""
    wrote = subprocess.run([sys.executable, "-c", (
        "from prometheus_client import Counter, Gauge\n"
        "Gauge('cardleague_sockets_open', 'x', ['kind'], multiprocess_mode='livesum').labels('match').inc(3)\n"
        "Counter('cardleague_moves', 'x', ['game', 'lane', 'outcome']).labels('ten', 'fastlane', 'played').inc(5)\n"
    )], env={**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}, capture_output=True, text=True)
    assert wrote.returncode == 0, wrote.stderr
    monkeypatch.setattr(metrics, "MULTIPROC_DIR", str(tmp_path))
    text = metrics_endpoint.scraped_text(scrape_time=False).decode()
    assert sample(text, "cardleague_moves_total", game="ten", lane="fastlane", outcome="played") == 5
    assert sample(text, "cardleague_sockets_open", kind="match") is None
