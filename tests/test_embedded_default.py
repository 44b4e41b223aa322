"""The README's run command on the embedded default: no services, one process tree, bots at play.

Starts `manage.py serve` as a real subprocess on a fresh SQLite file with no DATABASE_URL or
REDIS_URL, then plays a whole match over HTTP as two people and watches a demo bot table move.
"""
from __future__ import annotations

import json
import random
import time

import httpx
import pytest
from websockets.sync.client import connect

from tests.embedded import serve

pytestmark = pytest.mark.processes


@pytest.fixture
def embedded_server(tmp_path):
    # Slow enough that the demo's Split table (a few hundred bot moves) is still at play when
    # the test looks at it, after the people's match.
    with serve(tmp_path, BOT_MOVE_DELAY="0.1") as (base, _console):
        yield base


def test_two_people_play_the_game_and_the_demo_bots_play_on_the_embedded_default(embedded_server):
    base = embedded_server
    people = []
    for name in ("erin", "frank"):
        answer = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": "a long enough passphrase"})
        assert answer.status_code == 201, answer.text
        people.append(httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"}))

    table = people[0].post("/api/matches", json={"game": "the-game", "players": 2}).json()
    assert people[1].post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert people[0].post(f"/api/matches/{table['id']}/start").status_code == 200
    rng = random.Random(1)
    for _ in range(500):
        views = [p.get(f"/api/matches/{table['id']}/view").json() for p in people]
        if views[0]["view"]["finished"]:
            break
        seat = views[0]["view"]["to_act"][0]
        move = rng.choice(views[seat]["legal_moves"])
        assert people[seat].post(f"/api/matches/{table['id']}/moves", json={"move": move}).status_code == 200
    final = httpx.get(f"{base}/api/matches/{table['id']}").json()
    assert final["status"] == "finished" and final["outcome"]["cooperative"] is True

    demo = httpx.get(f"{base}/api/matches", params={"player": "", "game": "split"}).json()["results"]
    bot_table = next(m for m in demo if all(s["bot"] for s in m["seats"]))
    seq_then = bot_table["seq"]
    deadline = time.monotonic() + 30
    while httpx.get(f"{base}/api/matches/{bot_table['id']}").json()["seq"] <= seq_then:
        assert time.monotonic() < deadline, "the demo bots did not move"
        time.sleep(0.2)
    # The worker is another process and the channel layer is in memory: sockets still see its moves.

    with connect(base.replace("http", "ws") + f"/ws/matches/{bot_table['id']}/") as socket:
        snapshot = json.loads(socket.recv(timeout=10))
        update = next(f for f in (json.loads(socket.recv(timeout=10)) for _ in range(20)) if f["type"] == "update")
    assert update["seq"] > snapshot["seq"] or update["view"]["finished"]
    assert httpx.get(f"{base}/").status_code == 200
    assert httpx.get(f"{base}/api/docs/").status_code == 200
