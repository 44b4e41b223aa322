"""A way out of a running game on the table page (issue #43 item 1): a player resigns (asked
twice) and the bot plays their seat to the end, where they rank last; another player hands the
seat of a person who left the table to the bot."""
from __future__ import annotations

import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, needs_chromium, unique
from tests.frontend.test_table_pages import bot_table, open_table

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def person(live_server_url):
    """A registered person of this module's own (display names are unique on the shared server)."""
    name = unique("rhys")
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    client = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    yield {"username": name, "api": client}
    client.close()


def test_a_player_resigns_and_the_bot_plays_their_seat_to_the_end(pages, person):
    match_id = bot_table(person["api"], "ten", 2)
    page = open_table(pages, match_id, 390, person["username"])
    page.locator("[data-key=resign]").click()
    page.wait_for_selector("text=The bot plays your seat to the end")
    pages.screenshot(page, "resign-asked-390")
    page.locator("[data-key=resign-confirm]").click()
    page.wait_for_selector("[data-key='given-up:0']")
    assert page.locator("[data-key=resign]").count() == 0  # nothing left to give up
    page.wait_for_selector("#table[data-status=finished]", timeout=60_000)
    page.wait_for_selector("#result:not([hidden])")
    mine = page.locator("#result tr[data-seat='0'] td.place").inner_text()
    assert mine == "2nd", mine
    # The place is explained beside the name, whatever the bot scored for the seat.
    assert page.locator("[data-key='left:0']").inner_text() == "left the table: placed after those who played on"
    assert page.locator("[data-key='left:1']").count() == 0
    pages.screenshot(page, "resigned-finished-390")


def test_a_player_lets_the_bot_play_the_seat_of_a_person_who_left(pages, person, live_server_url):
    api = person["api"]
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": unique("gus"), "password": PASSWORD})
    gone = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    table = api.post("/api/matches", json={"game": "ten", "players": 2, "rated": False}).json()
    assert gone.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert api.post(f"/api/matches/{table['id']}/start").status_code == 200
    # Tara plays until the table waits on the other person, who never opened the page.
    deadline = time.monotonic() + 60
    while 1 not in (view := api.get(f"/api/matches/{table['id']}/view").json())["view"]["to_act"]:
        assert time.monotonic() < deadline, "the turn never came to the other seat"
        if view["legal_moves"]:
            api.post(f"/api/matches/{table['id']}/moves", json={"move": view["legal_moves"][0]})
    waiting_since = time.monotonic()
    page = open_table(pages, table["id"], 1280, person["username"])
    claim = page.locator("[data-key='claim:1']")
    claim.wait_for()  # offered: the other person is away and the table waits on them
    # The server hands the seat over once the table has waited CLAIM_SEAT_AFTER_SECONDS (1 here) on
    # it; a click before that is refused (409), which the browser would log as an error.
    while time.monotonic() - waiting_since < 1.5:
        page.wait_for_timeout(100)
    claim.click()
    page.wait_for_selector("[data-key='given-up:1']")
    pages.screenshot(page, "claimed-1280")
    seats = api.get(f"/api/matches/{table['id']}").json()["seats"]
    assert [s["abandoned"] for s in seats] == [False, True]
    gone.close()
