"""Socket input limits: frame size and rate; every refusal is an error frame, nothing is played."""
from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from accounts.services import user_token
from games.models import Event
from server.asgi import application
from tests.conftest import make_user
from tests.games.helpers import started_match
from tests.games.servers import uvicorn_servers

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def a_table():
    alice, bob = make_user("alice"), make_user("bob")
    return started_match("the-game", [alice, bob]), user_token(user=alice)


async def frames_of(socket, kind, count):
    found = []
    while len(found) < count:
        frame = await socket.receive_json_from(timeout=5)
        if frame["type"] == kind:
            found.append(frame)
    return found


async def test_an_oversized_frame_is_refused():
    match_id, token = await a_table()
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
    await socket.connect()
    await socket.send_to(text_data='{"type": "move", "move": {"action": "play", "card": "' + "9" * 9000 + '"}, "id": "x"}')
    assert (await frames_of(socket, "error", 1))[0]["code"] == "frame_rejected"
    await socket.disconnect()


async def test_a_flood_of_frames_is_rate_limited_and_plays_nothing(settings):
    settings.SOCKET_FRAMES_PER_SECOND = 5
    match_id, token = await a_table()
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
    await socket.connect()
    for i in range(40):
        await socket.send_json_to({"type": "move", "move": {"action": "end_turn"}, "id": f"f{i}"})
    errors = await frames_of(socket, "error", 40)
    codes = [e["code"] for e in errors]
    assert "rate_limited" in codes and codes.count("minimum_not_met") <= 11
    # Each refusal names the move it refused, so a client knows which to send again.
    assert all(e["id"] == f"f{i}" for i, e in enumerate(errors) if e["code"] == "rate_limited")
    assert not await database_sync_to_async(Event.objects.filter(match_id=match_id, type="MovePlayed").exists)()
    await socket.disconnect()


async def a_socket(match_id: int, token: str | None = None, address: str = "10.0.0.1"):
    """A socket to the table, from `address` (in-process sockets have none of their own)."""
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/" + (f"?token={token}" if token else ""))
    socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def placed(socket):
    """The socket once its place at the table is claimed. A socket is accepted before it claims
    its place, and is sent its snapshot after: a next socket opened before that snapshot races
    it for the last place, and the one opened first may be the one refused (FLAKES.md)."""
    await frames_of(socket, "snapshot", 1)
    return socket


async def refused(socket) -> dict:
    """The error frame a refused socket is sent, after which it is closed with 4429."""
    frame = await socket.receive_json_from(timeout=5)
    assert (await socket.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4429}
    return frame


async def test_one_person_cannot_open_sockets_to_a_table_without_end(settings):
    """Prevents one account holding unbounded sockets (memory, frames sent per move) at one table."""
    settings.MAX_SOCKETS_PER_CLIENT_AND_TABLE = 2
    match_id, token = await a_table()
    held = [await a_socket(match_id, token), await a_socket(match_id, token, address="10.0.0.2")]
    for socket in held:
        assert (await frames_of(socket, "snapshot", 1))[0]["seat"] == 0
    extra = await a_socket(match_id, token, address="10.0.0.3")  # another address is the same person
    frame = await refused(extra)
    assert frame["type"] == "error" and frame["code"] == "too_many_sockets" and "2" in frame["message"]
    # The slot is released on disconnect.
    await held.pop().disconnect()
    again = await a_socket(match_id, token)
    assert (await frames_of(again, "snapshot", 1))[0]["seat"] == 0
    for socket in [*held, again]:
        await socket.disconnect()


async def test_anonymous_sockets_are_capped_per_address(settings):
    """Prevents one address opening unbounded anonymous spectator sockets at a table; other
    addresses and other people still get in."""
    settings.MAX_SOCKETS_PER_CLIENT_AND_TABLE = 2
    match_id, token = await a_table()
    held = [await placed(await a_socket(match_id)), await placed(await a_socket(match_id))]
    assert (await refused(await a_socket(match_id)))["code"] == "too_many_sockets"
    held += [await a_socket(match_id, address="10.0.0.9"), await a_socket(match_id, token)]
    for socket in held[2:]:
        assert (await frames_of(socket, "snapshot", 1))
    for socket in held:
        await socket.disconnect()


async def test_a_refused_socket_is_sent_nothing_of_the_table(settings):
    """Prevents a socket past the cap from reading the table anyway (a ping is a catch-up)."""
    settings.MAX_SOCKETS_PER_CLIENT_AND_TABLE = 1
    match_id, token = await a_table()
    held = await placed(await a_socket(match_id, token))
    extra = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={token}")
    await extra.connect()
    await extra.send_json_to({"type": "ping"})
    frame = await extra.receive_json_from(timeout=5)
    assert frame["code"] == "too_many_sockets" and set(frame) == {"type", "id", "code", "message", "seq"}
    assert (await extra.receive_output(timeout=5))["type"] == "websocket.close"
    assert await extra.receive_nothing(timeout=0.3)
    await held.disconnect()


@pytest.mark.skipif(not django_settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
@pytest.mark.processes
def test_sockets_spread_over_two_servers_share_one_cap(monkeypatch):
    """Prevents getting past the cap by opening the sockets on every server process in turn."""
    monkeypatch.setenv("MAX_SOCKETS_PER_CLIENT_AND_TABLE", "2")
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    path = f"/ws/matches/{match_id}/?token={user_token(user=alice)}"
    with uvicorn_servers(2) as (first, second):
        urls = [base.replace("http", "ws") + path for base in (first, second)]
        with connect(urls[0]) as one, connect(urls[1]) as two:
            for socket in (one, two):
                assert json.loads(socket.recv(timeout=10))["type"] == "snapshot"
            for url in urls:
                with connect(url) as extra:
                    assert json.loads(extra.recv(timeout=10))["code"] == "too_many_sockets"
                    with pytest.raises(ConnectionClosed) as closed:
                        extra.recv(timeout=10)
                    assert closed.value.rcvd.code == 4429
            one.close()
            with connect(urls[1]) as again:  # the slot the first server held is free again
                assert json.loads(again.recv(timeout=10))["type"] == "snapshot"
