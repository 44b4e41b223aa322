"""A match in which a person never played a move of their own counts for nobody's rating, and says so.

Regression tests for rating farming with a second account: open a rated table for an account
that never moves, let the clock play it until it is abandoned and ranked last, and the first
account gained rating. Now the match is not rated for anyone, and its summary tells why.
"""
from __future__ import annotations

import random
import time

import pytest
from django.conf import settings

from games.bots import BOTS, STRONG_BOT
from games.models import Event, Match, Seat
from ratings.models import Rating, RatingEntry
from ratings.services import match_rate
from tests.conftest import client_for, make_user
from tests.games.worker import celery_worker, wait_for
from tests.ratings.builders import stored

THREE = {"finished": True, "ranks": [1, 2, 3], "scores": [30, 20, 10], "winners": [0], "cooperative": False}
TWO = {"finished": True, "ranks": [1, 2], "scores": [30, 20], "winners": [0], "cooperative": False}


def summary(match) -> dict:
    return client_for().get(f"/api/matches/{match.pk}").json()


@pytest.mark.django_db
def test_a_match_where_a_person_only_had_the_clock_play_for_them_is_rated_for_nobody(alice, bob, carol):
    """Regression: the clock played every move of bob's seat (abandoned, ranked last); nobody gains."""
    match = stored("ten", [alice, bob, carol], THREE, never_moved=(1,), abandoned=(1,))

    assert match_rate(match_id=match.pk) == 0

    assert not RatingEntry.objects.exists() and not Rating.objects.exists()
    assert summary(match)["rating"] == {"rated": False, "reason": "seat_never_moved", "seats": [1]}


@pytest.mark.django_db
def test_a_person_whose_seat_never_had_a_decision_leaves_the_match_unrated_too(alice, bob):
    """Regression: nothing in the log shows the person was there, so the match counts for nobody."""
    match = stored("ten", [alice, bob], TWO, without_turn=(1,))

    assert match_rate(match_id=match.pk) == 0

    assert not RatingEntry.objects.exists()
    assert summary(match)["rating"]["seats"] == [1]


@pytest.mark.django_db
def test_a_person_who_moved_once_and_then_abandoned_is_still_rated_last(alice, bob, carol):
    match = stored("ten", [alice, bob, carol], THREE, abandoned=(0,))

    assert match_rate(match_id=match.pk) == 1

    assert dict(RatingEntry.objects.values_list("competitor", "rank"))[f"user:{alice.pk}"] == 3
    assert summary(match)["rating"] == {"rated": True, "reason": None, "seats": []}


@pytest.mark.django_db
def test_bots_count_as_moving_and_only_the_idle_person_is_named(alice, bob):
    played_by_bot = stored("ten", [alice, "random", bob], THREE)
    assert match_rate(match_id=played_by_bot.pk) == 1

    idle = stored("ten", ["random", alice, bob], THREE, never_moved=(2,))
    assert match_rate(match_id=idle.pk) == 0
    assert summary(idle)["rating"]["seats"] == [2]
    assert not RatingEntry.objects.filter(match=idle).exists()


@pytest.mark.django_db
def test_a_later_task_rates_the_later_match_and_still_leaves_out_the_idle_one(alice, bob, carol):
    idle = stored("ten", [alice, bob], TWO, never_moved=(1,))
    normal = stored("ten", [alice, carol], TWO)

    assert match_rate(match_id=normal.pk) == 1

    assert set(RatingEntry.objects.values_list("match", flat=True)) == {normal.pk}
    assert match_rate(match_id=idle.pk) == 0


@pytest.mark.django_db
def test_the_summary_says_casual_for_a_casual_match_and_nothing_before_the_end(alice, bob):
    casual = stored("ten", [alice, bob], TWO, rated=False)
    assert summary(casual)["rating"] == {"rated": False, "reason": "casual", "seats": []}
    table = client_for(alice).post("/api/matches", {"game": "ten", "players": 2}, format="json").json()
    assert table["rating"] is None


@pytest.mark.django_db
def test_the_profile_page_shows_who_never_made_a_move(alice, bob):
    stored("ten", [alice, bob], TWO, never_moved=(1,))
    page = client_for().get(f"/players/{alice.username}").content.decode()
    assert "Not rated: Bob never made a move" in page


# --- on the real stack: the API, the clock in a real worker, the rating task ------------------

needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")


def play_while_others_wait(match_id: int, players: dict[int, object], *, timeout: float = 180.0, strong: bool = False) -> None:
    """The given seats play random legal moves over the API whenever it is their turn (or, with
    `strong`, the game's strong bot's choices); the other seats are left to the worker (their
    clock, then the fallback bot), until the match ends."""
    clients = {seat: client_for(user) for seat, user in players.items()}
    watcher = client_for()
    rng = random.Random(match_id)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = watcher.get(f"/api/matches/{match_id}/view").json()
        if view["view"]["finished"]:
            return
        mine = [seat for seat in view["view"]["to_act"] if seat in clients]
        if not mine:
            time.sleep(0.05)
            continue
        seat = mine[0]
        own = clients[seat].get(f"/api/matches/{match_id}/view").json()
        if not own["legal_moves"]:
            continue
        move = (BOTS[own["view"]["game"]][STRONG_BOT[own["view"]["game"]]].choose(own["view"], own["legal_moves"], rng)
                if strong else rng.choice(own["legal_moves"]))
        body = {"move": move, "expected_seq": own["seq"]}
        answer = clients[seat].post(f"/api/matches/{match_id}/moves", body, format="json")
        assert answer.status_code in (200, 409), answer.json()  # 409: the clock moved first
    raise AssertionError("the match did not end")


def open_rated_table(owner, joiner, *, clock_seconds: int | None) -> int:
    body = {"game": "the-game", "players": 2, "rated": True, "clock_seconds": clock_seconds}
    table = client_for(owner).post("/api/matches", body, format="json").json()
    assert client_for(joiner).post(f"/api/matches/{table['id']}/join", {}, format="json").status_code == 200
    assert client_for(owner).post(f"/api/matches/{table['id']}/start").status_code == 200
    return table["id"]


@needs_redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_a_second_account_that_never_moves_on_a_5_second_clock_farms_no_rating():
    """Regression (issue 18, item 6): a fresh account sits at a rated 5 s table and never moves;
    the clock plays for it until it is abandoned and the match ends. No ledger row is written
    for anyone, and the API says why; a normal match that ends later is still rated."""
    farmer, second, rival = make_user("farmer"), make_user("second"), make_user("rival")
    with celery_worker():
        farmed = open_rated_table(farmer, second, clock_seconds=5)
        # Played well, so that the game lasts until the silent seat has timed out often enough to
        # be abandoned: random moves ended the team's game before that once (tests/FLAKES.md).
        play_while_others_wait(farmed, {0: farmer}, strong=True)
        normal = open_rated_table(farmer, rival, clock_seconds=None)
        play_while_others_wait(normal, {0: farmer, 1: rival})
        # The task of the later match rates every unrated match of the ladder that ended before it.
        wait_for(lambda: RatingEntry.objects.filter(match_id=normal).exists(), timeout=60, what="the normal match's rating")

    assert Seat.objects.get(match_id=farmed, seat=1).abandoned
    actors = set(Event.objects.filter(match_id=farmed, type="MovePlayed", data__seat=1).values_list("actor", flat=True))
    assert "clock" in actors and f"user:{second.pk}" not in actors
    assert Match.objects.get(pk=farmed).status == Match.Status.FINISHED
    assert not RatingEntry.objects.filter(match_id=farmed).exists()
    assert not Rating.objects.filter(user=second).exists()
    assert Rating.objects.get(user=farmer).games == 1
    people = RatingEntry.objects.filter(match_id=normal, user__isnull=False).values_list("user", flat=True)
    assert set(people) == {farmer.pk, rival.pk}
    answer = client_for().get(f"/api/matches/{farmed}").json()
    assert answer["rating"] == {"rated": False, "reason": "seat_never_moved", "seats": [1]}
    assert client_for().get(f"/api/matches/{normal}").json()["rating"]["rated"] is True
    page = client_for().get(f"/players/{farmer.username}").content.decode()
    assert "Not rated: Second never made a move" in page
