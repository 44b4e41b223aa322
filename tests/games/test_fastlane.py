"""The event loop's move lane (games/fastlane.py) answers exactly as the REST view does.

Every request goes through the ASGI application the server runs. The same request with a
query string appended is one the lane hands to Django, so each case is asked of both lanes
and the answers compared: status, body and headers.
"""
from __future__ import annotations

import json
import time

import httpx
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import cache
from rest_framework.renderers import JSONRenderer

from accounts.authentication import FastTokenAuthentication
from accounts.models import User
from accounts.services import user_token
from games import fastlane
from games.api import MoveSubmitApi
from games.chain import canonical_time, event_hash
from games.models import Event, Match, MoveReceipt
from games.selectors import verify_match
from server.asgi import application
from server.limits import BoundedJSONParser, ScopedThrottle
from tests.conftest import client_for
from tests.games.helpers import started_match

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.FASTLANE, reason="the fast lane needs PostgreSQL and Redis"),
]


@pytest.fixture
def app():
    return application


@pytest.fixture
def lane_calls(monkeypatch):
    """The moves the lane itself played (not handed to Django)."""
    calls = []
    play = fastlane._move

    async def counted(*args):
        calls.append(args)
        return await play(*args)

    monkeypatch.setattr(fastlane, "_move", counted)
    return calls


async def post(app, path, body, *, token=None, headers=None, raw=None):
    sent = {"content-type": "application/json", **(headers or {})}
    if token:
        sent["authorization"] = f"Token {token}"
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.post(path, content=raw if raw is not None else json.dumps(body), headers=sent)


async def both_lanes(app, path, body, **kwargs):
    """The answer of the lane (the request as it is) and of Django (the same with a query string)."""
    return await post(app, path, body, **kwargs), await post(app, path + "?via=django", body, **kwargs)


def same_answer(lane: httpx.Response, django: httpx.Response) -> None:
    assert lane.status_code == django.status_code
    assert lane.json() == django.json()
    ignored = {"x-request-id", "date", "server"}
    assert {k: v for k, v in lane.headers.items() if k not in ignored} == {
        k: v for k, v in django.headers.items() if k not in ignored
    }


def seq_of(match_id):
    return Event.objects.filter(match_id=match_id).count()


@pytest.fixture
def table(alice, bob):
    match_id = started_match("the-game", [alice, bob])
    return match_id, user_token(user=alice), user_token(user=bob)


def view_of(user, match_id):
    return client_for(user).get(f"/api/matches/{match_id}/view").json()


def legal_move(user, match_id):
    return view_of(user, match_id)["legal_moves"][0]


async def test_a_legal_move_is_played_by_the_lane_and_chained_as_the_service_chains_it(app, lane_calls, alice, table):
    match_id, alice_token, _ = table
    before = await sync_to_async(seq_of)(match_id)
    move = await sync_to_async(legal_move)(alice, match_id)
    answer = await post(app, f"/api/matches/{match_id}/moves", {"move": move, "expected_seq": before}, token=alice_token)
    assert answer.status_code == 200 and len(lane_calls) == 1
    body = answer.json()
    assert body["seq"] == before + 2 and body["events"][0]["event"]["type"] == "CardPlayed"
    assert (await sync_to_async(view_of)(alice, match_id))["view"] == body["view"]
    # The next move through Django chains after the lane's.
    move = body["legal_moves"][0]
    answer = await post(app, f"/api/matches/{match_id}/moves?via=django", {"move": move}, token=alice_token)
    assert answer.status_code == 200 and len(lane_calls) == 1
    report = await sync_to_async(lambda: verify_match(Match.objects.get(pk=match_id)))()
    assert report.ok, report.problems


@pytest.mark.parametrize(
    ("account", "header", "language"),
    [("", "cy", "cy"), ("cy", "", "cy"), ("cy", "en", "en-gb"), ("", "", "en-gb")],
)
async def test_a_refusal_is_in_the_language_the_view_would_answer_in(app, lane_calls, table, account, header, language):
    """The lane words a refusal as the view does: the client's Accept-Language, else the account's."""
    match_id, _, bob_token = table
    await sync_to_async(User.objects.filter(username="bob").update)(language=account)
    headers = {"accept-language": header} if header else {}
    body = {"move": {"action": "end_turn"}}  # alice's turn
    lane, django = await both_lanes(app, f"/api/matches/{match_id}/moves", body, token=bob_token, headers=headers)
    same_answer(lane, django)
    assert len(lane_calls) == 1 and lane.headers["content-language"] == language
    welsh = "Nid eich tro chi yw hi."
    assert (lane.json()["error"]["message"] == welsh) == (language == "cy")


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"move": {"action": "fly"}}, 400, "unknown_action"),
        ({"move": "play"}, 400, "malformed_move"),
        ({"move": {"action": "play", "card": "x" * 5000, "pile": 0}}, 400, "move_too_large"),
        ({"move": {"action": "play", "card": "1", "pile": 0}}, 409, None),
        ({"move": {"action": "end_turn"}, "expected_seq": 0}, 409, "stale_seq"),
    ],
)
async def test_a_refused_move_gets_the_views_answer_and_writes_nothing(app, lane_calls, table, body, status, code):
    match_id, alice_token, _ = table
    before = await sync_to_async(seq_of)(match_id)
    lane, django = await both_lanes(app, f"/api/matches/{match_id}/moves", body, token=alice_token)
    same_answer(lane, django)
    assert lane.status_code == status and (code is None or lane.json()["error"]["code"] == code)
    assert len(lane_calls) == 1
    assert await sync_to_async(seq_of)(match_id) == before


@pytest.mark.parametrize(
    "headers",
    [{"accept-language": "cy"}, {"accept-language": "fr, en-US;q=0.8"}, {"cookie": "django_language=cy"},
     {"cookie": "django_language=cy", "accept-language": "en"}],
)
async def test_a_refused_move_is_worded_in_the_language_django_would_choose(app, lane_calls, table, headers):
    match_id, alice_token, _ = table
    body = {"move": {"action": "end_turn"}, "expected_seq": 0}
    lane, django = await both_lanes(app, f"/api/matches/{match_id}/moves", body, token=alice_token, headers=headers)
    same_answer(lane, django)
    assert len(lane_calls) == 1


async def test_a_move_with_a_session_cookie_is_left_to_django_which_knows_the_account_language(app, lane_calls, table):
    match_id, alice_token, _ = table
    body = {"move": {"action": "end_turn"}, "expected_seq": 0}
    answer = await post(app, f"/api/matches/{match_id}/moves", body, token=alice_token,
                        headers={"cookie": f"{settings.SESSION_COOKIE_NAME}=whatever"})
    assert answer.status_code == 409 and lane_calls == []


async def test_a_player_not_seated_and_a_match_that_does_not_exist_get_403_and_404(app, carol, table):
    match_id, alice_token, _ = table
    carol_token = await sync_to_async(user_token)(user=carol)
    body = {"move": {"action": "end_turn"}}
    lane, django = await both_lanes(app, f"/api/matches/{match_id}/moves", body, token=carol_token)
    same_answer(lane, django)
    assert lane.status_code == 403
    lane, django = await both_lanes(app, "/api/matches/999999/moves", body, token=alice_token)
    same_answer(lane, django)
    assert lane.status_code == 404


@pytest.mark.parametrize(
    ("token", "raw", "headers", "status"),
    [
        (None, None, {}, 401),
        ("not-a-token", None, {}, 401),
        ("ALICE", "{not json", {}, 400),
        ("ALICE", json.dumps({"move": {"action": "x\u0000"}}), {}, 400),
        ("ALICE", json.dumps({"move": {"action": "end_turn"}, "expected_seq": -1}), {}, 400),
        ("ALICE", json.dumps({"move": {"action": "end_turn"}}), {"content-type": "text/plain"}, 415),
        ("ALICE", json.dumps({"move": {"action": "end_turn"}}), {"idempotency-key": "k" * 129}, 400),
        ("ALICE", json.dumps({"move": None}), {}, 400),
        ("ALICE", "{}", {"accept": "text/html"}, 400),  # the browsable API's page
        ("ALICE", "x" * (64 * 1024 + 1), {}, 413),
    ],
)
async def test_what_the_lane_does_not_take_django_answers(app, lane_calls, table, token, raw, headers, status):
    match_id, alice_token, _ = table
    token = alice_token if token == "ALICE" else token
    answer = await post(app, f"/api/matches/{match_id}/moves", None, token=token, raw=raw or "{}", headers=headers)
    assert answer.status_code == status, answer.text
    assert lane_calls == []


async def test_an_idempotency_key_answers_a_retry_with_the_first_answer_in_either_lane(app, lane_calls, alice, table):
    match_id, alice_token, _ = table
    move = await sync_to_async(legal_move)(alice, match_id)
    headers = {"idempotency-key": "retry-1"}
    first = await post(app, f"/api/matches/{match_id}/moves", {"move": move}, token=alice_token, headers=headers)
    again = await post(app, f"/api/matches/{match_id}/moves", {"move": move}, token=alice_token, headers=headers)
    django = await post(app, f"/api/matches/{match_id}/moves?via=django", {"move": move}, token=alice_token, headers=headers)
    assert first.status_code == again.status_code == django.status_code == 200
    assert first.json() == again.json() == django.json()
    assert await sync_to_async(seq_of)(match_id) == first.json()["seq"]
    assert await sync_to_async(MoveReceipt.objects.filter(match_id=match_id).count)() == 1


async def test_moves_in_either_lane_count_against_one_throttle(app, monkeypatch, lane_calls, table, alice):
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", {**ScopedThrottle.THROTTLE_RATES, "moves": "3/hour"})
    match_id, alice_token, _ = table
    body = {"move": {"action": "fly"}}  # refused, but counted
    answers = [await post(app, f"/api/matches/{match_id}/moves", body, token=alice_token) for _ in range(2)]
    answers.append(await post(app, f"/api/matches/{match_id}/moves?via=django", body, token=alice_token))
    answers.append(await post(app, f"/api/matches/{match_id}/moves", body, token=alice_token))
    assert [a.status_code for a in answers] == [400, 400, 400, 429]
    assert answers[-1].json()["error"]["code"] == "throttled" and "retry-after" in answers[-1].headers
    assert len(lane_calls) == 2
    await sync_to_async(_throttle_reset)(alice)


def test_the_lane_copies_the_move_views_own_configuration():
    """The lane repeats what MoveSubmitApi is configured to do without asking it: how it
    authenticates, parses JSON, throttles and renders. Should the view's configuration change,
    this fails, where the answers compared above agree unless a case happens to reach the change."""
    view = MoveSubmitApi()
    assert view.throttle_scope == "moves" and ScopedThrottle in view.throttle_classes  # `fastlane._Throttle`
    [parser] = [parser for parser in view.get_parsers() if parser.media_type == "application/json"]
    assert type(parser) is BoundedJSONParser and parser.strict  # depth, NUL and NaN refused, as the lane reads
    authenticator = view.get_authenticators()[0]
    assert type(authenticator) is FastTokenAuthentication and authenticator.keyword == "Token"
    renderer = view.get_renderers()[0]
    assert type(renderer) is JSONRenderer
    assert renderer.compact and not renderer.ensure_ascii and renderer.strict  # as `fastlane._json_bytes` writes


def _throttle_reset(user):
    cache.delete(ScopedThrottle.window_key(f"throttle_moves_{user.pk}", int(time.time() // 3600)))


async def test_both_lanes_store_each_events_time_exactly_as_chain_version_2_hashed_it(app, lane_calls, alice, table):
    """The lane writes through its own async connections: the time it hashed must be the time stored,
    to the microsecond, as the service's own writes store theirs."""
    match_id, alice_token, _ = table
    move = await sync_to_async(legal_move)(alice, match_id)
    lane = await post(app, f"/api/matches/{match_id}/moves", {"move": move}, token=alice_token)
    django = await post(app, f"/api/matches/{match_id}/moves?via=django", {"move": lane.json()["legal_moves"][0]},
                        token=alice_token)
    assert lane.status_code == django.status_code == 200 and len(lane_calls) == 1

    def stored():
        return Match.objects.get(pk=match_id), list(Event.objects.filter(match_id=match_id).order_by("seq"))

    match, events = await sync_to_async(stored)()
    assert match.chain_version == 2
    previous = ""
    for event in events:
        assert event.hash == event_hash(
            previous, version=2, seq=event.seq, kind=event.kind, type=event.type, actor=event.actor, data=event.data,
            created=canonical_time(event.created),
        )
        previous = event.hash
    assert previous == match.head_hash
