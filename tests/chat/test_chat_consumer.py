"""Table chat over the table's socket: posting, each socket's own view, mutes, the sealed rule, catch-up."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from games.models import Match
from server.asgi import application
from tests.chat.conftest import seated_users
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.test_match_consumer import connect, receive_until
from tests.tournaments.builders import make_tournament, running_matches
from tournaments import services

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def casual_table():
    alice, bob, eve = make_user("alice"), make_user("bob"), make_user("eve")
    return started_match("the-game", [alice, bob]), {u.username: u for u in (alice, bob, eve)}


@database_sync_to_async
def token(user):
    return user_token(user=user)


@database_sync_to_async
def rest(user, method, path, body=None):
    answer = getattr(client_for(user), method)(path, body, format="json")
    return answer.status_code, answer.json() if answer.content else None


async def joined(match_id, user=None, **query):
    socket = await connect(match_id, await token(user) if user else None, **query)
    await receive_until(socket, "snapshot")
    return socket, await receive_until(socket, "chat_history")


async def test_a_message_sent_on_the_socket_is_acked_and_reaches_every_socket():
    match_id, users = await casual_table()
    (alice, _), (eve, _), (watcher, _) = [await joined(match_id, u) for u in (users["alice"], users["eve"], None)]
    await alice.send_json_to({"type": "chat", "text": "<script>alert(1)</script>", "id": "c1"})
    ack = await receive_until(alice, "chat_ack")
    assert ack == {"type": "chat_ack", "id": "c1", "chat_seq": 1}
    for socket in (alice, eve, watcher):
        frame = await receive_until(socket, "chat")
        assert (frame["chat_seq"], frame["event"], frame["message"]["text"]) == (1, "MessagePosted", "<script>alert(1)</script>")
        assert frame["message"]["channel"] == "players" and "seq" not in frame  # the game's seq is not the chat's
    await eve.send_json_to({"type": "chat", "text": "nice", "id": "e1"})
    assert (await receive_until(alice, "chat"))["message"]["channel"] == "spectators"
    await watcher.send_json_to({"type": "chat", "text": "me too", "id": "w1"})
    assert (await receive_until(watcher, "error"))["code"] == "not_authenticated"
    await alice.send_json_to({"type": "chat", "text": "", "id": "c2"})
    assert (await receive_until(alice, "error"))["code"] == "chat_text_empty"
    await alice.send_json_to({"type": "chat", "text": "no id"})
    assert (await receive_until(alice, "error"))["code"] == "malformed_frame"
    for socket in (alice, eve, watcher):
        await socket.disconnect()


async def test_a_reconnecting_socket_catches_up_from_chat_since():
    match_id, users = await casual_table()
    alice, history = await joined(match_id, users["alice"])
    assert history["items"] == [] and history["chat_seq"] == 0
    await alice.disconnect()
    for text in ("one", "two", "three"):
        assert (await rest(users["bob"], "post", f"/api/matches/{match_id}/chat", {"text": text}))[0] == 201
    alice, history = await joined(match_id, users["alice"])
    assert [i["message"]["text"] for i in history["items"]] == ["one", "two", "three"]
    await alice.disconnect()
    resumed = await connect_with_chat_since(match_id, users["alice"], 2)
    history = await receive_until(resumed, "chat_history")
    assert [i["message"]["text"] for i in history["items"]] == ["three"] and history["chat_seq"] == 3
    await resumed.disconnect()


async def connect_with_chat_since(match_id, user, chat_since):
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={await token(user)}&chat_since={chat_since}")
    assert (await socket.connect())[0]
    return socket


async def test_a_muted_author_is_not_sent_to_whoever_muted_them():
    match_id, users = await casual_table()
    assert (await rest(users["alice"], "post", f"/api/chat/mutes/{users['eve'].username}"))[0] == 200
    (alice, _), (bob, _) = await joined(match_id, users["alice"]), await joined(match_id, users["bob"])
    await rest(users["eve"], "post", f"/api/matches/{match_id}/chat", {"text": "spam"})
    await rest(users["bob"], "post", f"/api/matches/{match_id}/chat", {"text": "hello"})
    assert [(await receive_until(bob, "chat"))["message"]["text"] for _ in range(2)] == ["spam", "hello"]
    assert (await receive_until(alice, "chat"))["message"]["text"] == "hello"  # spam was skipped
    _, page = await rest(users["alice"], "get", f"/api/matches/{match_id}/chat")
    assert [i["message"]["text"] for i in page["items"]] == ["hello"]
    for socket in (alice, bob):
        await socket.disconnect()


async def test_a_player_may_leave_out_the_spectators_channel_on_a_socket():
    match_id, users = await casual_table()
    alice, _ = await joined(match_id, users["alice"])
    await alice.send_json_to({"type": "chat_channels", "spectators": False})
    assert (await receive_until(alice, "chat_channels"))["spectators"] is False
    await rest(users["eve"], "post", f"/api/matches/{match_id}/chat", {"text": "from the rail"})
    await rest(users["bob"], "post", f"/api/matches/{match_id}/chat", {"text": "from the table"})
    assert (await receive_until(alice, "chat"))["message"]["text"] == "from the table"
    await alice.send_json_to({"type": "chat_channels", "spectators": True})
    history = await receive_until(alice, "chat_history")
    assert [i["message"]["text"] for i in history["items"]] == ["from the rail", "from the table"]
    await alice.disconnect()


@database_sync_to_async
def tournament_table():
    olga = make_user("olga")
    people = [make_user(name) for name in ("alice", "bob", "carol", "dan")]
    tournament = make_tournament(olga, people=tuple(people), options={"duplicate": True, "rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=olga)
    match_id = running_matches(tournament)[0]
    assert Match.objects.get(pk=match_id).sealed
    return match_id, seated_users(match_id)


async def test_at_a_sealed_table_no_socket_of_a_player_is_sent_the_spectators_channel():
    match_id, players = await tournament_table()
    eve = await database_sync_to_async(make_user)("eve")
    staff = await database_sync_to_async(make_user)("sam", staff=True)
    (player, _), (watcher, _) = await joined(match_id, players[0]), await joined(match_id, staff)
    # A spectator's socket is refused at this table (test_spectator_policy), and so is their post.
    assert (await rest(eve, "post", f"/api/matches/{match_id}/chat", {"text": "the next card is 42"}))[0] == 403
    await rest(players[1], "post", f"/api/matches/{match_id}/chat", {"text": "good luck"})
    said = await receive_until(player, "chat")
    assert (said["chat_seq"], said["message"]["text"]) == (1, "good luck")
    assert (await receive_until(watcher, "chat"))["message"]["text"] == "good luck"
    await player.send_json_to({"type": "chat_channels", "spectators": True})  # asking does not open it
    history = await receive_until(player, "chat_history")
    assert [i["message"]["text"] for i in history["items"]] == ["good luck"]
    await player.send_json_to({"type": "chat_since", "since": 0})
    assert [i["message"]["text"] for i in (await receive_until(player, "chat_history"))["items"]] == ["good luck"]
    for socket in (player, watcher):
        await socket.disconnect()
