"""A league's calendar when the organiser gives no start date: the first matchday is the day the
league starts, the next ones follow its spacing (`every_days`, or `weekdays`)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.conftest import client_for
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    finish_round,
    make_tournament,
    reloaded,
    running_matches,
)
from tournaments import selectors, services
from tournaments.formats.league import matchday_dates
from tournaments.models import Round, Tournament, TournamentEvent, TournamentProjection

pytestmark = pytest.mark.django_db


def test_a_league_without_a_start_date_spaces_its_matchdays_from_the_day_it_starts(alice):
    """Regression: without `start`, every matchday was paired and played at once (every_days
    ignored) and the calendar was empty."""
    tournament = make_tournament(alice, format="league", bots=4, options={"format": "round-robin", "every_days": 3})
    before = selectors.calendar(tournament)
    assert [(d["round"], d["date"], d["status"]) for d in before["matchdays"]] == [
        (1, None, "scheduled"), (2, None, "scheduled"), (3, None, "scheduled"),
    ]
    now = timezone.now()
    today = now.astimezone(dt.UTC).date()
    services.tournament_start(tournament_id=tournament.pk, user=alice, now=now)
    first = Round.objects.get(tournament=tournament, number=1)
    assert first.date == today and first.started_at is not None  # the first matchday is played at once
    assert TournamentEvent.objects.get(tournament=tournament, type="TournamentStarted").data["start"] == today.isoformat()

    finish_round(tournament)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.date == today + dt.timedelta(days=3) and second.started_at is None
    assert second.starts_at == dt.datetime.combine(second.date, dt.time(tzinfo=dt.UTC))
    assert services.tournament_advance(tournament_id=tournament.pk) == []  # not before its date
    assert services.tournament_advance(tournament_id=tournament.pk, now=second.starts_at) == ["round-started"]
    assert len(running_matches(tournament)) == 2

    calendar = selectors.calendar(reloaded(tournament))
    assert [(d["round"], d["date"], d["status"]) for d in calendar["matchdays"]] == [
        (1, today, "complete"),
        (2, today + dt.timedelta(days=3), "playing"),
        (3, today + dt.timedelta(days=6), "scheduled"),
    ]
    assert selectors.tournament_export(tournament)["options"]["start"] == today.isoformat()
    assert_rebuild_equals_incremental(reloaded(tournament))


def test_a_league_without_a_start_date_follows_its_weekdays_from_the_day_it_starts(alice):
    tournament = make_tournament(alice, format="league", bots=4, options={"format": "round-robin", "weekdays": [0]})
    wednesday = dt.datetime(2031, 1, 8, 18, 0, tzinfo=dt.UTC)  # a Wednesday: the first Monday after is the 13th
    services.tournament_start(tournament_id=tournament.pk, user=alice, now=wednesday)
    dates = [d["date"] for d in selectors.calendar(tournament)["matchdays"]]
    assert dates == [dt.date(2031, 1, 13), dt.date(2031, 1, 20), dt.date(2031, 1, 27)]
    first = Round.objects.get(tournament=tournament, number=1)
    assert first.started_at is None and first.starts_at == dt.datetime(2031, 1, 13, tzinfo=dt.UTC)


def test_a_league_with_a_start_date_keeps_it(alice):
    tournament = make_tournament(alice, format="league", bots=4, options={"format": "round-robin", "start": "2031-01-06"})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert "start" not in TournamentEvent.objects.get(tournament=tournament, type="TournamentStarted").data
    assert selectors.calendar(tournament)["matchdays"][0]["date"] == dt.date(2031, 1, 6)


@pytest.mark.parametrize(("options", "refused"), [
    ({"start": "9999-12-20"}, "start must be no later than 9000-12-31"),
    ({"start": "2031-01-06", "every_days": 100_000}, "every_days must be an integer from 1 to 366"),
])
def test_a_league_whose_calendar_would_run_past_the_year_9999_is_refused_at_creation(alice, options, refused):
    """Regression (#39): such a league was created, then answered 500 on /calendar and at its start."""
    body = {"name": "Far future", "game": "ten", "format": "league", "options": {"format": "round-robin", **options}}
    answer = client_for(alice).post("/api/tournaments", body, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_options"
    assert refused in answer.json()["error"]["message"]


def test_a_stored_league_past_the_year_9999_answers_409_on_its_calendar_and_at_its_start(alice):
    """One created before the check (its options stored as they were): a clear refusal, never a 500."""
    tournament = make_tournament(alice, format="league", bots=4, options={"format": "round-robin", "start": "2031-01-06"})
    far = {**tournament.options, "start": "9999-12-20"}
    Tournament.objects.filter(pk=tournament.pk).update(options=far)
    TournamentProjection.objects.filter(tournament=tournament).update(state={
        **TournamentProjection.objects.get(tournament=tournament).state, "options": far})
    calendar = client_for(alice).get(f"/api/tournaments/{tournament.pk}/calendar")
    assert calendar.status_code == 409 and calendar.json()["error"]["code"] == "calendar_too_long"
    started = client_for(alice).post(f"/api/tournaments/{tournament.pk}/start")
    assert started.status_code == 409 and started.json()["error"]["code"] == "cannot_pair"
    assert "9999-12-20" in started.json()["error"]["message"]
    assert reloaded(tournament).status == Tournament.Status.REGISTRATION  # nothing appended


def test_the_matchdays_stop_with_a_clear_error_where_the_calendar_ends():
    assert matchday_dates(dt.date(9999, 12, 1), 5, every_days=7)[-1] == dt.date(9999, 12, 29)
    with pytest.raises(ValueError, match="the calendar runs past the year 9999"):
        matchday_dates(dt.date(9999, 12, 1), 6, every_days=7)
