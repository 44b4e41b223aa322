"""Which language a reader gets (server/languages.py), and the switcher that remembers it."""
from __future__ import annotations

import pytest
from django.conf import settings
from django.test import Client

from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

COOKIE = settings.LANGUAGE_COOKIE_NAME


def nav_play(client: Client, **headers) -> str:
    page = client.get("/tournaments", **headers).content.decode()
    return "Chwarae" if ">Chwarae</a>" in page else "Play" if ">Play</a>" in page else "?"


def test_a_visitor_gets_the_browser_language_then_english():
    assert nav_play(Client(), HTTP_ACCEPT_LANGUAGE="cy,en;q=0.5") == "Chwarae"
    assert nav_play(Client(), HTTP_ACCEPT_LANGUAGE="fr,en-US;q=0.5") == "Play"
    assert nav_play(Client(), HTTP_ACCEPT_LANGUAGE="fr") == "Play"
    page = Client().get("/tournaments", HTTP_ACCEPT_LANGUAGE="cy")
    assert page["Content-Language"] == "cy" and "Accept-Language" in page["Vary"]
    assert '<html lang="cy">' in page.content.decode()


def test_the_switcher_cookie_comes_before_the_browser():
    visitor = Client()
    answer = visitor.post("/language", {"language": "cy", "next": "/tournaments"})
    assert answer.status_code == 302 and answer["Location"] == "/tournaments"
    assert answer.cookies[COOKIE].value == "cy"
    assert nav_play(visitor, HTTP_ACCEPT_LANGUAGE="en") == "Chwarae"


def test_a_signed_in_choice_is_kept_on_the_account_and_follows_the_person():
    alice = make_user("alice")
    browser = Client()
    browser.force_login(alice)
    browser.post("/language", {"language": "cy"})
    alice.refresh_from_db()
    assert alice.language == "cy"
    elsewhere = Client()  # another browser: no cookie, an English Accept-Language
    elsewhere.force_login(alice)
    assert nav_play(elsewhere, HTTP_ACCEPT_LANGUAGE="en") == "Chwarae"


def test_the_switcher_refuses_a_language_the_site_lacks_and_changes_nothing():
    alice = make_user("alice")
    browser = Client()
    browser.force_login(alice)
    answer = browser.post("/language", {"language": "fr"})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "unknown_language"
    assert COOKIE not in answer.cookies
    alice.refresh_from_db()
    assert alice.language == ""
    assert Client().get("/language").status_code == 405


def test_the_switcher_never_sends_anyone_off_site():
    answer = Client().post("/language", {"language": "cy", "next": "https://evil.example/"})
    assert answer["Location"] == "/"


def test_the_api_sets_and_refuses_a_language():
    alice = make_user("alice")
    api = client_for(alice)
    assert api.patch("/api/auth/me", {"language": "cy"}, content_type="application/json").json()["language"] == "cy"
    refused = api.patch("/api/auth/me", {"language": "xx"}, content_type="application/json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "unknown_language"
    alice.refresh_from_db()
    assert alice.language == "cy"


def test_the_javascript_catalogue_speaks_the_reader_language():
    welsh = Client().get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="cy").content.decode()
    assert "Wedi'i gadw." in welsh or "Wedi\\u0027i gadw." in welsh
    assert "Wedi" not in Client().get("/jsi18n/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
