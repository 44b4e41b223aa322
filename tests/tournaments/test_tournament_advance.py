"""The schedule: results recorded once, the next round at once or at its time, deadlines, the sweep."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from games import services as game_services
from games import turns
from games.engines import ENGINES
from games.models import Event, Match
from games.state import state_at_head
from tests.tournaments.builders import (
    event_types,
    events_of,
    finish_round,
    make_tournament,
    play_to_end,
    reloaded,
    running_matches,
)
from tournaments import selectors, services
from tournaments.models import Round, RoundTable, TournamentEvent
from tournaments.services.scheduler import _advance_step
from tournaments.tasks import tournament_sweep_task

pytestmark = pytest.mark.django_db


def test_a_finished_table_is_recorded_once_however_often_it_is_reported(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    first, second = running_matches(tournament)

    turns.match_play_out(match_id=first)
    assert services.tournament_match_finished(match_id=first) == ["results"]
    assert services.tournament_match_finished(match_id=first) == []  # a repeated task
    assert services.tournament_advance(tournament_id=tournament.pk) == []  # the sweep, late
    results = events_of(tournament, "TableResult")
    assert len(results) == 1 and results[0]["match"] == first
    assert TournamentEvent.objects.get(tournament=tournament, type="TableResult").key == f"match:{first}"


def test_when_the_last_table_finishes_the_next_round_is_paired_and_started_at_once(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    finish_round(tournament)
    assert event_types(tournament)[-5:] == [
        "TableResult",
        "TableResult",
        "RoundCompleted",
        "RoundPaired",
        "RoundStarted",
    ]
    assert Round.objects.get(tournament=tournament, number=2).started_at is not None
    assert len(running_matches(tournament)) == 2


def test_the_last_round_finishes_the_tournament_with_final_standings(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    assert tournament.status == "finished"
    finished = events_of(tournament, "TournamentFinished")[0]
    rows = selectors.standings(tournament)
    assert [(r["entrant"], r["rank"]) for r in finished["standings"]] == [
        (r["entrant"]["id"], r["rank"]) for r in rows
    ]
    assert finished["champion"] == rows[0]["entrant"]["id"]
    assert services.tournament_advance(tournament_id=tournament.pk) == []


def test_a_league_matchday_starts_on_its_date_not_before(alice):
    today = timezone.now().date()
    tournament = make_tournament(
        alice,
        format="league",
        bots=4,
        options={"format": "round-robin", "start": today.isoformat(), "every_days": 7},
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    finish_round(tournament)
    second = Round.objects.get(tournament=tournament, number=2)
    assert second.date == today + dt.timedelta(days=7) and second.started_at is None
    assert second.starts_at == dt.datetime.combine(second.date, dt.time(tzinfo=dt.UTC))
    assert services.tournament_advance(tournament_id=tournament.pk) == []
    assert (
        services.tournament_advance(
            tournament_id=tournament.pk, now=second.starts_at - dt.timedelta(seconds=1)
        )
        == []
    )
    assert services.tournament_advance(tournament_id=tournament.pk, now=second.starts_at) == ["round-started"]
    assert len(running_matches(tournament)) == 2
    calendar = selectors.calendar(tournament)
    assert [(d["round"], d["date"], d["status"]) for d in calendar["matchdays"]] == [
        (1, today, "complete"),
        (2, today + dt.timedelta(days=7), "playing"),
        (3, today + dt.timedelta(days=14), "scheduled"),
    ]


def test_at_the_deadline_unfinished_tables_are_played_out_and_absent_players_forfeit(alice, bob, carol):
    tournament = make_tournament(
        alice, people=(bob, carol), options={"rounds": 2}, round_seconds=600, match_options={"turn_limit": 4}
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = running_matches(tournament)
    table = RoundTable.objects.get(match_id=match_id)
    engine = ENGINES["sequence-stacks"]
    match = Match.objects.get(pk=match_id)
    mover_seat = engine.to_act(state_at_head(match_id, match.game, match.last_seq))[0]
    mover = match.seat_set.get(seat=mover_seat).user
    legal = engine.legal_moves(state_at_head(match_id, match.game, match.last_seq), mover_seat)
    game_services.move_submit(match_id=match_id, user=mover, move=legal[0])
    deadline = Round.objects.get(tournament=tournament, number=1).deadline
    assert (
        services.tournament_advance(tournament_id=tournament.pk, now=deadline - dt.timedelta(seconds=1)) == []
    )
    steps = services.tournament_advance(tournament_id=tournament.pk, now=deadline)
    assert steps[:4] == ["deadline", "results", "round-completed", "round-started"]
    absent_seat = 1 - mover_seat
    absent_entrant = table.seats[absent_seat]
    assert events_of(tournament, "RoundDeadlinePassed") == [
        {"round": 1, "tables": [{"table": 1, "absent": [absent_entrant]}]}
    ]
    result = events_of(tournament, "TableResult")[0]
    assert result["forfeited"] == [absent_entrant]
    assert result["ranks"][absent_seat] == 2 and result["ranks"][mover_seat] == 1
    assert Match.objects.get(pk=match_id).status == "finished"
    actors = set(Event.objects.filter(match_id=match_id, type="MovePlayed").values_list("actor", flat=True))
    assert actors == {f"user:{mover.pk}", "clock"}
    standings = {row["entrant"]["id"]: row for row in selectors.standings(tournament)}
    assert standings[absent_entrant]["forfeits"] == 1 and standings[absent_entrant]["points"] == 0


def test_advancing_again_or_late_changes_nothing(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    head = reloaded(tournament).last_seq
    for _ in range(3):
        assert services.tournament_advance(tournament_id=tournament.pk) == []
    assert reloaded(tournament).last_seq == head


def test_a_round_cannot_be_paired_twice(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    with pytest.raises(IntegrityError), transaction.atomic():
        Round.objects.create(tournament=tournament, number=1, starts_at=timezone.now())
    paired = TournamentEvent.objects.get(tournament=tournament, type="RoundPaired")
    with pytest.raises(IntegrityError), transaction.atomic():
        TournamentEvent.objects.create(
            tournament=tournament,
            seq=reloaded(tournament).last_seq + 1,
            type="RoundPaired",
            data=paired.data,
            actor="server",
            key=paired.key,
        )
    rnd = Round.objects.get(tournament=tournament, number=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        RoundTable.objects.create(round=rnd, number=1, seats=[1, 2])


def test_the_sweep_finds_what_a_lost_task_left_behind(alice):
    past = timezone.now() - dt.timedelta(minutes=1)
    waiting = make_tournament(alice, bots=2, starts_at=past)
    running = make_tournament(alice, bots=2, options={"rounds": 1})
    quiet = make_tournament(alice, bots=2, options={"rounds": 1})
    services.tournament_start(tournament_id=running.pk, user=alice)
    services.tournament_start(tournament_id=quiet.pk, user=alice)

    (match_id,) = running_matches(running)
    turns.match_play_out(match_id=match_id)  # the match-finished task is lost
    assert services.tournaments_due() == [waiting.pk, running.pk]
    services.tournament_advance(tournament_id=waiting.pk)
    services.tournament_advance(tournament_id=running.pk)
    assert reloaded(running).status == "finished"
    assert services.tournaments_due() == []


def test_a_match_ending_reaches_the_tournament_through_match_finished_tasks(
    alice, eager_tasks, django_capture_on_commit_callbacks
):
    assert "tournaments.tasks.tournament_match_finished_task" in settings.MATCH_FINISHED_TASKS
    tournament = make_tournament(alice, bots=2, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = running_matches(tournament)
    with django_capture_on_commit_callbacks(execute=True):
        turns.match_play_out(match_id=match_id)
    assert reloaded(tournament).status == "finished"
    assert [e["match"] for e in events_of(tournament, "TableResult")] == [match_id]


def test_the_periodic_sweep_does_what_lost_tasks_left(alice, eager_tasks):
    tournament = make_tournament(alice, bots=2, starts_at=timezone.now() - dt.timedelta(seconds=5))
    assert tournament_sweep_task() == {"tournaments": 1, "deliveries": 0}
    assert reloaded(tournament).status == "running"
    assert tournament_sweep_task() == {"tournaments": 0, "deliveries": 0}


def test_tables_left_running_by_a_lost_deadline_task_are_played_out_by_the_next_advance(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob, carol), options={"rounds": 1}, round_seconds=600)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    deadline = Round.objects.get(tournament=tournament, number=1).deadline
    step, running = _advance_step(tournament.pk, deadline)  # the worker dies before playing out
    assert step == "deadline" and running == running_matches(tournament)
    steps = services.tournament_advance(tournament_id=tournament.pk, now=deadline)
    assert steps == ["played-out", "results", "round-completed", "finished"]
    (result,) = events_of(tournament, "TableResult")
    assert sorted(result["forfeited"]) == sorted(RoundTable.objects.get(round__tournament=tournament).seats)
