"""A duplicate deal's table result stays out of its tournament's feed, standings, export, webhooks
and league log until every table of the deal has finished (issue #39): every table of the round
is dealt the same deck, so one finished table's result tells the tables still playing how the
deal goes. The organiser and staff read the tournament as it is.

Regression: the event feed served the finished table's TableResult (its ranks), the standings
moved its players' points, the export carried its ranks, its webhook was sent and its league log
entry written, all while the round's other table still played the same deal.
"""
from __future__ import annotations

import json

import pytest

from games import turns
from games.models import Match
from leaguelog import services as log_services
from leaguelog.models import LogEntry
from tests.conftest import client_for
from tests.games.test_spectator_policy import duplicate_round
from tournaments import services as tournament_services
from tournaments import webhooks
from tournaments.models import TournamentEvent, WebhookDelivery

pytestmark = pytest.mark.django_db

HELD_FROM = ["anonymous", "other_player", "spectator", "seated"]
LIVE = ["organiser", "staff"]


@pytest.fixture
def duplicate(db) -> dict:
    """A duplicate round of two tables; the first has finished, the second plays the same deal."""
    found = duplicate_round()
    first = Match.objects.get(pk=found["match"])
    found["tournament"] = first.tournament_table.round.tournament
    found["before"] = standings_of(found, "anonymous")
    found["hook"] = webhooks.webhook_create(
        tournament_id=found["tournament"].pk, user=found["users"]["organiser"], url="https://example.org/hook"
    )
    turns.match_play_out(match_id=first.pk)
    tournament_services.tournament_match_finished(match_id=first.pk)
    found["result"] = TournamentEvent.objects.get(tournament=found["tournament"], type="TableResult")
    return found


def read(found: dict, persona: str, suffix: str):
    answer = client_for(found["users"][persona]).get(f"/api/tournaments/{found['tournament'].pk}{suffix}")
    assert answer.status_code == 200, answer.content
    return answer.json()


def standings_of(found: dict, persona: str) -> dict[int, tuple]:
    rows = read(found, persona, "/standings")
    rows = rows if isinstance(rows, list) else rows["results"]
    return {row["entrant"]["id"]: (row["position"], row["points_exact"], row["played"], row["wins"]) for row in rows}


def finish_the_deal(found: dict) -> None:
    turns.match_play_out(match_id=found["other"])
    tournament_services.tournament_match_finished(match_id=found["other"])


@pytest.mark.parametrize("persona", HELD_FROM + LIVE)
def test_the_feed_stops_before_a_result_whose_deal_is_still_played(duplicate, persona):
    feed = read(duplicate, persona, "/events?limit=500")
    types = [event["type"] for event in feed["events"]]
    seqs = [event["seq"] for event in feed["events"]]
    assert seqs == list(range(1, len(seqs) + 1))  # a gapless prefix: readers' seq checks hold
    if persona in LIVE:
        assert "TableResult" in types and feed["head"] == duplicate["tournament"].__class__.objects.get(
            pk=duplicate["tournament"].pk
        ).last_seq
    else:
        assert "TableResult" not in types
        assert feed["head"] == duplicate["result"].seq - 1 == feed["next"]
        again = read(duplicate, persona, f"/events?after={feed['next']}")
        assert again["events"] == [] and again["next"] == feed["next"]


@pytest.mark.parametrize("persona", HELD_FROM + LIVE)
def test_the_standings_do_not_move_for_it(duplicate, persona):
    shown = standings_of(duplicate, persona)
    if persona in LIVE:
        assert shown != duplicate["before"]
        assert sum(row[2] for row in shown.values()) == 2  # the finished table's two players have played
    else:
        assert shown == duplicate["before"]
        entrant = next(iter(shown))
        one = read(duplicate, persona, f"/standings/{entrant}")
        assert (one["position"], one["points_exact"], one["played"], one["wins"]) == shown[entrant]


@pytest.mark.parametrize("persona", HELD_FROM + LIVE)
def test_the_export_leaves_it_out(duplicate, persona):
    tables = read(duplicate, persona, "/export")["rounds"][0]["tables"]
    assert any(table["ranks"] is not None for table in tables) == (persona in LIVE)


def test_its_webhook_is_held_then_sent_when_the_deal_is_done(duplicate, monkeypatch, django_capture_on_commit_callbacks):
    sent: list[int] = []
    monkeypatch.setattr(webhooks, "send_later", lambda ids, **kwargs: sent.extend(ids))
    (held,) = WebhookDelivery.objects.filter(webhook=duplicate["hook"], event=duplicate["result"])
    assert held.status == "pending" and held.next_attempt_at is None
    assert webhooks.webhook_deliver(delivery_id=held.pk) == "pending"  # a stray task sends nothing
    held.refresh_from_db()
    assert held.attempts == 0
    assert webhooks.deliveries_overdue() == []
    with django_capture_on_commit_callbacks(execute=True):
        finish_the_deal(duplicate)
    held.refresh_from_db()
    assert held.next_attempt_at is not None and held.pk in sent


def test_the_league_log_waits_for_it(duplicate):
    log_services.log_integrate()
    logged = [json.loads(bytes(body)) for body in LogEntry.objects.values_list("body", flat=True)]
    assert not [e for e in logged if e.get("event") == "TableResult"]
    finish_the_deal(duplicate)
    log_services.log_integrate()
    logged = [json.loads(bytes(body)) for body in LogEntry.objects.values_list("body", flat=True)]
    results = [e for e in logged if e.get("event") == "TableResult"]
    assert duplicate["result"].seq in {e["seq"] for e in results} and len(results) == 2


@pytest.mark.parametrize("persona", HELD_FROM)
def test_everyone_reads_it_once_the_deal_is_done(duplicate, persona):
    finish_the_deal(duplicate)
    feed = read(duplicate, persona, "/events?limit=500")
    assert duplicate["result"].seq in [e["seq"] for e in feed["events"] if e["type"] == "TableResult"]
    assert feed["head"] == feed["next"] == feed["events"][-1]["seq"]
    assert standings_of(duplicate, persona) == standings_of(duplicate, "organiser")
    assert all(table["ranks"] is not None for table in read(duplicate, persona, "/export")["rounds"][0]["tables"])
