"""verify_league recomputes every series' standings from the log (its logged decisions, and the
folded final standings of its tournaments) and compares them with those the server serves:
a league with a series verifies; a series record changed in the database behind its decisions,
a decision rewritten in the log, or one that does not follow from those before it is caught."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from leaguelog import services as log_services
from leaguelog.backup import _series_lost, database_fetch
from leaguelog.verify import FetchError, verify_league
from tests.conftest import make_user
from tests.leaguelog.test_verify_league import LOG_KEY, client_fetch, failure, relogged
from tests.tournaments.series_builders import finished_in_order
from tournaments import services
from tournaments.models import SeriesEvent

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


@pytest.fixture
def league(alice) -> dict[str, int]:
    """Alice's series of two finished tournaments (one with a bot), tier 1 then moved to tier 2,
    and a third not finished, the best one result counting; all logged."""
    ann, ben, cat = (make_user(name) for name in ("ann", "ben", "cat"))
    first = finished_in_order(alice, [ann, ben, cat])
    second = finished_in_order(alice, [ben, cat], bots=1, order=["random 1", "Ben", "Cat"])
    series = services.series_create(organiser=alice, name="Circuit", games=["sequence-stacks"],
                                    starts_on=TODAY - dt.timedelta(days=1), ends_on=TODAY + dt.timedelta(days=1),
                                    rules={"best": 1})
    for tournament in (first, second):
        services.series_event_add(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1)
    services.series_event_tier_change(series_id=series.pk, user=alice, tournament_id=second.pk, tier=2)
    waiting = services.tournament_create(organiser=alice, name="Later", game="sequence-stacks", format="swiss")
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=waiting.pk, tier=3)
    while log_services.log_integrate():
        pass
    return {"series": series.pk, "first": first.pk, "second": second.pk}


def test_a_league_with_a_series_verifies(league):
    summary = verify_league(client_fetch(), log_key=LOG_KEY, check_matches=False)
    assert summary.series == 1 and summary.tournaments == 3 and not summary.notes
    assert "3 tournaments, 1 series, " in summary.line()


def test_a_series_event_changed_behind_its_decisions_is_caught(league):
    """A tampered record: the tier of a counted tournament changed in the database, no decision
    logged. The server's standings are no longer those the log gives."""
    SeriesEvent.objects.filter(series_id=league["series"], tournament_id=league["first"]).update(tier=3)
    message = failure(client_fetch(), check_matches=False)
    assert f"series {league['series']}: its standings served are not those of its logged decisions" in message


def test_a_rewritten_tier_in_the_log_is_caught(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "SeriesEventAdded" and entry["data"]["tournament"] == league["first"]:
            entry["data"]["tier"] = 2
        return entry

    message = failure(relogged(client_fetch(), tamper), check_matches=False)
    assert f"series {league['series']}: its standings served are not those" in message


def test_a_decision_that_does_not_follow_is_caught(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "SeriesEventTierChanged":
            entry["data"]["from"] = 3  # the tournament was at tier 1
        return entry

    message = failure(relogged(client_fetch(), tamper), check_matches=False)
    assert f"series {league['series']} seq 4" in message and "does not follow" in message


def test_a_missing_decision_is_caught(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "SeriesEventTierChanged":
            entry["seq"] = 9
        return entry

    assert f"series {league['series']}: seq 4 is missing" in failure(relogged(client_fetch(), tamper), check_matches=False)


def test_standings_served_ahead_of_the_checkpoint_are_noted_not_compared(league, alice):
    services.series_event_remove(series_id=league["series"], user=alice, tournament_id=league["first"])
    summary = verify_league(client_fetch(), log_key=LOG_KEY, check_matches=False)
    assert summary.notes == [
        f"series {league['series']}: the server's standings are of decisions or results after the log's checkpoint: "
        f"not compared (its decisions were checked)"
    ]


def test_the_database_serves_a_series_to_the_restore_check_as_the_api_does(league):
    summary = verify_league(database_fetch(), log_key=LOG_KEY, check_matches=False)
    assert summary.series == 1 and not summary.notes


def test_a_series_lost_in_a_restore_is_noted_not_fetched(league):
    def fetch(path: str) -> bytes:
        if path.startswith("series/"):
            raise FetchError("served with status 404")
        return client_fetch()(path)

    assert f"series/{league['series']}.json: served with status 404" in failure(fetch, check_matches=False)
    summary = verify_league(fetch, log_key=LOG_KEY, check_matches=False, series_lost=[league["series"]])
    assert summary.notes == [f"series {league['series']}: its standings not compared: the server lost it in a restore"]
    assert _series_lost() == []
