"""Registering and withdrawing: people enter themselves, the organiser enters bots."""

from __future__ import annotations

import pytest

from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.tournaments.builders import event_types, events_of, make_tournament
from tournaments import fold, projections, services
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db


def refused(code: str, status: int, call, **kwargs) -> None:
    with pytest.raises(ApplicationError) as error:
        call(**kwargs)
    assert (error.value.code, error.value.status) == (code, status)


def test_a_person_registers_and_is_in_the_field(alice, bob):
    tournament = make_tournament(alice)
    entrant = services.entrant_register(tournament_id=tournament.pk, user=bob)
    assert (entrant.user, entrant.bot, entrant.name, entrant.status) == (bob, "", "Bob", "active")
    assert events_of(tournament, "PlayerRegistered") == [
        {"entrant": entrant.pk, "user": bob.pk, "bot": ""}  # by id: no person's name in the log
    ]
    assert projections.state_of(tournament)["order"] == [entrant.pk]


def test_registering_twice_is_a_clear_409(alice, bob):
    tournament = make_tournament(alice, people=(bob,))
    answer = client_for(bob).post(f"/api/tournaments/{tournament.pk}/register")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "already_registered"
    assert event_types(tournament).count("PlayerRegistered") == 1


def test_registering_after_the_start_is_a_clear_409(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob,), bots=1)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    answer = client_for(carol).post(f"/api/tournaments/{tournament.pk}/register")
    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "registration_closed"


def test_registering_through_the_api_answers_the_entrant(alice, bob):
    tournament = make_tournament(alice)
    answer = client_for(bob).post(f"/api/tournaments/{tournament.pk}/register")
    assert answer.status_code == 201
    assert answer.json() | {"id": 0} == {
        "id": 0,
        "name": "Bob",
        "user": bob.pk,
        "bot": "",
        "status": "active",
        "seed": None,
        "rating": None,
        "checked_in": False,
        "waitlist_position": None,
    }


def test_a_full_tournament_refuses_more_players(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob,), max_entrants=2)
    services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="random")
    refused("tournament_full", 409, services.entrant_register, tournament_id=tournament.pk, user=carol)


def test_the_organiser_adds_bots_with_numbered_names(alice):
    tournament = make_tournament(alice, bots=3, bot="stack_finisher")
    names = list(Entrant.objects.filter(tournament=tournament).values_list("name", "bot"))
    assert names == [(f"stack_finisher {n}", "stack_finisher") for n in (1, 2, 3)]


def test_only_the_organiser_adds_bots(alice, bob):
    tournament = make_tournament(alice)
    answer = client_for(bob).post(f"/api/tournaments/{tournament.pk}/bots", {"bot": "random"}, format="json")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_organiser"
    assert not Entrant.objects.exists()


def test_an_unknown_bot_or_a_taken_name_is_refused(alice):
    tournament = make_tournament(alice)
    refused(
        "unknown_bot", 400, services.entrant_bot_add, tournament_id=tournament.pk, user=alice, bot="deep-blue"
    )
    services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="random", name="Robo")
    refused(
        "name_taken",
        409,
        services.entrant_bot_add,
        tournament_id=tournament.pk,
        user=alice,
        bot="random",
        name="Robo",
    )


def test_withdrawing_before_the_start_leaves_the_field_and_one_may_enter_again(alice, bob):
    tournament = make_tournament(alice, people=(bob,), bots=1)
    entrant = services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    assert entrant.status == "withdrawn"
    assert events_of(tournament, "PlayerWithdrawn") == [
        {"entrant": entrant.pk, "from_round": None, "rule": "drop.requested", "why": "The player dropped."}
    ]
    assert entrant.pk not in projections.state_of(tournament)["order"]
    again = services.entrant_register(tournament_id=tournament.pk, user=bob)
    assert again.pk == entrant.pk and again.status == "active"
    assert projections.state_of(tournament)["order"][-1] == entrant.pk


def test_withdrawing_twice_or_unregistered_is_refused(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob,))
    services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    refused("already_withdrawn", 409, services.entrant_withdraw, tournament_id=tournament.pk, user=bob)
    refused("not_registered", 404, services.entrant_withdraw, tournament_id=tournament.pk, user=carol)


def test_only_the_organiser_withdraws_someone_else(alice, bob, carol):
    tournament = make_tournament(alice, people=(bob, carol))
    bob_entry = Entrant.objects.get(tournament=tournament, user=bob)
    answer = client_for(carol).post(
        f"/api/tournaments/{tournament.pk}/withdraw", {"entrant": bob_entry.pk}, format="json"
    )
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_organiser"
    answer = client_for(alice).post(
        f"/api/tournaments/{tournament.pk}/withdraw", {"entrant": bob_entry.pk}, format="json"
    )
    assert answer.status_code == 200 and answer.json()["status"] == "withdrawn"


def test_withdrawing_after_the_start_keeps_results_and_skips_later_rounds(alice):
    people = [make_user(f"p{n}") for n in range(4)]
    tournament = make_tournament(alice, people=tuple(people), options={"rounds": 3})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    entrant = services.entrant_withdraw(tournament_id=tournament.pk, user=people[0])
    assert [
        {key: data[key] for key in ("entrant", "from_round", "rule")} for data in events_of(tournament, "PlayerWithdrawn")
    ] == [{"entrant": entrant.pk, "from_round": 2, "rule": "drop.requested"}]
    state = projections.state_of(tournament)
    assert (
        entrant.pk in state["rounds"]["1"]["tables"][0]["seats"] + state["rounds"]["1"]["tables"][1]["seats"]
    )
    assert fold.history(state).absent_in(2) == {entrant.pk}
