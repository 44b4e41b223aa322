"""A small league night as processes: a Swiss of bots played to the end by Celery workers and beat,
its every fact in the league log, which a witness cosigns.

The same path as `bench/league.py`'s league night, at a size a test can wait for: 3 Swiss
rounds of 2-player Ten for 64 bot entrants in `make test-thorough`, 32 in `make test-all` and CI
(the 64 took 341-499 s of CI's 15 minutes under its load: issue #38), started by the organiser
and then moved on by nothing but the worker's tasks (bots' moves, each match's end recording its
table, the round completing, the next paired and started) on the test database and Redis. Beat runs beside it,
as in production, so a lost task would be re-sent rather than hang the night, and integrates the
league log, whose checkpoints a witness process cosigns through a web server.
"""
from __future__ import annotations

import pytest
from django.conf import settings
from django.db.models import Q, Sum

from games.bots import STRONG_BOT
from games.models import Match
from leaguelog.models import LogCheckpoint, LogEntry
from leaguelog.notes import ED25519_COSIGNATURE, generate_signer_key, verifier_key_for
from tests.conftest import make_user
from tests.e2e.processes import start_beat, start_web, start_witness, start_worker, stop
from tests.games.worker import wait_for
from tests.sweeps import at_full_size
from tests.tournaments.builders import assert_rebuild_equals_incremental, events_of, reloaded
from tournaments import selectors, services
from tournaments.models import Round, RoundTable, Tournament, TournamentEvent

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.e2e,
    pytest.mark.slow,  # so that `make test-thorough` (-m slow) plays it at its full size
]

ENTRANTS, ROUNDS = (64 if at_full_size() else 32), 3
TABLES = ENTRANTS // 2


def test_a_swiss_of_bots_at_ten_is_played_to_the_end_by_the_worker_and_beat(tmp_path):
    organiser = make_user("league-organiser")
    night = services.tournament_create(
        organiser=organiser, name="league night", game="ten", format="swiss", options={"rounds": ROUNDS},
        rated=False,  # the rating task is another app's path, and would double the worker's work
    )
    for _ in range(ENTRANTS):
        services.entrant_bot_add(tournament_id=night.pk, user=organiser, bot=STRONG_BOT["ten"])
    witness_key = generate_signer_key("witness.example", ED25519_COSIGNATURE)
    beat = start_beat(tmp_path / "beat-schedule")
    worker = start_worker()
    web, base = start_web(LOG_WITNESSES=verifier_key_for(witness_key))
    witness = start_witness(
        base, key=witness_key, log_key=verifier_key_for(settings.LOG_SIGNING_KEY), state=tmp_path / "witness.json"
    )
    try:
        services.tournament_start(tournament_id=night.pk, user=organiser)
        # At 64, 80-95 s on two idle cores (some 15,000 bots' moves, a task each), longer on a busy one:
        # it fails only when no move has been played for two minutes.
        _wait_for_the_end(night, stall=120)
        wait_for(lambda: _cosigned_with_everything(night), timeout=60, what="the witness to cosign the whole night")
    finally:
        for process in (witness, web, worker, beat):
            stop(process)

    rounds = Round.objects.filter(tournament=night).order_by("number")
    assert [r.number for r in rounds] == list(range(1, ROUNDS + 1))
    for rnd in rounds:
        tables = list(RoundTable.objects.filter(round=rnd).order_by("number"))
        assert [t.number for t in tables] == list(range(1, TABLES + 1)), f"round {rnd.number}'s tables"
        assert all(t.match_id is not None for t in tables), f"a table of round {rnd.number} has no match"
    tables = RoundTable.objects.filter(round__tournament=night)
    matches = list(tables.values_list("match_id", flat=True))
    # One match per table, and no match the tournament started beyond them (a table started twice).
    assert len(set(matches)) == len(matches) == ROUNDS * TABLES
    assert Match.objects.filter(created_by=organiser).count() == ROUNDS * TABLES
    assert not Match.objects.exclude(status=Match.Status.FINISHED).exists()
    results = events_of(night, "TableResult")
    assert sorted(r["match"] for r in results) == sorted(matches)  # each table recorded once

    rows = selectors.standings(night)
    assert len(rows) == ENTRANTS and all(row["played"] == ROUNDS for row in rows)
    assert_rebuild_equals_incremental(night)
    events = TournamentEvent.objects.filter(tournament=night).order_by("seq")
    seqs = list(events.values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))  # no gap, nothing twice
    assert reloaded(night).last_seq == len(seqs)
    assert witness.returncode != 3  # no fork seen


def _cosigned_with_everything(night: Tournament) -> bool:
    """Every match and event of the night is logged and the newest checkpoint is cosigned."""
    matches = RoundTable.objects.filter(round__tournament=night).values_list("match_id", flat=True)
    events = TournamentEvent.objects.filter(tournament=night).values_list("pk", flat=True)
    logged = LogEntry.objects.filter(
        Q(kind="match", source_id__in=list(matches)) | Q(kind="tournament_event", source_id__in=list(events))
    ).count()
    latest = LogCheckpoint.objects.order_by("-size").first()
    return logged == len(matches) + len(events) and latest is not None and latest.cosignatures.exists()


def _wait_for_the_end(night: Tournament, *, stall: float) -> None:
    tables = RoundTable.objects.filter(round__tournament=night)

    def played_and_recorded() -> tuple[int, int]:
        return (tables.filter(match__status=Match.Status.FINISHED).count(),
                tables.filter(result__isnull=False).count())

    def moves_played_and_recorded() -> tuple[int, int, int]:
        # The moves count as progress too: a round's tables (32 at 64 entrants) are played side by
        # side, so on a busy machine the first of them may finish minutes after the round began.
        moves = tables.aggregate(moves=Sum("match__last_seq"))["moves"] or 0
        return (moves, *played_and_recorded())

    try:
        finished = Tournament.Status.FINISHED
        wait_for(lambda: reloaded(night).status == finished, timeout=stall, what="the night",
                 progress=moves_played_and_recorded)
    except AssertionError:
        played, recorded = played_and_recorded()
        pytest.fail(f"the night stopped for {stall:.0f} s: of {ROUNDS * TABLES} tables, {played} "
                    f"played and {recorded} recorded")
