"""Two ASGI server processes share PostgreSQL and Redis: a socket on one sees a move made on the other."""
from __future__ import annotations

import json
import random
import time
from contextlib import ExitStack

import httpx
import pytest
from django.conf import settings
from websockets.sync.client import connect

from accounts.services import user_token
from games import services
from games.models import Match
from games.selectors import match_log_for_seat
from tests.conftest import make_user
from tests.games.helpers import started_match
from tests.games.servers import uvicorn_servers
from tests.games.worker import celery_worker

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.processes,
]


def frames_until(socket, kind: str) -> dict:
    while True:
        frame = json.loads(socket.recv(timeout=10))
        if frame["type"] == kind:
            return frame


def test_a_socket_on_one_server_sees_a_move_posted_over_http_on_the_other():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    with uvicorn_servers(2) as (first, second):
        ws_url = first.replace("http", "ws") + f"/ws/matches/{match_id}/?token={user_token(user=bob)}"
        with connect(ws_url) as bob_socket:
            snapshot = frames_until(bob_socket, "snapshot")
            alice_http = httpx.Client(base_url=second, headers={"Authorization": f"Token {user_token(user=alice)}"})
            legal = alice_http.get(f"/api/matches/{match_id}/view").json()["legal_moves"]
            answer = alice_http.post(f"/api/matches/{match_id}/moves", json={"move": legal[0]})
            assert answer.status_code == 200
            update = frames_until(bob_socket, "update")
    assert update["seq"] == answer.json()["seq"] > snapshot["seq"]
    assert [e["event"]["type"] for e in update["events"]] == ["CardPlayed"]
    assert update["view"]["seat"] == 1


def test_two_people_and_a_bot_play_live_across_two_servers_while_a_spectator_follows():
    """Alice on one server, Bob on the other, a random bot by a worker; Bob drops and resumes."""
    alice, bob = make_user("alice"), make_user("bob")
    match = services.match_create(user=alice, game="the-game", players=3)
    services.match_join(match_id=match.pk, user=bob)
    services.match_seat_bot(match_id=match.pk, user=alice, bot="random")
    tokens = [user_token(user=alice), user_token(user=bob)]
    rng = random.Random(4)
    with uvicorn_servers(2) as bases, celery_worker(), ExitStack() as stack:
        services.match_start(match_id=match.pk, user=alice)
        urls = [bases[i].replace("http", "ws") + f"/ws/matches/{match.pk}/" for i in (0, 1)]
        spectator = stack.enter_context(connect(urls[0]))
        sockets = [stack.enter_context(connect(urls[0] + f"?token={tokens[0]}")),
                   stack.enter_context(connect(urls[1] + f"?token={tokens[1]}"))]
        latest = [frames_until(s, "snapshot") for s in sockets]
        watched = [frames_until(spectator, "snapshot")]
        moved_at: dict[int, int] = {}
        dropped = False
        deadline = time.monotonic() + 120
        while not latest[0]["view"]["finished"]:
            assert time.monotonic() < deadline, "the match did not finish"
            for seat in (0, 1):
                frame = latest[seat]
                if frame["legal_moves"] and moved_at.get(seat) != frame["seq"]:
                    moved_at[seat] = frame["seq"]
                    move = rng.choice(frame["legal_moves"])
                    sockets[seat].send(json.dumps({"type": "move", "move": move, "id": f"{seat}-{frame['seq']}"}))
            if len(moved_at) == 2 and not dropped:  # Bob's connection drops; he comes back on the first server
                dropped = True
                last_seen = latest[1]["seq"]
                sockets[1].close()
                sockets[1] = stack.enter_context(connect(urls[0] + f"?token={tokens[1]}&since={last_seen}"))
                latest[1] = frames_until(sockets[1], "snapshot")
                assert all(e["seq"] > last_seen for e in latest[1]["events"])
            latest = [_latest(s, f) for s, f in zip(sockets, latest)]
        while watched[-1]["seq"] < latest[0]["seq"]:
            watched.append(frames_until(spectator, "update"))
    finished = Match.objects.get(pk=match.pk)
    assert finished.status == Match.Status.FINISHED and dropped
    assert watched[-1]["view"]["finished"] and all(w["view"]["hand"] is None for w in watched)
    seen = [e["seq"] for w in watched for e in w["events"]]
    assert seen == [e["seq"] for e in match_log_for_seat(finished, None)]  # every event once, in order


def _latest(socket, frame: dict) -> dict:
    """The newest frame: waits briefly for one, then drains what else is already there."""
    while True:
        try:
            newer = json.loads(socket.recv(timeout=0.2))
        except TimeoutError:
            return frame
        if newer["type"] in ("update", "snapshot") and newer["seq"] > frame["seq"]:
            frame = newer
