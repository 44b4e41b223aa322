"""A table its people have all left leaves the lobby's "Playing now" (issue #43 item 1): running,
a person still plays a seat, none of them has a socket there, and nothing has happened for
CLAIM_SEAT_AFTER_SECONDS. It comes back when one of them does."""
from __future__ import annotations

import pytest

from games.models import Match
from games.presence import presence
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def playing_now(user=None, **query) -> list[int]:
    answer = client_for(user).get("/api/matches", {"status": "running", "attended": "true", **query})
    assert answer.status_code == 200, answer.json()
    return [m["id"] for m in answer.json()["results"]]


@pytest.fixture
def quiet(settings):
    settings.CLAIM_SEAT_AFTER_SECONDS = 0  # every table has been quiet long enough


@pytest.mark.parametrize("viewer", ["anonymous", "player", "stranger", "staff"])
def test_a_table_everyone_left_is_not_playing_now_for_anyone(alice, bob, staff, quiet, viewer):
    left = started_match("ten", [alice, bob], rated=False)
    user = {"anonymous": None, "player": alice, "stranger": make_user("stan"), "staff": staff}[viewer]
    assert left not in playing_now(user)
    # Every other list still has it: the table is as it was, for whoever comes back.
    assert left in [m["id"] for m in client_for(user).get("/api/matches", {"status": "running"}).json()["results"]]


def test_it_is_listed_again_when_one_of_its_people_comes_back(alice, bob, quiet):
    match_id = started_match("ten", [alice, bob], rated=False)
    presence().join(match_id, "bob-socket", {"user": bob.pk, "seat": 1, "name": "bob", "client": f"user:{bob.pk}"})
    try:
        assert match_id in playing_now()
    finally:
        presence().leave(match_id, "bob-socket")
    assert match_id not in playing_now()


def test_a_spectator_does_not_keep_it_listed(alice, bob, quiet):
    match_id = started_match("ten", [alice, bob], rated=False)
    presence().join(match_id, "watcher", {"user": None, "seat": None, "name": "", "client": "ip:203.0.113.9"})
    try:
        assert match_id not in playing_now()
    finally:
        presence().leave(match_id, "watcher")


def test_a_table_is_listed_while_it_is_not_yet_quiet_for_the_claim_time(alice, bob, settings):
    settings.CLAIM_SEAT_AFTER_SECONDS = 3600
    match_id = started_match("ten", [alice, bob], rated=False)
    assert match_id in playing_now()


def test_a_table_of_bots_only_and_one_whose_people_all_resigned_stay_listed(alice, bob, quiet):
    match_id = started_match("ten", [alice, bob], rated=False)
    for person in (alice, bob):
        assert client_for(person).post(f"/api/matches/{match_id}/resign").status_code == 200
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING
    assert match_id in playing_now()  # the bots play it out, which spectators may watch


def test_attended_is_true_or_false(alice):
    answer = client_for(alice).get("/api/matches", {"status": "running", "attended": "yes"})
    assert answer.status_code == 400
    assert answer.json()["error"]["extra"]["fields"] == {"attended": "true or false"}
