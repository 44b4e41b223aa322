"""A reader's language follows their account (a choice is kept at sign-up, used for the reset e-mail), and
the times pages render are in the reader's time zone (the `tz` cookie base.html writes)."""
from __future__ import annotations

import pytest
from django.core import mail
from django.test import Client

from accounts.models import User
from accounts.services import password_reset_send
from tests.accounts.helpers import PASSWORD
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("accept_language", "switcher", "kept"), [
    ("cy", None, "cy"),
    ("en-GB,en;q=0.8", None, ""),  # the default language, not a choice: the account follows the browser
    ("en-US", "en-gb", "en-gb"),
    ("cy", "en-gb", "en-gb"),  # the switcher's choice before the browser's
])
def test_sign_up_keeps_the_language_chosen(accept_language, switcher, kept):
    client = Client(HTTP_ACCEPT_LANGUAGE=accept_language)
    if switcher:
        client.cookies["django_language"] = switcher
    answer = client.post("/signup", {"username": "gwen", "password": "a long enough passphrase"})
    assert answer.status_code == 302
    assert User.objects.get(username="gwen").language == kept


def test_a_wrong_password_is_refused_in_the_pages_language():
    make_user("gwen")
    page = Client(HTTP_ACCEPT_LANGUAGE="cy").post("/login", {"username": "gwen", "password": "nope"})
    assert "Enw defnyddiwr neu gyfrinair anghywir." in page.content.decode()


@pytest.mark.parametrize(("language", "subject"), [
    ("cy", "Gosod cyfrinair newydd ar gyfer Card League"), ("", "Set a new password for Card League"),
])
def test_the_reset_mail_is_written_in_the_accounts_language(language, subject):
    user = make_user("gwen")
    User.objects.filter(pk=user.pk).update(email="gwen@example.org", language=language)
    assert password_reset_send(email="gwen@example.org") == 1
    assert mail.outbox[-1].subject == subject


def _joined_date(cookies: dict[str, str]) -> str:
    user = make_user("gwen")
    User.objects.filter(pk=user.pk).update(date_joined="2026-01-31T23:30:00Z")
    client = Client(HTTP_ACCEPT_LANGUAGE="cy")
    client.cookies.load(cookies)
    assert client.login(username="gwen", password=PASSWORD)
    page = client.get("/players/gwen").content.decode()
    return page.split("Yn chwarae ers ", 1)[1].split("<", 1)[0].split(" ·")[0]


@pytest.mark.parametrize(("cookies", "shown"), [
    ({}, "31 Ionawr 2026"),  # no zone told: the server's (UTC)
    ({"tz": "Europe/London"}, "31 Ionawr 2026"),
    ({"tz": "Asia/Tokyo"}, "1 Chwefror 2026"),  # 08:30 the next day there
    ({"tz": "../../etc/passwd"}, "31 Ionawr 2026"),  # not a zone: ignored
    ({"tz": "Nowhere/Atlantis"}, "31 Ionawr 2026"),
])
def test_dates_are_rendered_in_the_readers_time_zone(cookies, shown):
    assert _joined_date(cookies) == shown
