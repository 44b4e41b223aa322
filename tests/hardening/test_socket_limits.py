"""Socket input limits: frame size and rate; every refusal is an error frame, nothing is played."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from games.models import Event
from server.asgi import application
from tests.conftest import make_user
from tests.games.helpers import started_match

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
