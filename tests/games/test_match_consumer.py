"""The live table over WebSockets: per-seat views, spectators, moves, errors, resume and presence."""
from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from server.asgi import application
from tests.conftest import make_user
from tests.games.helpers import started_match

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def table_of_two():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    return match_id, user_token(user=alice), user_token(user=bob)


async def connect(
    match_id: int, token: str | None = None, since: int | None = None, address: str | None = None
) -> WebsocketCommunicator:
    query = "&".join(q for q in (f"token={token}" if token else "", f"since={since}" if since is not None else "") if q)
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?{query}")
    if address is not None:
        socket.scope["client"] = (address, 50000)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def receive_until(socket: WebsocketCommunicator, kind: str) -> dict:
    while True:
        frame = await socket.receive_json_from(timeout=5)
        if frame["type"] == kind:
            return frame


async def test_seats_and_spectators_get_their_own_snapshot():
    match_id, alice_token, bob_token = await table_of_two()
    alice, bob, watcher = await connect(match_id, alice_token), await connect(match_id, bob_token), await connect(match_id)
    snaps = [await receive_until(s, "snapshot") for s in (alice, bob, watcher)]
    assert [s["seat"] for s in snaps] == [0, 1, None]
    assert len(snaps[0]["view"]["hand"]) == 7 and snaps[2]["view"]["hand"] is None
    assert snaps[0]["legal_moves"] and snaps[1]["legal_moves"] == [] and snaps[2]["legal_moves"] == []
    assert snaps[0]["seq"] == snaps[2]["seq"] and snaps[0]["events"][0]["event"]["type"] == "GameStarted"
    assert "deck" not in json.dumps(snaps) and snaps[0]["events"][0]["event"].get("seed") is None
    for socket in (alice, bob, watcher):
        await socket.disconnect()


async def test_a_move_reaches_every_socket_with_its_own_view():
    match_id, alice_token, bob_token = await table_of_two()
    alice, bob, watcher = await connect(match_id, alice_token), await connect(match_id, bob_token), await connect(match_id)
    snap = await receive_until(alice, "snapshot")
    for socket in (bob, watcher):
        await receive_until(socket, "snapshot")
    move = snap["legal_moves"][0]
    await alice.send_json_to({"type": "move", "move": move, "id": "m1", "expected_seq": snap["seq"]})
    ack = await receive_until(alice, "ack")
    assert ack == {"type": "ack", "id": "m1", "seq": snap["seq"] + 2}
    updates = [await receive_until(s, "update") for s in (alice, bob, watcher)]
    assert {u["seq"] for u in updates} == {ack["seq"]}
    assert [e["event"]["type"] for e in updates[1]["events"]] == ["CardPlayed"]
    assert updates[0]["view"]["hand"] != updates[1]["view"]["hand"]
    assert updates[2]["view"]["hand"] is None
    assert updates[1]["view"]["piles"] == updates[0]["view"]["piles"]
    for socket in (alice, bob, watcher):
        await socket.disconnect()


async def test_an_illegal_move_gets_an_error_frame_with_the_engines_code_and_a_retry_is_not_played_twice():
    match_id, alice_token, bob_token = await table_of_two()
    alice, bob = await connect(match_id, alice_token), await connect(match_id, bob_token)
    snap = await receive_until(alice, "snapshot")
    await receive_until(bob, "snapshot")
    await bob.send_json_to({"type": "move", "move": {"action": "end_turn"}, "id": "b1"})
    error = await receive_until(bob, "error")
    assert error["id"] == "b1" and error["code"] == "not_your_turn"
    await alice.send_json_to({"type": "move", "move": {"action": "end_turn"}, "id": "a1"})
    assert (await receive_until(alice, "error"))["code"] == "minimum_not_met"
    move = snap["legal_moves"][0]
    await alice.send_json_to({"type": "move", "move": move, "id": "a2"})
    first = await receive_until(alice, "ack")
    await alice.send_json_to({"type": "move", "move": move, "id": "a2"})
    second = await receive_until(alice, "ack")
    assert first == second
    await alice.send_json_to({"type": "dance"})
    assert (await receive_until(alice, "error"))["code"] == "unknown_frame"
    await alice.send_to(text_data="{nope")
    assert (await receive_until(alice, "error"))["code"] == "malformed_json"
    for socket in (alice, bob):
        await socket.disconnect()


async def test_a_spectator_cannot_move():
    match_id, _, _ = await table_of_two()
    watcher = await connect(match_id)
    await receive_until(watcher, "snapshot")
    await watcher.send_json_to({"type": "move", "move": {"action": "end_turn"}, "id": "w1"})
    assert (await receive_until(watcher, "error"))["code"] == "not_authenticated"
    await watcher.disconnect()


async def test_reconnecting_with_since_sends_exactly_what_was_missed():
    match_id, alice_token, bob_token = await table_of_two()
    bob = await connect(match_id, bob_token)
    seen = (await receive_until(bob, "snapshot"))["seq"]
    await bob.disconnect()
    alice = await connect(match_id, alice_token)
    snap = await receive_until(alice, "snapshot")
    for move_id in ("x1", "x2"):
        legal = snap["legal_moves"] if move_id == "x1" else (await receive_until(alice, "update"))["legal_moves"]
        await alice.send_json_to({"type": "move", "move": legal[0], "id": move_id})
        await receive_until(alice, "ack")
    bob = await connect(match_id, bob_token, since=seen)
    resumed = await receive_until(bob, "snapshot")
    assert [e["seq"] for e in resumed["events"]] == [seen + 2, seen + 4]  # each after its MovePlayed fact
    assert [e["event"]["type"] for e in resumed["events"]] == ["CardPlayed", "CardPlayed"]
    await bob.send_json_to({"type": "resync", "since": seen})
    again = await receive_until(bob, "update")
    assert again["events"] == resumed["events"]
    for socket in (alice, bob):
        await socket.disconnect()


async def test_presence_shows_who_sits_connected_and_counts_spectators():
    match_id, alice_token, _ = await table_of_two()
    alice = await connect(match_id, alice_token)
    first = await receive_until(alice, "presence")
    assert first == {"type": "presence", "seats": [{"seat": 0, "name": "Alice"}], "spectators": 0}
    watcher = await connect(match_id)
    assert (await receive_until(alice, "presence"))["spectators"] == 1
    await watcher.disconnect()
    assert (await receive_until(alice, "presence"))["spectators"] == 0
    await alice.disconnect()


async def test_spectators_arriving_together_are_announced_together():
    match_id, alice_token, _ = await table_of_two()
    alice = await connect(match_id, alice_token)
    await receive_until(alice, "presence")
    # Spectators from as many addresses: one address may hold only MAX_SOCKETS_PER_CLIENT_AND_TABLE.
    watchers = [await connect(match_id, address=f"10.0.1.{i}") for i in range(20)]
    seen = [await receive_until(alice, "presence")]
    while seen[-1]["spectators"] < 20:
        seen.append(await receive_until(alice, "presence"))
    assert len(seen) < 10  # not one announcement per arrival
    for socket in [alice, *watchers]:
        await socket.disconnect()


async def test_an_unknown_match_closes_the_socket():
    socket = WebsocketCommunicator(application, "/ws/matches/987654/")
    connected, _ = await socket.connect()
    assert connected  # accepted first, so that the client reads why (as for a private table it may not know)
    assert (await socket.receive_json_from())["code"] == "match_not_found"
    assert (await socket.receive_output())["code"] == 4404
