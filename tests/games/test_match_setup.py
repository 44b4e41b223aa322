"""Opening, joining, leaving, seating bots and starting a table: the rules and the error codes."""
from __future__ import annotations

import pytest

from games.models import Event, Match
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def create(user, **body):
    body = {"game": "the-game", "players": 2, **body}
    return client_for(user).post("/api/matches", body, format="json")


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"game": "chess"}, "invalid_input"),
        ({"players": 9}, "bad_player_count"),
        ({"players": "two"}, "invalid_input"),
        ({"options": {"colour": "blue"}}, "bad_options"),
        ({"options": {"deck": ["2"]}, "rated": False}, "bad_options"),
        ({"options": {"deck": [str(n) for n in range(2, 100)]}}, "deck_in_rated_match"),
    ],
)
def test_it_refuses_a_bad_table_with_400(alice, body, code):
    answer = create(alice, **body)
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == code
    assert not Match.objects.exists()


def test_the_creator_sits_in_seat_0_and_others_join_free_seats(alice, bob):
    table = create(alice).json()
    assert table["seats"][0]["user"] == alice.pk and table["seats"][1]["user"] is None
    joined = client_for(bob).post(f"/api/matches/{table['id']}/join", {}, format="json")
    assert joined.json()["seats"][1]["name"] == "Bob"


def test_joining_twice_a_taken_seat_or_a_full_table_is_a_409(alice, bob, carol):
    table_id = create(alice).json()["id"]
    assert client_for(alice).post(f"/api/matches/{table_id}/join", {}, format="json").json()["error"]["code"] == "already_seated"
    taken = client_for(bob).post(f"/api/matches/{table_id}/join", {"seat": 0}, format="json")
    assert taken.status_code == 409 and taken.json()["error"]["code"] == "seat_taken"
    client_for(bob).post(f"/api/matches/{table_id}/join", {}, format="json")
    full = client_for(carol).post(f"/api/matches/{table_id}/join", {}, format="json")
    assert full.status_code == 409 and full.json()["error"]["code"] == "table_full"


def test_leaving_frees_the_seat(alice, bob):
    table_id = create(alice).json()["id"]
    client_for(bob).post(f"/api/matches/{table_id}/join", {}, format="json")
    left = client_for(bob).post(f"/api/matches/{table_id}/leave")
    assert left.status_code == 200 and left.json()["seats"][1]["user"] is None
    assert client_for(bob).post(f"/api/matches/{table_id}/leave").json()["error"]["code"] == "not_seated"


def test_only_the_creator_starts_and_only_a_full_table(alice, bob):
    table_id = create(alice).json()["id"]
    not_full = client_for(alice).post(f"/api/matches/{table_id}/start")
    assert not_full.status_code == 409 and not_full.json()["error"]["code"] == "table_not_full"
    client_for(bob).post(f"/api/matches/{table_id}/join", {}, format="json")
    by_bob = client_for(bob).post(f"/api/matches/{table_id}/start")
    assert by_bob.status_code == 403 and by_bob.json()["error"]["code"] == "not_table_owner"
    assert not Event.objects.exists()
    assert client_for(alice).post(f"/api/matches/{table_id}/start").status_code == 200
    again = client_for(alice).post(f"/api/matches/{table_id}/start")
    assert again.status_code == 409 and again.json()["error"]["code"] == "match_not_open"


def test_the_creator_seats_a_known_bot_and_nobody_else_may(alice, bob):
    table_id = create(alice).json()["id"]
    by_bob = client_for(bob).post(f"/api/matches/{table_id}/bots", {"bot": "random"}, format="json")
    assert by_bob.status_code == 403
    unknown = client_for(alice).post(f"/api/matches/{table_id}/bots", {"bot": "deep-blue"}, format="json")
    assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "unknown_bot"
    seated = client_for(alice).post(f"/api/matches/{table_id}/bots", {"bot": "random"}, format="json")
    assert seated.status_code == 200 and seated.json()["seats"][1]["bot"] == "random"


def test_a_casual_table_may_fix_the_deck_and_hides_it_until_the_end(alice):
    deck = [str(n) for n in range(99, 1, -1)]
    table = create(alice, players=1, rated=False, options={"deck": deck}).json()
    assert table["options"] == {}
    client_for(alice).post(f"/api/matches/{table['id']}/start")
    hand = client_for(alice).get(f"/api/matches/{table['id']}/view").json()["view"]["hand"]
    assert hand == sorted(deck[:8], key=int)
