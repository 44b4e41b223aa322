"""Two people sign up and play a whole match of The Game with a bot, while a third browser watches.

The spectator must see every move as it is made (its page reaches each new position) and no
hand at any time; both players and the spectator drop their connection once mid-match and
must resume without losing a move. Sign-up, log-out, log-in and the profile are covered on
the way.
"""
from __future__ import annotations

import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, needs_chromium, sign_up, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after

pytestmark = [pytest.mark.browser, needs_chromium]


def seq_of(page) -> int:
    return int(page.locator("#table").get_attribute("data-seq"))


def wait_until_seq(page, seq: int, timeout: float = 20_000) -> None:
    page.wait_for_function("(seq) => Number(document.getElementById('table').dataset.seq) >= seq", arg=seq,
                           timeout=timeout)


def play_by_keyboard(page, move: dict) -> None:
    """Picks the card with Enter; the focus moves to a pile that takes it; Enter plays it there."""
    page.locator(f'#board .hand [data-card="{move["card"]}"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.matches('#board button.pile-target')")
    page.keyboard.press("Escape")  # Escape puts the card back
    page.wait_for_function("() => !document.querySelector('#board button.pile-target')")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.activeElement.matches('#board button.pile-target')")
    page.keyboard.press("Enter")


def my_turn(page) -> bool:
    return page.locator("#table").get_attribute("data-my-turn") == "true"


def finished(page) -> bool:
    return page.locator("#table").get_attribute("data-status") == "finished"


def assert_no_hand(page) -> None:
    assert page.locator("#board .hand-panel").count() == 0
    assert page.evaluate("() => !cardLeagueTable.state.view || cardLeagueTable.state.view.hand === null")


def test_two_people_play_the_game_with_a_bot_while_a_spectator_watches(pages, live_server_url):
    pages.name = "the-game"
    erin, frank, watcher = pages.open(), pages.open(width=390, height=844, mobile=True), pages.open()
    erin_name, frank_name = unique("erin"), unique("frank")

    sign_up(erin, erin_name, display_name="Erin")
    pages.screenshot(erin, "lobby")
    erin.get_by_label("Game", exact=True).select_option("the-game")
    erin.get_by_label("Seats", exact=True).select_option("3")
    erin.get_by_label("Clock").select_option(label="1 minute a move")
    erin.get_by_label("Leave them open for people").check()
    erin.get_by_role("button", name="Open the table").click()
    erin.wait_for_url("**/tables/*")
    match_id = int(erin.url.rstrip("/").split("/")[-1])
    erin.get_by_role("button", name="Add bot").last.click()  # the bot takes the last seat
    erin.wait_for_selector("#setup li:has-text('(bot)')")

    frank.goto("/signup")
    pages.screenshot(frank, "signup-phone")
    sign_up(frank, frank_name, display_name="Frank")
    row = frank.locator(f'.game-tables[data-game="the-game"] [data-match="{match_id}"]')
    # Followed without aiming the pointer: the live lobby above it may still be moving (tables of
    # earlier tests ending) when a click would land.
    row.get_by_role("link", name="Join").dispatch_event("click")
    frank.wait_for_url(f"**/tables/{match_id}")
    frank.get_by_role("button", name="Sit here").click()
    frank.wait_for_selector("#setup li:has-text('Frank (you)')")

    watcher.goto(f"/tables/{match_id}")
    pages.screenshot(erin, "table-open")
    start = erin.get_by_role("button", name="Start the game")
    start.wait_for(state="visible")
    erin.wait_for_function("() => !document.querySelector('[data-key=start]').disabled")
    start.click()
    for page in (erin, frank, watcher):
        page.wait_for_selector("#table[data-status=running]")
    assert_no_hand(watcher)
    watcher.wait_for_selector("#players .presence-online")

    moves = 0
    deadline = time.monotonic() + 240
    while not finished(erin) and not finished(frank):
        assert time.monotonic() < deadline, "the match did not end"
        page = next((p for p in (erin, frank) if my_turn(p)), None)
        if page is None:  # the bot is thinking, or a page has not caught up yet
            time.sleep(0.05)
            continue
        state = table_state(page)
        if moves == 0:  # the turn clock counts down the time left for the decision awaited
            page.wait_for_selector("#clock:not([hidden]):has-text('left')")
        move = choose("the-game", state["view"], state["legal"])
        if moves == 0 and move["action"] == "play":  # the first move by keyboard alone
            play_by_keyboard(page, move)
        else:
            perform(page, "the-game", move)
        wait_for_seq_after(page, state["seq"])
        moves += 1
        # The spectator follows every move, live, and never sees a hand.
        wait_until_seq(watcher, seq_of(page))
        assert_no_hand(watcher)
        if moves == 4:
            pages.screenshot(erin, "table-playing")
            pages.screenshot(frank, "table-playing-phone")
            pages.screenshot(watcher, "table-spectator")
        if moves == 6:  # every connection drops once; each must resume where it was
            for who in (erin, frank, watcher):
                who.evaluate("() => cardLeagueTable.socket.drop()")
            for who in (erin, frank, watcher):
                who.wait_for_selector("#connection.connection-live")
    for page in (erin, frank, watcher):
        page.wait_for_selector("#table[data-status=finished]")
        page.wait_for_selector("#result:not([hidden])")
        # One team, one result: no places beside "The team won/lost".
        assert page.locator("#result th").all_inner_texts()[:2] == ["The team", "Score"]
        assert page.locator("#result td.place").count() == 0
    assert moves >= 2

    final = httpx.get(f"{live_server_url}/api/matches/{match_id}").json()
    assert final["status"] == "finished"
    wait_until_seq(watcher, final["seq"])
    public_log = httpx.get(f"{live_server_url}/api/matches/{match_id}/log").json()
    shown = watcher.eval_on_selector_all("#log-list li", "items => items.map(li => Number(li.dataset.seq))")
    assert shown == [entry["seq"] for entry in public_log], "the spectator missed or repeated events"
    played = [e for e in public_log if e["event"]["type"] == "CardPlayed"]
    assert watcher.locator("#log-list li[data-type=CardPlayed]").count() == len(played) > 0
    assert_no_hand(watcher)
    pages.screenshot(erin, "table-finished")
    pages.screenshot(watcher, "table-finished-spectator")

    # The profile lists the match; logging out and in again works from the header.
    erin.get_by_role("link", name="Erin", exact=True).first.click()
    erin.wait_for_selector(f"#recent td:has-text('#{match_id}')")
    erin.wait_for_selector("#ratings")  # the rating cards come rendered with the page
    pages.screenshot(erin, "profile")
    erin.get_by_role("button", name="Log out").click()
    erin.wait_for_selector(".nav-user a:has-text('Log in')")
    erin.get_by_role("link", name="Log in", exact=True).click()
    erin.get_by_label("Username").fill(erin_name)
    erin.get_by_label("Password").fill("not the password")
    erin.get_by_role("button", name="Log in").click()
    erin.wait_for_selector(".form-errors :text('Wrong username or password')")
    erin.get_by_label("Password").fill(PASSWORD)
    pages.screenshot(erin, "login")
    erin.get_by_role("button", name="Log in").click()
    erin.wait_for_selector(".nav-user .user-link:has-text('Erin')")
