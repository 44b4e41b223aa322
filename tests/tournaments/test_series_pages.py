"""The series pages: thin views that render their template (all data comes from the API). Anyone
reads them; the form that changes a series is shown to its organiser and staff only (the API
still checks every change itself), and the form that creates one to people logged in."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from tests.conftest import make_user
from tournaments import services

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def _client(user=None) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def series(alice):
    return services.series_create(organiser=alice, name="Circuit", games=["ten"],
                                  starts_on=TODAY - dt.timedelta(days=7), ends_on=TODAY + dt.timedelta(days=7))


@pytest.mark.parametrize(("who", "edits"), [("anonymous", False), ("another", False), ("organiser", True), ("staff", True)])
def test_the_series_page_offers_its_form_to_the_organiser_and_staff_only(series, alice, staff, who, edits):
    user = {"anonymous": None, "another": make_user("eve"), "organiser": alice, "staff": staff}[who]
    answer = _client(user).get(f"/series/{series.pk}")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert "Circuit" in page and f'"id": {series.pk}' in page
    assert ('id="event-form"' in page) is edits
    assert (f'"can_edit": {"true" if edits else "false"}') in page


def test_a_series_that_does_not_exist_is_not_found(db):
    assert _client().get("/series/999999").status_code == 404


@pytest.mark.parametrize("logged_in", [False, True])
def test_the_list_offers_its_form_to_people_logged_in(alice, logged_in):
    answer = _client(alice if logged_in else None).get("/series")
    assert answer.status_code == 200
    page = answer.content.decode()
    assert ('id="series-form"' in page) is logged_in
    assert ('href="/login?next=/series"' in page) is not logged_in
