"""Issue #39: a private table's socket, to anyone it is not known to, answers as for a number that
names no table (one `match_not_found` error frame, close 4404); its own people are let in."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from games import services
from server.asgi import application
from tests.conftest import make_user

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def private_table() -> tuple[int, dict[str, str | None]]:
    alice, bob, dave = make_user("alice"), make_user("bob"), make_user("dave")
    staff = make_user("sam", staff=True)
    match = services.match_create(user=alice, game="ten", players=2, rated=False, private=True)
    _, token = services.invitation_create(match_id=match.pk, user=alice)
    services.invitation_accept(token=token, user=bob)
    services.match_start(match_id=match.pk, user=alice)
    people = [("creator", alice), ("seat", bob), ("another player", dave), ("staff", staff)]
    tokens = {name: user_token(user=user) for name, user in people}
    return match.pk, {"anonymous": None, **tokens}


async def opened(match_id: int, token: str | None) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/" + (f"?token={token}" if token else ""))
    connected, _ = await socket.connect()
    assert connected
    return socket


@pytest.mark.parametrize("persona", ["anonymous", "another player"])
async def test_a_stranger_is_told_there_is_no_such_table(persona):
    """Prevents a guessed number streaming a private table's play (it sent the snapshot to anyone)."""
    match_id, tokens = await private_table()
    socket = await opened(match_id, tokens[persona])
    frame = await socket.receive_json_from(timeout=5)
    assert frame["type"] == "error" and frame["code"] == "match_not_found"
    assert (await socket.receive_output(timeout=5))["code"] == 4404
    missing = await opened(match_id + 1000, tokens[persona])  # the same answer as for no table at all
    assert (await missing.receive_json_from(timeout=5))["code"] == "match_not_found"
    assert (await missing.receive_output(timeout=5))["code"] == 4404


@pytest.mark.parametrize("persona", ["creator", "seat", "staff"])
async def test_its_own_people_get_the_snapshot(persona):
    match_id, tokens = await private_table()
    socket = await opened(match_id, tokens[persona])
    assert (await socket.receive_json_from(timeout=5))["type"] == "snapshot"
    await socket.disconnect()
