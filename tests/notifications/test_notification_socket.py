"""`/ws/notifications/`: the unread count on connect, each new notification as a frame to its own
person only, anonymous sockets refused with 4401, and a socket that could not join its person's
group while the channel layer was away joining once it is back."""
from __future__ import annotations

import asyncio

import pytest
import redis
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings

from accounts.services import user_token
from notifications import consumers, services
from server.asgi import application
from tests.conftest import make_user
from tests.e2e.processes import channel_layer_on_its_own_redis

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

NOTE = {"title": "Your turn at table 1", "body": "The table waits.", "url": "/tables/1"}


@database_sync_to_async
def two_people():
    alice, bob = make_user("alice"), make_user("bob")
    services.notifications_send(kind="invited", key="1", data_by_user={alice.pk: NOTE})
    return alice.pk, bob.pk, user_token(user=alice), user_token(user=bob)


@database_sync_to_async
def tell(user_id: int, key: str) -> list[int]:
    return services.notifications_send(kind="your_turn", key=key, data_by_user={user_id: NOTE})


async def connect(token: str | None) -> WebsocketCommunicator:
    headers = [(b"authorization", f"Token {token}".encode())] if token else []
    socket = WebsocketCommunicator(application, "/ws/notifications/", headers=headers)
    connected, _ = await socket.connect()
    assert connected
    return socket


async def test_connect_sends_the_unread_count_and_the_latest():
    _, _, alice_token, bob_token = await two_people()
    alice, bob = await connect(alice_token), await connect(bob_token)
    first = await alice.receive_json_from(timeout=5)
    assert first["type"] == "unread" and first["unread"] == 1 and first["latest"][0]["url"] == "/tables/1"
    assert await bob.receive_json_from(timeout=5) == {"type": "unread", "unread": 0, "latest": []}
    await alice.disconnect()
    await bob.disconnect()


async def test_a_new_notification_reaches_its_person_and_nobody_else():
    alice_id, _, alice_token, bob_token = await two_people()
    alice, bob = await connect(alice_token), await connect(bob_token)
    await alice.receive_json_from(timeout=5)
    await bob.receive_json_from(timeout=5)
    [made] = await tell(alice_id, "1:5")
    frame = await alice.receive_json_from(timeout=5)
    assert frame["type"] == "notification" and frame["notification"]["id"] == made and frame["unread"] == 2
    assert frame["notification"]["kind"] == "your_turn"
    assert await bob.receive_nothing(timeout=0.5)
    await tell(alice_id, "1:5")  # told already: no second frame
    assert await alice.receive_nothing(timeout=0.5)
    await alice.disconnect()
    await bob.disconnect()


async def test_a_ping_catches_up_and_other_frames_are_refused():
    _, _, alice_token, _ = await two_people()
    alice = await connect(alice_token)
    await alice.receive_json_from(timeout=5)
    await alice.send_json_to({"type": "ping"})
    assert await alice.receive_json_from(timeout=5) == {"type": "pong", "unread": 1}
    await alice.send_json_to({"type": "read", "ids": [1]})
    assert (await alice.receive_json_from(timeout=5))["code"] == "unknown_frame"
    await alice.disconnect()


async def test_an_anonymous_socket_is_told_why_and_closed_with_4401():
    socket = await connect(None)
    assert (await socket.receive_json_from(timeout=5))["code"] == "not_authenticated"
    assert await socket.receive_output(timeout=5) == {"type": "websocket.close", "code": 4401}


async def test_a_person_holds_at_most_the_cap_of_sockets_and_a_closed_one_frees_its_place(settings):
    """Issue #39: 150 of 150 notification sockets opened for one person; the cap counts over every process (Redis)."""
    settings.MAX_NOTIFICATION_SOCKETS_PER_USER = 2
    _, _, alice_token, bob_token = await two_people()
    held = [await connect(alice_token), await connect(alice_token)]
    for socket in held:
        assert (await socket.receive_json_from(timeout=5))["type"] == "unread"
    third = await connect(alice_token)
    refused = await third.receive_json_from(timeout=5)
    assert (refused["type"], refused["code"]) == ("error", "too_many_notification_sockets")
    assert (await third.receive_output(timeout=5)) == {"type": "websocket.close", "code": 4429}
    bob = await connect(bob_token)  # another person's sockets are theirs to count
    assert (await bob.receive_json_from(timeout=5))["type"] == "unread"
    await held.pop().disconnect()
    again = await connect(alice_token)
    assert (await again.receive_json_from(timeout=5))["type"] == "unread"
    for socket in (*held, again, bob):
        await socket.disconnect()


@pytest.mark.processes
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs redis-server (set REDIS_URL)")
async def test_a_socket_that_could_not_join_while_the_channel_layer_was_away_is_pushed_once_it_is_back(monkeypatch):
    alice_id, _, alice_token, _ = await two_people()
    with channel_layer_on_its_own_redis() as own_redis:
        presence_of = consumers.NotificationConsumer._presence

        async def redis_gone_while_connecting(self, operation, *args):
            if operation == "claim":  # after the socket's own channel was made, before it joins its group
                await own_redis.stop_seen_by_the_layer()
            return await presence_of(self, operation, *args)

        monkeypatch.setattr(consumers.NotificationConsumer, "_presence", redis_gone_while_connecting)
        alice = await connect(alice_token)
        assert (await alice.receive_json_from(timeout=5))["type"] == "unread"

        own_redis.start()
        layer_redis = redis.Redis(port=own_redis.port)
        async with asyncio.timeout(20):  # it tries again after 0.5-1 s, then 1-2 s, ...
            while not layer_redis.pubsub_channels(f"*{services.user_group(alice_id)}"):
                await asyncio.sleep(0.05)
        [made] = await tell(alice_id, "1:6")
        frame = await alice.receive_json_from(timeout=5)  # pushed: it sent no ping
        assert frame["type"] == "notification" and frame["notification"]["id"] == made
        await alice.disconnect()
