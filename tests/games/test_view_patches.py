"""Updates that carry the changes to a socket's last view (`?patches=1`, `frames.view_patch`): applied
to that view they give exactly the view the seat would be sent whole, they say nothing the new view
does not, and a socket that asks gets the whole view again."""
from __future__ import annotations

import json
import random

import pytest
from channels.testing import WebsocketCommunicator
from hypothesis import given
from hypothesis import strategies as st

from games import frames, services
from games.engines import ENGINES
from games.models import Match
from games.patches import view_patch, view_patched
from games.state import state_at_head
from server.asgi import application
from tests.conftest import make_user
from tests.games.test_match_consumer import connect, receive_until, table_of_two

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=2), inner, max_size=4),
    max_leaves=20,
)
views = st.dictionaries(st.text(max_size=2), json_values, max_size=5)


def at(view, path: list):
    for key in path:
        view = view[key]
    return view


@given(views, views)
def test_a_patch_makes_the_new_view_of_the_old_one(before, after):
    operations = view_patch(before, after)
    assert view_patched(before, operations) == after
    assert json.loads(json.dumps(view_patched(before, operations))) == after  # and survives JSON as it is sent
    assert (operations == []) == (before == after)


def test_a_value_that_changes_type_is_set_not_compared_as_equal():
    assert view_patch({"a": 1}, {"a": True}) == [["set", ["a"], True]]
    assert view_patch({"a": [1, 2]}, {"a": [1, 2, 3]}) == [["add", ["a"], [3]]]
    assert view_patch({"a": [1, 2]}, {"a": [2]}) == [["set", ["a"], [2]]]


@pytest.mark.django_db
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_seats_patches_give_its_whole_views_and_say_nothing_else(game, django_capture_on_commit_callbacks):
    players = max(2, ENGINES[game].min_players)
    users = [make_user(f"p{i}") for i in range(players)]
    match = services.match_start_seated(game=game, seats=users, created_by=users[0])
    viewers = [*(user.pk for user in users), None]
    held = {viewer: json.loads(frames.frame_text(match.pk, viewer, kind="snapshot", since=0).text) for viewer in viewers}
    rng, whole_bytes, patch_bytes = random.Random(7), 0, 0
    for _ in range(25):
        match.refresh_from_db()
        if match.status != Match.Status.RUNNING:
            break
        state = state_at_head(match.pk, match.game, match.last_seq)
        seat = next(s for s in range(players) if ENGINES[game].legal_moves(state, s))
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(match_id=match.pk, user=users[seat], move=rng.choice(ENGINES[game].legal_moves(state, seat)))
        for viewer in viewers:
            before = held[viewer]
            seat_then = before["seat"]
            patch_text = frames.frame_text(match.pk, viewer, kind="update", since=before["seq"], patch_from=seat_then).text
            whole_text = frames.frame_text(match.pk, viewer, kind="update", since=before["seq"]).text
            patch, whole = json.loads(patch_text), json.loads(whole_text)
            assert "view" not in patch and patch["base"] == before["seq"]
            assert view_patched(before["view"], patch["view_patch"]) == whole["view"]
            for operation, path, *value in patch["view_patch"]:  # each value is the new view's own
                if operation == "set":
                    assert at(whole["view"], path) == value[0]
                elif operation == "add":
                    assert at(whole["view"], path)[-len(value[0]):] == value[0]
            assert {k: v for k, v in patch.items() if k not in ("view_patch", "base")} == {
                k: v for k, v in whole.items() if k != "view"
            }
            held[viewer] = whole
            whole_bytes, patch_bytes = whole_bytes + len(whole_text), patch_bytes + len(patch_text)
    assert patch_bytes < whole_bytes


@pytest.mark.django_db
def test_a_socket_that_holds_another_seats_view_or_an_older_one_gets_the_whole_view(django_capture_on_commit_callbacks):
    users = [make_user("a"), make_user("b")]
    match = services.match_start_seated(game="ten", seats=users, created_by=users[0])
    start = match.last_seq
    for _ in range(2):
        match.refresh_from_db()
        just_before = match.last_seq  # after the loop: the head before the last move
        state = state_at_head(match.pk, match.game, match.last_seq)
        seat = next(s for s in range(2) if ENGINES["ten"].legal_moves(state, s))
        frames.frame_text(match.pk, users[0].pk, kind="snapshot", since=0)  # the head's views are kept
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(match_id=match.pk, user=users[seat], move=ENGINES["ten"].legal_moves(state, seat)[0])
    assert start < just_before  # two moves: the head before this one is not the start
    behind = frames.frame_text(match.pk, users[0].pk, kind="update", since=start, patch_from=0).text
    other_seat = frames.frame_text(match.pk, users[0].pk, kind="update", since=just_before, patch_from=None).text
    own_seat = frames.frame_text(match.pk, users[0].pk, kind="update", since=just_before, patch_from=0).text
    assert "view" in json.loads(behind) and "view" in json.loads(other_seat)
    assert "view_patch" in json.loads(own_seat)  # the same head before, the seat's own view: a patch


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
async def test_a_socket_that_asks_for_patches_gets_them_and_the_whole_view_when_it_asks():
    match_id, alice_token, _ = await table_of_two()
    alice = await connect(match_id, alice_token)
    watcher = await connect(match_id, None)
    patching = await connect_with_patches(match_id)
    snapshot = await receive_until(alice, "snapshot")
    held = await receive_until(patching, "snapshot")
    await receive_until(watcher, "snapshot")

    await alice.send_json_to({"type": "move", "move": snapshot["legal_moves"][0], "id": "m1"})
    whole, patch = await receive_until(watcher, "update"), await receive_until(patching, "update")
    assert "view" not in patch and patch["base"] == held["seq"] and patch["seq"] == whole["seq"]
    assert view_patched(held["view"], patch["view_patch"]) == whole["view"]

    await patching.send_json_to({"type": "resync", "since": patch["seq"], "full": True})
    again = await receive_until(patching, "snapshot")
    assert again["seq"] == whole["seq"] and again["view"] == whole["view"] and again["events"] == []
    for socket in (alice, watcher, patching):
        await socket.disconnect()


async def connect_with_patches(match_id: int) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(application, f"/ws/matches/{match_id}/?patches=1")
    socket.scope["client"] = ("10.0.4.1", 50000)
    connected, _ = await socket.connect()
    assert connected
    return socket
