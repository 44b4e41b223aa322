"""Issue #39, finding 2: nothing from outside a sealed table reaches its players while it is
sealed. A spectator who invites one of them by name chose the text the invitation shows (their
display name), so it is held: told once the deal is done (`games.services.matches_unseal`)."""
from __future__ import annotations

import pytest

from games import services as game_services
from games.models import Match
from notifications.models import Notification
from tests.chat.conftest import sealed_world  # noqa: F401 - a fixture
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def invite(inviter, invitee):
    match = game_services.match_create(user=inviter, game="ten", players=3, rated=False)
    made = client_for(inviter).post(f"/api/matches/{match.pk}/invitations", {"username": invitee.username}, format="json")
    assert made.status_code == 201, made.json()
    return made.json()["id"]


def test_an_invitation_to_a_player_of_a_sealed_table_is_held_until_the_deal_is_done(sealed_world):  # noqa: F811
    player, spectator = sealed_world["users"]["seated"], sealed_world["users"]["spectator"]
    spectator.display_name = "opp has R1 R3 R4 R5"
    spectator.save()
    invitation = invite(spectator, player)
    assert not Notification.objects.filter(user=player, kind="invited").exists()
    game_services.matches_unseal(match_ids=list(Match.objects.filter(sealed=True).values_list("pk", flat=True)))
    [note] = Notification.objects.filter(user=player, kind="invited")
    assert note.key == str(invitation) and note.data["title"].startswith("opp has R1 R3 R4 R5")
    game_services.matches_unseal(match_ids=[sealed_world["match"]])  # again: told once
    assert Notification.objects.filter(user=player, kind="invited").count() == 1


@pytest.mark.parametrize("persona", ["other_player", "spectator", "organiser", "staff"])
def test_people_of_no_sealed_table_are_told_at_once(sealed_world, persona):  # noqa: F811
    """The round's other table is sealed too: its player is held as well; the rest are told now."""
    invitee = sealed_world["users"][persona]
    invite(make_user("inviter"), invitee)
    told = Notification.objects.filter(user=invitee, kind="invited").exists()
    assert told is (persona != "other_player")
