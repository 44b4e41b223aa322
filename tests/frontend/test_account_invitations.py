"""The account page's invitations panel (issue #39, finding 3): whose invitations by name reach
the person, and the players they muted, through the same services as the API."""
from __future__ import annotations

import pytest

from accounts.models import MutedSender
from tests.frontend.test_account_page import browser_for

pytestmark = pytest.mark.django_db


def test_the_panel_shows_the_choice_and_saves_it(alice):
    client = browser_for(alice)
    page = client.get("/account").content.decode()
    assert 'id="account-invitations"' in page and "You have muted nobody." in page
    assert '<option value="anyone" selected>' in page
    assert client.post("/account", {"action": "invitations", "invitations_from": "played_with"})["Location"] == "/account"
    alice.refresh_from_db()
    assert alice.invitations_from == "played_with"
    assert '<option value="played_with" selected>' in client.get("/account").content.decode()


def test_an_unknown_choice_is_refused_on_its_field(alice):
    answer = browser_for(alice).post("/account", {"action": "invitations", "invitations_from": "friends"})
    assert answer.status_code == 400 and answer.context["forms"]["invitations"].errors["invitations_from"]
    alice.refresh_from_db()
    assert alice.invitations_from == "anyone"


def test_muting_lists_the_player_and_unmuting_takes_them_off(alice, bob):
    client = browser_for(alice)
    assert client.post("/account", {"action": "mute", "mute_username": "bob"}).status_code == 302
    page = client.get("/account").content.decode()
    assert 'name="unmute_username" value="bob"' in page and "Unmute Bob" in page
    assert client.post("/account", {"action": "unmute", "unmute_username": "bob"}).status_code == 302
    assert not MutedSender.objects.exists()


@pytest.mark.parametrize(("username", "text"), [
    ("alice", "cannot mute yourself"), ("nobody-here", "no player"), ("random", "A bot sends no invitations"),
])
def test_a_refused_mute_shows_on_its_field(alice, username, text):
    answer = browser_for(alice).post("/account", {"action": "mute", "mute_username": username})
    assert answer.status_code == 400
    assert text in " ".join(answer.context["forms"]["mute"].errors["mute_username"])
    assert not MutedSender.objects.exists()


def test_the_page_mutes_for_its_own_user_only(alice, bob, carol):
    browser_for(bob).post("/account", {"action": "mute", "mute_username": "carol"})
    assert list(MutedSender.objects.values_list("user__username", "sender__username")) == [("bob", "carol")]
    panel = browser_for(alice).get("/account").content.decode().split('id="account-invitations"')[1]
    assert "Carol" not in panel.split("</section>")[0]
