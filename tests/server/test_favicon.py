"""Browsers ask for /favicon.ico on pages that name no icon (the API docs): it is the site's icon."""
from django.contrib.staticfiles import finders
from django.test import Client


def test_favicon_is_the_sites_icon():
    answer = Client().get("/favicon.ico")
    assert answer.status_code == 301
    assert answer["Location"].endswith("frontend/img/icon.svg")
    assert finders.find("frontend/img/icon.svg")
