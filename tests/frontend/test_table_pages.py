"""The table pages of the four games as a player and a spectator, running and finished, and the
replay page's "Practice from here": what a newcomer sees there, at 1280 px and 390 px.

Tables are set up over the API: one person at seat 0 with bots at the others; the person's
moves are random legal ones, the bots move through the server's worker.
"""
from __future__ import annotations

import random
import re
import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, log_in, needs_chromium, unique

pytestmark = [pytest.mark.browser, needs_chromium]

WIDTHS = (1280, 390)
GAMES = ("ten", "the-game", "sequence-stacks", "split")


@pytest.fixture(scope="module")
def person(live_server_url):
    """A registered person with an API client (token) of their own."""
    name = unique("tara")
    answer = httpx.post(f"{live_server_url}/api/auth/register",
                        json={"username": name, "password": PASSWORD, "display_name": "Tara"})
    assert answer.status_code == 201, answer.text
    client = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    yield {"username": name, "api": client}
    client.close()


def bot_table(api: httpx.Client, game: str, players: int) -> int:
    """A started table of `game`: the person at seat 0, bots at the others."""
    table = api.post("/api/matches", json={"game": game, "players": players, "rated": False}).json()
    bot = next(g for g in api.get("/api/games").json() if g["slug"] == game)["bots"][0]
    for seat in range(1, players):
        answer = api.post(f"/api/matches/{table['id']}/bots", json={"seat": seat, "bot": bot})
        assert answer.status_code == 200, answer.text
    assert api.post(f"/api/matches/{table['id']}/start").status_code == 200
    return table["id"]


def play_to_end(api: httpx.Client, match_id: int, *, seed: int = 3, seconds: float = 120) -> dict:
    """Seat 0 plays random legal moves until the match ends; returns the match."""
    rng = random.Random(seed)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = api.get(f"/api/matches/{match_id}/view").json()
        if answer["view"] and answer["view"]["finished"]:
            break
        if answer["legal_moves"]:
            api.post(f"/api/matches/{match_id}/moves", json={"move": rng.choice(answer["legal_moves"])})
        else:
            time.sleep(0.05)
    deadline = time.monotonic() + 30
    while (match := api.get(f"/api/matches/{match_id}").json())["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not finish"
        time.sleep(0.1)
    return match


def open_table(pages, match_id: int, width: int, username: str | None):
    page = pages.open(width=width, height=900, mobile=width < 500)
    if username:
        log_in(page, username)
    page.goto(f"/tables/{match_id}")
    page.wait_for_function("() => document.getElementById('table').dataset.seq")
    page.wait_for_selector("#board > *")
    return page


def boxes_inside(page, inner: str, outer: str) -> list[str]:
    """The `inner` elements (within an `outer` one) whose box spills out of that `outer` box."""
    return page.evaluate(
        """([inner, outer]) => [...document.querySelectorAll(inner)].flatMap((node) => {
             const box = node.closest(outer).getBoundingClientRect(), own = node.getBoundingClientRect();
             const fits = own.left >= box.left - 0.5 && own.right <= box.right + 0.5
               && own.top >= box.top - 0.5 && own.bottom <= box.bottom + 0.5;
             return fits ? [] : [`${node.textContent}: ${JSON.stringify(own)} outside ${JSON.stringify(box)}`];
           })""",
        [inner, outer],
    )


def overlap(page, first: str, second: str) -> bool:
    return page.evaluate(
        """([first, second]) => {
             const a = document.querySelector(first).getBoundingClientRect();
             const b = document.querySelector(second).getBoundingClientRect();
             return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
           }""",
        [first, second],
    )


def check_running(page, game: str, player: bool) -> None:
    """What a running table must show: Ten's labelled counters, a banner clear of the board."""
    assert page.locator("#connection").is_visible()
    assert not overlap(page, ".turn-bar", "#board"), "the turn banner covers the board"
    if game == "ten":
        seat = page.locator(".ten-seats .seat-box").first
        assert "currency" in seat.locator(".token-currency").inner_text()
        assert "bust" in seat.locator(".token-bust").inner_text()
    # What a Tab, a re-drawn board's focus or a link brings into view lands below the sticky banner
    # (at 390 px the page scrolls; at 1280 px it may not, and then nothing moves).
    page.locator("#board > :first-child").evaluate("(node) => node.scrollIntoView({block: 'start'})")
    assert not overlap(page, ".turn-bar", "#board > :first-child"), "the banner covers the top of the board"
    page.evaluate("() => window.scrollTo(0, 0)")


def check_finished(page, game: str) -> None:
    """A finished table claims nothing live, and a 3-player table's places read 1st, 2nd, 3rd (a
    cooperative one lists its team without places)."""
    assert not page.locator("#connection").is_visible(), "a finished table still shows the Live badge"
    board = page.locator("#board").inner_text()
    assert "· active" not in board and "draws this turn" not in board, board
    log = page.locator("#log-list")
    assert log.evaluate("(list) => list.scrollTop") == 0, "the log opens scrolled past its first line"
    # Each line keeps its own number, also once the oldest lines of a long log are dropped.
    numbers = log.evaluate("(list) => [...list.children].map((item) => item.value)")
    assert numbers == list(range(numbers[-1] - len(numbers) + 1, numbers[-1] + 1))
    assert numbers[-1] == page.evaluate("() => cardLeagueTable.state.log.length")
    places = page.locator("#result td.place").all_inner_texts()
    if game == "the-game":  # cooperative: one team, one result, and no places beside it
        assert places == [] and page.locator("#result tbody tr").count() == 3
    else:
        assert len(places) == 3 and all(place in ("1st", "2nd", "3rd") for place in places), places
        assert places == sorted(places), places
    # A hand panel holds cards: a player who went out has none left, and no empty box is drawn.
    for panel in page.locator(".hand-panel").all():
        assert panel.locator(".hand > *").count(), "a finished table shows an empty hand"


@pytest.mark.parametrize("game", GAMES)
def test_each_table_page_as_player_and_spectator(pages, person, game):
    """A running and a finished table of each game, as the player and a spectator, at both widths."""
    running = bot_table(person["api"], game, 3)
    for width in WIDTHS:
        for who in (person["username"], None):
            page = open_table(pages, running, width, who)
            pages.screenshot(page, f"running-{width}-{'player' if who else 'spectator'}")
            check_running(page, game, bool(who))
            assert not boxes_inside(page, ".match > *", ".match"), "a Split match's chip spills out of its box"
            pages.done(page)
    play_to_end(person["api"], running)
    for width in WIDTHS:
        for who in (person["username"], None):
            page = open_table(pages, running, width, who)
            page.wait_for_selector("#table[data-status=finished]")
            # The page knows the status from its first load; the log's lines come after, with the events.
            page.wait_for_selector("#log-list li")
            pages.screenshot(page, f"finished-{width}-{'player' if who else 'spectator'}")
            check_finished(page, game)
            assert not boxes_inside(page, ".match > *", ".match"), boxes_inside(page, ".match > *", ".match")
            assert not boxes_inside(page, ".match", ".seat-box"), boxes_inside(page, ".match", ".seat-box")


@pytest.fixture(scope="module")
def finished_table(person):
    """A finished 2-player table of The Game: the person and a bot."""
    match_id = bot_table(person["api"], "the-game", 2)
    play_to_end(person["api"], match_id)
    return match_id


def test_practice_from_here_starts_a_table_at_the_replayed_position(pages, person, finished_table):
    page = pages.open(width=1280)
    log_in(page, person["username"])
    page.goto(f"/tables/{finished_table}/replay")
    page.wait_for_selector("#controls:not([hidden])")
    assert page.locator("#practice").is_disabled(), "the end is no position to practise from"
    assert page.locator("#practice-why").is_visible(), "why it is greyed is said, not only in a tooltip"
    page.locator("#first").click()
    page.wait_for_function("() => document.getElementById('replay').dataset.index === '0'")
    for index in (1, 2, 3):
        page.locator("#next").click()
        page.wait_for_function("(i) => document.getElementById('replay').dataset.index === String(i)", arg=index)
    seq = int(page.locator("#replay").get_attribute("data-seq"))
    assert page.locator("#practice").is_enabled() and page.locator("#practice-why").is_hidden()
    assert page.locator("#practice-seat").inner_text() == "Tara"
    pages.screenshot(page, "replay-1280")
    page.locator("#practice").click()
    page.wait_for_url(lambda url: "/tables/" in url and "/replay" not in url)
    practice = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert practice != finished_table
    page.wait_for_selector("#table[data-status=running]")
    page.wait_for_selector("#board > *")
    pages.screenshot(page, "practice-table-1280")
    # The practice table's events open with exactly the source's events up to the position shown.
    source = [entry["event"] for entry in person["api"].get(f"/api/matches/{finished_table}/log").json()
              if entry["seq"] <= seq]
    copied = [entry["event"] for entry in person["api"].get(f"/api/matches/{practice}/log").json()]
    assert source and copied[:len(source)] == source
    seats = person["api"].get(f"/api/matches/{practice}").json()["seats"]
    assert seats[0]["name"] == "Tara" and seats[1]["bot"]


def test_an_anonymous_replay_viewer_is_offered_a_log_in_back_to_the_position(pages, finished_table):
    page = pages.open(width=390, mobile=True)
    page.goto(f"/tables/{finished_table}/replay")
    page.wait_for_selector("#controls:not([hidden])")
    page.locator("#first").click()
    page.wait_for_function("() => document.getElementById('replay').dataset.index === '0'")
    seq = page.locator("#replay").get_attribute("data-seq")
    link = page.locator("#practice-login")
    assert link.get_attribute("href") == f"/login?next=%2Ftables%2F{finished_table}%2Freplay%3Fseq%3D{seq}%26seat%3Dall"
    assert page.locator("#practice").count() == 0
    pages.screenshot(page, "replay-anonymous-390")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_board_says_where_the_player_stands_or_how_to_get_on_it(pages, person, live_server_url, width):
    board = httpx.get(f"{live_server_url}/api/ratings/sequence-stacks/leaderboard", params={"min_games": 1}).json()
    page = pages.open(width=width, mobile=width < 500)
    page.goto("/leaderboards/sequence-stacks")
    standing = page.locator("#standing")
    standing.wait_for()
    assert "This board lists people rated at Sequence Stacks tables among people only" in standing.inner_text()
    assert standing.get_by_role("link", name="sign up").get_attribute("href") == "/signup?next=%2Fleaderboards%2Fsequence-stacks"
    page.wait_for_selector("#board-table[aria-busy=false]", state="attached")  # an empty board hides it
    empty = page.locator("#board-empty")
    if board["count"]:
        assert not empty.is_visible()
    else:
        assert "Nobody is on this board yet" in empty.inner_text()
        assert empty.get_by_role("link", name="Open a table").get_attribute("href") == "/#create-title"
        box = empty.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, "the empty board's note runs off the page"
    pages.screenshot(page, f"board-anonymous-{width}")

    log_in(page, person["username"])  # the person's tables were casual: no rated game anywhere
    page.goto("/bots/sequence-stacks")
    standing = page.locator("#standing")
    standing.wait_for()
    assert "You have not played a rated game of Sequence Stacks against a bot yet" in standing.inner_text()
    assert standing.get_by_role("link", name="play one against a bot").get_attribute("href") == "/#create-title"
    pages.screenshot(page, f"board-signed-in-{width}")


def test_a_seated_player_s_page_adds_to_a_contributed_shuffle_and_checks_it_was_used(pages, person):
    """The page sends a contribution by itself while the table is open, keeps it, and once dealt
    says whether MatchStarted used it; a spectator's page says nothing of theirs."""
    api = person["api"]
    table = api.post("/api/matches", json={"game": "ten", "players": 2, "rated": False, "contributed_shuffle": True}).json()
    assert api.post(f"/api/matches/{table['id']}/bots", json={"seat": 1, "bot": "random"}).status_code == 200
    page = pages.open(width=1280, height=900)
    log_in(page, person["username"])
    page.goto(f"/tables/{table['id']}")
    page.wait_for_function("() => document.getElementById('shuffle-note').textContent.includes('Yours is in')")
    assert api.get(f"/api/matches/{table['id']}").json()["shuffle"]["contributed_seats"] == [0]
    assert api.post(f"/api/matches/{table['id']}/start").status_code == 200
    page.wait_for_function("() => document.getElementById('shuffle-note').textContent.includes('Yours is among them')")
    sent = page.evaluate(f"() => localStorage.getItem('card-league:shuffle:{table['id']}')")
    contributions = api.get(f"/api/matches/{table['id']}").json()["shuffle"]["contributions"]
    assert contributions == [{"seat": 0, "value": sent}]
    spectator = open_table(pages, table["id"], 1280, None)
    note = spectator.text_content("#shuffle-note")
    assert "1 player's contribution" in note and "Yours" not in note


def test_two_people_meet_through_an_invitation_link(pages, person, live_server_url):
    """The creator of a private table makes a link on its page; a friend who opens it and sits
    down lands at the table, in the seat; the lobby never lists the table."""
    api = person["api"]
    table = api.post("/api/matches", json={"game": "ten", "players": 2, "rated": False, "private": True}).json()
    creator = pages.open(width=1280, height=900)
    log_in(creator, person["username"])
    creator.goto(f"/tables/{table['id']}")
    creator.get_by_role("button", name="Make a link").click()
    creator.wait_for_selector("#invite-link")
    url = creator.input_value("#invite-link")
    assert url.startswith(live_server_url + "/invite/")
    friend_name = unique("fern")
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": friend_name, "password": PASSWORD})
    assert answer.status_code == 201
    friend = pages.open(width=390, height=844, mobile=True)
    log_in(friend, friend_name)
    friend.goto(url)
    friend.get_by_role("button", name="Sit down").click()
    friend.wait_for_url(f"**/tables/{table['id']}")
    seats = api.get(f"/api/matches/{table['id']}").json()["seats"]
    assert [s["name"] for s in seats] == ["Tara", friend_name]
    lobby = api.get("/api/matches", params={"status": "open"}).json()["results"]
    assert table["id"] not in [m["id"] for m in lobby]


def test_a_rematch_is_offered_from_the_result_and_accepted_on_its_table(pages, person, live_server_url):
    """Two people finish a match; one offers a rematch from the result panel and lands at the new
    table, seats rotated; the other's finished page links to it, and their acceptance starts it."""
    api = person["api"]
    friend_name = unique("finn")
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": friend_name, "password": PASSWORD})
    friend = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    table = api.post("/api/matches", json={"game": "ten", "players": 2, "rated": False}).json()
    assert friend.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert api.post(f"/api/matches/{table['id']}/start").status_code == 200
    rng, clients = random.Random(5), [api, friend]
    while (match := api.get(f"/api/matches/{table['id']}").json())["status"] != "finished":
        for client in clients:
            seen = client.get(f"/api/matches/{table['id']}/view").json()
            if seen["legal_moves"]:
                client.post(f"/api/matches/{table['id']}/moves", json={"move": rng.choice(seen["legal_moves"])})
    offerer = open_table(pages, table["id"], 1280, person["username"])
    other = open_table(pages, table["id"], 390, friend_name)
    offerer.get_by_role("button", name="Offer a rematch").click()
    offerer.wait_for_url(re.compile(rf".*/tables/(?!{table['id']}$)\d+$"))
    rematch_id = int(offerer.url.rsplit("/", 1)[1])
    assert api.get(f"/api/matches/{rematch_id}").json()["rematch_of"] == match["id"]
    other.get_by_role("link", name="Go to the rematch").click()
    # The last acceptance starts a rematch, not its creator.
    other.wait_for_selector("#board :text('The rematch starts as soon as every player has accepted it.')")
    other.get_by_role("button", name="Accept the rematch").click()
    offerer.wait_for_function("() => document.getElementById('table').dataset.status === 'running'")
    seats = api.get(f"/api/matches/{rematch_id}").json()["seats"]
    assert [s["name"] for s in seats] == [friend_name, "Tara"]  # rotated: the other seat moves first
    friend.close()
