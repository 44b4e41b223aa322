"""Reading a tournament over HTTP: anyone may; standings, rounds with their matches, the bracket,
a league's calendar, and the feed of events that resumes from a position."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.conftest import client_for
from tests.tournaments.builders import finish_round, make_tournament, play_to_end, reloaded
from tournaments import services
from tournaments.models import Round

pytestmark = pytest.mark.django_db


def started(organiser, **kwargs):
    tournament = make_tournament(organiser, **kwargs)
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    return reloaded(tournament)


def get(path: str, **params):
    answer = client_for().get(path, params)
    return answer.status_code, answer.json()


def test_anyone_reads_the_standings_with_their_tie_breaks(alice):
    tournament = play_to_end(started(alice, bots=4, options={"rounds": 2}))
    status, page = get(f"/api/tournaments/{tournament.pk}/standings")
    rows = page["results"]
    assert status == 200 and page["count"] == len(rows) == 4
    assert set(rows[0]) == {
        "position",
        "rank",
        "place",
        "entrant",
        "points",
        "points_exact",
        "played",
        "wins",
        "draws",
        "losses",
        "byes",
        "forfeits",
        "buchholz",
        "sonneborn_berger",
        "rating",
        "mean_team_score",
        "withdrawn",
        "disqualified",
    }
    assert [r["position"] for r in rows] == [1, 2, 3, 4]
    assert rows[0]["points"] == 1.0 and rows[0]["points_exact"] == "1" and rows[0]["played"] == 2


def test_every_rounds_pairings_link_to_their_matches(alice, bob):
    tournament = started(alice, people=(bob,), bots=3, options={"rounds": 2})
    status, rounds = get(f"/api/tournaments/{tournament.pk}/rounds")
    assert status == 200 and [r["round"] for r in rounds] == [1]
    table = rounds[0]["tables"][0]
    assert rounds[0]["status"] == "playing"
    assert table["match_url"] == f"/api/matches/{table['match']}" and table["match_status"] == "running"
    assert {seat["seat"] for seat in table["seats"]} == {0, 1}
    assert client_for().get(table["match_url"]).status_code == 200
    finish_round(tournament)
    status, rounds = get(f"/api/tournaments/{tournament.pk}/rounds")
    assert [r["status"] for r in rounds] == ["complete", "playing"]
    assert rounds[0]["tables"][0]["result"]["source"] == "TableResult"


def test_the_bracket_of_an_elimination_names_players_and_links_matches(alice):
    tournament = started(alice, format="double-elimination", bots=4)
    status, bracket = get(f"/api/tournaments/{tournament.pk}/bracket")
    assert status == 200 and bracket["finished"] is False
    first = {m["id"]: m for m in bracket["matches"]}["W1.1"]
    assert first["status"] == "ready" and first["match_url"] == f"/api/matches/{first['match']}"
    assert all(isinstance(name, str) for name in first["names"])
    play_to_end(tournament)
    status, bracket = get(f"/api/tournaments/{tournament.pk}/bracket")
    assert bracket["finished"] is True and bracket["champion"] is not None


def test_a_swiss_has_no_bracket_and_only_a_league_has_a_calendar(alice):
    tournament = started(alice, bots=2, options={"rounds": 1})
    assert get(f"/api/tournaments/{tournament.pk}/bracket")[1]["error"]["code"] == "no_bracket"
    assert get(f"/api/tournaments/{tournament.pk}/calendar")[1]["error"]["code"] == "not_a_league"


def test_a_league_calendar_lists_its_matchdays(alice):
    tournament = make_tournament(
        alice,
        format="league",
        bots=4,
        options={
            "format": "round-robin",
            "start": "2031-01-06",
            "weekdays": [0, 3],
            "skip_dates": ["2031-01-09"],
        },
    )
    status, calendar = get(f"/api/tournaments/{tournament.pk}/calendar")
    assert status == 200 and calendar["inner_format"] == "round-robin"
    assert [(d["round"], d["date"], d["status"]) for d in calendar["matchdays"]] == [
        (1, "2031-01-06", "scheduled"),
        (2, "2031-01-13", "scheduled"),
        (3, "2031-01-16", "scheduled"),
    ]


def test_the_feed_resumes_from_a_position(alice):
    tournament = started(alice, bots=4, options={"rounds": 1})
    status, page = get(f"/api/tournaments/{tournament.pk}/events", after=0, limit=3)
    assert status == 200 and [e["seq"] for e in page["events"]] == [1, 2, 3]
    assert page["next"] == 3 and page["head"] == reloaded(tournament).last_seq
    status, rest = get(f"/api/tournaments/{tournament.pk}/events", after=page["next"])
    assert [e["type"] for e in rest["events"]] == [
        "PlayerRegistered",
        "PlayerRegistered",
        "TournamentStarted",
        "RoundPaired",
        "RoundStarted",
    ]
    status, empty = get(f"/api/tournaments/{tournament.pk}/events", after=rest["next"])
    assert empty == {"events": [], "next": rest["next"], "head": rest["next"]}
    assert get(f"/api/tournaments/{tournament.pk}/events", limit=0)[0] == 400


def test_the_feed_keeps_a_rounds_shared_deal_secret_until_the_round_is_over(alice):
    tournament = started(alice, bots=4, options={"rounds": 2, "duplicate": True})
    paired = [
        e for e in get(f"/api/tournaments/{tournament.pk}/events")[1]["events"] if e["type"] == "RoundPaired"
    ]
    assert [t["deal"] for t in paired[0]["data"]["tables"]] == [None, None]
    assert [t["deal"] for t in get(f"/api/tournaments/{tournament.pk}/rounds")[1][0]["tables"]] == [
        None,
        None,
    ]
    finish_round(tournament)
    deal = Round.objects.get(tournament=tournament, number=1).tables.first().deal
    paired = [
        e for e in get(f"/api/tournaments/{tournament.pk}/events")[1]["events"] if e["type"] == "RoundPaired"
    ]
    assert [t["deal"] for t in paired[0]["data"]["tables"]] == [deal, deal]
    assert [t["deal"] for t in paired[1]["data"]["tables"]] == [None, None]


def test_the_seed_is_revealed_when_the_tournament_ends(alice):
    tournament = started(alice, bots=2, options={"rounds": 1})
    assert get(f"/api/tournaments/{tournament.pk}")[1]["seed"] is None
    play_to_end(tournament)
    shown = get(f"/api/tournaments/{tournament.pk}")[1]
    assert (
        shown["seed"] == tournament.seed and shown["status"] == "finished" and shown["champion"] is not None
    )


def test_entrants_show_their_seed_and_status(alice, bob):
    tournament = started(alice, people=(bob,), bots=1, options={"rounds": 1})
    status, page = get(f"/api/tournaments/{tournament.pk}/entrants")
    entrants = page["results"]
    assert status == 200 and page["count"] == 2
    assert [(e["name"], e["seed"], e["status"]) for e in entrants] == [
        ("Bob", 1, "active"),
        ("random 1", 2, "active"),
    ]


def test_the_openapi_schema_describes_the_tournament_api():
    answer = client_for().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert answer.status_code == 200
    paths = answer.json()["paths"]
    assert "/api/tournaments/{tournament_id}/standings" in paths
    assert "/api/tournaments/{tournament_id}/rounds/{round_number}/tables/{table_number}/correction" in paths


def test_a_scheduled_start_time_is_shown(alice):
    starts = timezone.now().replace(microsecond=0) + timezone.timedelta(days=1)
    tournament = make_tournament(alice, starts_at=starts)
    assert get(f"/api/tournaments/{tournament.pk}")[1]["starts_at"].startswith(starts.date().isoformat())
