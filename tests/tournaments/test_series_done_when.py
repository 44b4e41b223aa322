"""Issue #46's case, through the API: a series of three finished tournaments at tiers 1, 2 and 1
of the circuit's table (1000/600/400/200, then 500/300/200/100), the best two of three counting,
gives the standings worked out by hand below; and a correction in one event moves them."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.conftest import client_for, make_user
from tests.tournaments.series_builders import finished_in_order
from tournaments import services

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def test_three_tiered_events_best_two_of_three(alice):
    ann, ben, cat, dan = (make_user(name) for name in ("ann", "ben", "cat", "dan"))
    # Finishing orders: spring (tier 1) A B C D; summer (tier 2) B A D C; autumn (tier 1) C B A D.
    spring = finished_in_order(alice, [ann, ben, cat, dan])
    summer = finished_in_order(alice, [ben, ann, dan, cat])
    autumn = finished_in_order(alice, [cat, ben, ann, dan])
    organiser = client_for(alice)
    created = organiser.post("/api/series", {
        "name": "Grand prix", "games": ["sequence-stacks"], "starts_on": (TODAY - dt.timedelta(days=90)).isoformat(),
        "ends_on": (TODAY + dt.timedelta(days=90)).isoformat(), "rules": {"best": 2},
    }, format="json")
    assert created.status_code == 201
    series = created.json()["id"]
    for tournament, tier in ((spring, 1), (summer, 2), (autumn, 1)):
        answer = organiser.post(f"/api/series/{series}/events", {"tournament": tournament.pk, "tier": tier}, format="json")
        assert answer.status_code == 201

    body = client_for().get(f"/api/series/{series}").json()
    rows = [(r["rank"], r["name"], r["total"], r["played"], r["counting"]) for r in body["standings"]]
    # Ann 1000 + 400 (300 dropped) = 1400 and Cat 1000 + 400 (100 dropped) = 1400: countback
    # (1000, 400, 300 against 1000, 400, 100) puts Ann first. Ben 600 + 600 (500 dropped); Dan 200 + 200.
    assert rows == [(1, "Ann", "1400", 3, 2), (2, "Cat", "1400", 3, 2), (3, "Ben", "1200", 3, 2), (4, "Dan", "400", 3, 2)]
    ann_results = [(r["event"], r["tier"], r["place"], r["points"], r["mark"]) for r in body["standings"][0]["results"]]
    assert ann_results == [
        (spring.pk, 1, 1, "1000", "counting"), (autumn.pk, 1, 3, "400", "counting"), (summer.pk, 2, 2, "300", "dropped"),
    ]
    assert body["standings"][0]["player"] == f"user:{ann.pk}"

    # The organiser corrects summer's table of Ann and Ben: Ann won it. Ann now 1000 + 500 = 1500.
    _ann_beats_ben_in(summer, alice, ann, ben)
    body = client_for().get(f"/api/series/{series}").json()
    assert [(r["name"], r["total"]) for r in body["standings"][:2]] == [("Ann", "1500"), ("Cat", "1400")]


def _ann_beats_ben_in(tournament, organiser, ann, ben) -> None:
    entrants = dict(tournament.entrants.filter(user__in=[ann, ben]).values_list("user_id", "pk"))
    for table in (t for rnd in tournament.rounds.all() for t in rnd.tables.all()):
        if set(table.seats) == {entrants[ann.pk], entrants[ben.pk]}:
            ranks = [1 if seat == entrants[ann.pk] else 2 for seat in table.seats]
            services.result_correct(tournament_id=tournament.pk, user=organiser, round_number=table.round.number,
                                    table_number=table.number, ranks=ranks, reason="scored wrongly")
            return
    raise AssertionError("Ann and Ben never met")
