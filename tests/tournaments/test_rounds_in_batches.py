"""A big round opens its tables in batches, each one transaction under the tournament's lock:
a worker killed mid-start leaves whole batches only, so every table is started once and none
twice; results recorded by several workers at once lose none; the projections equal a rebuild."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.db import transaction
from django.utils import timezone

from games import turns
from games.models import Match
from tests.conftest import make_user
from tests.e2e.processes import kill, start_worker, stop
from tests.games.worker import wait_for
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
from tests.tournaments.test_concurrent_advance import race
from tests.tournaments.test_projections import FORMATS
from tournaments import services
from tournaments.models import Round, RoundTable, TournamentEvent
from tournaments.services._stream import _locked
from tournaments.services.rounds import _round_start_batch
from tournaments.tasks import tournament_sweep_task


def _opened(tournament) -> list[int]:
    """Every table number opened by the round's events, in order (a table twice would show twice)."""
    return [t["table"] for kind in ("TablesStarted", "RoundStarted") for e in events_of(tournament, kind)
            for t in e["tables"]]


@pytest.mark.django_db
def test_a_round_bigger_than_a_batch_opens_batch_by_batch_and_starts_once(alice, settings):
    settings.TOURNAMENT_TABLES_PER_BATCH = 2
    tournament = make_tournament(alice, bots=10, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert event_types(tournament)[-1] == "RoundPaired"  # the start commits before any table opens
    assert services.tournament_advance(tournament_id=tournament.pk) == ["tables-started", "tables-started",
                                                                         "round-started"]
    assert event_types(tournament)[-3:] == ["TablesStarted", "TablesStarted", "RoundStarted"]
    assert sorted(_opened(tournament)) == [1, 2, 3, 4, 5]
    tables = RoundTable.objects.filter(round__tournament=tournament)
    assert len({t.match_id for t in tables}) == 5 and not tables.filter(match=None).exists()
    assert Round.objects.get(tournament=tournament, number=1).started_at is not None
    tournament = play_to_end(tournament)
    assert tournament.status == "finished"
    assert_rebuild_equals_incremental(tournament)


@pytest.mark.django_db
def test_nobody_leaves_a_round_already_partly_seated_by_re_pairing_it(alice, settings):
    settings.TOURNAMENT_TABLES_PER_BATCH = 2
    tournament = make_tournament(alice, bots=10, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    # One batch opened, as a worker would before the organiser's change reaches the lock.
    with transaction.atomic():
        locked = _locked(tournament.pk)
        _round_start_batch(locked, Round.objects.get(tournament=tournament, number=1), actor="server", now=timezone.now())
    seated = RoundTable.objects.filter(round__tournament=tournament).exclude(match=None).first()
    leaver = seated.seats[0]
    services.entrant_withdraw(tournament_id=tournament.pk, user=alice, entrant_id=leaver)
    assert "RoundUnpaired" not in event_types(tournament)  # the round stands: people sit at it
    assert events_of(tournament, "PlayerWithdrawn")[-1]["from_round"] == 2
    services.tournament_advance(tournament_id=tournament.pk)
    assert sorted(_opened(tournament)) == [1, 2, 3, 4, 5]
    assert_rebuild_equals_incremental(tournament)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not django_settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
@pytest.mark.processes
def test_a_worker_killed_mid_start_leaves_every_table_started_once_and_none_twice(settings):
    settings.TOURNAMENT_TABLES_PER_BATCH = 2
    settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT = 160  # a big field of bots, as a staff organiser may enter
    organiser = make_user("organiser")
    tournament = make_tournament(organiser, bots=160, options={"rounds": 1})
    worker = start_worker(TOURNAMENT_TABLES_PER_BATCH="2")
    try:
        services.tournament_start(tournament_id=tournament.pk, user=organiser)  # the worker opens the tables
        wait_for(lambda: events_of(tournament, "TablesStarted"), timeout=60, what="a first batch")
        kill(worker)
        opened_before = len(_opened(tournament))
        assert opened_before < 80 and not events_of(tournament, "RoundStarted"), "the kill came too late"
        worker = start_worker(TOURNAMENT_TABLES_PER_BATCH="2")
        tournament_sweep_task.delay()  # what beat sends every minute: the round is due
        wait_for(lambda: events_of(tournament, "RoundStarted"), timeout=120, what="the round to start")
    finally:
        stop(worker)
    assert sorted(_opened(tournament)) == list(range(1, 81))
    tables = RoundTable.objects.filter(round__tournament=tournament)
    assert not tables.filter(match=None).exists() and len({t.match_id for t in tables}) == 80
    # No match was opened for a table and lost: the killed batch's matches went with its transaction.
    assert Match.objects.filter(created_by=organiser).count() == 80
    seqs = list(TournamentEvent.objects.filter(tournament=tournament).values_list("seq", flat=True))
    assert seqs == list(range(1, reloaded(tournament).last_seq + 1))
    assert_rebuild_equals_incremental(tournament)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_recording_one_rounds_results_at_once_lose_none(settings):
    settings.TOURNAMENT_TABLES_PER_BATCH = 3
    organiser = make_user("organiser")
    tournament = make_tournament(organiser, bots=24, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    services.tournament_advance(tournament_id=tournament.pk)
    matches = running_matches(tournament)
    assert len(matches) == 12
    for match_id in matches:
        turns.match_play_out(match_id=match_id)

    def worker(share: list[int]):
        return lambda: [services.tournament_match_finished(match_id=m) for m in share]

    assert race([worker(matches[0::2]), worker(matches[1::2])]) == []
    assert sorted(e["match"] for e in events_of(tournament, "TableResult")) == sorted(matches)
    assert len(events_of(tournament, "RoundCompleted")) == 1 and len(events_of(tournament, "RoundStarted")) == 2
    assert sorted(_opened(tournament)) == sorted(list(range(1, 13)) * 2)
    finish_round(tournament)
    assert_rebuild_equals_incremental(tournament)


@pytest.mark.django_db
@pytest.mark.parametrize(("fmt", "game", "options", "bots"), FORMATS, ids=[f[0] for f in FORMATS])
def test_every_format_played_one_table_a_batch_equals_its_rebuild(alice, settings, fmt, game, options, bots):
    settings.TOURNAMENT_TABLES_PER_BATCH = 1
    tournament = make_tournament(alice, game=game, format=fmt, options=options, bots=bots)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    assert tournament.status == "finished"
    assert_rebuild_equals_incremental(tournament)
