"""The account page (/account): name and e-mail, avatar, password and deletion through the same
services as the API; field errors on the form, nothing changed by a refusal."""
from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from tests.accounts.helpers import NEW_PASSWORD, PASSWORD, snapshot
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def browser_for(user: User) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_anonymous_is_sent_to_log_in():
    answer = Client().get("/account")
    assert answer.status_code == 302 and answer["Location"] == "/login?next=/account"


def test_the_page_is_linked_from_the_header_and_offers_twelve_avatars(alice):
    page = browser_for(alice).get("/").content.decode()
    assert 'href="/account"' in page and f'src="/avatars/{alice.pk}.svg?v=0"' in page
    account = browser_for(alice).get("/account").content.decode()
    assert account.count('name="avatar"') == 12 and "Delete my account" in account


def test_the_profile_form_saves_the_display_name_and_the_email(alice):
    client = browser_for(alice)
    body = {"action": "profile", "display_name": "Queen", "email": "a@example.org", "password": PASSWORD}
    assert client.post("/account", body)["Location"] == "/account"
    alice.refresh_from_db()
    assert (alice.display_name, alice.email) == ("Queen", "a@example.org")


@pytest.mark.parametrize(("body", "field", "text"), [
    ({"display_name": "Bob", "email": ""}, "display_name", "looks the same as a name in use"),
    ({"display_name": "random", "email": ""}, "display_name", "a bot"),
    ({"display_name": "Alice", "email": "a@example.org"}, "password", "current password"),
    ({"display_name": "Alice", "email": "a@example.org", "password": "wrong"}, "password", "not your current"),
])
def test_the_profile_form_shows_refusals_on_their_field(alice, bob, body, field, text):
    client = browser_for(alice)
    before = snapshot(alice)
    answer = client.post("/account", {"action": "profile", **body})
    assert answer.status_code == 400
    assert text in " ".join(answer.context["forms"]["profile"].errors[field])
    assert snapshot(alice) == before


def test_the_avatar_form_saves_the_pick(alice):
    assert browser_for(alice).post("/account", {"action": "avatar", "avatar": "9"}).status_code == 302
    alice.refresh_from_db()
    assert alice.avatar == 9


def test_changing_the_password_keeps_this_session_and_revokes_tokens(alice):
    client, other, token = browser_for(alice), browser_for(alice), client_for(alice)
    answer = client.post("/account", {"action": "password", "old_password": PASSWORD, "new_password": NEW_PASSWORD})
    assert answer.status_code == 302
    assert client.get("/account").status_code == 200
    assert other.get("/account").status_code == 302  # logged out
    assert token.get("/api/auth/me").status_code == 401


def test_a_wrong_old_password_changes_nothing(alice):
    client = browser_for(alice)
    before = snapshot(alice)
    answer = client.post("/account", {"action": "password", "old_password": "no", "new_password": NEW_PASSWORD})
    assert answer.status_code == 400 and answer.context["forms"]["password"].errors["old_password"]
    assert snapshot(alice) == before


def test_deleting_logs_out_and_anonymises(alice):
    client = browser_for(alice)
    assert client.post("/account", {"action": "delete", "delete_password": "wrong"}).status_code == 400
    assert client.post("/account", {"action": "delete", "delete_password": PASSWORD})["Location"] == "/"
    alice.refresh_from_db()
    assert alice.username == f"deleted-player-{alice.pk}" and not alice.is_active
    assert client.get("/account").status_code == 302


@pytest.mark.parametrize("persona", ["bob", "staff"])
def test_the_page_acts_on_its_own_user_only(alice, bob, staff, persona):
    caller = {"bob": bob, "staff": staff}[persona]
    client = browser_for(caller)
    before = snapshot(alice)
    assert client.post("/account", {"action": "avatar", "avatar": "4"}).status_code == 302
    assert snapshot(alice) == before


def test_sign_up_takes_an_optional_email():
    body = {"username": "erin", "password": "a long enough passphrase", "email": "erin@example.org"}
    assert Client().post("/signup", body).status_code == 302
    assert User.objects.get(username="erin").email == "erin@example.org"


def test_the_login_page_links_to_the_reset():
    assert b'href="/account/reset"' in Client().get("/login").content
