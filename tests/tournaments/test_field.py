"""Who is really there: check-in, the waitlist, late entry, drops and re-entry, no-shows.

Every decision is an event naming its rule; the rebuild from the log equals the incremental rows.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import services as game_services
from games import turns
from games.engines import ENGINES
from games.models import Match
from games.state import state_at_head
from server.errors import ApplicationError
from tests.conftest import make_user
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
from tournaments.models import Entrant, Round, RoundTable, Tournament

pytestmark = pytest.mark.django_db


def refused(code: str, status: int, call, **kwargs) -> None:
    with pytest.raises(ApplicationError) as error:
        call(**kwargs)
    assert (error.value.code, error.value.status) == (code, status)


def people(count: int, prefix: str = "p") -> list:
    return [make_user(f"{prefix}{n}") for n in range(count)]


def rules_of(tournament) -> dict[int, str]:
    """Each decision's entrant (the first it names) and rule, from the decisions log."""
    return {d["entrants"][0]["id"]: d["rule"] for d in selectors.field_decisions(tournament) if d["entrants"]}


# --- the waitlist --------------------------------------------------------------------------------


def test_past_max_entrants_people_wait_in_line_and_a_freed_seat_goes_to_the_first(alice, bob, carol):
    dave, erin, fred = people(3, "w")
    tournament = make_tournament(alice, people=(bob, carol), max_entrants=2, field_rules={"waitlist": 2})
    first = services.entrant_register(tournament_id=tournament.pk, user=dave)
    second = services.entrant_register(tournament_id=tournament.pk, user=erin)
    assert (first.status, second.status) == ("waitlisted", "waitlisted")
    assert selectors.entrant_one(second)["waitlist_position"] == 2
    refused("tournament_full", 409, services.entrant_register, tournament_id=tournament.pk, user=fred)
    refused("already_waitlisted", 409, services.entrant_register, tournament_id=tournament.pk, user=dave)

    services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    assert Entrant.objects.get(pk=first.pk).status == "active"
    promoted = events_of(tournament, "PlayerPromoted")
    assert promoted == [{"entrant": first.pk, "rule": "waitlist.promoted", "why": promoted[0]["why"]}]
    bob_entrant = Entrant.objects.get(tournament=tournament, user=bob).pk
    assert f"entrant {bob_entrant} left the field" in promoted[0]["why"]  # by id: no person's name in the log
    assert projections.state_of(tournament)["waitlist"] == [second.pk]
    assert [row["entrant"]["id"] for row in selectors.standings(tournament)][-1] == first.pk
    assert_rebuild_equals_incremental(tournament)


def test_without_a_waitlist_a_full_tournament_refuses_as_before(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob,), max_entrants=1)
    refused("tournament_full", 409, services.entrant_register, tournament_id=tournament.pk, user=carol)
    assert event_types(tournament) == ["TournamentCreated", "PlayerRegistered"]


def test_bad_field_rules_are_refused_and_nothing_is_created(alice):
    for rules in (
        {"waitlist": -1}, {"late_entry": "yes"}, {"late_entry_award": "two"}, {"surprise": 1},
        {"no_show_drop_after": 2},
    ):
        refused("bad_field_rules", 400, make_tournament, organiser=alice, field_rules=rules)
    refused(
        "bad_field_rules", 400, make_tournament, organiser=alice, format="round-robin", field_rules={"late_entry": True}
    )
    assert not Tournament.objects.exists()


# --- check-in ------------------------------------------------------------------------------------


def test_people_who_do_not_check_in_are_dropped_at_the_start_and_checked_in_waiters_take_their_seats(
    alice, bob, carol
):
    dave, erin = people(2, "c")
    starts = timezone.now() + dt.timedelta(minutes=10)
    tournament = make_tournament(
        alice, people=(bob, carol), bots=2, max_entrants=4, starts_at=starts,
        field_rules={"check_in_minutes": 30, "waitlist": 5},
    )
    waiting_dave = services.entrant_register(tournament_id=tournament.pk, user=dave)
    waiting_erin = services.entrant_register(tournament_id=tournament.pk, user=erin)
    services.entrant_check_in(tournament_id=tournament.pk, user=bob)
    services.entrant_check_in(tournament_id=tournament.pk, user=dave)
    refused("already_checked_in", 409, services.entrant_check_in, tournament_id=tournament.pk, user=bob)
    refused("not_registered", 404, services.entrant_check_in, tournament_id=tournament.pk, user=alice)

    services.tournament_advance(tournament_id=tournament.pk, now=starts)
    tournament = reloaded(tournament)
    assert tournament.status == "running"
    carol_entry = Entrant.objects.get(tournament=tournament, user=carol)
    assert carol_entry.status == "withdrawn" and carol_entry.seed_order is None
    assert Entrant.objects.get(pk=waiting_dave.pk).status == "active"
    assert Entrant.objects.get(pk=waiting_erin.pk).status == "not_admitted"
    field = events_of(tournament, "TournamentStarted")[0]["field"]
    assert carol_entry.pk not in field and waiting_dave.pk in field and len(field) == 4
    decided = rules_of(tournament)
    assert decided[carol_entry.pk] == "check_in.missed"
    assert decided[waiting_dave.pk] == "waitlist.promoted"
    assert decided[waiting_erin.pk] == "waitlist.closed"
    assert_rebuild_equals_incremental(tournament)


def test_starting_before_the_check_in_window_opened_drops_nobody(alice, bob):
    starts = timezone.now() + dt.timedelta(hours=2)
    tournament = make_tournament(alice, people=(bob,), bots=1, starts_at=starts, field_rules={"check_in_minutes": 30})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert Entrant.objects.get(tournament=tournament, user=bob).status == "active"
    assert "CheckInMissed" not in event_types(tournament)


def test_check_in_has_a_window_and_only_where_the_organiser_set_one(alice, bob):
    starts = timezone.now() + dt.timedelta(hours=2)
    tournament = make_tournament(alice, people=(bob,), starts_at=starts, field_rules={"check_in_minutes": 30})
    refused("check_in_not_open", 409, services.entrant_check_in, tournament_id=tournament.pk, user=bob)
    services.entrant_check_in(tournament_id=tournament.pk, user=bob, now=starts - dt.timedelta(minutes=29))
    plain = make_tournament(alice, people=(bob,))
    refused("no_check_in", 409, services.entrant_check_in, tournament_id=plain.pk, user=bob)


# --- late entry ----------------------------------------------------------------------------------


def test_a_late_entrant_joins_the_next_round_with_one_bye_for_the_rounds_missed(alice, bob, carol):
    tournament = make_tournament(alice, bots=4, options={"rounds": 6}, field_rules={"late_entry": True})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    finish_round(tournament)  # round 1 played, round 2 paired and begun
    late = services.entrant_register(tournament_id=tournament.pk, user=bob)
    entered = events_of(tournament, "PlayerLateEntered")[0]
    assert (entered["first_round"], entered["bye_round"], entered["rule"]) == (3, 2, "late_entry.joined")
    assert bob.pk == entered["user"] and late.status == "active"
    row = {r["entrant"]["id"]: r for r in selectors.standings(tournament)}[late.pk]
    assert (row["byes"], row["points"]) == (1, 1)
    assert late.pk in Round.objects.get(tournament=tournament, number=2).byes
    # Half of 6 rounds: one may join for round 3 at the latest, so not once round 3 has begun.
    finish_round(tournament)
    refused("late_entry_closed", 409, services.entrant_register, tournament_id=tournament.pk, user=carol)
    assert_rebuild_equals_incremental(tournament)
    tournament = play_to_end(tournament)
    seated = {s for rt in RoundTable.objects.filter(round__tournament=tournament, round__number__gt=2) for s in rt.seats}
    byes = [b for rnd in Round.objects.filter(tournament=tournament, number__gt=2) for b in rnd.byes]
    assert late.pk in seated or late.pk in byes
    assert byes.count(late.pk) == 0  # the award was their bye: the pairing gives them none
    assert_rebuild_equals_incremental(tournament)


def test_late_entry_fixes_the_rounds_at_the_start_and_can_award_zero(alice, bob):
    tournament = make_tournament(
        alice, bots=4, field_rules={"late_entry": True, "late_entry_award": "zero", "late_entry_until_round": 2}
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert events_of(tournament, "TournamentStarted")[0]["rounds"] == 2  # ⌈log2 4⌉, not ⌈log2 5⌉ later
    late = services.entrant_register(tournament_id=tournament.pk, user=bob)
    assert events_of(tournament, "PlayerLateEntered")[0]["bye_round"] is None
    assert selectors.total_rounds(reloaded(tournament)) == 2
    row = {r["entrant"]["id"]: r for r in selectors.standings(tournament)}[late.pk]
    assert (row["byes"], row["points"]) == (0, 0)


def test_without_late_entry_a_running_tournament_refuses_registration(alice, bob):
    tournament = make_tournament(alice, bots=4)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    refused("registration_closed", 409, services.entrant_register, tournament_id=tournament.pk, user=bob)


# --- drops and re-entry --------------------------------------------------------------------------


def test_a_dropped_player_stays_in_the_standings_marked_and_may_come_back_where_allowed(alice, bob):
    tournament = make_tournament(alice, people=(bob,), bots=3, options={"rounds": 3}, field_rules={"reentry": True})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    finish_round(tournament)
    dropped = services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    row = {r["entrant"]["id"]: r for r in selectors.standings(tournament)}[dropped.pk]
    assert row["withdrawn"] is True
    back = services.entrant_reenter(tournament_id=tournament.pk, user=bob)
    assert back.status == "active" and back.withdrawn_from_round is None
    event = events_of(tournament, "PlayerReentered")[0]
    assert event["rule"] == "reentry.player" and "no bye" in event["why"]
    refused("not_dropped", 409, services.entrant_reenter, tournament_id=tournament.pk, user=bob)
    assert_rebuild_equals_incremental(tournament)


def test_re_entry_is_the_organisers_choice(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob,), bots=3, options={"rounds": 3})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    dropped = services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    refused("reentry_not_allowed", 403, services.entrant_reenter, tournament_id=tournament.pk, user=bob)
    refused("not_organiser", 403, services.entrant_reenter, tournament_id=tournament.pk, user=carol,
            entrant_id=dropped.pk)
    back = services.entrant_reenter(tournament_id=tournament.pk, user=alice, entrant_id=dropped.pk)
    assert back.status == "active"
    assert events_of(tournament, "PlayerReentered")[0]["rule"] == "reentry.organiser"


def test_a_seat_taken_by_a_late_entrant_is_not_given_back_by_re_entry_but_the_organiser_may(alice, bob, carol):
    tournament = make_tournament(
        alice, people=(bob,), bots=3, options={"rounds": 4}, max_entrants=4,
        field_rules={"late_entry": True, "reentry": True},
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    dropped = services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    services.entrant_register(tournament_id=tournament.pk, user=carol)  # late, into Bob's seat
    refused("tournament_full", 409, services.entrant_reenter, tournament_id=tournament.pk, user=bob)
    assert Entrant.objects.get(pk=dropped.pk).status == "withdrawn"
    services.entrant_reenter(tournament_id=tournament.pk, user=alice, entrant_id=dropped.pk)
    assert Entrant.objects.filter(tournament=tournament, status="active").count() == 5
    assert_rebuild_equals_incremental(tournament)


def test_leaving_and_rejoining_never_earns_a_second_bye(alice, bob):
    """Regression for the lichess leave-and-rejoin exploit (lila#12497): a player who drops and
    comes back scores nothing for the round missed, and the pairing gives them no bye for it."""
    tournament = make_tournament(alice, people=(bob,), bots=4, options={"rounds": 5}, field_rules={"reentry": True})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    bob_entry = Entrant.objects.get(tournament=tournament, user=bob)
    services.entrant_withdraw(tournament_id=tournament.pk, user=bob)  # from round 2
    finish_round(tournament)  # round 1 played; round 2 paired without Bob
    assert bob_entry.pk not in {s for t in RoundTable.objects.filter(round__number=2, round__tournament=tournament)
                                for s in t.seats}
    assert services.entrant_reenter(tournament_id=tournament.pk, user=bob).status == "active"
    assert events_of(tournament, "PlayerReentered")[0]["from_round"] == 3
    assert_rebuild_equals_incremental(tournament)
    tournament = play_to_end(tournament)
    byes = [b for rnd in Round.objects.filter(tournament=tournament).order_by("number") for b in rnd.byes]
    assert bob_entry.pk not in Round.objects.get(tournament=tournament, number=2).byes
    assert byes.count(bob_entry.pk) <= 1  # one bye while anyone has none: 4 byes, 5 players
    row = {r["entrant"]["id"]: r for r in selectors.standings(tournament)}[bob_entry.pk]
    assert row["played"] + row["byes"] == 4 and row["withdrawn"] is False
    assert_rebuild_equals_incremental(tournament)


# --- no-shows ------------------------------------------------------------------------------------


def _let_the_clock_play_for(match_id: int, user) -> None:
    """The present player moves whenever it is their turn; the clock plays for `user` once."""
    engine = ENGINES["sequence-stacks"]
    match = Match.objects.get(pk=match_id)
    for _ in range(2):
        match.refresh_from_db()
        state = state_at_head(match_id, match.game, match.last_seq)
        seat = engine.to_act(state)[0]
        sitter = match.seat_set.get(seat=seat).user
        if sitter == user:
            assert turns.clock_expire(match_id=match_id, seat=seat, expected_seq=match.last_seq)
        else:
            game_services.move_submit(match_id=match_id, user=sitter, move=engine.legal_moves(state, seat)[0])


def test_a_no_show_forfeits_the_table_and_is_dropped_after_the_set_number_of_forfeits(alice, bob, carol):
    tournament = make_tournament(
        alice, people=(bob, carol), options={"rounds": 3}, match_options={"turn_limit": 6},
        field_rules={"no_show_seconds": 60, "no_show_drop_after": 1},
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    (match_id,) = running_matches(tournament)
    _let_the_clock_play_for(match_id, bob)
    started = Round.objects.get(tournament=tournament, number=1).started_at
    assert services.tournament_advance(tournament_id=tournament.pk, now=started + dt.timedelta(seconds=59)) == []
    assert tournament.pk not in services.tournaments_due(now=started + dt.timedelta(seconds=59))
    assert tournament.pk in services.tournaments_due(now=started + dt.timedelta(seconds=60))  # a lost task
    steps = services.tournament_advance(tournament_id=tournament.pk, now=started + dt.timedelta(seconds=60))
    assert steps[0] == "no-shows"
    bob_entry = Entrant.objects.get(tournament=tournament, user=bob)
    (forfeits,) = events_of(tournament, "NoShowsForfeited")
    assert forfeits["tables"][0]["forfeited"] == [bob_entry.pk] and forfeits["rule"] == "no_show.forfeit"
    assert RoundTable.objects.get(match_id=match_id).result["source"] == "NoShowsForfeited"
    assert Match.objects.get(pk=match_id).status == "finished"  # played out: the present player is free
    (drop,) = events_of(tournament, "PlayerDropped")
    assert (drop["entrant"], drop["from_round"], drop["rule"]) == (bob_entry.pk, 2, "no_show.dropped")
    row = {r["entrant"]["id"]: r for r in selectors.standings(tournament)}[bob_entry.pk]
    assert (row["forfeits"], row["withdrawn"]) == (1, True)
    assert_rebuild_equals_incremental(tournament)


def test_a_present_player_whose_turn_has_not_come_is_no_no_show(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob, carol), options={"rounds": 1},
                                 field_rules={"no_show_seconds": 60})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    started = Round.objects.get(tournament=tournament, number=1).started_at
    services.tournament_advance(tournament_id=tournament.pk, now=started + dt.timedelta(seconds=61))
    assert events_of(tournament, "NoShowsForfeited")[0]["tables"] == []
    assert not events_of(tournament, "PlayerDropped")
