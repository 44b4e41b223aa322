"""Muting a sender of invitations (issue #39, finding 3): `GET /api/auth/muted`,
`POST`/`DELETE /api/auth/muted/<username>`, and `invitations_from` on `PATCH /api/auth/me`."""
from __future__ import annotations

import pytest

from accounts.models import MutedSender
from accounts.services import user_delete
from tests.accounts.helpers import PASSWORD
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def code(answer) -> tuple[int, str | None]:
    return answer.status_code, answer.json().get("error", {}).get("code") if answer.content else None


def test_anonymous_mutes_and_lists_nothing(alice):
    anonymous = client_for(None)
    assert anonymous.post("/api/auth/muted/alice").status_code in (401, 403)
    assert anonymous.delete("/api/auth/muted/alice").status_code in (401, 403)
    assert anonymous.get("/api/auth/muted").status_code in (401, 403)
    assert anonymous.patch("/api/auth/me", {"invitations_from": "nobody"}, format="json").status_code in (401, 403)
    assert not MutedSender.objects.exists()


def test_a_person_mutes_lists_and_unmutes_and_each_may_be_repeated(alice, bob, carol):
    client = client_for(bob)
    first = client.post("/api/auth/muted/alice")
    assert first.status_code == 200 and first.json()["username"] == "alice"
    assert client.post("/api/auth/muted/alice").status_code == 200  # again: still one row
    client.post("/api/auth/muted/carol")
    assert [row["username"] for row in client.get("/api/auth/muted").json()["results"]] == ["carol", "alice"]
    assert MutedSender.objects.filter(user=bob).count() == 2
    assert client.delete("/api/auth/muted/alice").status_code == 204
    assert client.delete("/api/auth/muted/alice").status_code == 204  # again: nothing to undo
    assert [row["username"] for row in client.get("/api/auth/muted").json()["results"]] == ["carol"]


def test_a_person_sees_only_their_own_mutes_staff_included(alice, bob, carol, staff):
    client_for(bob).post("/api/auth/muted/alice")
    assert client_for(carol).get("/api/auth/muted").json()["results"] == []
    assert client_for(staff).get("/api/auth/muted").json()["results"] == []
    assert client_for(staff).delete("/api/auth/muted/alice").status_code == 204  # staff's own list: no-op
    assert client_for(alice).get("/api/auth/muted").json()["results"] == []
    client_for(carol).delete("/api/auth/muted/alice")  # carol's unmute is about carol's list
    assert MutedSender.objects.filter(user=bob, sender=alice).exists()


@pytest.mark.parametrize(("username", "status", "error"), [
    ("bob", 400, "cannot_mute_yourself"),
    ("nobody-here", 404, "user_not_found"),
    ("run_builder", 400, "cannot_mute_bot"),
    ("random", 400, "cannot_mute_bot"),
])
def test_muting_oneself_nobody_or_a_bot_is_refused(bob, username, status, error):
    assert code(client_for(bob).post(f"/api/auth/muted/{username}")) == (status, error)
    assert code(client_for(bob).delete(f"/api/auth/muted/{username}")) == (status, error)
    assert not MutedSender.objects.exists()


def test_a_deleted_account_is_nobody_to_mute_and_leaves_the_list(alice, bob, carol):
    client_for(carol).post("/api/auth/muted/alice")
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert code(client_for(bob).post("/api/auth/muted/alice")) == (404, "user_not_found")
    assert client_for(carol).get("/api/auth/muted").json()["results"] == []
    assert client_for(carol).delete("/api/auth/muted/alice").status_code == 204
    assert not MutedSender.objects.exists()


def test_invitations_from_is_shown_changed_and_checked(bob):
    client = client_for(bob)
    assert client.get("/api/auth/me").json()["invitations_from"] == "anyone"
    assert client.patch("/api/auth/me", {"invitations_from": "played_with"}, format="json").json()[
        "invitations_from"] == "played_with"
    refused = client.patch("/api/auth/me", {"invitations_from": "friends"}, format="json")
    assert code(refused) == (400, "unknown_invitations_from")
    assert refused.json()["error"]["extra"]["choices"] == ["anyone", "played_with", "nobody"]
    bob.refresh_from_db()
    assert bob.invitations_from == "played_with"


def test_deleting_an_account_forgets_whom_it_muted_and_who_muted_it(alice, bob, carol):
    client_for(bob).post("/api/auth/muted/alice")
    client_for(alice).post("/api/auth/muted/carol")
    client_for(carol).post("/api/auth/muted/bob")
    user_delete(user=alice, password=PASSWORD)
    assert list(MutedSender.objects.values_list("user__username", "sender__username")) == [("carol", "bob")]
