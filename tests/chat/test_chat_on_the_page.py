"""The table page's chat: its panel and flags on the page, and what people write put on the page
as text only (this checks the code; tests/frontend/test_table_chat_page.py drives the panel and
the replay's chat in a browser)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client

from tests.conftest import client_for

JS = Path(__file__).resolve().parents[2] / "frontend/static/frontend/js"
CHAT_JS = JS / "chat.js"
HOSTILE = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>"]


@pytest.mark.parametrize("module", ["chat.js", "replay.js", "table.js", "table-setup.js"])
def test_the_pages_that_show_the_chat_never_write_html(module):
    """Prevents a message or a name becoming markup: text goes in through h() (text nodes) or textContent."""
    source = (JS / module).read_text()
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write|DOMParser|createContextualFragment", source)


def test_the_chat_module_puts_names_and_messages_in_as_text():
    source = CHAT_JS.read_text()
    assert "message.text)" in source and "message.author.name)" in source  # as h() children: text nodes


@pytest.mark.django_db
def test_the_table_page_has_the_chat_panel_and_hostile_text_stays_text(sealed_world):
    users, match_id = sealed_world["users"], sealed_world["match"]
    for text in HOSTILE:
        answer = client_for(users["seated"]).post(f"/api/matches/{match_id}/chat", {"text": text}, format="json")
        assert answer.json()["message"]["text"] == text  # stored and served exactly as written
    page = Client()
    page.force_login(users["organiser"])
    html = page.get(f"/tables/{match_id}").content.decode()
    assert 'id="chat"' in html and not any(text in html for text in HOSTILE)
    data = json.loads(re.search(r'<script id="table-data" type="application/json">(.*?)</script>', html, re.DOTALL).group(1))
    assert data["chat"] == {"moderator": True, "closed": True}
    page.force_login(users["seated"])  # a spectator is shown the table closed (test_spectator_policy)
    html = page.get(f"/tables/{match_id}").content.decode()
    assert '"moderator": false' in html
