"""A table's moves are heard once per process and handed to each of its sockets there (`games.fanout`):
one subscription per table, the state moved on once per move, a socket slow to write holding up no
other, the subscription gone with the table's last socket, presence kept alive for all of them at once,
and sockets that connected while the channel layer was away joining once it is back."""
from __future__ import annotations

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.conf import settings

from games import consumers, fanout, frames
from games.presence import presence
from tests.conftest import client_for, make_user
from tests.e2e.processes import channel_layer_on_its_own_redis
from tests.games.helpers import started_match
from tests.games.test_match_consumer import connect, receive_until, table_of_two

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


async def move(socket, frame: dict, client_id: str) -> dict:
    """Plays the first legal move of `frame` (the mover's last) and returns the mover's next update."""
    await socket.send_json_to({"type": "move", "move": frame["legal_moves"][0], "id": client_id})
    await receive_until(socket, "ack")
    return await receive_until(socket, "update")


async def no_update(socket, seconds: float = 0.3) -> bool:
    """Whether `socket` is sent no update frame for `seconds` (presence and chat frames may come)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                if (await socket.receive_json_from(timeout=seconds))["type"] == "update":
                    return False
    except TimeoutError:
        return True


async def test_a_move_is_heard_once_in_this_process_and_reaches_every_socket(monkeypatch):
    applied = []
    change_applied = frames.change_applied
    monkeypatch.setattr(frames, "change_applied", lambda *args: applied.append(args) or change_applied(*args))
    match_id, alice_token, bob_token = await table_of_two()
    alice, bob = await connect(match_id, alice_token), await connect(match_id, bob_token)
    watchers = [await connect(match_id, address=f"10.0.2.{i}") for i in range(6)]
    snapshot = await receive_until(alice, "snapshot")
    for socket in (bob, *watchers):
        await receive_until(socket, "snapshot")
    assert fanout.watched()[match_id] == 8

    update = await move(alice, snapshot, "m1")
    others = [await receive_until(socket, "update") for socket in (bob, *watchers)]
    assert {frame["seq"] for frame in others} == {update["seq"]}
    assert len(applied) == 1  # once for the process, not once per socket
    for socket in (alice, bob, *watchers):
        await socket.disconnect()


async def test_a_socket_slow_to_write_holds_up_no_other_and_then_gets_one_frame_for_both_moves(monkeypatch):
    gate = asyncio.Event()
    frame_sent = consumers.MatchConsumer._frame_sent

    async def slow_for_one(self, kind, hint):
        if kind == "update" and self.scope.get("client", ("",))[0] == "10.0.3.1":
            await gate.wait()
        await frame_sent(self, kind, hint)

    monkeypatch.setattr(consumers.MatchConsumer, "_frame_sent", slow_for_one)
    match_id, alice_token, _ = await table_of_two()
    alice, slow, quick = (await connect(match_id, alice_token), await connect(match_id, address="10.0.3.1"),
                          await connect(match_id, address="10.0.3.2"))
    snapshot = await receive_until(alice, "snapshot")
    for socket in (slow, quick):
        await receive_until(socket, "snapshot")

    first = await move(alice, snapshot, "m1")  # The Game: a turn plays at least two cards
    second = await move(alice, first, "m2")
    assert [(await receive_until(quick, "update"))["seq"] for _ in range(2)] == [first["seq"], second["seq"]]
    assert await no_update(slow)

    gate.set()
    caught_up = await receive_until(slow, "update")
    assert caught_up["seq"] == second["seq"]
    assert [e["seq"] for e in caught_up["events"]] == [e["seq"] for e in first["events"] + second["events"]]
    assert await no_update(slow)  # the first hint's frame is not sent as well
    for socket in (alice, slow, quick):
        await socket.disconnect()


async def test_the_last_socket_to_leave_ends_the_tables_subscription_and_the_next_one_starts_another():
    match_id, alice_token, bob_token = await table_of_two()
    alice, watcher = await connect(match_id, alice_token), await connect(match_id)
    await receive_until(alice, "snapshot")
    await watcher.disconnect()
    assert fanout.watched()[match_id] == 1
    await alice.disconnect()
    assert match_id not in fanout.watched()

    alice, bob = await connect(match_id, alice_token), await connect(match_id, bob_token)
    snapshot = await receive_until(alice, "snapshot")
    await receive_until(bob, "snapshot")
    update = await move(alice, snapshot, "m1")
    assert (await receive_until(bob, "update"))["seq"] == update["seq"]
    for socket in (alice, bob):
        await socket.disconnect()


async def test_the_tables_sockets_presence_is_refreshed_together(monkeypatch):
    refreshes = []
    join_many = type(presence()).join_many
    monkeypatch.setattr(type(presence()), "join_many", lambda self, *args: refreshes.append(args) or join_many(self, *args))
    monkeypatch.setattr(fanout, "PRESENCE_REFRESH_SECONDS", 0.05)
    match_id, alice_token, _ = await table_of_two()
    alice, watcher = await connect(match_id, alice_token), await connect(match_id)
    await receive_until(alice, "snapshot")
    await receive_until(watcher, "snapshot")
    async with asyncio.timeout(5):
        while not any(len(entries) == 2 for _, entries in refreshes):
            await asyncio.sleep(0.01)
    place, entries = next(refresh for refresh in refreshes if len(refresh[1]) == 2)
    assert place == match_id
    assert sorted(entry["seat"] is None for entry in entries.values()) == [False, True]
    for socket in (alice, watcher):
        await socket.disconnect()


def first_move(match_id: int, user) -> int:
    """`user` plays their first legal move over the API; the seq it made."""
    client = client_for(user)
    legal = client.get(f"/api/matches/{match_id}/view").json()["legal_moves"]
    answer = client.post(f"/api/matches/{match_id}/moves", {"move": legal[0]}, format="json")
    assert answer.status_code == 200, answer.json()
    return answer.json()["seq"]


@pytest.mark.processes
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs redis-server (set REDIS_URL)")
async def test_a_socket_that_could_not_join_while_the_channel_layer_was_away_hears_moves_once_it_is_back(monkeypatch):
    """As in a Sentinel failover: the socket's own channel was made, then Redis went away before it
    joined the table's groups. It used to hear no move again, only its pings' answers."""
    alice, bob = await database_sync_to_async(lambda: (make_user("alice"), make_user("bob")))()
    match_id = await database_sync_to_async(started_match)("the-game", [alice, bob])
    with channel_layer_on_its_own_redis() as own_redis:
        presence_of = consumers.MatchConsumer._presence

        async def redis_gone_while_connecting(self, operation, *args):
            if operation == "claim":
                await own_redis.stop_seen_by_the_layer()
            return await presence_of(self, operation, *args)

        monkeypatch.setattr(consumers.MatchConsumer, "_presence", redis_gone_while_connecting)
        watcher = await connect(match_id)
        snapshot = await receive_until(watcher, "snapshot")
        assert match_id not in fanout.watched()  # it could not join: it catches up on pings meanwhile

        own_redis.start()
        async with asyncio.timeout(20):  # it tries again after 0.5-1 s, then 1-2 s, ...
            while fanout.watched().get(match_id) != 1:
                await asyncio.sleep(0.05)
        seq = await database_sync_to_async(first_move)(match_id, alice)
        update = await receive_until(watcher, "update")  # pushed: it sent no ping
        assert update["seq"] == seq > snapshot["seq"]
        await watcher.disconnect()
