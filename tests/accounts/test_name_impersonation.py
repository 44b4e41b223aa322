"""Names that pass for someone else's are refused: other users' names, bots' names, and copies
that only differ by case, width, accents, invisible characters or look-alike letters."""
from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from accounts.names import name_key
from accounts.services import user_names_check

pytestmark = pytest.mark.django_db


def register(username, display_name=""):
    return APIClient().post(
        "/api/auth/register",
        {"username": username, "password": "a long enough passphrase", "display_name": display_name},
        format="json",
    )


@pytest.mark.parametrize(
    "copy",
    ["alice", "ALICE", "Alice", "ａｌｉｃｅ", "alíce", "аlice", "al1ce", "a_lice", "𝐚𝐥𝐢𝐜𝐞", "ALİCE"],
)
def test_a_display_name_copying_another_users_username_is_refused(alice, copy):
    """Prevents impersonation: a display name that reads as another user's name (case, NFKC,
    accents, Cyrillic look-alikes, 1 for i, separators) is a 409. (Zero-width characters are a
    400 of their own: tests/accounts/test_name_confusables.py.)"""
    answer = register("mallory", copy)
    assert answer.status_code == 409, copy
    assert answer.json()["error"]["code"] == "name_taken" and answer.json()["error"]["extra"]["field"] == "display_name"
    assert not User.objects.filter(username="mallory").exists()


def test_a_display_name_copying_another_users_display_name_is_refused(alice):
    """Prevents two players shown under one name."""
    User.objects.filter(pk=alice.pk).update(display_name="Queen of Hearts", display_key=name_key("Queen of Hearts"))
    assert register("mallory", "queen of hearts").json()["error"]["code"] == "name_taken"


def test_a_username_copying_another_users_display_name_is_refused(alice):
    """Prevents a username shown (with no display name) as another player's display name."""
    User.objects.filter(pk=alice.pk).update(display_name="Queenie", display_key=name_key("Queenie"))
    answer = register("QUEENIE")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "username_taken"


def test_a_username_confusable_with_another_username_is_refused(alice):
    """Prevents a second account whose username only looks different (Cyrillic а, 1 for l)."""
    for copy in ("аlice", "Alice", "a1ice"):
        answer = register(copy)
        assert answer.status_code == 409 and answer.json()["error"]["code"] == "username_taken", copy


@pytest.mark.parametrize("name", ["random", "Tight", "shedder", "Stack-Finisher", "run_builder", "RANDOM"])
def test_a_bots_name_is_reserved(name):
    """Prevents a person from sitting at tables under a bot's name."""
    answer = register("mallory", name)
    assert answer.status_code == 422 and answer.json()["error"]["code"] == "name_reserved"
    answer = register(name.lower())
    assert answer.status_code == 422 and answer.json()["error"]["extra"]["field"] == "username"


@pytest.mark.parametrize("display_name", ["alice@cards.example.org", "\u200b\u200d"])
def test_a_display_name_passing_for_an_imported_player_or_invisible_is_refused(display_name):
    """Prevents a local player from being shown as a player of another server (name@server) or as nobody."""
    answer = register("mallory", display_name)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_name"


def test_a_username_with_at_is_refused():
    """Prevents a username shown as another server's player (name@server)."""
    assert register("alice@cards.example.org").status_code == 400


def test_ones_own_username_may_be_ones_display_name():
    """The personas' shape (display name = username title-cased) stays allowed."""
    assert register("dora", "Dora").status_code == 201
    dora = User.objects.get(username="dora")
    user_names_check(username="dora", display_name="DORA", user=dora)


def test_the_database_refuses_two_usernames_of_one_name(alice):
    """Prevents two sign-ups racing past the service's check: the folded key is unique."""
    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user(username="ALICE", password="x")


def test_the_admin_holds_renames_to_the_same_checks(alice, bob, staff):
    """Prevents staff (or a stolen staff session) from giving a user another user's name."""

    staff.is_superuser = True
    staff.save(update_fields=["is_superuser"])
    client = Client()
    client.force_login(staff)
    form = {
        "username": "bob", "display_name": "Alice", "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
        "is_active": "on",
    }
    answer = client.post(f"/admin/accounts/user/{bob.pk}/change/", form)
    assert answer.status_code == 200 and b"looks the same" in answer.content
    bob.refresh_from_db()
    assert bob.display_name == "Bob"
