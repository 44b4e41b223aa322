"""Concurrent workers on PostgreSQL: the tournament row's lock makes them take turns, and the
unique keys make every decision happen once, however many tasks race for it."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from django.utils import timezone

from games import turns
from tests.conftest import make_user
from tests.tournaments.builders import events_of, make_tournament, reloaded, running_matches
from tournaments import services
from tournaments.models import Round, TournamentEvent

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(calls: list) -> list:
    """Runs the calls at the same moment, each in its own thread (and database connection)."""
    barrier = threading.Barrier(len(calls))
    errors: list = []

    def run(call) -> None:
        try:
            barrier.wait()
            call()
        except Exception as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


def test_many_workers_reporting_the_same_round_record_each_table_once_and_pair_the_next_once():
    organiser = make_user("organiser")
    tournament = make_tournament(organiser, bots=8, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    matches = running_matches(tournament)
    for match_id in matches:
        turns.match_play_out(match_id=match_id)
    calls = [lambda m=m: services.tournament_match_finished(match_id=m) for m in matches * 3]
    calls += [lambda: services.tournament_advance(tournament_id=tournament.pk)] * 2
    assert race(calls) == []
    assert sorted(e["match"] for e in events_of(tournament, "TableResult")) == sorted(matches)
    assert len(events_of(tournament, "RoundPaired")) == 2 and len(events_of(tournament, "RoundCompleted")) == 1
    assert Round.objects.filter(tournament=tournament).count() == 2
    seqs = list(TournamentEvent.objects.filter(tournament=tournament).values_list("seq", flat=True))
    assert seqs == list(range(1, reloaded(tournament).last_seq + 1))


def test_a_start_raced_by_the_organiser_and_the_scheduler_happens_once():
    organiser = make_user("organiser")
    tournament = make_tournament(organiser, bots=4, starts_at=timezone.now())
    errors = race([
        lambda: services.tournament_start(tournament_id=tournament.pk, user=organiser),
        lambda: services.tournament_advance(tournament_id=tournament.pk),
        lambda: services.tournament_advance(tournament_id=tournament.pk),
    ])
    assert all(getattr(error, "code", None) == "already_started" for error in errors)
    assert len(events_of(tournament, "TournamentStarted")) == 1
    assert len(events_of(tournament, "RoundStarted")) == 1
    assert len(running_matches(tournament)) == 2
