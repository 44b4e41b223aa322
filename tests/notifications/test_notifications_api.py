"""The notification endpoints: each person reads and marks only their own (staff included), and
a bad request is a 400 with its code that changes nothing."""
from __future__ import annotations

import pytest

from notifications import services
from notifications.models import Notification, NotificationPreference
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

NOTE = {"title": "Table 1 has ended", "body": "See how it finished.", "url": "/tables/1"}


@pytest.fixture
def notes(alice, bob):
    """Two of alice's notifications and one of bob's."""
    services.notifications_send(kind="match_finished", key="1", data_by_user={alice.pk: NOTE, bob.pk: NOTE})
    services.notifications_send(kind="match_finished", key="2", data_by_user={alice.pk: NOTE})
    return {user.username: list(Notification.objects.filter(user=user).values_list("pk", flat=True)) for user in (alice, bob)}


ENDPOINTS = [
    ("get", "/api/notifications", None),
    ("get", "/api/notifications/unread-count", None),
    ("post", "/api/notifications/read", {"all": True}),
    ("get", "/api/notifications/preferences", None),
    ("put", "/api/notifications/preferences", {"invited": {"email": True}}),
]


@pytest.mark.parametrize(("method", "path", "body"), ENDPOINTS)
def test_anonymous_gets_401_and_changes_nothing(notes, method, path, body):
    answer = getattr(client_for(None), method)(path, body, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (401, "not_authenticated")
    assert Notification.objects.filter(read_at__isnull=True).count() == 3 and not NotificationPreference.objects.exists()


def test_each_person_lists_their_own_only_staff_too(notes, alice, bob, staff):
    listed = client_for(alice).get("/api/notifications").json()
    assert listed["count"] == 2 and {n["id"] for n in listed["results"]} == set(notes["alice"])
    assert listed["results"][0]["title"] == NOTE["title"] and listed["results"][0]["read_at"] is None
    assert [n["id"] for n in client_for(bob).get("/api/notifications").json()["results"]] == notes["bob"]
    assert client_for(staff).get("/api/notifications").json()["count"] == 0
    assert client_for(alice).get("/api/notifications/unread-count").json() == {"unread": 2}


def test_marking_read_touches_only_ones_own_and_unread_filters(notes, alice, bob, staff):
    for other in (bob, staff):  # anyone else's ids are ignored, never marked
        answer = client_for(other).post("/api/notifications/read", {"ids": notes["alice"]}, format="json")
        assert answer.status_code == 200 and answer.json()["marked"] == 0
    assert Notification.objects.filter(user=alice, read_at__isnull=True).count() == 2
    answer = client_for(alice).post("/api/notifications/read", {"ids": notes["alice"][:1] + notes["bob"]}, format="json")
    assert answer.json() == {"marked": 1, "unread": 1}
    assert Notification.objects.get(pk=notes["bob"][0]).read_at is None
    assert [n["id"] for n in client_for(alice).get("/api/notifications", {"unread": "1"}).json()["results"]] == notes["alice"][1:]
    assert client_for(alice).post("/api/notifications/read", {"all": True}, format="json").json() == {"marked": 1, "unread": 0}


@pytest.mark.parametrize(
    ("body", "code"),
    [({}, "ids_or_all"), ({"all": True, "ids": [1]}, "ids_or_all"), ({"ids": ["x"]}, "invalid_input"),
     ({"all": False}, "ids_or_all"), ([1, 2], "invalid_input")],
)
def test_a_bad_read_request_is_400_and_marks_nothing(notes, alice, body, code):
    answer = client_for(alice).post("/api/notifications/read", body, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, code)
    assert Notification.objects.filter(read_at__isnull=True).count() == 3


def test_bad_unread_flag_is_400(notes, alice):
    answer = client_for(alice).get("/api/notifications", {"unread": "maybe"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, "bad_unread")


def test_preferences_default_and_change_per_kind_for_oneself_only(alice, bob):
    shown = client_for(alice).get("/api/notifications/preferences").json()
    assert set(shown) == {
        "your_turn", "round_paired", "round_started", "match_finished", "invited", "judge_called", "judge_ruled",
    }
    assert shown["invited"] == {"browser": True, "email": False}
    changed = client_for(alice).put("/api/notifications/preferences", {"invited": {"email": True}}, format="json")
    assert changed.status_code == 200 and changed.json()["invited"] == {"browser": True, "email": True}
    changed = client_for(alice).put("/api/notifications/preferences", {"invited": {"browser": False}}, format="json")
    assert changed.json()["invited"] == {"browser": False, "email": True}  # a channel left out keeps its value
    assert client_for(bob).get("/api/notifications/preferences").json()["invited"] == {"browser": True, "email": False}


@pytest.mark.parametrize(
    ("body", "code"),
    [({"birthday": {"email": True}}, "unknown_kind"), ({"invited": {"email": "often"}}, "invalid_input"),
     ({"invited": True}, "invalid_input"), ([], "invalid_input")],
)
def test_bad_preferences_are_400_and_change_nothing(alice, body, code):
    answer = client_for(alice).put("/api/notifications/preferences", body, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, code)
    assert not NotificationPreference.objects.exists()
