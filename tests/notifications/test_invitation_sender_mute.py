"""An invitation's notification names its sender's username (`sender`), so the person may mute
them from it (issue #39, finding 3); other kinds and a deleted sender name nobody."""
from __future__ import annotations

import pytest

from games import services
from notifications.models import Notification
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def invite(sender, invitee) -> None:
    match = services.match_create(user=sender, game="ten", players=3, rated=False)
    services.invitation_create(match_id=match.pk, user=sender, username=invitee.username)


def listed(user) -> list[dict]:
    return client_for(user).get("/api/notifications").json()["results"]


def test_an_invitation_names_its_sender_who_may_be_muted_from_it(alice, bob):
    invite(alice, bob)
    [shown] = listed(bob)
    assert (shown["kind"], shown["sender"]) == ("invited", "alice")
    assert client_for(bob).post(f"/api/auth/muted/{shown['sender']}").status_code == 200
    invite(alice, bob)
    assert Notification.objects.filter(user=bob).count() == 1  # the second was not told


def test_other_kinds_and_a_deleted_sender_name_nobody(alice, bob):
    invite(alice, bob)
    Notification.objects.create(user=bob, kind="your_turn", key="1:1", data={"title": "t", "body": "b", "url": "/"})
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert [(row["kind"], row["sender"]) for row in listed(bob)] == [("your_turn", None), ("invited", None)]
