"""Series over HTTP: anyone reads a series and its standings; only its organiser (or staff)
changes it. Every endpoint is asked by each persona (anonymous, another user, a player of a
counted tournament, the organiser, staff); every bad request answers its coded error and writes
nothing; the endpoints are in the OpenAPI schema."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.conftest import client_for, make_user
from tests.tournaments.builders import make_tournament
from tournaments import services
from tournaments.models import Series, SeriesDecision, SeriesEvent

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()
SEASON = {"starts_on": (TODAY - dt.timedelta(days=7)).isoformat(), "ends_on": (TODAY + dt.timedelta(days=7)).isoformat()}


@pytest.fixture
def setting(alice, staff):
    """Alice's series counting one tournament (at tier 1) in which the player `dora` is entered,
    a second tournament not counted, and the people who ask."""
    dora = make_user("dora")
    series = services.series_create(organiser=alice, name="Circuit", games=["sequence-stacks"],
                                    starts_on=TODAY - dt.timedelta(days=7), ends_on=TODAY + dt.timedelta(days=7))
    counted = make_tournament(alice, people=(dora,))
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=counted.pk, tier=1)
    return {"series": series, "counted": counted, "other": make_tournament(alice), "player": dora,
            "organiser": alice, "staff": staff, "another": make_user("eve")}


def writes() -> tuple:
    return (Series.objects.count(), SeriesDecision.objects.count(),
            sorted(SeriesEvent.objects.values_list("series_id", "tournament_id", "tier")),
            sorted(Series.objects.values_list("pk", "rules", "last_seq")))


def error(answer) -> str:
    return answer.json()["error"]["code"]


PERSONAS = ["anonymous", "another", "player", "organiser", "staff"]


def client(setting, persona: str):
    return client_for(None if persona == "anonymous" else setting[persona])


# --- who may do what ----------------------------------------------------------------------------


@pytest.mark.parametrize("persona", PERSONAS)
def test_anyone_reads_the_list_and_a_series_with_its_standings(setting, persona):
    series = setting["series"]
    listed = client(setting, persona).get("/api/series")
    assert listed.status_code == 200 and [s["id"] for s in listed.json()["results"]] == [series.pk]
    one = client(setting, persona).get(f"/api/series/{series.pk}")
    assert one.status_code == 200
    body = one.json()
    assert body["standings"] == [] and body["seq"] == 2
    assert [(e["tournament"], e["tier"], e["counted"]) for e in body["events"]] == [(setting["counted"].pk, 1, False)]


@pytest.mark.parametrize("persona, expected", [
    ("anonymous", 401), ("another", 201), ("player", 201), ("organiser", 201), ("staff", 201),
])
def test_any_signed_in_user_creates_a_series_and_organises_it(setting, persona, expected):
    before = writes()
    answer = client(setting, persona).post(
        "/api/series", {"name": "Winter", "games": ["ten"], **SEASON}, format="json"
    )
    assert answer.status_code == expected
    if expected == 401:
        assert error(answer) == "not_authenticated" and writes() == before
    else:
        assert answer.json()["organiser"] == setting[persona].pk and answer.json()["seq"] == 1


WRITES = {
    "rules": lambda s: ("put", f"/api/series/{s['series'].pk}/rules", {"rules": {"points": {"1": [3, 2, 1]}, "best": 2}}),
    "add": lambda s: ("post", f"/api/series/{s['series'].pk}/events", {"tournament": s["other"].pk, "tier": 2}),
    "tier": lambda s: ("patch", f"/api/series/{s['series'].pk}/events/{s['counted'].pk}", {"tier": 3}),
    "remove": lambda s: ("delete", f"/api/series/{s['series'].pk}/events/{s['counted'].pk}", None),
}
SUCCESS = {"rules": 200, "add": 201, "tier": 200, "remove": 200}


@pytest.mark.parametrize("operation", list(WRITES))
@pytest.mark.parametrize("persona, allowed", [
    ("anonymous", False), ("another", False), ("player", False), ("organiser", True), ("staff", True),
])
def test_only_the_organiser_or_staff_change_a_series(setting, operation, persona, allowed):
    method, path, body = WRITES[operation](setting)
    before = writes()
    answer = getattr(client(setting, persona), method)(path, body, format="json")
    if allowed:
        assert answer.status_code == SUCCESS[operation]
        assert answer.json()["seq"] == 3 and writes() != before
    else:
        assert answer.status_code == (401 if persona == "anonymous" else 403)
        assert error(answer) == ("not_authenticated" if persona == "anonymous" else "not_series_organiser")
        assert writes() == before


def test_each_write_answers_with_the_series_as_it_now_is(setting):
    organiser = client_for(setting["organiser"])
    series = setting["series"].pk
    answer = organiser.post(f"/api/series/{series}/events", {"tournament": setting["other"].pk, "tier": 3}, format="json")
    assert sorted((e["tournament"], e["tier"]) for e in answer.json()["events"]) == [
        (setting["counted"].pk, 1), (setting["other"].pk, 3)
    ]
    answer = organiser.patch(f"/api/series/{series}/events/{setting['other'].pk}", {"tier": 2}, format="json")
    assert {e["tournament"]: e["tier"] for e in answer.json()["events"]}[setting["other"].pk] == 2
    answer = organiser.put(f"/api/series/{series}/rules", {"rules": {"points": {"1": [5], "2": [3]}}}, format="json")
    assert answer.json()["rules"] == {"points": {"1": [5], "2": [3]}, "best": None, "field_scaling": None}
    answer = organiser.delete(f"/api/series/{series}/events/{setting['other'].pk}")
    assert [e["tournament"] for e in answer.json()["events"]] == [setting["counted"].pk]
    assert [d.type for d in SeriesDecision.objects.filter(series_id=series).order_by("seq")] == [
        "SeriesCreated", "SeriesEventAdded", "SeriesEventAdded", "SeriesEventTierChanged", "SeriesRulesSet",
        "SeriesEventRemoved",
    ]


# --- bad requests: a coded error, nothing written ----------------------------------------------------------


def test_bad_creations_are_refused(setting):
    organiser = client_for(setting["organiser"])
    cases = [
        ({"games": ["ten"], **SEASON}, 400, "invalid_input"),  # no name
        ({"name": "", "games": ["ten"], **SEASON}, 400, "invalid_input"),
        ({"name": 7, "games": ["ten"], **SEASON}, 400, "invalid_input"),
        ({"name": "X", "games": [], **SEASON}, 400, "invalid_input"),
        ({"name": "X", "games": ["chess"], **SEASON}, 400, "unknown_game"),
        ({"name": "X", "games": ["ten"], "starts_on": "2026-13-01", "ends_on": SEASON["ends_on"]}, 400, "invalid_input"),
        ({"name": "X", "games": ["ten"], "starts_on": SEASON["ends_on"], "ends_on": SEASON["starts_on"]}, 400, "bad_season"),
        ({"name": "X", "games": ["ten"], **SEASON, "rules": {"points": {"1": [1, 2]}}}, 400, "bad_series_rules"),
        ({"name": "X", "games": ["ten"], **SEASON, "rules": {"best": -1}}, 400, "bad_series_rules"),
        ({"name": "X", "games": ["ten"], **SEASON, "rules": [1]}, 400, "invalid_input"),
    ]
    for body, status, code in cases:
        before = writes()
        answer = organiser.post("/api/series", body, format="json")
        assert (answer.status_code, error(answer)) == (status, code), body
        assert writes() == before
    answer = organiser.post("/api/series", "not json", content_type="application/json")
    assert (answer.status_code, error(answer)) == (400, "malformed_json")


def test_bad_writes_to_a_series_are_refused(setting):
    organiser = client_for(setting["organiser"])
    series, counted, other = setting["series"].pk, setting["counted"].pk, setting["other"].pk
    later = make_tournament(setting["organiser"], starts_at=timezone.now() + dt.timedelta(days=30))
    ten = make_tournament(setting["organiser"], game="ten", match_options={})
    cases = [
        ("get", f"/api/series/{series + 100}", None, 404, "series_not_found"),
        ("put", f"/api/series/{series + 100}/rules", {"rules": {}}, 404, "series_not_found"),
        ("put", f"/api/series/{series}/rules", {}, 400, "invalid_input"),
        ("put", f"/api/series/{series}/rules", {"rules": {"points": {"1": "x"}}}, 400, "bad_series_rules"),
        ("put", f"/api/series/{series}/rules", {"rules": {"points": {"2": [5]}}}, 409, "tier_in_use"),
        ("post", f"/api/series/{series}/events", {"tournament": other}, 400, "invalid_input"),
        ("post", f"/api/series/{series}/events", {"tournament": other, "tier": 0}, 400, "invalid_input"),
        ("post", f"/api/series/{series}/events", {"tournament": other, "tier": 4}, 422, "unknown_tier"),
        ("post", f"/api/series/{series}/events", {"tournament": 10**9, "tier": 1}, 404, "tournament_not_found"),
        ("post", f"/api/series/{series}/events", {"tournament": counted, "tier": 1}, 409, "already_in_series"),
        ("post", f"/api/series/{series}/events", {"tournament": ten.pk, "tier": 1}, 422, "series_game_mismatch"),
        ("post", f"/api/series/{series}/events", {"tournament": later.pk, "tier": 1}, 422, "outside_season"),
        ("patch", f"/api/series/{series}/events/{other}", {"tier": 2}, 404, "series_event_not_found"),
        ("patch", f"/api/series/{series}/events/{counted}", {"tier": 9}, 422, "unknown_tier"),
        ("patch", f"/api/series/{series}/events/{counted}", {"tier": "two"}, 400, "invalid_input"),
        ("delete", f"/api/series/{series}/events/{other}", None, 404, "series_event_not_found"),
    ]
    for method, path, body, status, code in cases:
        before = writes()
        answer = getattr(organiser, method)(path, body, format="json")
        assert (answer.status_code, error(answer)) == (status, code), (method, path, body)
        assert answer.json()["error"]["message"]
        assert writes() == before


def test_the_list_filters_by_game_and_organiser(setting):
    services.series_create(organiser=setting["another"], name="Tens", games=["ten"],
                           starts_on=TODAY, ends_on=TODAY)
    anyone = client_for()
    ids = lambda **query: [s["name"] for s in anyone.get("/api/series", query).json()["results"]]  # noqa: E731
    assert ids() == ["Tens", "Circuit"]
    assert ids(game="ten") == ["Tens"] and ids(game="sequence-stacks") == ["Circuit"]
    assert ids(organiser=setting["organiser"].pk) == ["Circuit"]
    assert anyone.get("/api/series", {"game": "chess"}).status_code == 400
    assert anyone.get("/api/series", {"organiser": "x"}).status_code == 400


def test_the_openapi_schema_describes_the_series_api():
    paths = client_for().get("/api/schema/", HTTP_ACCEPT="application/json").json()["paths"]
    assert set(paths["/api/series"]) >= {"get", "post"}
    assert "get" in paths["/api/series/{series_id}"]
    assert "put" in paths["/api/series/{series_id}/rules"]
    assert "post" in paths["/api/series/{series_id}/events"]
    assert set(paths["/api/series/{series_id}/events/{tournament_id}"]) >= {"patch", "delete"}


def test_a_page_of_series_costs_the_same_queries_however_many_it_holds(setting):
    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert client_for().get("/api/series").status_code == 200
        return len(captured)

    one = queries()
    for number in range(3):
        more = services.series_create(organiser=setting["organiser"], name=f"S{number}", games=["sequence-stacks"],
                                      starts_on=TODAY, ends_on=TODAY)
        services.series_event_add(series_id=more.pk, user=setting["organiser"], tournament_id=setting["other"].pk, tier=1)
    assert queries() == one
