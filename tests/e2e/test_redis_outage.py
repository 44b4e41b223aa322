"""Redis away for a while: moves still commit, and live clients resynchronise when it is back."""
from __future__ import annotations

import json

import httpx
import pytest
from django.conf import settings
from websockets.sync.client import connect

from accounts.services import user_token
from games.models import Event
from tests.conftest import make_user
from tests.e2e.processes import redis_server
from tests.games.helpers import started_match
from tests.games.servers import free_port, uvicorn_servers

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.e2e,
]


def frame(socket, *kinds: str) -> dict:
    while True:
        message = json.loads(socket.recv(timeout=10))
        if message["type"] in kinds:
            return message


def test_moves_commit_while_redis_is_away_and_sockets_catch_up_when_it_is_back():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    port = free_port()
    redis = redis_server(port)
    try:
        with uvicorn_servers(1, redis_url=f"redis://127.0.0.1:{port}/0") as (base,):
            ws = base.replace("http", "ws") + f"/ws/matches/{match_id}/"
            alice_http = httpx.Client(base_url=base, headers={"Authorization": f"Token {user_token(user=alice)}"})
            with connect(ws + f"?token={user_token(user=bob)}") as bob_socket:
                seen = frame(bob_socket, "snapshot")["seq"]
                redis.terminate()
                redis.wait(timeout=10)
                moves = []
                for _ in range(2):
                    legal = alice_http.get(f"/api/matches/{match_id}/view").json()["legal_moves"]
                    answer = alice_http.post(f"/api/matches/{match_id}/moves", json={"move": legal[0]})
                    assert answer.status_code == 200, answer.text
                    moves.append(answer.json()["seq"])
                assert Event.objects.filter(match_id=match_id, type="MovePlayed").count() == 2
                redis = redis_server(port)
                bob_socket.send(json.dumps({"type": "ping"}))  # the open socket catches up
                update = frame(bob_socket, "update")
            with connect(ws + f"?since={seen}") as returning:  # and a socket that had to reconnect
                resumed = frame(returning, "snapshot")
    finally:
        redis.terminate()
        redis.wait(timeout=10)
    assert update["seq"] == resumed["seq"] == moves[-1]
    assert [e["seq"] for e in update["events"]] == [e["seq"] for e in resumed["events"]] == [seen + 2, seen + 4]
