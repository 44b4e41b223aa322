"""The pages: a badge and the script on every page of a logged-in person, the /notifications
list, and the per-kind choices on /account showing what is stored."""
from __future__ import annotations

import pytest
from django.test import Client

from notifications.models import NotificationPreference
from tests.accounts.helpers import PASSWORD

pytestmark = pytest.mark.django_db


def browser_for(user) -> Client:
    client = Client()
    assert client.login(username=user.username, password=PASSWORD)
    return client


def test_a_logged_in_page_carries_the_badge_and_the_script_an_anonymous_one_neither(alice):
    page = browser_for(alice).get("/").content.decode()
    assert 'id="notification-badge"' in page and "frontend/js/notifications.js" in page
    anonymous = Client().get("/").content.decode()
    assert "notification-badge" not in anonymous and "notifications.js" not in anonymous


def test_the_list_page_is_for_logged_in_people(alice):
    assert Client().get("/notifications")["Location"] == "/login?next=/notifications"
    page = browser_for(alice).get("/notifications")
    assert page.status_code == 200 and 'id="notification-list"' in page.content.decode()


def test_the_account_page_shows_each_kinds_choices(alice):
    NotificationPreference.objects.create(user=alice, kind="invited", browser=False, email=True)
    page = browser_for(alice).get("/account").content.decode()
    assert page.count('data-channel="email"') == 7
    assert 'data-kind="invited" data-channel="email" aria-label="You were invited to a table: by e-mail" checked' in page
    assert 'data-kind="invited" data-channel="browser" aria-label="You were invited to a table: on the site" >' in page
