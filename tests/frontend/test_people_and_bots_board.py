"""A person who plays a bot is on the bots' pool's board after that one match, beside the bot,
marked provisional, and their profile shows that rating with its place.

The match (Ten, a person against the random bot, rated) is played over the API; the bot moves
through the server's worker.
"""
from __future__ import annotations

import random
import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, needs_chromium, unique
from tests.frontend.test_replay_and_boards import log_in

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def match_against_a_bot(live_server_url):
    name = unique("bea")
    answer = httpx.post(f"{live_server_url}/api/auth/register",
                        json={"username": name, "password": PASSWORD, "display_name": "Bea"})
    assert answer.status_code == 201, answer.text
    api = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    table = api.post("/api/matches", json={"game": "ten", "players": 2}).json()
    assert api.post(f"/api/matches/{table['id']}/bots", json={"bot": "random"}).status_code in (200, 201)
    assert api.post(f"/api/matches/{table['id']}/start").status_code == 200
    rng = random.Random(3)
    deadline = time.monotonic() + 120
    while True:
        mine = api.get(f"/api/matches/{table['id']}/view").json()
        if mine["view"]["finished"]:
            break
        assert time.monotonic() < deadline, "the match did not finish"
        if mine["legal_moves"]:
            move = rng.choice(mine["legal_moves"])
            api.post(f"/api/matches/{table['id']}/moves", json={"move": move})  # a 409 means the bot moved first
        else:
            time.sleep(0.1)  # the bot's turn
    deadline = time.monotonic() + 60
    while True:  # ratings are written by the worker once the match has ended
        board = api.get("/api/ratings/ten/leaderboard", params={"pool": "bots", "player": name}).json()
        if board["player"]:
            break
        assert time.monotonic() < deadline, "the match was not rated"
        time.sleep(0.3)
    yield {"name": name, "position": board["player"]["position"]}
    api.close()


def test_the_person_is_on_the_people_and_bots_board_beside_the_bot(pages, match_against_a_bot):
    pages.name = "people-and-bots"
    page = pages.open()
    log_in(page, match_against_a_bot["name"])
    page.goto("/bots/ten")
    page.wait_for_selector("h1:text('People and bots')")
    page.wait_for_selector("#board-table tbody tr[data-kind=user]:has-text('Bea (you)') .badge-provisional")
    page.wait_for_selector("#board-table tbody tr[data-kind=bot]:has-text('random') .badge-bot")
    page.wait_for_selector(f"#me :text('You are #{match_against_a_bot['position']}')")
    pages.screenshot(page, "board")

    page.get_by_label("Show").select_option("user")
    page.wait_for_function("() => document.querySelectorAll('#board-table tbody tr[data-kind=bot]').length === 0")
    page.wait_for_selector("#board-table tbody tr[data-kind=user]:has-text('Bea')")
    assert "kind=user" in page.url
    page.get_by_label("Show").select_option("bot")
    page.wait_for_function("() => document.querySelectorAll('#board-table tbody tr[data-kind=user]').length === 0")
    page.wait_for_selector("#me :text('the board shows bots only')")

    # The people's board has no row for her: it says where her games against a bot count.
    page.goto("/leaderboards/ten")
    page.wait_for_selector("#me :text('This board lists people only; your games against bots are on')")
    assert page.locator("#me").get_by_role("link", name="the People and bots board").get_attribute("href") == "/bots/ten"
    pages.screenshot(page, "peoples-board-without-her")

    page.goto(f"/players/{match_against_a_bot['name']}")
    card = page.locator(".rating-card[data-game=ten][data-pool=bots]")
    assert "Against bots" in card.inner_text()
    assert f"#{match_against_a_bot['position']} on the people-and-bots board" in card.inner_text()
    assert card.locator(".badge-provisional").count() == 1
    page.wait_for_selector("#history figure, #history p")
    assert page.locator("#history-pool").input_value() == "bots"  # the history opens on the one rated pool
    pages.screenshot(page, "profile")
