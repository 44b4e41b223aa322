"""Who may do what to a table, over every endpoint: each persona gets exactly what it may.

Personas: anonymous, an outsider (seated at another match), the seat whose turn it is not,
the seat whose turn it is, and staff. Refusals write nothing.
"""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from games.models import Event, Match
from tests.built_once import rolled_back_at_the_end
from tests.conftest import client_for, make_user
from tests.games.builders import finished_match
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db

PERSONAS = ["anonymous", "outsider", "waiting_seat", "turn_seat", "staff"]


def built_world() -> dict:
    alice, bob, carol, sam = make_user("alice"), make_user("bob"), make_user("carol"), make_user("sam", staff=True)
    running = started_match("the-game", [alice, bob])
    started_match("the-game", [carol])  # carol sits elsewhere
    finished = finished_match("the-game", [alice, bob], seed=9).pk
    users = {"anonymous": None, "outsider": carol, "waiting_seat": bob, "turn_seat": alice, "staff": sam}
    return {"running": running, "finished": finished, "users": users}


@pytest.fixture
def world() -> dict:
    return built_world()


@pytest.fixture(scope="class")
def world_once(django_db_setup, django_db_blocker) -> Iterator[dict]:
    """The world made once for a class whose tests each run in a savepoint of it (tests/built_once.py):
    what a test writes (a chat message, auto-pass) is gone before the next."""
    with rolled_back_at_the_end(django_db_blocker):
        yield built_world()


# (method, path, body) -> expected status per persona, in PERSONAS order.
READS = [
    ("get", "/api/matches/{running}", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{running}/view", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{running}/log", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{running}/events", None, [403, 403, 403, 403, 200]),
    ("get", "/api/matches/{running}/replay", None, [403, 403, 403, 403, 200]),
    ("get", "/api/matches/{running}/export", None, [403, 403, 403, 403, 200]),
    ("get", "/api/matches/{finished}/events", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{finished}/replay", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{finished}/export", None, [200, 200, 200, 200, 200]),
    ("get", "/api/matches/{running}/chat", None, [200, 200, 200, 200, 200]),
]
WRITES = [
    ("post", "/api/matches/{running}/moves", {"move": {"action": "end_turn"}}, [401, 403, 409, 409, 403]),
    ("post", "/api/matches/{running}/join", {}, [401, 409, 409, 409, 409]),
    ("post", "/api/matches/{running}/leave", {}, [401, 409, 409, 409, 409]),
    ("post", "/api/matches/{running}/bots", {"bot": "random"}, [401, 409, 409, 409, 409]),
    ("post", "/api/matches/{running}/start", {}, [401, 409, 409, 409, 409]),
    ("post", "/api/matches/{running}/auto-pass", {"enabled": True}, [401, 403, 200, 200, 403]),
    ("post", "/api/matches/{running}/shuffle", {"value": "a" * 64}, [401, 409, 409, 409, 409]),
    ("post", "/api/matches/{running}/practice", {"seq": 3}, [401, 403, 403, 403, 403]),
    # Chat is not a move: everyone signed in may talk (tests/chat has the whole chat matrix).
    ("post", "/api/matches/{running}/chat", {"text": "hi"}, [401, 201, 201, 201, 201]),
    ("post", "/api/matches/{running}/chat/1/hide", {}, [401, 403, 403, 403, 404]),
]


class TestEachEndpoint:
    @pytest.mark.parametrize(("method", "path", "body", "expected"), READS + WRITES,
                             ids=lambda v: v if isinstance(v, str) else None)
    def test_each_persona_gets_exactly_what_it_may(self, world_once, method, path, body, expected):
        world = world_once
        url = path.format(running=world["running"], finished=world["finished"])
        before = Event.objects.count()
        for persona, status in zip(PERSONAS, expected):
            client = client_for(world["users"][persona])
            answer = getattr(client, method)(url, body, format="json") if body is not None else getattr(client, method)(url)
            assert answer.status_code == status, f"{persona} {method.upper()} {url}: {answer.status_code}"
            if status >= 400:
                assert "error" in answer.json() and answer.json()["error"]["code"]
        if method == "post" and "practice" not in path:
            assert Event.objects.count() == before  # nothing above was a legal move, so nothing was written


def test_no_persona_sees_another_seats_hand_or_the_deck_of_a_running_match(world):
    match = Match.objects.get(pk=world["running"])
    hands = {}
    for persona in ("waiting_seat", "turn_seat"):
        view = client_for(world["users"][persona]).get(f"/api/matches/{match.pk}/view").json()["view"]
        hands[persona] = set(view["hand"])
    for persona in PERSONAS:
        client = client_for(world["users"][persona])
        seen = json.dumps([client.get(f"/api/matches/{match.pk}{suffix}").json() for suffix in ("", "/view", "/log")])
        others = set().union(*(h for p, h in hands.items() if p != persona))
        assert not any(f'"{card}"' in seen for card in others), persona
        assert str(match.seed) not in seen and '"deck"' not in seen


def test_practice_and_auto_pass_are_the_callers_own(world):
    outsider = client_for(world["users"]["outsider"])
    practice = outsider.post(f"/api/matches/{world['finished']}/practice", {"seq": 3}, format="json")
    assert practice.status_code == 201 and practice.json()["seats"][0]["user"] == world["users"]["outsider"].pk
