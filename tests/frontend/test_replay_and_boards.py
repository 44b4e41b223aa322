"""The replay viewer steps through a finished match; leaderboards page, search and find you.

The match is played over the API by two people (quick and rated), then watched in the browser.
"""
from __future__ import annotations

import random
import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, log_in, needs_chromium, unique

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def finished_match(live_server_url):
    """A rated match of The Game between two people, played to its end over the API, and rated."""
    people = []
    for prefix in ("gail", "hugo"):
        name = unique(prefix)
        answer = httpx.post(f"{live_server_url}/api/auth/register",
                            json={"username": name, "password": PASSWORD, "display_name": prefix.title()})
        assert answer.status_code == 201, answer.text
        token = answer.json()["token"]
        client = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {token}"})
        people.append((name, client))
    (gail, gail_api), (hugo, hugo_api) = people
    table = gail_api.post("/api/matches", json={"game": "the-game", "players": 2}).json()
    assert hugo_api.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert gail_api.post(f"/api/matches/{table['id']}/start").status_code == 200
    rng = random.Random(7)
    clients = [gail_api, hugo_api]
    for _ in range(400):
        views = [c.get(f"/api/matches/{table['id']}/view").json() for c in clients]
        if views[0]["view"]["finished"]:
            break
        seat = views[0]["view"]["to_act"][0]
        plays = [m for m in views[seat]["legal_moves"] if m["action"] == "play"]
        below_minimum = views[seat]["view"]["phase"] == "play"
        move = plays[0] if plays and below_minimum else rng.choice(views[seat]["legal_moves"])
        assert clients[seat].post(f"/api/matches/{table['id']}/moves", json={"move": move}).status_code == 200
    final = httpx.get(f"{live_server_url}/api/matches/{table['id']}").json()
    assert final["status"] == "finished"
    deadline = time.monotonic() + 60
    while True:  # ratings are written by the worker once the match has ended
        board = httpx.get(f"{live_server_url}/api/ratings/the-game/leaderboard",
                          params={"min_games": 0, "player": gail}).json()
        if board["player"]:
            break
        assert time.monotonic() < deadline, "the match was not rated"
        time.sleep(0.3)
    yield {"id": table["id"], "seq": final["seq"], "gail": gail, "hugo": hugo}
    for _, client in people:
        client.close()


def index_of(page) -> int:
    return int(page.locator("#replay").get_attribute("data-index"))


def wait_index(page, index: int) -> None:
    page.wait_for_function("(i) => Number(document.getElementById('replay').dataset.index) === i", arg=index)


def test_the_replay_viewer_steps_seeks_plays_and_links_to_a_position(pages, finished_match):
    pages.name = "replay"
    page = pages.open(permissions=["clipboard-read", "clipboard-write"])
    page.goto(f"/tables/{finished_match['id']}/replay")
    page.wait_for_selector("#controls:not([hidden])")
    assert int(page.locator("#replay").get_attribute("data-seq")) == finished_match["seq"]
    last = int(page.locator("#seek").get_attribute("max"))
    assert last > 3 and index_of(page) == last
    page.wait_for_selector("#result:not([hidden])")
    pages.screenshot(page, "replay-end")

    page.get_by_role("button", name="First position").click()
    wait_index(page, 0)
    page.get_by_role("button", name="Next move").click()
    wait_index(page, 1)
    page.get_by_role("button", name="Next move").click()
    wait_index(page, 2)
    page.get_by_role("button", name="Previous move").click()
    wait_index(page, 1)
    page.keyboard.press("ArrowRight")  # the arrow keys step too
    wait_index(page, 2)

    page.locator("#seek").focus()  # the slider seeks
    page.keyboard.press("End")
    wait_index(page, last)
    page.keyboard.press("Home")
    wait_index(page, 0)

    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function("() => Number(document.getElementById('replay').dataset.index) >= 2",
                           timeout=10_000)
    page.get_by_role("button", name="Pause", exact=True).click()
    paused_at = index_of(page)
    time.sleep(1.2)
    assert index_of(page) == paused_at

    # One seat's view shows that seat's hand only; everyone's cards show both hands.
    page.get_by_label("Show").select_option("0")
    page.wait_for_selector("#board .hand-panel h3:has-text(\"Gail's hand\")")
    assert page.locator("#board .mini-hand").count() == 0
    pages.screenshot(page, "replay-one-seat")
    page.get_by_label("Show").select_option("all")
    page.wait_for_function("() => document.querySelectorAll('#board .mini-hand').length === 2")
    assert page.locator("#board .hand-panel").count() == 0
    pages.screenshot(page, "replay-everyone")

    page.get_by_label("Show").select_option("1")
    page.wait_for_selector("#board .hand-panel h3:has-text(\"Hugo's hand\")")
    seq_here = int(page.locator("#replay").get_attribute("data-seq"))
    page.get_by_role("button", name="Copy a link to this position").click()
    page.wait_for_selector("#copied:has-text('Link copied')")
    link = page.evaluate("() => navigator.clipboard.readText()")
    assert f"seq={seq_here}" in link and "seat=1" in link
    other = pages.open()
    other.goto(link)
    other.wait_for_selector("#controls:not([hidden])")
    assert int(other.locator("#replay").get_attribute("data-seq")) == seq_here
    other.wait_for_selector("#board .hand-panel h3:has-text(\"Hugo's hand\")")
    assert other.get_by_label("Show").input_value() == "1"


def test_leaderboards_page_search_and_show_your_own_place(pages, finished_match):
    pages.name = "boards"
    page = pages.open()
    log_in(page, finished_match["gail"])
    page.get_by_role("link", name="Leaderboards").click()
    page.wait_for_url("**/leaderboards/*")
    page.get_by_role("link", name="The Game", exact=True).click()
    # Everyone rated is listed by default; one game each: both marked provisional.
    page.wait_for_selector("#board-table tbody tr:has-text('Gail') .badge-provisional[title*='1 rated game so far']")
    page.wait_for_selector("#board-table tbody tr:has-text('Hugo') .badge-provisional")
    page.wait_for_selector("#me :text('You are #')")
    page.wait_for_selector("#me .badge-provisional")
    page.wait_for_selector("#me :text('4 more rated games until your rating settles (1 game so far)')")
    page.wait_for_selector("#best-results table")
    pages.screenshot(page, "leaderboard")

    page.get_by_label("Find a player").fill(finished_match["hugo"])
    page.get_by_role("button", name="Find").click()
    page.wait_for_selector("#flash :text('Hugo is #')")
    page.wait_for_selector("#board-table tr.is-me:has-text('Hugo')")
    page.get_by_role("button", name="Show my place").click()
    page.wait_for_selector("#board-table tr.is-me:has-text('Gail (you)')")

    page.get_by_role("link", name="Bots", exact=True).click()
    page.wait_for_url("**/bots/*")
    page.wait_for_selector("h1:text('People and bots')")
    page.wait_for_selector("#board-table[aria-busy=false]", state="attached")  # an empty board hides it
    pages.screenshot(page, "bots-board")

    phone = pages.open(width=390, height=844, mobile=True)
    phone.goto("/leaderboards/the-game?min_games=0")
    phone.wait_for_selector("#board-table tbody tr:has-text('Hugo')")
    pages.screenshot(phone, "leaderboard-phone")


def test_a_new_players_rating_is_shown_provisional_never_negative(pages, finished_match):
    """One rated game each: the board's Rating column and the profile show μ with a "?" (their
    μ − 3σ, which orders the board, may be below zero), the profile says how many games are left."""
    pages.name = "provisional"
    page = pages.open()
    page.goto("/leaderboards/the-game")
    row = page.locator("#board-table tbody tr:has-text('Gail')")
    row.wait_for()
    rating, mu = (row.locator("td.num").nth(i).inner_text() for i in (1, 2))
    assert rating == f"{mu}?"
    page.wait_for_selector("#board-legend:has-text('ordered by μ − 3σ for everyone')")
    page.goto(f"/players/{finished_match['gail']}")
    card = page.locator(".rating-card[data-game=the-game]")
    assert card.locator(".rating-shown").inner_text().endswith("?")
    assert "4 more rated games to settle" in card.locator(".rating-settling").inner_text()
    page.locator("#history summary").click()
    cells = page.locator("#history tbody td:last-child").all_inner_texts()
    assert cells and all(cell.endswith("?") and not cell.startswith(("-", "−")) for cell in cells)
    pages.screenshot(page, "profile")
