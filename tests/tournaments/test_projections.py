"""Projections: the standings (and every read model) kept as events come equal those rebuilt from
the log, for every format; the event store itself is append-only and gapless."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.errors import ApplicationError
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    finish_round,
    make_tournament,
    play_to_end,
    reloaded,
)
from tournaments import fold, projections, selectors, services
from tournaments.models import Round, RoundTable, StandingRow, TournamentEvent, TournamentProjection

pytestmark = pytest.mark.django_db

FORMATS = [
    ("swiss", "sequence-stacks", {"rounds": 3}, 5),
    ("round-robin", "sequence-stacks", {"double": True}, 3),
    ("single-elimination", "sequence-stacks", {"third_place": True}, 6),
    ("double-elimination", "sequence-stacks", {}, 5),
    ("swiss-tables", "the-game", {"table_size": 3, "rounds": 2}, 7),
    ("table-elimination", "the-game", {"table_size": 3}, 7),
    # A start date in the past: every matchday is due at once.
    ("league", "the-game", {"format": "swiss-tables", "rounds": 2, "table_size": 2, "start": "2020-01-06"}, 4),
]


@pytest.mark.parametrize(("fmt", "game", "options", "bots"), FORMATS, ids=[f[0] for f in FORMATS])
def test_every_format_plays_to_its_end_and_its_projection_equals_the_rebuilt_one(
    alice, fmt, game, options, bots
):
    tournament = make_tournament(alice, game=game, format=fmt, options=options, bots=bots)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    assert tournament.status == "finished"
    rows = selectors.standings(tournament)
    assert len(rows) == bots and rows[0]["rank"] == 1
    if fmt.endswith("elimination"):
        assert sorted(r["place"] for r in rows)[0] == 1
    assert_rebuild_equals_incremental(tournament)


def test_a_projection_left_behind_catches_up_from_the_log(alice):
    tournament = make_tournament(alice, bots=3)
    TournamentProjection.objects.filter(tournament=tournament).update(
        last_seq=1,
        state=fold.fold(
            projections.event_dict(e) for e in TournamentEvent.objects.filter(tournament=tournament, seq=1)
        ),
    )
    services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="random")
    stored = projections.state_of(tournament)
    assert stored["last_seq"] == 5 and len(stored["order"]) == 4
    assert_rebuild_equals_incremental(tournament)


def test_the_rebuild_command_reports_each_tournament(alice, capsys):
    tournament = make_tournament(alice, bots=4, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    StandingRow.objects.filter(tournament=tournament).delete()  # a read model lost
    call_command("rebuild_standings", str(tournament.pk))
    assert (
        f"tournament {tournament.pk}: {tournament.last_seq} events, standings changed"
        in capsys.readouterr().out
    )
    assert len(selectors.standings(tournament)) == 4
    call_command("rebuild_standings", "--check")
    assert "standings unchanged" in capsys.readouterr().out


def test_event_seqs_run_from_one_without_gaps(alice):
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tournament = play_to_end(tournament)
    seqs = list(
        TournamentEvent.objects.filter(tournament=tournament).order_by("seq").values_list("seq", flat=True)
    )
    assert seqs == list(range(1, reloaded(tournament).last_seq + 1))


def test_the_database_refuses_to_change_or_delete_an_event(alice):
    tournament = make_tournament(alice, bots=2)
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "UPDATE tournaments_tournamentevent SET actor = 'forger' WHERE tournament_id = %s",
            [tournament.pk],
        )
    with pytest.raises(DatabaseError), transaction.atomic():
        TournamentEvent.objects.filter(tournament=tournament).delete()
    assert TournamentEvent.objects.filter(tournament=tournament).count() == 3


_operations = st.lists(
    st.tuples(
        st.sampled_from(["correct", "forfeit", "disqualify", "withdraw", "play"]),
        st.integers(0, 5),
        st.integers(1, 3),
    ),
    min_size=1,
    max_size=8,
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=_operations)
def test_any_mix_of_results_and_corrections_keeps_incremental_equal_to_rebuilt(alice, operations):
    """Whatever the organiser does in whatever order, folding as we go equals folding at the end."""

    tournament = make_tournament(alice, bots=6, options={"rounds": 3})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    for kind, pick, rank in operations:
        tournament = reloaded(tournament)
        if tournament.status != "running":
            break
        latest = Round.objects.filter(tournament=tournament).order_by("-number").first()
        table = (
            latest.tables.order_by("number")[pick % latest.tables.count()] if latest.tables.exists() else None
        )
        try:
            if kind == "play":
                finish_round(tournament)
            elif kind == "correct" and table is not None:
                services.result_correct(
                    tournament_id=tournament.pk,
                    user=alice,
                    round_number=latest.number,
                    table_number=table.number,
                    ranks=[1, rank % 2 + 1],
                    reason="hypothesis",
                )
            elif kind == "forfeit" and table is not None:
                services.forfeit_award(
                    tournament_id=tournament.pk,
                    user=alice,
                    round_number=latest.number,
                    table_number=table.number,
                    forfeited=[table.seats[rank % 2]],
                    reason="h",
                )
            elif kind == "disqualify" and table is not None:
                services.entrant_disqualify(
                    tournament_id=tournament.pk, user=alice, entrant_id=table.seats[0], reason="hypothesis"
                )
            elif kind == "withdraw" and table is not None:
                services.entrant_withdraw(tournament_id=tournament.pk, user=alice, entrant_id=table.seats[1])
        except ApplicationError:
            pass  # refused operations (already disqualified, ...) change nothing
        services.tournament_advance(tournament_id=tournament.pk)
    assert_rebuild_equals_incremental(tournament)


def test_the_state_read_back_holds_no_tables_of_a_round_added_after_its_rounds_were_read(alice):
    """Rounds and tables are read by two statements; a round added between them (met by a
    browser test: a 500 from the bracket while the bots' tournament moved on) must not come as
    tables without their round. The round is added right after the rounds' statement, here."""
    tournament = make_tournament(alice, bots=4, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    first = Round.objects.get(tournament=tournament, number=1)
    added = []

    def add_a_round_after_the_rounds_are_read(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        rounds_read = 'FROM "tournaments_round" WHERE' in sql and 'ORDER BY "tournaments_round"."number"' in sql
        if not added and sql.startswith("SELECT") and rounds_read:
            added.append(Round.objects.create(tournament=tournament, number=2, starts_at=first.starts_at))
            RoundTable.objects.create(round=added[0], number=1, seats=first.tables.first().seats)
        return result

    with connection.execute_wrapper(add_a_round_after_the_rounds_are_read):
        state = projections.state_of(tournament)
    assert added, "the rounds' statement was not met"
    # PostgreSQL's cursor has every round before the second is added; SQLite's steps through its
    # rows and meets it too. Either way each round read holds its own tables and no other's.
    assert "1" in state["rounds"]
    for number, shown in state["rounds"].items():
        tables = RoundTable.objects.filter(round__tournament=tournament, round__number=int(number))
        assert [table["table"] for table in shown["tables"]] == sorted(tables.values_list("number", flat=True))
