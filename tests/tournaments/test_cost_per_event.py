"""Every tournament event costs the same at any size: a registration, a table's result and a
standings read run the same SQL statements and write the same number of rows whether the field is
small or large (counted by PostgreSQL, not timed), and the rows they leave equal the pure fold's."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import turns
from tests.conftest import make_user
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    make_tournament,
    reloaded,
    running_matches,
)
from tournaments import fold, projections, selectors, services
from tournaments.models import Entrant, StandingRow

pytestmark = pytest.mark.django_db


def _rows_written() -> int:
    """Rows inserted, updated and deleted so far in this transaction, over every table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) FROM pg_stat_xact_user_tables")
        return int(cursor.fetchone()[0])


def _statements(call) -> tuple[int, int]:
    """The SQL statements a call runs and the rows it writes."""
    before = _rows_written()
    with CaptureQueriesContext(connection) as queries:
        call()
    return len(queries), _rows_written() - before


@pytest.mark.postgres
def test_a_registration_runs_as_many_statements_in_a_big_field_as_in_a_small_one(alice, settings):
    settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT = 200  # a big field of bots, as a staff organiser may enter
    small = make_tournament(alice, bots=2)
    big = make_tournament(alice, bots=80)
    people = [make_user(f"player{n}") for n in range(2)]
    costs = [
        _statements(lambda t=t, p=p: services.entrant_register(tournament_id=t.pk, user=p))
        for t, p in zip((small, big), people)
    ]
    bots = [
        _statements(lambda t=t: services.entrant_bot_add(tournament_id=t.pk, user=alice, bot="random"))
        for t in (small, big)
    ]
    assert costs[0] == costs[1] and bots[0] == bots[1]


def _one_result_cost(organiser, bots: int) -> int:
    tournament = make_tournament(organiser, bots=bots, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    first = running_matches(tournament)[0]
    turns.match_play_out(match_id=first)
    return _statements(lambda: services.tournament_match_finished(match_id=first))


@pytest.mark.postgres
def test_recording_a_table_result_runs_as_many_statements_in_a_big_round_as_in_a_small_one(alice):
    assert _one_result_cost(alice, 6) == _one_result_cost(alice, 60)


@pytest.mark.postgres
def test_a_standings_page_and_ones_own_row_read_the_same_whatever_the_fields_size(alice, client, settings):
    settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT = 200  # a big field of bots, as a staff organiser may enter
    small, big = make_tournament(alice, bots=4), make_tournament(alice, bots=120)
    pages = [_statements(lambda t=t: client.get(f"/api/tournaments/{t.pk}/standings?limit=20")) for t in (small, big)]
    entrant = {t.pk: Entrant.objects.filter(tournament=t).order_by("-pk").first().pk for t in (small, big)}
    own = [
        _statements(lambda t=t: client.get(f"/api/tournaments/{t.pk}/standings/{entrant[t.pk]}")) for t in (small, big)
    ]
    assert pages[0] == pages[1] and own[0] == own[1]
    answer = client.get(f"/api/tournaments/{big.pk}/standings/{entrant[big.pk]}").json()
    assert answer["position"] == 120 and answer["entrant"]["id"] == entrant[big.pk]


def test_ones_own_standing_is_public_and_a_stranger_is_not_in_it(alice, bob, client):
    tournament = make_tournament(alice, bots=3)
    other = make_tournament(alice, bots=2)
    stranger = Entrant.objects.filter(tournament=other).first().pk
    answer = client.get(f"/api/tournaments/{tournament.pk}/standings/{stranger}")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_in_standings"
    assert client.get(f"/api/tournaments/999999/standings/{stranger}").status_code == 404
    first = Entrant.objects.filter(tournament=tournament).order_by("pk").first().pk
    # The standings are public: anonymous, a spectator, the organiser and staff read the same row.
    for reader in (None, bob, alice, make_user("staff", staff=True)):
        if reader is not None:
            client.force_login(reader)
        answer = client.get(f"/api/tournaments/{tournament.pk}/standings/{first}")
        assert answer.status_code == 200 and answer.json()["position"] == 1
    assert client.post(f"/api/tournaments/{tournament.pk}/standings/{first}").status_code == 405


def test_mid_round_points_are_live_and_the_completed_round_ranks_the_whole_table(alice):
    tournament = make_tournament(alice, bots=6, options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    first, *rest = running_matches(tournament)
    turns.match_play_out(match_id=first)
    services.tournament_match_finished(match_id=first)
    _, rows = fold.fold_with_standings(
        projections.event_dict(e) for e in reloaded(tournament).events.order_by("seq")
    )
    assert sum(row.played for row in StandingRow.objects.filter(tournament=tournament)) == 2  # one table's two
    assert selectors.standings_snapshot(tournament) == selectors.rows_snapshot(rows)
    for match_id in rest:
        turns.match_play_out(match_id=match_id)
        services.tournament_match_finished(match_id=match_id)
    # Round 1 completed and round 2 paired: the stored table is the full ranking of the log.
    state = fold.fold(projections.event_dict(e) for e in reloaded(tournament).events.order_by("seq"))
    assert selectors.standings_snapshot(tournament) == selectors.rows_snapshot(fold.standings(state))
    assert_rebuild_equals_incremental(tournament)


_registrations = st.lists(st.tuples(st.sampled_from(["bot", "withdraw", "return"]), st.integers(0, 20)),
                          min_size=1, max_size=25)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=_registrations)
def test_registrations_and_withdrawals_keep_the_rows_a_full_ranking_gives(alice, steps):
    """Before the start every change touches a row or two; the table equals ranking everyone again."""
    tournament = make_tournament(alice, options={"seeding": "rating"})
    person = make_user(f"entrant{tournament.pk}")
    for kind, pick in steps:
        active = list(Entrant.objects.filter(tournament=tournament, status="active").order_by("pk"))
        if kind == "bot":
            services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="random")
        elif kind == "withdraw" and active:
            services.entrant_withdraw(tournament_id=tournament.pk, user=alice, entrant_id=active[pick % len(active)].pk)
        elif kind == "return" and not Entrant.objects.filter(tournament=tournament, user=person, status="active"):
            services.entrant_register(tournament_id=tournament.pk, user=person)
        state = projections.state_of(tournament)
        assert [row[1:3] for row in selectors.standings_snapshot(tournament)] == [
            (row["entrant"], row["rank"]) for row in fold.standings(state)
        ]
    assert_rebuild_equals_incremental(tournament)
