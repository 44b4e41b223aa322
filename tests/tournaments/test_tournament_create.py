"""Creating a tournament: its settings are checked up front and it opens for registration."""

from __future__ import annotations

import pytest

from server.errors import ApplicationError
from tests.conftest import client_for
from tests.tournaments.builders import event_types
from tournaments import services
from tournaments.models import Tournament, TournamentEvent

pytestmark = pytest.mark.django_db


def test_it_opens_for_registration_with_a_created_event(alice):
    tournament = services.tournament_create(
        organiser=alice,
        name="Open",
        game="ten",
        format="swiss-tables",
        options={"table_size": 4, "rounds": 5},
    )
    assert tournament.status == Tournament.Status.REGISTRATION
    assert event_types(tournament) == ["TournamentCreated"]
    created = TournamentEvent.objects.get(tournament=tournament, seq=1)
    assert created.data["options"] == {
        "table_size": 4,
        "rounds": 5,
        "min_players": 2,
        "max_players": 5,
        "cooperative": False,
    }
    assert created.actor == f"user:{alice.pk}"
    assert "seed" not in created.data and len(tournament.seed_sha256) == 64


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"game": "chess"}, "unknown_game"),
        ({"format": "ladder"}, "unknown_format"),
        ({"options": {"rounds": 0}}, "bad_options"),
        ({"options": {"colour": "red"}}, "bad_options"),
        ({"options": {"seed": 4}}, "bad_options"),
        (
            {"format": "swiss", "game": "the-game"},
            "bad_options",
        ),  # a two-player format needs a competitive game
        ({"match_options": {"deck": ["B1"]}}, "bad_options"),
        ({"match_options": {"turn_limit": -1}}, "bad_options"),
    ],
)
def test_it_refuses_settings_it_cannot_run(alice, changes, code):
    settings = {"name": "X", "game": "sequence-stacks", "format": "swiss", **changes}
    with pytest.raises(ApplicationError) as refused:
        services.tournament_create(organiser=alice, **settings)
    assert refused.value.code == code and refused.value.status == 400
    assert not Tournament.objects.exists()


def test_the_api_creates_it_for_the_caller_and_anyone_reads_it(alice):
    body = {
        "name": "Spring league",
        "game": "the-game",
        "format": "league",
        "options": {"format": "swiss-tables", "rounds": 3, "table_size": 3, "start": "2030-03-02"},
    }
    answer = client_for(alice).post("/api/tournaments", body, format="json")
    assert answer.status_code == 201, answer.json()
    created = answer.json()
    assert created["organiser"] == alice.pk and created["status"] == "registration"
    assert created["seed"] is None and created["total_rounds"] is None
    read = client_for().get(f"/api/tournaments/{created['id']}")
    assert read.status_code == 200 and read.json()["name"] == "Spring league"
    listed = client_for().get("/api/tournaments", {"game": "the-game"}).json()
    assert [t["id"] for t in listed["results"]] == [created["id"]]


def test_creating_needs_an_account():
    answer = client_for().post(
        "/api/tournaments", {"name": "X", "game": "ten", "format": "swiss"}, format="json"
    )
    assert answer.status_code in (401, 403)


def test_a_bad_option_is_a_clear_400(alice):
    answer = client_for(alice).post(
        "/api/tournaments",
        {"name": "X", "game": "ten", "format": "swiss-tables", "options": {"table_size": 9}},
        format="json",
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_options"


def test_an_unknown_tournament_is_a_404():
    answer = client_for().get("/api/tournaments/999")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "tournament_not_found"


@pytest.mark.parametrize("field", ["max_entrants", "round_seconds"])
def test_a_number_past_what_a_tournament_can_hold_is_a_400(alice, field):
    # Schemathesis sent max_entrants 13,495,829,200: past the column, it answered 500.
    answer = client_for(alice).post(
        "/api/tournaments", {"name": "X", "game": "ten", "format": "round-robin", field: 13_495_829_200}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "invalid_input" and field in answer.json()["error"]["extra"]["fields"]
