"""Issue #39 (low): a private table is in a player's list (`?player=`) and on their profile only
for the people seated at it, its creator and staff; everyone else sees the player's other tables."""
from __future__ import annotations

import pytest
from django.test import Client

from games import services
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

GAME = "ten"


@pytest.fixture
def tables(alice, bob):
    private = services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)
    public = services.match_create(user=alice, game=GAME, players=2)
    return private, public


def listed(user, player: str) -> list[int]:
    return [m["id"] for m in client_for(user).get("/api/matches", {"player": player}).json()["results"]]


@pytest.mark.parametrize("persona", ["anonymous", "another player", "player of another table"])
def test_a_private_table_is_not_in_a_players_list_for_others(tables, bob, persona):
    """Prevents anyone learning who plays privately with whom from alice's list."""
    private, public = tables
    viewer = None
    if persona == "another player":
        viewer = bob
    elif persona == "player of another table":
        viewer = make_user("carol")
        services.match_create(user=viewer, game=GAME, players=2)
    assert listed(viewer, "alice") == [public.pk]
    assert listed(viewer, str(private.created_by_id)) == [public.pk]


@pytest.mark.parametrize("persona", ["creator", "seated invitee", "staff"])
def test_its_seats_creator_and_staff_still_see_it(tables, alice, bob, persona):
    private, public = tables
    viewer = {"creator": alice, "staff": make_user("sam", staff=True)}.get(persona)
    if persona == "seated invitee":
        token = client_for(alice).post(f"/api/matches/{private.pk}/invitations", {}, format="json").json()["token"]
        assert client_for(bob).post(f"/api/invitations/{token}/accept", {}, format="json").status_code == 200
        viewer = bob
    assert sorted(listed(viewer, "alice")) == sorted([private.pk, public.pk])


def test_the_lobby_never_lists_it_even_for_staff(tables):
    private, public = tables
    lobby = [m["id"] for m in client_for(make_user("sam", staff=True)).get("/api/matches").json()["results"]]
    assert private.pk not in lobby and public.pk in lobby


def test_the_creators_public_profile_leaves_it_out(tables, alice):
    """Prevents the profile page showing a private table to a visitor."""
    private, public = tables
    shown = [row["id"] for row in Client().get("/players/alice").context["recent"]]
    assert shown == [public.pk]
    own = Client()
    own.force_login(alice)
    assert sorted(row["id"] for row in own.get("/players/alice").context["recent"]) == sorted([private.pk, public.pk])
