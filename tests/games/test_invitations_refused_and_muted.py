"""Issue #39, finding 3: a person refuses invitations by name from people they have not played
with (or from anybody), and mutes a sender. A refused invitation is answered to its sender as any
other (so the choice cannot be probed), still counts in the hourly limits, and is never told."""
from __future__ import annotations

import pytest

from accounts.models import MutedSender
from games import services
from games.models import Invitation, Match, Seat
from notifications.models import Notification
from notifications.services import held_invitations_notify
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def invite(sender, invitee):
    match = services.match_create(user=sender, game="ten", players=3, rated=False)
    return client_for(sender).post(f"/api/matches/{match.pk}/invitations", {"username": invitee.username},
                                   format="json")


def told(invitee) -> int:
    return Notification.objects.filter(user=invitee, kind="invited").count()


def play_together(first, second) -> Match:
    match = services.match_create(user=first, game="the-game", players=2, rated=False)
    services.match_join(match_id=match.pk, user=second)
    return services.match_start(match_id=match.pk, user=first)


def answer_shape(answer) -> tuple[int, list[str]]:
    return answer.status_code, sorted(answer.json())


def test_a_muted_sender_is_answered_as_any_sender_and_the_invitee_is_not_told(alice, bob, carol):
    """Before: every invitation by name was told, whoever sent it."""
    ordinary = invite(carol, bob)
    client_for(bob).post("/api/auth/muted/alice")
    muted = invite(alice, bob)
    assert answer_shape(muted) == answer_shape(ordinary) and muted.status_code == 201
    assert list(Notification.objects.filter(user=bob).values_list("data__title", flat=True)) == [
        "Carol invited you to a table"
    ]
    assert Invitation.objects.filter(created_by=alice, invitee=bob).count() == 1


def test_nobody_means_no_invitation_by_name_is_told(alice, bob):
    """Before: `invitations_from` did not exist and every invitation was told."""
    assert client_for(bob).patch("/api/auth/me", {"invitations_from": "nobody"}, format="json").status_code == 200
    assert invite(alice, bob).status_code == 201
    assert told(bob) == 0


def test_played_with_tells_only_people_met_at_a_started_match(alice, bob, carol):
    client_for(bob).patch("/api/auth/me", {"invitations_from": "played_with"}, format="json")
    # Sitting together at a table that never started is not having played together.
    open_table = services.match_create(user=carol, game="the-game", players=2, rated=False)
    services.match_join(match_id=open_table.pk, user=bob)
    assert invite(carol, bob).status_code == 201
    assert told(bob) == 0
    play_together(alice, bob)
    assert invite(alice, bob).status_code == 201
    assert told(bob) == 1
    assert Notification.objects.get(user=bob).data["title"].startswith("Alice")


def test_a_refused_invitation_still_counts_in_the_hourly_limits(settings, alice, bob):
    """Else a sender could tell a refusal (no count) from a delivery by the limit's answer."""
    settings.INVITATIONS_PER_HOUR_PER_SENDER, settings.INVITATIONS_PER_HOUR_PER_INVITEE = 100, 2
    settings.MAX_OPEN_TABLES_PER_USER = 100
    client_for(bob).post("/api/auth/muted/alice")
    assert [invite(alice, bob).status_code for _ in range(2)] == [201, 201]
    refused = invite(alice, bob)
    assert (refused.status_code, refused.json()["error"]["code"]) == (429, "invitee_rate_limited")
    assert told(bob) == 0


def test_an_invitation_held_at_a_sealed_table_is_not_told_once_its_sender_is_muted(alice, bob, carol):
    table = services.match_create(user=bob, game="the-game", players=2, rated=False)
    Match.objects.filter(pk=table.pk).update(sealed=True)
    assert invite(alice, bob).status_code == 201 and invite(carol, bob).status_code == 201
    assert told(bob) == 0  # held while bob sits at a sealed table
    client_for(bob).post("/api/auth/muted/alice")
    Match.objects.filter(pk=table.pk).update(sealed=False)
    held_invitations_notify(match_ids=[table.pk])
    assert list(Notification.objects.filter(user=bob).values_list("data__title", flat=True)) == [
        "Carol invited you to a table"
    ]


def test_unmuting_lets_the_next_invitation_through(alice, bob):
    client_for(bob).post("/api/auth/muted/alice")
    invite(alice, bob)
    client_for(bob).delete("/api/auth/muted/alice")
    invite(alice, bob)
    assert told(bob) == 1
    assert not MutedSender.objects.exists()
    assert Seat.objects.filter(user=bob).count() == 0
