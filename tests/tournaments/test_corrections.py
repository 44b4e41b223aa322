"""Corrections by the organiser: a result corrected, a forfeit awarded, a player disqualified.

Each is an event with its reason; standings follow, and so does a round paired but not started.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import turns
from server.errors import ApplicationError
from tests.conftest import client_for
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    event_types,
    events_of,
    finish_round,
    make_tournament,
    play_to_end,
    reloaded,
    running_matches,
)
from tournaments import projections, selectors, services
from tournaments.models import Entrant, Round, TournamentEvent

pytestmark = pytest.mark.django_db


def started(organiser, **kwargs):
    tournament = make_tournament(organiser, **kwargs)
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    return reloaded(tournament)


def points(tournament) -> dict[int, float]:
    return {row["entrant"]["id"]: row["points"] for row in selectors.standings(tournament)}


def refused(code: str, status: int, call, **kwargs) -> None:
    with pytest.raises(ApplicationError) as error:
        call(**kwargs)
    assert (error.value.code, error.value.status) == (code, status)


def test_a_corrected_result_is_an_event_and_the_standings_follow(alice):
    tournament = started(alice, bots=4, options={"rounds": 2})
    finish_round(tournament)  # every table a draw
    seats = Round.objects.get(tournament=tournament, number=1).tables.get(number=1).seats
    assert points(tournament)[seats[0]] == points(tournament)[seats[1]] == 0.5
    table = services.result_correct(
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=1,
        ranks=[2, 1],
        reason="score sheet signed by both",
    )
    assert table["result"]["ranks"] == [2, 1] and table["result"]["source"] == "ResultCorrected"
    correction = TournamentEvent.objects.get(tournament=tournament, type="ResultCorrected")
    assert correction.actor == f"user:{alice.pk}"
    assert correction.data == {
        "round": 1,
        "table": 1,
        "ranks": [2, 1],
        "team_score": None,
        "forfeited": [],
        "reason": "score sheet signed by both",
    }
    assert (points(tournament)[seats[0]], points(tournament)[seats[1]]) == (0, 1)
    assert_rebuild_equals_incremental(tournament)


def test_only_the_organiser_corrects_awards_or_disqualifies(alice, bob):
    tournament = started(alice, bots=4, options={"rounds": 2})
    entrant = Entrant.objects.filter(tournament=tournament).first()
    client = client_for(bob)
    base = f"/api/tournaments/{tournament.pk}"
    for path, body in [
        (f"{base}/rounds/1/tables/1/correction", {"ranks": [1, 2], "reason": "x"}),
        (f"{base}/rounds/1/tables/1/forfeit", {"forfeited": [entrant.pk], "reason": "x"}),
        (f"{base}/entrants/{entrant.pk}/disqualify", {"reason": "x"}),
    ]:
        answer = client.post(path, body, format="json")
        assert answer.status_code == 403, path
        assert answer.json()["error"]["code"] == "not_organiser"
    assert "ResultCorrected" not in event_types(tournament)


@pytest.mark.parametrize(
    ("changes", "code", "status"),
    [
        ({"reason": "  "}, "reason_required", 400),
        ({"ranks": [1]}, "bad_result", 400),
        ({"ranks": [1, 3]}, "bad_result", 400),
        ({"ranks": None, "team_score": 3}, "bad_result", 400),
        ({"forfeited": [999]}, "bad_result", 400),
        ({"round_number": 9}, "round_not_found", 404),
        ({"table_number": 9}, "table_not_found", 404),
    ],
)
def test_a_correction_that_makes_no_sense_is_refused(alice, changes, code, status):
    tournament = started(alice, bots=4, options={"rounds": 2})
    call = {
        "tournament_id": tournament.pk,
        "user": alice,
        "round_number": 1,
        "table_number": 1,
        "ranks": [1, 2],
        "reason": "typo",
        **changes,
    }
    refused(code, status, services.result_correct, **call)


def test_a_correction_re_pairs_the_next_round_when_it_has_not_started(alice):
    today = timezone.now().date()
    tournament = started(
        alice, format="league", bots=4, options={"format": "swiss", "rounds": 3, "start": today.isoformat()}
    )
    finish_round(tournament)
    before = Round.objects.get(tournament=tournament, number=2)
    assert before.started_at is None
    services.result_correct(
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=2,
        ranks=[1, 2],
        reason="arbiter's decision",
    )
    assert event_types(tournament)[-3:] == ["ResultCorrected", "RoundUnpaired", "RoundPaired"]
    repaired = TournamentEvent.objects.filter(tournament=tournament, type="RoundPaired").last()
    assert repaired.key == "paired:2:1" and repaired.data["round"] == 2
    assert Round.objects.filter(tournament=tournament, number=2).count() == 1
    state = projections.state_of(tournament)
    assert state["unpaired"] == {"2": 1}
    assert_rebuild_equals_incremental(tournament)


def test_a_round_not_started_has_no_result_to_correct(alice):
    today = timezone.now().date()
    tournament = started(
        alice, format="league", bots=4, options={"format": "round-robin", "start": today.isoformat()}
    )
    finish_round(tournament)
    refused(
        "round_not_started",
        409,
        services.result_correct,
        tournament_id=tournament.pk,
        user=alice,
        round_number=2,
        table_number=1,
        ranks=[1, 2],
        reason="early",
    )


def test_a_bracket_refuses_a_correction_that_later_rounds_contradict(alice):
    tournament = started(alice, format="single-elimination", bots=4)
    finish_round(tournament)  # draws: the higher seeds go through to the final, now being played
    assert Round.objects.get(tournament=tournament, number=2).started_at is not None
    seats = Round.objects.get(tournament=tournament, number=1).tables.get(number=1).seats
    loser_wins = [1, 2] if seats[0] != events_of(tournament, "TournamentStarted")[0]["field"][0] else [2, 1]
    refused(
        "correction_conflicts",
        409,
        services.result_correct,
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=1,
        ranks=loser_wins,
        reason="appeal",
    )
    assert "ResultCorrected" not in event_types(tournament)


def test_a_forfeit_award_decides_a_table_still_playing_and_its_match_is_then_ignored(alice):
    tournament = started(alice, bots=4, options={"rounds": 1})
    first, second = running_matches(tournament)
    seats = Round.objects.get(tournament=tournament, number=1).tables.get(number=1).seats
    table = services.forfeit_award(
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=1,
        forfeited=[seats[1]],
        reason="left the venue",
    )
    assert table["result"] == {
        "ranks": [1, 2],
        "team_score": None,
        "forfeited": [seats[1]],
        "source": "ForfeitAwarded",
        "reason": "left the venue",
    }
    turns.match_play_out(match_id=first)
    turns.match_play_out(match_id=second)
    services.tournament_match_finished(match_id=first)
    services.tournament_match_finished(match_id=second)
    assert [e["table"] for e in events_of(tournament, "TableResult")] == [2]
    assert reloaded(tournament).status == "finished"
    rows = {row["entrant"]["id"]: row for row in selectors.standings(tournament)}
    assert rows[seats[1]]["forfeits"] == 1 and rows[seats[0]]["points"] == 1


def test_a_forfeit_names_players_seated_at_the_table(alice):
    tournament = started(alice, bots=4, options={"rounds": 1})
    refused(
        "bad_forfeit",
        400,
        services.forfeit_award,
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=1,
        forfeited=[],
        reason="x",
    )
    refused(
        "reason_required",
        400,
        services.forfeit_award,
        tournament_id=tournament.pk,
        user=alice,
        round_number=1,
        table_number=1,
        forfeited=[1],
        reason="",
    )


def test_a_disqualified_player_is_not_paired_again_and_is_listed_last(alice):
    tournament = started(alice, bots=6, options={"rounds": 3})
    cheat = Round.objects.get(tournament=tournament, number=1).tables.get(number=1).seats[0]
    entrant = services.entrant_disqualify(
        tournament_id=tournament.pk, user=alice, entrant_id=cheat, reason="marked cards"
    )
    assert entrant.status == "disqualified"
    assert events_of(tournament, "PlayerDisqualified") == [
        {"entrant": cheat, "from_round": 2, "reason": "marked cards"}
    ]
    refused(
        "already_disqualified",
        409,
        services.entrant_disqualify,
        tournament_id=tournament.pk,
        user=alice,
        entrant_id=cheat,
        reason="again",
    )
    tournament = play_to_end(tournament)
    for number in (2, 3):
        rnd = Round.objects.get(tournament=tournament, number=number)
        assert all(cheat not in table.seats for table in rnd.tables.all()) and cheat not in rnd.byes
    rows = selectors.standings(tournament)
    assert rows[-1]["entrant"]["id"] == cheat and rows[-1]["disqualified"]
    assert_rebuild_equals_incremental(tournament)


def test_disqualifying_before_the_start_is_refused(alice):
    tournament = make_tournament(alice, bots=2)
    entrant = Entrant.objects.filter(tournament=tournament).first()
    refused(
        "tournament_not_running",
        409,
        services.entrant_disqualify,
        tournament_id=tournament.pk,
        user=alice,
        entrant_id=entrant.pk,
        reason="x",
    )


def test_a_round_past_its_deadline_without_a_forfeit_still_finishes(alice):
    tournament = started(alice, bots=4, options={"rounds": 1}, round_seconds=60)
    deadline = Round.objects.get(tournament=tournament, number=1).deadline
    steps = services.tournament_advance(tournament_id=tournament.pk, now=deadline + dt.timedelta(seconds=1))
    assert steps == ["deadline", "results", "round-completed", "finished"]
    assert events_of(tournament, "RoundDeadlinePassed") == [{"round": 1, "tables": []}]
