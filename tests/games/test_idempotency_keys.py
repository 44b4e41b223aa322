"""An idempotency key names one move request of one user at one table.

Regression: keys were scoped to the user alone. The same key sent to another match answered
200 with the first match's receipt and silently did not play the move; so did a socket frame
id reused at another table. The same key with another move was answered as if it had played.
"""
from __future__ import annotations

import json

import httpx
import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.services import user_token
from games.models import Event, MoveReceipt
from server.asgi import application
from tests.conftest import client_for
from tests.games.helpers import started_match

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

# The same request through the event loop's lane (as it is) and through Django (a query string).
LANES = [pytest.param("", id="lane"), pytest.param("?via=django", id="django")]


@pytest.fixture
def two_tables(alice, bob):
    return started_match("the-game", [alice, bob]), started_match("the-game", [alice, bob]), user_token(user=alice)


async def post(path: str, body: dict, token: str, key: str) -> httpx.Response:
    headers = {"content-type": "application/json", "authorization": f"Token {token}", "idempotency-key": key}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=application), base_url="http://testserver") as client:
        return await client.post(path, content=json.dumps(body), headers=headers)


def legal_move(user, match_id: int) -> dict:
    return client_for(user).get(f"/api/matches/{match_id}/view").json()["legal_moves"][0]


def head_of(match_id: int) -> int:
    return Event.objects.filter(match_id=match_id).count()


@pytest.mark.parametrize("via", LANES)
async def test_the_same_key_at_another_table_plays_the_move_there(via, alice, two_tables):
    first, second, token = two_tables
    answers = []
    for match_id in (first, second):
        move = await sync_to_async(legal_move)(alice, match_id)
        answers.append(await post(f"/api/matches/{match_id}/moves{via}", {"move": move}, token, "key-1"))
    assert [a.status_code for a in answers] == [200, 200]
    assert [a.json()["match"] for a in answers] == [first, second]
    assert answers[1].json()["seq"] == await sync_to_async(head_of)(second)  # played, not the first's receipt
    assert await sync_to_async(MoveReceipt.objects.filter(user=alice, key="key-1").count)() == 2


@pytest.mark.parametrize("via", LANES)
async def test_the_same_key_with_another_move_is_refused_and_plays_nothing(via, alice, two_tables):
    match_id, _, token = two_tables
    move = await sync_to_async(legal_move)(alice, match_id)
    played = await post(f"/api/matches/{match_id}/moves", {"move": move}, token, "key-2")
    assert played.status_code == 200
    head = await sync_to_async(head_of)(match_id)
    other = {"move": played.json()["legal_moves"][0]}
    refused = await post(f"/api/matches/{match_id}/moves{via}", other, token, "key-2")
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "idempotency_key_reused"
    # expected_seq is part of the request too.
    refused = await post(f"/api/matches/{match_id}/moves{via}", {"move": move, "expected_seq": 1}, token, "key-2")
    assert refused.status_code == 422
    again = await post(f"/api/matches/{match_id}/moves{via}", {"move": move}, token, "key-2")
    assert again.status_code == 200 and again.json() == played.json()
    assert await sync_to_async(head_of)(match_id) == head


@pytest.mark.skipif(not settings.REDIS_URL, reason="the socket's lane needs Redis")
async def test_a_socket_frame_id_reused_at_another_table_plays_there_and_with_another_move_is_refused(alice, two_tables):
    first, second, token = two_tables
    answers = {}
    for match_id in (first, second):
        socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
        assert (await socket.connect())[0]
        while (snapshot := await socket.receive_json_from(timeout=5))["type"] != "snapshot":
            pass
        await socket.send_json_to({"type": "move", "id": "m1", "move": snapshot["legal_moves"][0]})
        while (answer := await socket.receive_json_from(timeout=5))["type"] not in ("ack", "error"):
            pass
        answers[match_id] = answer
        if match_id == second:
            await socket.send_json_to({"type": "move", "id": "m1", "move": snapshot["legal_moves"][1]})
            while (reused := await socket.receive_json_from(timeout=5))["type"] not in ("ack", "error"):
                pass
        await socket.disconnect()
    assert [answers[m]["type"] for m in (first, second)] == ["ack", "ack"]
    assert answers[second]["seq"] == await sync_to_async(head_of)(second)
    assert reused["type"] == "error" and reused["code"] == "idempotency_key_reused" and reused["id"] == "m1"
