"""The replay page offers "Practice from here" to a signed-in viewer and a sign-in link to anyone
else (Django's test client: the page's markup and data; the browser test in test_table_pages.py
clicks the button)."""
from __future__ import annotations

import pytest
from django.test import Client

from tests.frontend.test_board_pages import WIN, page_data
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db


def test_a_signed_in_viewer_gets_the_practice_button(alice, bob):
    match = stored("ten", [alice, bob], WIN)
    client = Client()
    client.force_login(bob)
    html = client.get(f"/tables/{match.pk}/replay").content.decode()
    assert '<button type="button" class="btn" id="practice">Practice from here</button>' in html
    assert 'id="practice-login"' not in html
    assert page_data(html, "replay-data")["user"]["id"] == bob.pk


def test_an_anonymous_viewer_gets_a_link_to_log_in_and_come_back(alice, bob):
    match = stored("ten", [alice, bob], WIN)
    html = Client().get(f"/tables/{match.pk}/replay?seq=3").content.decode()
    assert 'id="practice"' not in html
    assert f'<a href="/login?next=/tables/{match.pk}/replay%3Fseq%3D3" id="practice-login">' in html
    assert page_data(html, "replay-data")["user"] is None


def test_the_replay_page_has_a_place_for_the_table_s_chat(alice, bob):
    """replay.js fills it from GET /api/matches/<id>/chat once the replay is served (the browser
    test in test_table_chat_page.py reads it)."""
    match = stored("ten", [alice, bob], WIN)
    html = Client().get(f"/tables/{match.pk}/replay").content.decode()
    assert '<section id="chat" class="panel chat-panel" aria-labelledby="chat-title" hidden></section>' in html
