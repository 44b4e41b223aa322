"""A table whose creator chose the deck says so everywhere it is listed, and a joiner must confirm.

Regression tests for issue 18, item 10: on a casual table the creator may fix the deck and so
knows every hand, while a joiner saw `options: {}` and nothing else.
"""
from __future__ import annotations

import json

import pytest

from games import services
from games.models import Event, Match, Seat
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

DECK = [str(n) for n in range(99, 1, -1)]


def deck_table(owner, *, players: int = 2) -> int:
    body = {"game": "the-game", "players": players, "rated": False, "options": {"deck": DECK}}
    created = client_for(owner).post("/api/matches", body, format="json")
    assert created.status_code == 201, created.json()
    return created.json()["id"]


def join(user, match_id: int, **body):
    return client_for(user).post(f"/api/matches/{match_id}/join", body, format="json")


def test_joining_a_table_with_a_chosen_deck_is_refused_without_confirmation_and_writes_nothing(alice, bob):
    """Regression: the joiner must say they know the creator may know every hand."""
    match_id = deck_table(alice)
    for body in ({}, {"confirm_chosen_deck": False}, {"seat": 1}):
        answer = join(bob, match_id, **body)
        assert answer.status_code == 409
        error = answer.json()["error"]
        assert error["code"] == "chosen_deck_not_confirmed"
        assert "chose the deck" in error["message"] and "confirm_chosen_deck" in error["message"]
    assert list(Seat.objects.filter(match_id=match_id).values_list("user", flat=True)) == [alice.pk]
    assert not Event.objects.exists()


def test_joining_with_the_confirmation_takes_the_seat(alice, bob):
    match_id = deck_table(alice)
    answer = join(bob, match_id, confirm_chosen_deck=True)
    assert answer.status_code == 200
    assert answer.json()["seats"][1]["user"] == bob.pk and answer.json()["deck_chosen"] is True


def test_a_table_without_a_chosen_deck_needs_no_confirmation(alice, bob, carol):
    body = {"game": "the-game", "players": 3, "rated": False}
    match_id = client_for(alice).post("/api/matches", body, format="json").json()["id"]
    assert join(bob, match_id).status_code == 200
    assert join(carol, match_id, confirm_chosen_deck=True).status_code == 200  # harmless where not needed


def test_the_creator_who_left_sits_down_again_without_confirming(alice):
    match_id = deck_table(alice)
    assert client_for(alice).post(f"/api/matches/{match_id}/leave").status_code == 200
    assert join(alice, match_id).status_code == 200


def test_anonymous_and_staff_get_no_way_around_the_confirmation(alice, staff):
    match_id = deck_table(alice)
    assert join(None, match_id, confirm_chosen_deck=True).status_code == 401
    assert join(staff, match_id).json()["error"]["code"] == "chosen_deck_not_confirmed"
    assert Seat.objects.filter(match_id=match_id).count() == 1


def test_every_summary_says_the_deck_was_chosen_and_still_hides_it_until_the_end(alice, bob):
    """Regression: the list, the detail and the join answer carry `deck_chosen`, not the deck."""
    match_id = deck_table(alice, players=1)
    plain = client_for(alice).post("/api/matches", {"game": "the-game", "players": 2}, format="json").json()
    listed = {m["id"]: m for m in client_for(bob).get("/api/matches", {"status": "open"}).json()["results"]}
    assert listed[match_id]["deck_chosen"] is True and listed[plain["id"]]["deck_chosen"] is False
    detail = client_for(bob).get(f"/api/matches/{match_id}").json()
    assert detail["deck_chosen"] is True and detail["options"] == {}
    # The deck's run of cards, not one card: "99" alone turns up by chance in a hash or a time.
    leaked = json.dumps(DECK[:3])[1:-1]
    assert '"deck"' not in json.dumps(detail) and leaked not in json.dumps(detail) + json.dumps(listed[match_id])

    client_for(alice).post(f"/api/matches/{match_id}/start")
    assert client_for(bob).get(f"/api/matches/{match_id}").json()["deck_chosen"] is True


def test_a_tournaments_duplicate_deal_is_not_a_deck_chosen_by_the_creator(alice, bob):
    """The server dealt that deck from its own secret seed: nobody at the table chose it."""
    match = services.match_start_seated(
        game="the-game", seats=[alice, bob], created_by=alice, options={"deck": DECK}, rated=False, sealed=True
    )
    assert Match.objects.get(pk=match.pk).status == Match.Status.RUNNING
    assert client_for(bob).get(f"/api/matches/{match.pk}").json()["deck_chosen"] is False


def test_the_table_and_profile_pages_show_the_chosen_deck(alice, bob):
    match_id = deck_table(alice)
    table_page = client_for(bob).get(f"/tables/{match_id}").content.decode()
    assert '"deck_chosen": true' in table_page
    profile = client_for(bob).get(f"/players/{alice.username}").content.decode()
    assert "deck chosen by the creator" in profile
