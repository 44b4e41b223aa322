"""The table's chat in the browser: two players talk live over the socket, hostile names and
messages stay text, a spectator's message sits in the Spectators tab until a player switches that
channel off, and a finished match's replay shows its chat.

People and tables are set up over the API; what people write at the table, they write on the page.
"""
from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, ROOT, needs_chromium, unique
from tests.frontend.test_table_pages import bot_table, open_table, play_to_end

pytestmark = [pytest.mark.browser, needs_chromium]

HOSTILE_TEXT = '<img src=x onerror="window.__pwned=1">'


def register(base: str, prefix: str, display_name: str = "") -> tuple[str, httpx.Client]:
    """A new account: its username and an API client (token) of its own."""
    name = unique(prefix)
    answer = httpx.post(f"{base}/api/auth/register",
                        json={"username": name, "password": PASSWORD, "display_name": display_name})
    assert answer.status_code == 201, answer.text
    return name, httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"})


def running_table(first: httpx.Client, second: httpx.Client) -> int:
    """A started 2-player table of Ten between two people."""
    table = first.post("/api/matches", json={"game": "ten", "players": 2, "rated": False}).json()
    assert second.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert first.post(f"/api/matches/{table['id']}/start").status_code == 200
    return table["id"]


def say(page, text: str) -> None:
    page.get_by_label("Your message").fill(text)
    # Submitted as the Send button does, without aiming the pointer at it: on a loaded machine the
    # live panels above it (players, the board) may still be moving when the click lands.
    page.locator("#chat form").evaluate("form => form.requestSubmit()")


def wait_for_message(page, text: str, author: str | None = None) -> None:
    """Until the chat list shows `text` (by `author`), exactly as written."""
    page.wait_for_function(
        """([text, author]) => [...document.querySelectorAll('#chat .chat-message')].some((item) =>
             item.querySelector('.chat-text')?.textContent === text
             && (author === null || item.querySelector('.chat-author').textContent === author))""",
        arg=[text, author],
    )


def shown_texts(page) -> list[str]:
    return page.locator("#chat .chat-list .chat-text").all_text_contents()


@pytest.fixture
def players(live_server_url):
    """Two people at a running table, each with an API client."""
    first, first_api = register(live_server_url, "cora")
    second, second_api = register(live_server_url, "dov")
    yield {"match": running_table(first_api, second_api), "names": (first, second)}
    first_api.close()
    second_api.close()


def test_two_players_chat_live_through_the_panel(pages, players):
    first, second = players["names"]
    page_a = open_table(pages, players["match"], 1280, first)
    page_b = open_table(pages, players["match"], 390, second)
    say(page_a, "good luck, have fun")
    wait_for_message(page_b, "good luck, have fun", first)  # live: page_b was open before it was said
    say(page_b, "you too")
    wait_for_message(page_a, "you too", second)
    wait_for_message(page_a, "good luck, have fun", first)
    wait_for_message(page_b, "you too", second)  # the sender's panel shows it once the server has it
    assert shown_texts(page_b) == ["good luck, have fun", "you too"]
    assert page_a.get_by_label("Your message").input_value() == ""
    pages.screenshot(page_b, "players-390")


def test_hostile_names_and_messages_stay_text(pages, live_server_url):
    hostile_name = f"<svg onload=window.__pwned=2>{unique('')}"  # a display name takes 40 characters
    first, first_api = register(live_server_url, "eli")
    second, second_api = register(live_server_url, "fay", display_name=hostile_name)
    match_id = running_table(first_api, second_api)
    page_a = open_table(pages, match_id, 1280, first)
    page_b = open_table(pages, match_id, 1280, second)
    say(page_a, HOSTILE_TEXT)
    say(page_b, "<b>Cora</b> said so")
    for page in (page_a, page_b):
        wait_for_message(page, HOSTILE_TEXT, first)
        wait_for_message(page, "<b>Cora</b> said so", hostile_name)
        assert page.locator("#chat img, #chat svg, #chat b").count() == 0
        assert page.evaluate("() => window.__pwned") is None
    first_api.close()
    second_api.close()


def test_a_spectator_s_message_is_in_the_spectators_tab_until_a_player_hides_that_channel(pages, players, live_server_url):
    first, _ = players["names"]
    watcher, watcher_api = register(live_server_url, "gus")
    player = open_table(pages, players["match"], 1280, first)
    spectator = open_table(pages, players["match"], 1280, watcher)
    assert spectator.get_by_role("tab", name="Spectators").get_attribute("aria-selected") == "true"
    assert not spectator.get_by_label("Show the spectators' chat").is_visible(), "the toggle is the players'"
    say(spectator, "nice play")
    wait_for_message(spectator, "nice play", watcher)

    player.get_by_role("tab", name="Spectators").click()
    wait_for_message(player, "nice play", watcher)
    assert not player.get_by_label("Your message").is_visible(), "a player writes in the Players tab only"
    pages.screenshot(player, "spectators-tab")
    player.get_by_label("Show the spectators' chat").uncheck()
    player.wait_for_function("() => !document.querySelector('#chat .chat-list').children.length")
    assert "You chose not to see the spectators' chat." in player.locator("#chat .chat-note").inner_text()
    player.get_by_role("tab", name="Players").click()
    assert "nice play" not in shown_texts(player)
    watcher_api.close()


def test_the_replay_of_a_finished_match_shows_its_chat(pages, live_server_url, server_env):
    player_name = f"Hal {unique('')}"
    _, player_api = register(live_server_url, "hal", display_name=player_name)
    watcher, watcher_api = register(live_server_url, "ivy")
    moderator, moderator_api = register(live_server_url, "jo")
    staff = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c",
         f"from accounts.models import User; User.objects.filter(username={moderator!r}).update(is_staff=True)"],
        check=False, cwd=ROOT, env=server_env, capture_output=True, text=True, timeout=120,
    )
    assert staff.returncode == 0, staff.stderr
    match_id = bot_table(player_api, "ten", 2)

    def post(client: httpx.Client, text: str) -> dict:
        answer = client.post(f"/api/matches/{match_id}/chat", json={"text": text})
        assert answer.status_code == 201, answer.text
        return answer.json()

    post(player_api, "let's go")
    post(watcher_api, HOSTILE_TEXT)
    rude = post(watcher_api, "something rude")
    assert moderator_api.post(f"/api/matches/{match_id}/chat/{rude['seq']}/hide").status_code == 200
    play_to_end(player_api, match_id)
    post(player_api, "well played, bot")

    page = pages.open(width=1280)
    page.goto(f"/tables/{match_id}/replay")
    page.wait_for_selector("#chat[data-loaded=true]")
    lines = page.locator("#chat .chat-message").evaluate_all(
        """(items) => items.map((item) => [item.querySelector('.chat-channel').textContent,
             item.querySelector('.chat-author').textContent,
             item.querySelector('.chat-text')?.textContent ?? item.querySelector('.chat-hidden-note').textContent])""")
    assert lines == [
        ["Players", player_name, "let's go"],
        ["Spectators", watcher, HOSTILE_TEXT],
        ["Spectators", watcher, "(hidden by a moderator)"],
        ["Players", player_name, "well played, bot"],
    ]
    assert page.locator("#chat img").count() == 0 and page.evaluate("() => window.__pwned") is None
    assert "something rude" not in page.locator("#chat").inner_text()
    pages.screenshot(page, "replay-chat-1280")
    for client in (player_api, watcher_api, moderator_api):
        client.close()
