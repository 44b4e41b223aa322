"""A socket follows the table's seats as they are now, not as they were when it connected.

Regression: a user sat in seat 1 of an open table, opened its socket, left; another user took
seat 1 and the match started. The first socket kept seat 1 and was sent the new player's hand
in every frame for the whole match.
"""
from __future__ import annotations

import json

import httpx
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from websockets.sync.client import connect as ws_connect

from accounts.services import user_token
from games import services
from server.asgi import application
from tests.conftest import make_user
from tests.games.servers import uvicorn_servers

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _frames_hold_no_hand(frames: list[dict]) -> None:
    for frame in frames:
        if frame["type"] in ("snapshot", "update"):
            assert frame["seat"] is None and frame["legal_moves"] == [], frame
            assert frame["view"] is None or frame["view"]["hand"] is None, frame


async def _frames_until(socket: WebsocketCommunicator, kind: str, seen: list[dict]) -> dict:
    while True:
        frame = await socket.receive_json_from(timeout=5)
        seen.append(frame)
        if frame["type"] == kind:
            return frame


async def _running(socket: WebsocketCommunicator, seen: list[dict]) -> dict:
    """The first view frame of the started match (a snapshot for a seat change may bring it)."""
    while True:
        frame = await socket.receive_json_from(timeout=5)
        seen.append(frame)
        if frame["type"] in ("snapshot", "update") and frame["status"] == "running":
            return frame


@database_sync_to_async
def _open_table():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    match = services.match_create(user=alice, game="the-game", players=2)
    services.match_join(match_id=match.pk, user=bob)
    return match.pk, alice, bob, carol


async def test_a_socket_opened_before_its_user_left_is_never_sent_the_next_sitters_hand():
    match_id, alice, bob, carol = await _open_table()
    token = await database_sync_to_async(user_token)(user=bob)
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
    assert (await socket.connect())[0]
    seated: list[dict] = []
    assert (await _frames_until(socket, "snapshot", seated))["seat"] == 1

    seen: list[dict] = []  # every frame after Bob left
    await database_sync_to_async(services.match_leave)(match_id=match_id, user=bob)
    left = await _frames_until(socket, "snapshot", seen)  # the seats changed: a fresh snapshot
    assert left["seat"] is None
    while True:  # and the table hears that Bob watches now
        presence = await _frames_until(socket, "presence", seen)
        if presence["seats"] == []:
            break
    assert presence["spectators"] == 1
    await database_sync_to_async(services.match_join)(match_id=match_id, user=carol, seat=1)
    await database_sync_to_async(services.match_start)(match_id=match_id, user=alice)
    await _running(socket, seen)

    # Every kind of frame the socket can ask for: a resync from the start, a ping, presence.
    await socket.send_json_to({"type": "resync", "since": 0})
    await _frames_until(socket, "update", seen)
    await socket.send_json_to({"type": "ping"})
    await _frames_until(socket, "pong", seen)
    await socket.send_json_to({"type": "move", "id": "m1", "move": {"action": "end_turn"}})
    refused = await _frames_until(socket, "error", seen)
    assert refused["code"] == "not_seated"
    await socket.disconnect()
    _frames_hold_no_hand(seen)


async def test_a_spectator_who_takes_a_seat_gets_that_seats_view_on_the_same_socket():
    match_id, alice, bob, carol = await _open_table()
    await database_sync_to_async(services.match_leave)(match_id=match_id, user=bob)
    token = await database_sync_to_async(user_token)(user=carol)
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
    assert (await socket.connect())[0]
    seen: list[dict] = []
    assert (await _frames_until(socket, "snapshot", seen))["seat"] is None
    await database_sync_to_async(services.match_join)(match_id=match_id, user=carol)
    await database_sync_to_async(services.match_start)(match_id=match_id, user=alice)
    frame = await _running(socket, seen)
    assert frame["seat"] == 1 and len(frame["view"]["hand"]) == 7
    await socket.disconnect()


@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
@pytest.mark.processes
def test_a_socket_on_one_server_drops_the_seat_its_user_left_on_the_other():
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    match = services.match_create(user=alice, game="the-game", players=2)
    services.match_join(match_id=match.pk, user=bob)
    with uvicorn_servers(2) as (first, second):
        def over_http(user):
            return httpx.Client(base_url=second, headers={"Authorization": f"Token {user_token(user=user)}"}, timeout=10)

        seen: list[dict] = []
        with ws_connect(first.replace("http", "ws") + f"/ws/matches/{match.pk}/?token={user_token(user=bob)}") as socket:
            def until(*kinds: str) -> dict:
                while True:
                    frame = json.loads(socket.recv(timeout=10))
                    seen.append(frame)
                    if frame["type"] in kinds:
                        return frame

            assert until("snapshot")["seat"] == 1
            seen.clear()  # from here on, Bob has left
            assert over_http(bob).post(f"/api/matches/{match.pk}/leave").status_code == 200
            assert over_http(carol).post(f"/api/matches/{match.pk}/join", json={"seat": 1}).status_code in (200, 201)
            assert over_http(alice).post(f"/api/matches/{match.pk}/start").status_code == 200
            while until("snapshot", "update")["status"] != "running":
                pass
            socket.send(json.dumps({"type": "ping"}))
            until("pong")
            socket.send(json.dumps({"type": "resync", "since": 0}))
            until("update")
    _frames_hold_no_hand(seen)
