"""Issue #39, finding 5: look-alike names. Names are compared by UTS #39's skeleton (Unicode's
confusables data) after case folding, and names holding invisible characters are refused."""
from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps as django_apps
from django.db import connection
from rest_framework.test import APIClient

from accounts.models import User
from accounts.names import name_key, skeleton
from tests.conftest import client_for

pytestmark = pytest.mark.django_db

SHOWN = "Queen of Hearts"

# The issue's eight copies of a display name: six were accepted before (two blanks appended,
# Armenian օ and ս, Latin alpha, small capital A), two already refused (Cyrillic е, fullwidth).
COPIES = {
    "hangul filler appended": SHOWN + "\u3164",
    "braille blank appended": SHOWN + "\u2800",
    "armenian oh": "Queen \u0585f Hearts",
    "armenian seh": "Q\u057deen of Hearts",
    "latin alpha": "Queen of He\u0251rts",
    "small capital a": "Queen of He\u1d00rts",
    "cyrillic ie": "Qu\u0435en of Hearts",
    "fullwidth": "Ｑｕｅｅｎ ｏｆ Ｈｅａｒｔｓ",
}


def register(username, display_name=""):
    return APIClient().post(
        "/api/auth/register",
        {"username": username, "password": "a long enough passphrase", "display_name": display_name},
        format="json",
    )


@pytest.fixture
def queen(alice):
    User.objects.filter(pk=alice.pk).update(display_name=SHOWN, display_key=name_key(SHOWN))
    return alice


@pytest.mark.parametrize("copy", COPIES.values(), ids=COPIES.keys())
def test_each_copy_of_a_display_name_from_the_issue_is_refused(queen, copy):
    """Prevents impersonation by a look-alike or blank-padded copy of another player's name."""
    answer = register("mallory", copy)
    assert answer.status_code in (400, 409), answer.json()
    assert answer.json()["error"]["code"] in ("name_taken", "invalid_name")
    assert answer.json()["error"]["extra"]["field"] == "display_name"
    assert not User.objects.filter(username="mallory").exists()


@pytest.mark.parametrize("blank", ["\u3164", "\u2800", "\u115f", "\u1160", "\uffa0", "\u200d", "\u034f", "\ufe0f"])
def test_a_name_holding_an_invisible_character_is_refused_even_when_no_one_has_the_name(blank):
    """Prevents names that differ from another only by something nobody can see."""
    answer = register("mallory", f"Mallory{blank}")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_name"
    answer = register(f"mallory{blank}")
    extra = answer.json()["error"]["extra"]
    assert answer.status_code == 400 and "username" in (extra.get("field"), *extra.get("fields", {}))
    assert not User.objects.filter(username__startswith="mallory").exists()


def test_a_username_with_a_hangul_filler_appended_is_refused(alice):
    """The issue's username copy: alice + U+3164."""
    answer = register("alice\u3164")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_name"


@pytest.mark.parametrize("mark_only", ["\u0301", "Ann \u0301", "e\u0301\u0302\u0303\u0304"])
def test_marks_with_no_letter_of_their_own_or_stacked_are_refused(mark_only):
    """Prevents a mark on a space (shows as a stray accent) and stacked marks covering other text."""
    answer = register("mallory", mark_only)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_name"


@pytest.mark.parametrize(
    "username, display_name",
    [
        ("dafydd", "Dafydd ap Gwŷn"), ("sian", "Siân Ŵyn"), ("elen", "Elen Bŵts"),
        ("eleni", "Ελένη Παπαδοπούλου"), ("ivan", "Иван Петров"), ("li", "李小龍"),
        ("nguyen", "Nguyễn Thị Hương"), ("yuki", "山田 ゆき"), ("gwenllian", "Gwenllïan"),
        ("ŵyn", ""), ("αλέξης", ""), ("дмитрий", ""),
    ],
)
def test_legitimate_names_in_welsh_greek_cyrillic_and_cjk_are_accepted(alice, username, display_name):
    """The check refuses copies, not scripts: accents, Greek, Cyrillic and CJK names still sign up."""
    answer = register(username, display_name)
    assert answer.status_code == 201, answer.json()


def test_a_rename_into_a_look_alike_is_refused_and_changes_nothing(queen, bob):
    """Another player cannot take a look-alike of alice's name by renaming either."""
    answer = client_for(bob).patch("/api/auth/me", {"display_name": "Queen of He\u1d00rts"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "name_taken"
    bob.refresh_from_db()
    assert bob.display_name == "Bob"


def test_the_skeleton_follows_unicode_data():
    """UTS #39's own examples of one skeleton: Latin alpha and a, Armenian oh and o."""
    assert skeleton("\u0251") == skeleton("a") and skeleton("\u0585") == skeleton("o")
    assert name_key("paypal") == name_key("pаypa1")


def test_existing_users_whose_names_now_collide_keep_them(alice):
    """Existing users with colliding names keep theirs: the migration gives the later one a key
    of its own, it saves and renames as before, and new names are checked against the first."""
    refill = import_module("accounts.migrations.0006_name_keys_by_uts39_skeleton").refill_name_keys
    older = User.objects.create_user(username="bob", password="correct horse battery")
    # A user that signed up before the skeleton: alice with Latin alpha, and an old-style key.
    User.objects.filter(pk=older.pk).update(username="\u0251lice", username_key="\u0251llce")

    class Editor:
        pass

    editor = Editor()
    editor.connection = connection  # type: ignore[attr-defined]
    refill(django_apps, editor)
    alice.refresh_from_db()
    older.refresh_from_db()
    assert alice.username_key == name_key("alice") and older.username_key == f"{name_key('alice')}#{older.pk}"
    older.language = "cy"
    older.save()
    older.refresh_from_db()
    assert older.username == "\u0251lice" and older.username_key.endswith(f"#{older.pk}")
    assert register("\u1d00lice").json()["error"]["code"] == "username_taken"
