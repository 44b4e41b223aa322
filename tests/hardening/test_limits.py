"""Limits on input: body size (413), JSON depth and move size (400), rates (429), socket frames."""
from __future__ import annotations

import json
import time
import uuid

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from games.models import Event
from server.limits import ScopedThrottle
from tests.conftest import client_for
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def test_a_body_over_the_limit_is_refused_with_413_before_it_is_read(alice):
    answer = client_for(alice).post("/api/matches", "x" * (65 * 1024), content_type="application/json")
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "body_too_large"


def test_a_form_body_with_more_fields_than_django_reads_is_a_json_400_not_an_html_page(alice):
    """Prevents Django's HTML 400 page for TooManyFieldsSent under /api/ (the API fuzz test found
    it by chance: a form body of over 1,000 `ids`)."""
    fields = "&".join(f"ids={n}" for n in range(1001))
    answer = client_for(alice).post("/api/notifications/read", fields, content_type="application/x-www-form-urlencoded")
    assert answer.status_code == 400 and answer["Content-Type"] == "application/json"
    assert answer.json()["error"]["code"] == "too_many_fields"


def test_json_nested_too_deep_is_refused_with_400(alice, bob):
    match_id = started_match("the-game", [alice, bob])
    deep = {"action": "play", "card": "2", "pile": 0}
    for _ in range(30):
        deep = {"x": deep}
    answer = client_for(alice).post(f"/api/matches/{match_id}/moves", {"move": deep}, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "json_too_deep"
    assert not Event.objects.filter(match_id=match_id, type="MovePlayed").exists()


def test_pathological_nesting_is_refused_and_not_a_500(alice):
    answer = client_for(alice).post("/api/matches", "[" * 100000 + "]" * 100000, content_type="application/json")
    assert answer.status_code in (400, 413)


@pytest.mark.parametrize("field", ["card", "extra"])
def test_a_move_with_a_huge_string_or_list_is_refused(alice, bob, field):
    match_id = started_match("the-game", [alice, bob])
    move = {"action": "play", "card": "2", "pile": 0, field: ["y" * 100] * 100}
    answer = client_for(alice).post(f"/api/matches/{match_id}/moves", {"move": move}, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "move_too_large"


@pytest.fixture
def low_rates(monkeypatch):
    # Per hour: the counts are per clock window, and six requests rarely straddle an hour's end.
    # The account's rate is higher, so that the address's is the one these tests reach.
    rates = {"signup": "3/hour", "login": "3/hour", "login_account": "100/hour", "moves": "5/hour"}
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", rates)


def fresh_address() -> str:
    """An address no earlier run has counted (throttle counts live in the cache, Redis in CI)."""

    raw = uuid.uuid4().bytes
    return f"10.{raw[0]}.{raw[1]}.{raw[2]}"


def test_sign_up_is_throttled_per_address_with_429(low_rates):
    client = APIClient(REMOTE_ADDR=fresh_address())
    answers = [client.post("/api/auth/register", {"username": f"spam{i}", "password": "a long enough passphrase"},
                           format="json") for i in range(4)]
    assert [a.status_code for a in answers] == [201, 201, 201, 429]
    assert answers[-1].json()["error"]["code"] == "throttled" and "Retry-After" in answers[-1]


def test_login_is_throttled_per_address(low_rates, alice):
    client = APIClient(REMOTE_ADDR=fresh_address())
    codes = [client.post("/api/auth/login", {"username": "alice", "password": "wrong"}, format="json").status_code
             for _ in range(4)]
    assert codes == [400, 400, 400, 429]


def test_moves_are_throttled_per_user(low_rates, alice, bob):
    hour = int(time.time() // 3600)
    cache.delete(ScopedThrottle.window_key(f"throttle_moves_{alice.pk}", hour))  # ids are reused between tests on SQLite
    match_id = started_match("the-game", [alice, bob])
    codes = [client_for(alice).post(f"/api/matches/{match_id}/moves", {"move": {"action": "end_turn"}},
                                    format="json").status_code for _ in range(6)]
    assert codes[-1] == 429 and set(codes[:-1]) == {409}


def test_csrf_is_required_for_session_authenticated_writes(alice):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    refused = browser.post("/api/matches", json.dumps({"game": "the-game", "players": 2}), content_type="application/json")
    assert refused.status_code == 403
    browser.get("/")  # any page sets the CSRF cookie
    token = browser.cookies["csrftoken"].value
    allowed = browser.post("/api/matches", json.dumps({"game": "the-game", "players": 2}),
                           content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert allowed.status_code == 201


def test_a_revoked_token_no_longer_works(alice):
    client = client_for(alice)
    assert client.get("/api/auth/me").status_code == 200
    assert client.post("/api/auth/logout").status_code == 204
    assert client.get("/api/auth/me").status_code == 401


def test_the_nul_character_is_refused_with_400_in_a_query_or_a_json_body(alice):
    client = client_for(alice)
    answer = client.get("/api/matches", {"player": "bob\x00"})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "nul_character"
    for body_format in ("json", "multipart"):
        answer = client.post("/api/matches", {"game": "ten\x00", "players": 2}, format=body_format)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "nul_character"
