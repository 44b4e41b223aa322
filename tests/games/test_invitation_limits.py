"""Issue #39, finding 3: invitations by name flooded a person's notifications (30 in 2 s, each
titled with the sender's chosen name). Per sender and per invitee, at most so many an hour."""
from __future__ import annotations

import pytest

from games import services
from games.models import Invitation
from notifications.models import Notification
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db


def invite(inviter, invitee):
    match = services.match_create(user=inviter, game="ten", players=3, rated=False)
    return client_for(inviter).post(f"/api/matches/{match.pk}/invitations", {"username": invitee.username}, format="json")


def test_a_sender_invites_at_most_the_setting_an_hour_and_a_refusal_sends_nothing(settings):
    settings.INVITATIONS_PER_HOUR_PER_SENDER, settings.INVITATIONS_PER_HOUR_PER_INVITEE = 3, 100
    settings.MAX_OPEN_TABLES_PER_USER = 100
    sender = make_user("sender")
    people = [make_user(f"p{i}") for i in range(4)]
    assert [invite(sender, person).status_code for person in people[:3]] == [201, 201, 201]
    refused = invite(sender, people[3])
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "invitations_rate_limited")
    assert refused.json()["error"]["extra"] == {"per_hour": 3}
    assert not Notification.objects.filter(user=people[3]).exists()
    assert Invitation.objects.filter(created_by=sender).count() == 3


def test_a_person_is_invited_at_most_the_setting_an_hour_whoever_sends(settings):
    settings.INVITATIONS_PER_HOUR_PER_SENDER, settings.INVITATIONS_PER_HOUR_PER_INVITEE = 100, 2
    target = make_user("target")
    senders = [make_user(f"s{i}") for i in range(3)]
    assert [invite(sender, target).status_code for sender in senders[:2]] == [201, 201]
    refused = invite(senders[2], target)
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "invitee_rate_limited")
    assert Notification.objects.filter(user=target, kind="invited").count() == 2
    # A link for whoever holds it (no name) is not an invitation by name: not counted.
    match = services.match_create(user=senders[2], game="ten", players=3, rated=False)
    assert client_for(senders[2]).post(f"/api/matches/{match.pk}/invitations", {}, format="json").status_code == 201
