"""Password resets: `POST /api/auth/password-reset` and the pages behind the e-mail's link
(Django's PasswordResetView and tokens). The answer never tells whether an account has the
e-mail; a link works once and expires; the request is throttled per address and per e-mail.
The mail is sent by a task (eager here, as a worker would run it)."""
from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from accounts.tasks import password_reset_email_task
from server.limits import ScopedThrottle
from server.logs import secrets_redacted
from tests.accounts.helpers import NEW_PASSWORD, assert_error, snapshot
from tests.conftest import client_for
from tests.hardening.test_limits import fresh_address

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_tasks")]

URL = "/api/auth/password-reset"
LINK = re.compile(r"https?://[^/\s]+(/account/reset/[^\s]+)")


@pytest.fixture
def alice_mail(alice):
    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])
    return alice


def ask(client=None, email="alice@example.org"):
    return (client or APIClient(REMOTE_ADDR=fresh_address())).post(URL, {"email": email}, format="json")


def link_in_mail() -> str:
    assert len(mail.outbox) == 1
    return LINK.search(mail.outbox[0].body).group(1)


def test_the_answer_is_the_same_for_a_known_and_an_unknown_email(alice_mail):
    known, unknown = ask(), ask(email="nobody@example.org")
    assert known.status_code == unknown.status_code == 202
    assert known.json() == unknown.json()
    assert [message.to for message in mail.outbox] == [["alice@example.org"]]


def test_the_email_is_matched_without_case_and_names_the_account(alice_mail):
    assert ask(email="ALICE@example.org").status_code == 202
    assert "alice" in mail.outbox[0].body and mail.outbox[0].subject


def test_the_link_sets_a_new_password_once(alice_mail):
    token_client = client_for(alice_mail)
    ask()
    browser = Client()
    form = browser.get(link_in_mail(), follow=True)  # Django swaps the token for a session's
    assert form.status_code == 200 and form.context["validlink"]
    done = browser.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302 and done["Location"] == "/account/reset/done"
    alice_mail.refresh_from_db()
    assert alice_mail.check_password(NEW_PASSWORD)
    assert token_client.get("/api/auth/me").status_code == 401  # a reset revokes the API tokens
    login = APIClient().post("/api/auth/login", {"username": "alice", "password": NEW_PASSWORD}, format="json")
    assert login.status_code == 200
    again = Client().get(link_in_mail(), follow=True)
    assert not again.context["validlink"]  # spent: the password it was made for has changed


def test_a_weak_new_password_is_refused_on_the_page(alice_mail):
    ask()
    browser = Client()
    form = browser.get(link_in_mail(), follow=True)
    before = snapshot(alice_mail)
    answer = browser.post(form.redirect_chain[-1][0], {"new_password1": "12345678", "new_password2": "12345678"})
    assert answer.status_code == 200 and answer.context["form"].errors
    assert snapshot(alice_mail) == before


def test_the_link_expires(alice_mail, settings, monkeypatch):
    ask()
    link = link_in_mail()
    later = PasswordResetTokenGenerator()._now() + timedelta(seconds=settings.PASSWORD_RESET_TIMEOUT + 1)
    monkeypatch.setattr(PasswordResetTokenGenerator, "_now", lambda self: later)
    before = snapshot(alice_mail)
    assert not Client().get(link, follow=True).context["validlink"]
    assert snapshot(alice_mail) == before


def test_the_link_is_on_site_url_whatever_host_the_request_named(alice_mail, settings):
    """Regression (#39): the link was built from the request's Host, so a request with a forged
    Host (where ALLOWED_HOSTS lets it through) had the victim mailed a token on the forger's server."""
    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = "https://cards.example.org"
    assert ask(APIClient(REMOTE_ADDR=fresh_address(), HTTP_HOST="evil.example")).status_code == 202
    assert "https://cards.example.org/account/reset/" in mail.outbox[0].body
    assert "evil.example" not in mail.outbox[0].body


def test_without_site_url_nothing_is_sent_and_the_answer_says_so(alice_mail, settings, caplog):
    settings.SITE_URL = ""
    answer = ask()
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "mail_unavailable"
    assert mail.outbox == [] and "SITE_URL is not set" in caplog.text


def test_the_task_sends_one_mail_per_account_with_the_email(alice_mail, bob, settings):
    settings.SITE_URL = "https://cards.example.org"
    bob.email = "ALICE@example.org"  # e-mails are not unique: both accounts get their own link
    bob.save(update_fields=["email"])
    assert password_reset_email_task("alice@example.org") == 2
    assert sorted(LINK.search(m.body).group(0).startswith("https://cards.example.org/") for m in mail.outbox) == [True, True]


def test_a_deleted_or_inactive_account_gets_no_mail(alice_mail):
    alice_mail.is_active = False
    alice_mail.save(update_fields=["is_active"])
    assert ask().status_code == 202 and mail.outbox == []


@pytest.mark.parametrize(("body", "code"), [({"email": "not an e-mail"}, "invalid_input"), ({}, "invalid_input")])
def test_bad_input_is_a_400_and_sends_nothing(alice_mail, body, code):
    assert_error(APIClient().post(URL, body, format="json"), 400, code)
    assert mail.outbox == []


@pytest.mark.parametrize("persona", ["anonymous", "bob", "staff"])
def test_anyone_may_ask_and_the_link_goes_only_to_the_email(alice_mail, bob, staff, persona):
    client = {"anonymous": APIClient(), "bob": client_for(bob), "staff": client_for(staff)}[persona]
    assert ask(client).status_code == 202
    assert [message.to for message in mail.outbox] == [["alice@example.org"]]


@pytest.fixture
def low_rates(monkeypatch):
    rates = {**ScopedThrottle.THROTTLE_RATES, "password_reset": "1000/hour", "password_reset_account": "2/hour"}
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", rates)


def test_requests_are_throttled_per_email_from_any_address(alice_mail, low_rates):
    email = f"{fresh_address()}@example.org"  # a count no earlier run has touched
    answers = [ask(email=email) for _ in range(3)]  # each from a new address
    assert [a.status_code for a in answers] == [202, 202, 429]
    assert answers[-1].json()["error"]["code"] == "throttled"


def test_requests_are_throttled_per_address(alice_mail, monkeypatch):
    rates = {**ScopedThrottle.THROTTLE_RATES, "password_reset": "2/hour", "password_reset_account": "1000/hour"}
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", rates)
    client = APIClient(REMOTE_ADDR=fresh_address())
    answers = [ask(client, email=f"x{n}@example.org") for n in range(3)]
    assert [a.status_code for a in answers] == [202, 202, 429]


def test_the_page_is_throttled_with_the_api(alice_mail, low_rates):
    email = f"{fresh_address()}@example.org"
    for _ in range(2):
        ask(email=email)
    page = Client(REMOTE_ADDR=fresh_address()).post("/account/reset", {"email": email})
    assert page.status_code == 429 and b"Too many requests" in page.content


def test_the_access_log_does_not_keep_an_unused_link():
    """Regression: uvicorn's access line printed the link's token, usable by anyone reading the logs."""

    line = '127.0.0.1:5 - "GET /account/reset/MQ/dj0mty-8f90ac0e62686346a3dc HTTP/1.1" 302'
    assert secrets_redacted(line) == '127.0.0.1:5 - "GET /account/reset/MQ/[redacted] HTTP/1.1" 302'
    kept = '"GET /account/reset/MQ/set-password HTTP/1.1" 200'
    assert secrets_redacted(kept) == kept
