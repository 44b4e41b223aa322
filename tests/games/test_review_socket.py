"""The shared review over the table's socket (issue #44 item 6): after the end, a seated player
leads with `review_position` frames and the other seated players' sockets follow; spectators,
strangers and bad frames get nothing but an error frame."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from accounts.services import user_token
from games.models import Match
from server.asgi import application
from tests.conftest import make_user
from tests.games.builders import finished_match
from tests.games.helpers import started_match
from tests.games.test_match_consumer import connect, receive_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@database_sync_to_async
def finished_table(*, private: bool = False):
    alice, bob, watcher, staff = make_user("alice"), make_user("bob"), make_user("watcher"), make_user("boss", staff=True)
    match = finished_match("sequence-stacks", [alice, bob])
    if private:
        Match.objects.filter(pk=match.pk).update(private=True)
    return match.pk, match.last_seq, {who.username: user_token(user=who) for who in (alice, bob, watcher, staff)}


async def nothing_more(socket: WebsocketCommunicator, kind: str) -> None:
    """No frame of `kind` arrives (frames of other kinds, presence, are let by). `receive_nothing`
    keeps the socket: a receive that times out would end its application."""
    while not await socket.receive_nothing(timeout=0.5):
        frame = await socket.receive_json_from(timeout=5)
        assert frame["type"] != kind, frame


async def test_the_leaders_position_reaches_the_other_seated_players_only():
    match_id, last_seq, tokens = await finished_table()
    alice, bob, watcher, anonymous = (
        await connect(match_id, tokens["alice"]), await connect(match_id, tokens["bob"]),
        await connect(match_id, tokens["watcher"]), await connect(match_id),
    )
    for socket in (alice, bob, watcher, anonymous):
        await receive_until(socket, "snapshot")
    await alice.send_json_to({"type": "review_position", "seq": 3})
    assert await receive_until(bob, "review_position") == {"type": "review_position", "seq": 3, "seat": 0}
    for socket in (alice, watcher, anonymous):  # not back to the leader's own socket, never to a spectator
        await nothing_more(socket, "review_position")
    await bob.send_json_to({"type": "review_position", "seq": last_seq})  # anyone seated may lead
    assert (await receive_until(alice, "review_position"))["seat"] == 1
    for socket in (alice, bob, watcher, anonymous):
        await socket.disconnect()


@pytest.mark.parametrize(
    ("who", "frame", "code"),
    [
        (None, {"type": "review_position", "seq": 3}, "not_authenticated"),
        ("watcher", {"type": "review_position", "seq": 3}, "not_seated"),
        ("boss", {"type": "review_position", "seq": 3}, "not_seated"),  # staff see everything, but do not sit here
        ("alice", {"type": "review_position"}, "malformed_frame"),
        ("alice", {"type": "review_position", "seq": "3"}, "malformed_frame"),
        ("alice", {"type": "review_position", "seq": True}, "malformed_frame"),
        ("alice", {"type": "review_position", "seq": 0}, "bad_seq"),
        ("alice", {"type": "review_position", "seq": 10**6}, "bad_seq"),
    ],
)
async def test_a_refused_review_frame_gets_an_error_frame_and_reaches_nobody(who, frame, code):
    match_id, _, tokens = await finished_table()
    leader = await connect(match_id, tokens[who] if who else None)
    bob = await connect(match_id, tokens["bob"])
    for socket in (leader, bob):
        await receive_until(socket, "snapshot")
    await leader.send_json_to(frame)
    error = await receive_until(leader, "error")
    assert error["code"] == code
    await nothing_more(bob, "review_position")
    for socket in (leader, bob):
        await socket.disconnect()


async def test_there_is_no_shared_review_before_the_end():
    @database_sync_to_async
    def running():
        alice, bob = make_user("alice"), make_user("bob")
        return started_match("sequence-stacks", [alice, bob]), user_token(user=alice)

    match_id, token = await running()
    alice = await connect(match_id, token)
    await receive_until(alice, "snapshot")
    await alice.send_json_to({"type": "review_position", "seq": 1})
    assert (await receive_until(alice, "error"))["code"] == "review_not_ready"
    await alice.disconnect()


async def test_a_private_tables_shared_review_is_its_players_and_strangers_do_not_even_connect():
    match_id, _, tokens = await finished_table(private=True)
    stranger = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?token={tokens['watcher']}")
    await stranger.connect()
    assert (await receive_until(stranger, "error"))["code"] == "match_not_found"
    await stranger.disconnect()
    alice, bob = await connect(match_id, tokens["alice"]), await connect(match_id, tokens["bob"])
    for socket in (alice, bob):
        await receive_until(socket, "snapshot")
    await alice.send_json_to({"type": "review_position", "seq": 2})
    assert (await receive_until(bob, "review_position"))["seq"] == 2
    for socket in (alice, bob):
        await socket.disconnect()
