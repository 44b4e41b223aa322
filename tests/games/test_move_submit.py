"""Posting moves: every error status, stale sequence numbers, idempotency keys; a refusal writes nothing."""
from __future__ import annotations

import pytest

from games.models import Event, MoveReceipt
from tests.conftest import client_for
from tests.games.helpers import play_to_end, started_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def match_id(alice, bob):
    return started_match("the-game", [alice, bob])


def view_of(user, match_id):
    return client_for(user).get(f"/api/matches/{match_id}/view").json()


def post_move(user, match_id, move, **extra):
    headers = {}
    if "key" in extra:
        headers["HTTP_IDEMPOTENCY_KEY"] = extra.pop("key")
    return client_for(user).post(f"/api/matches/{match_id}/moves", {"move": move, **extra}, format="json", **headers)


def event_count(match_id):
    return Event.objects.filter(match_id=match_id).count()


def test_it_plays_a_legal_move_and_answers_with_the_new_seq_and_view(alice, match_id):
    before = view_of(alice, match_id)
    move = before["legal_moves"][0]
    answer = post_move(alice, match_id, move, expected_seq=before["seq"])
    assert answer.status_code == 200
    body = answer.json()
    assert body["seq"] == before["seq"] + 2  # MovePlayed, then CardPlayed
    assert body["events"][0]["event"]["type"] == "CardPlayed"
    assert body["view"]["played_this_turn"] == 1
    assert event_count(match_id) == body["seq"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_input"),
        ({"move": "play"}, "malformed_move"),
        ({"move": {"action": 7}}, "malformed_move"),
        ({"move": {"action": "fly"}}, "unknown_action"),
        ({"move": {"action": "play", "card": "2", "pile": 0}, "expected_seq": -1}, "invalid_input"),
        ({"move": {"action": "play", "card": "x" * 5000, "pile": 0}}, "move_too_large"),
    ],
)
def test_it_refuses_malformed_input_with_400_and_writes_nothing(alice, match_id, body, code):
    before = event_count(match_id)
    answer = client_for(alice).post(f"/api/matches/{match_id}/moves", body, format="json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == code
    assert event_count(match_id) == before


def test_it_refuses_a_body_that_is_not_json(alice, match_id):
    answer = client_for(alice).post(f"/api/matches/{match_id}/moves", "{not json", content_type="application/json")
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "malformed_json"


def test_it_refuses_a_move_from_someone_not_seated_with_403(carol, match_id):
    answer = post_move(carol, match_id, {"action": "end_turn"})
    assert answer.status_code == 403
    assert answer.json()["error"]["code"] == "not_seated"


def test_it_refuses_an_anonymous_move_with_401(match_id):
    answer = client_for(None).post(f"/api/matches/{match_id}/moves", {"move": {"action": "end_turn"}}, format="json")
    assert answer.status_code == 401
    assert answer.json()["error"]["code"] == "not_authenticated"


def test_it_answers_404_for_an_unknown_match(alice):
    answer = post_move(alice, 999999, {"action": "end_turn"})
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "match_not_found"
    assert client_for(alice).get("/api/matches/999999/view").status_code == 404


def test_it_refuses_a_move_out_of_turn_with_409_and_the_engines_code(bob, match_id):
    before = event_count(match_id)
    legal = view_of(bob, match_id)["view"]
    answer = post_move(bob, match_id, {"action": "play", "card": "2", "pile": 0})
    assert legal["to_act"] == [0]
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "not_your_turn"
    assert event_count(match_id) == before


def test_it_refuses_an_illegal_move_with_409_and_the_engines_code(alice, match_id):
    answer = post_move(alice, match_id, {"action": "end_turn"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "minimum_not_met"


def test_it_rejects_a_stale_seq(alice, match_id):
    seen = view_of(alice, match_id)
    assert post_move(alice, match_id, seen["legal_moves"][0], expected_seq=seen["seq"]).status_code == 200
    again = view_of(alice, match_id)["legal_moves"][0]
    stale = post_move(alice, match_id, again, expected_seq=seen["seq"])
    assert stale.status_code == 409
    assert stale.json()["error"]["code"] == "stale_seq"
    assert stale.json()["error"]["extra"]["seq"] == seen["seq"] + 2


def test_a_retry_with_the_same_idempotency_key_returns_the_first_answer(alice, match_id):
    move = view_of(alice, match_id)["legal_moves"][0]
    first = post_move(alice, match_id, move, key="k-1")
    count = event_count(match_id)
    retry = post_move(alice, match_id, move, key="k-1")
    assert retry.status_code == 200
    assert retry.json() == first.json()
    assert event_count(match_id) == count
    assert MoveReceipt.objects.filter(key="k-1").count() == 1


def test_a_refused_move_leaves_no_receipt_so_a_corrected_retry_can_use_the_key(alice, match_id):
    assert post_move(alice, match_id, {"action": "end_turn"}, key="k-2").status_code == 409
    assert not MoveReceipt.objects.filter(key="k-2").exists()
    move = view_of(alice, match_id)["legal_moves"][0]
    assert post_move(alice, match_id, move, key="k-2").status_code == 200


def test_it_refuses_moves_before_the_start(alice, bob):
    created = client_for(alice).post("/api/matches", {"game": "the-game", "players": 2}, format="json").json()
    answer = post_move(alice, created["id"], {"action": "end_turn"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "match_not_started"


def test_it_refuses_moves_after_the_end_with_game_over(alice):
    match_id = started_match("the-game", [alice])
    play_to_end(match_id, [alice])
    answer = post_move(alice, match_id, {"action": "end_turn"})
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "game_over"
