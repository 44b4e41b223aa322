"""Property: whatever players do to the field (register past the limit, check in, withdraw, join
late, come back) between rounds, a refused request changes nothing, and the rows kept event by
event equal those rebuilt from the log."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.errors import ApplicationError
from tests.conftest import make_user
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    finish_round,
    make_tournament,
    reloaded,
)
from tournaments import services
from tournaments.field_rules import RULES
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db

_PEOPLE = 3
_names = itertools.count()

_steps = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(["register", "check_in", "withdraw", "reenter"]), st.integers(0, _PEOPLE - 1)),
        st.tuples(st.sampled_from(["start", "round"]), st.just(0)),
    ),
    min_size=4,
    max_size=20,
)


@settings(suppress_health_check=list(HealthCheck))
@given(steps=_steps, format=st.sampled_from(["swiss", "swiss-tables"]), check_in=st.booleans())
def test_any_sequence_of_field_changes_rebuilds_to_the_same_rows(alice, steps, format, check_in):
    options = {"rounds": 3} if format == "swiss" else {"rounds": 3, "table_size": 2}
    tournament = make_tournament(
        alice, format=format, bots=2, options=options, max_entrants=4,
        field_rules={"check_in_minutes": 30 if check_in else None, "waitlist": 2, "late_entry": True,
                     "reentry": True, "late_entry_until_round": 3},
    )
    people = [make_user(f"prop{next(_names)}") for _ in range(_PEOPLE)]
    for action, who in steps:
        head = reloaded(tournament).last_seq
        try:
            if action == "register":
                services.entrant_register(tournament_id=tournament.pk, user=people[who])
            elif action == "check_in":
                services.entrant_check_in(tournament_id=tournament.pk, user=people[who])
            elif action == "withdraw":
                services.entrant_withdraw(tournament_id=tournament.pk, user=people[who])
            elif action == "reenter":
                services.entrant_reenter(tournament_id=tournament.pk, user=people[who])
            elif action == "start":
                services.tournament_start(tournament_id=tournament.pk, user=alice)
            elif reloaded(tournament).status == "running":
                finish_round(reloaded(tournament)) or services.tournament_advance(tournament_id=tournament.pk)
        except ApplicationError:
            assert reloaded(tournament).last_seq == head  # refused: nothing written
    decided = TournamentEvent.objects.filter(tournament=tournament, data__has_key="rule")
    assert all(event.data["rule"] in RULES and event.data["why"] for event in decided)
    assert_rebuild_equals_incremental(tournament)
