"""The field's endpoints over HTTP: check-in, re-entry, the decisions log, field rules at creation.

The permission matrix: anonymous, another player, a spectator, the organiser and staff, for
every new endpoint; a refused request answers `{error: {code, message}}` and changes nothing.
"""

from __future__ import annotations

import pytest

from tests.conftest import client_for, make_user
from tests.tournaments.builders import finish_round, make_tournament
from tournaments import services
from tournaments.models import Entrant, TournamentEvent

pytestmark = pytest.mark.django_db


def _error(answer) -> tuple[int, str]:
    body = answer.json()
    assert body["error"]["message"]
    return answer.status_code, body["error"]["code"]


@pytest.fixture
def cast(alice, bob, carol, staff):
    """alice organises, bob plays, carol plays too (the other player), a spectator watches."""
    return {"organiser": alice, "player": bob, "other": carol, "spectator": make_user("spec"), "staff": staff}


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        ("anonymous", 401, None),
        ("spectator", 404, "not_registered"),
        ("staff", 404, "not_registered"),
        ("organiser", 404, "not_registered"),
        ("player", 200, None),
        ("other", 200, None),
    ],
)
def test_check_in_permissions(cast, who, status, code):
    tournament = make_tournament(
        cast["organiser"], people=(cast["player"], cast["other"]), field_rules={"check_in_minutes": 30}
    )
    client = client_for(cast.get(who))
    path = f"/api/tournaments/{tournament.pk}/check-in"
    events = TournamentEvent.objects.filter(tournament=tournament).count()
    answer = client.post(path, format="json")
    assert answer.status_code == status
    if status != 200:
        if code:
            assert _error(answer) == (status, code)
        assert TournamentEvent.objects.filter(tournament=tournament).count() == events
        return
    assert answer.json()["checked_in"] is True
    assert _error(client.post(path, format="json")) == (409, "already_checked_in")


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        ("anonymous", 401, None),
        ("spectator", 404, "not_registered"),
        ("staff", 404, "not_registered"),
        ("other", 409, "not_dropped"),
        ("player", 200, None),
    ],
)
def test_reentry_permissions_for_the_caller(cast, who, status, code):
    tournament = make_tournament(
        cast["organiser"], people=(cast["player"], cast["other"]), bots=2, options={"rounds": 3},
        field_rules={"reentry": True},
    )
    services.tournament_start(tournament_id=tournament.pk, user=cast["organiser"])
    services.entrant_withdraw(tournament_id=tournament.pk, user=cast["player"])
    events = TournamentEvent.objects.filter(tournament=tournament).count()
    answer = client_for(cast.get(who)).post(f"/api/tournaments/{tournament.pk}/reenter", {}, format="json")
    assert answer.status_code == status
    if status == 200:
        assert answer.json()["status"] == "active"
        return
    if code:
        assert _error(answer) == (status, code)
    assert TournamentEvent.objects.filter(tournament=tournament).count() == events


@pytest.mark.parametrize(
    ("who", "status", "code"),
    [
        ("anonymous", 401, None),
        ("spectator", 403, "not_organiser"),
        ("other", 403, "not_organiser"),
        ("staff", 403, "not_organiser"),
        ("player", 403, "reentry_not_allowed"),  # their own entry, but the rule is off
        ("organiser", 200, None),
    ],
)
def test_readmitting_another_entrant_is_the_organisers(cast, who, status, code):
    tournament = make_tournament(
        cast["organiser"], people=(cast["player"], cast["other"]), bots=2, options={"rounds": 3}
    )
    services.tournament_start(tournament_id=tournament.pk, user=cast["organiser"])
    dropped = services.entrant_withdraw(tournament_id=tournament.pk, user=cast["player"])
    events = TournamentEvent.objects.filter(tournament=tournament).count()
    answer = client_for(cast.get(who)).post(
        f"/api/tournaments/{tournament.pk}/reenter", {"entrant": dropped.pk}, format="json"
    )
    assert answer.status_code == status
    if status == 200:
        assert answer.json()["status"] == "active"
        return
    if code:
        assert _error(answer) == (status, code)
    assert TournamentEvent.objects.filter(tournament=tournament).count() == events
    assert Entrant.objects.get(pk=dropped.pk).status == "withdrawn"


@pytest.mark.parametrize("who", ["anonymous", "spectator", "other", "player", "organiser", "staff"])
def test_anyone_reads_the_decisions_with_their_rules(cast, who):
    tournament = make_tournament(
        cast["organiser"], people=(cast["player"],), max_entrants=1, field_rules={"waitlist": 1}
    )
    services.entrant_register(tournament_id=tournament.pk, user=cast["other"])
    answer = client_for(cast.get(who)).get(f"/api/tournaments/{tournament.pk}/decisions")
    assert answer.status_code == 200
    (decision,) = answer.json()
    assert decision["rule"] == "waitlist.joined" and decision["entrants"][0]["name"] == "Carol"
    assert "max_entrants is 1" in decision["why"]


def test_bad_requests_are_refused_with_a_code_and_change_nothing(cast):
    organiser, player = cast["organiser"], cast["player"]
    tournament = make_tournament(organiser, people=(player,), bots=3, options={"rounds": 3})
    events = TournamentEvent.objects.filter(tournament=tournament).count()
    base = f"/api/tournaments/{tournament.pk}"
    assert _error(client_for(player).post(f"{base}/check-in", format="json")) == (409, "no_check_in")
    assert _error(client_for(player).post(f"{base}/reenter", {"entrant": "x"}, format="json"))[0] == 400
    assert _error(client_for(organiser).post(f"{base}/reenter", {"entrant": 10**9}, format="json")) == (
        404, "entrant_not_found"
    )
    assert _error(client_for(player).post(f"{base}/reenter", {}, format="json")) == (409, "tournament_not_running")
    assert _error(client_for(player).post("/api/tournaments/999999/check-in", format="json"))[0] == 404
    assert _error(client_for().get("/api/tournaments/999999/decisions"))[0] == 404
    assert TournamentEvent.objects.filter(tournament=tournament).count() == events
    answer = client_for(organiser).post(
        "/api/tournaments",
        {"name": "x", "game": "sequence-stacks", "format": "swiss", "field_rules": {"waitlist": "many"}},
        format="json",
    )
    assert _error(answer) == (400, "bad_field_rules")


def test_field_rules_are_given_at_creation_and_shown(cast):
    answer = client_for(cast["organiser"]).post(
        "/api/tournaments",
        {
            "name": "Open", "game": "sequence-stacks", "format": "swiss", "max_entrants": 8,
            "field_rules": {"waitlist": 4, "late_entry": True, "reentry": True, "check_in_minutes": 20},
        },
        format="json",
    )
    assert answer.status_code == 201
    shown = answer.json()
    assert shown["field_rules"]["waitlist"] == 4 and shown["field_rules"]["late_entry_award"] == "bye"
    assert shown["waitlisted"] == 0 and shown["check_in_opens_at"] is None


def test_a_late_entrant_registers_through_the_same_endpoint(cast):
    tournament = make_tournament(cast["organiser"], bots=4, options={"rounds": 4}, field_rules={"late_entry": True})
    services.tournament_start(tournament_id=tournament.pk, user=cast["organiser"])
    answer = client_for(cast["player"]).post(f"/api/tournaments/{tournament.pk}/register", format="json")
    assert answer.status_code == 201 and answer.json()["status"] == "active"
    finish_round(tournament)
    finish_round(tournament)
    late = client_for(cast["other"]).post(f"/api/tournaments/{tournament.pk}/register", format="json")
    assert _error(late) == (409, "late_entry_closed")
