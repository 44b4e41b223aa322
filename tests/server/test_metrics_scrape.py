"""/metrics scraped from real uvicorn processes while a match is played through the API: the
moves are counted for their game, and with PROMETHEUS_MULTIPROC_DIR two processes' counts add up;
a prefork Celery worker serves its children's task metrics on METRICS_PORT."""
from __future__ import annotations

import time

import httpx
import pytest
from django.conf import settings
from prometheus_client.parser import text_string_to_metric_families
from websockets.sync.client import connect

from accounts.services import user_token
from games import services
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.servers import free_port, uvicorn_servers
from tests.games.worker import celery_worker, wait_for

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.processes,
]


def scraped(base: str, *, local_address: str = "127.0.0.1") -> httpx.Response:
    with httpx.Client(transport=httpx.HTTPTransport(local_address=local_address), timeout=30) as client:
        return client.get(f"{base}/metrics")


def value(text: str, name: str, **labels: str) -> float:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return sample.value
    return 0.0


def play(base: str, match_id: int, users: list, moves: int) -> None:
    """`moves` moves through `POST /api/matches/<id>/moves` with API tokens (the fast lane)."""
    clients = [httpx.Client(base_url=base, headers={"Authorization": f"Token {user_token(user=u)}"}, timeout=30)
               for u in users]
    for _ in range(moves):
        view = clients[0].get(f"/api/matches/{match_id}/view").json()
        seat = view["view"]["to_act"][0]
        legal = clients[seat].get(f"/api/matches/{match_id}/view").json()["legal_moves"]
        answer = clients[seat].post(f"/api/matches/{match_id}/moves", json={"move": legal[0]})
        assert answer.status_code == 200, answer.text


def test_a_scrape_while_a_match_is_played_finds_its_moves_counted_for_its_game():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("ten", [alice, bob])
    with uvicorn_servers(1) as (base,):
        ws = base.replace("http", "ws") + f"/ws/matches/{match_id}/?token={user_token(user=bob)}"
        with connect(ws) as socket:
            socket.recv(timeout=10)  # the snapshot: the socket is counted by now
            play(base, match_id, [alice, bob], 3)
            answer = scraped(base)
            assert answer.status_code == 200
            text = answer.text
            assert value(text, "cardleague_sockets_open", kind="match") == 1
        assert value(text, "cardleague_moves_total", game="ten", lane="fastlane", outcome="played") == 3
        assert value(text, "cardleague_move_seconds_count", game="ten", lane="fastlane") == 3
        assert value(text, "cardleague_celery_queue_length", queue="celery") >= 0
        # 127.0.0.2 is this machine too, but not the default's 127.0.0.1/32.
        refused = scraped(base, local_address="127.0.0.2")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "metrics_forbidden"


def test_with_a_multiprocess_directory_any_process_serves_the_sum_of_all(tmp_path):
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("ten", [alice, bob])
    with uvicorn_servers(2, PROMETHEUS_MULTIPROC_DIR=str(tmp_path)) as (first, second):
        play(first, match_id, [alice, bob], 2)
        play(second, match_id, [alice, bob], 3)
        ws = second.replace("http", "ws") + f"/ws/matches/{match_id}/?token={user_token(user=bob)}"
        with connect(ws) as socket:
            socket.recv(timeout=10)
            text = scraped(first).text
        assert value(text, "cardleague_moves_total", game="ten", lane="fastlane", outcome="played") == 5
        assert value(text, "cardleague_sockets_open", kind="match") == 1
        deadline = time.monotonic() + 10  # until the second process has seen the socket close
        while value(scraped(first).text, "cardleague_sockets_open", kind="match") != 0:
            assert time.monotonic() < deadline, "the closed socket is still counted"
            time.sleep(0.1)


def test_a_prefork_worker_serves_its_childrens_task_metrics_on_its_port(tmp_path):
    """The tasks run in the pool's children; the worker's main process serves what they wrote."""
    port = free_port()
    alice = make_user("alice")
    match = services.match_create(user=alice, game="ten", players=2)
    services.match_seat_bot(match_id=match.pk, user=alice, bot="random")
    base = f"http://127.0.0.1:{port}"
    task = "games.tasks.bot_move_task"
    alice_client = client_for(alice)

    def bot_move_timed_and_counted() -> bool:
        """Alice plays whenever it is her turn, so the bot's turns (the worker's tasks) come. A task
        that ran when it was not the bot's turn succeeds with no move: wait for a counted move too
        (a run failed reading the counter right after the first task, which had played nothing)."""
        view = alice_client.get(f"/api/matches/{match.pk}/view").json()
        if 0 in view["view"]["to_act"] and view["legal_moves"]:
            alice_client.post(f"/api/matches/{match.pk}/moves", {"move": view["legal_moves"][0],
                                                                  "expected_seq": view["seq"]}, format="json")
        text = scraped(base).text
        return (value(text, "cardleague_celery_task_seconds_count", task=task, outcome="success") >= 1
                and value(text, "cardleague_moves_total", game="ten", lane="server", outcome="played") >= 1)

    with celery_worker(PROMETHEUS_MULTIPROC_DIR=str(tmp_path), METRICS_PORT=str(port)):
        services.match_start(match_id=match.pk, user=alice)
        wait_for(bot_move_timed_and_counted, what="a bot's move task to be timed and its move counted", timeout=60)
        text = scraped(base).text
        assert value(text, "cardleague_celery_task_wait_seconds_count", task=task) >= 1
        refused = scraped(base, local_address="127.0.0.2")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "metrics_forbidden"
