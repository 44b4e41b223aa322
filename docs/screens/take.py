"""Takes the README's screenshots of each game's table (issue #42 item 7), against a running server.

    PORT=8765 make run &            # the embedded default: no services needed
    .venv/bin/python docs/screens/take.py --server http://127.0.0.1:8765

Signs up a person, opens a table of each game against bots from the lobby, plays a few moves by
clicking (tests/frontend/players.py), then saves what the first screen shows at 1280×800 and on a
phone at 390×844 as docs/screens/<game>-<width>.png.
"""
from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end  # noqa: E402

HERE = Path(__file__).resolve().parent
SEATS = {"the-game": "3", "ten": "3", "sequence-stacks": "4", "split": "4"}
MOVES = {"the-game": 3, "ten": 6, "sequence-stacks": 4, "split": 4}


def open_table(page, game: str) -> str:
    page.goto("/")
    page.get_by_label("Game", exact=True).select_option(game)
    page.get_by_label("Seats", exact=True).select_option(SEATS[game])
    page.get_by_label("Casual").check()
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")
    return page.url


def play_a_little(page, game: str) -> None:
    for _ in range(MOVES[game]):
        if wait_for_turn_or_end(page) == "finished":
            return
        state = table_state(page)
        perform(page, game, choose(game, state["view"], state["legal"]))
        wait_for_seq_after(page, state["seq"])
    wait_for_turn_or_end(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", default="http://127.0.0.1:8000")
    args = parser.parse_args()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
        for game in SEATS:
            # A person per game: the lobby caps how many bot tables one person keeps running.
            desk = browser.new_context(base_url=args.server, viewport={"width": 1280, "height": 800},
                                       reduced_motion="reduce")
            page = desk.new_page()
            page.goto("/signup")
            page.get_by_label("Username").fill(f"ana{secrets.randbelow(10000)}")
            page.get_by_label("Password").fill(secrets.token_urlsafe(12))
            page.get_by_role("button", name="Create account").click()
            page.wait_for_url("**/")
            url = open_table(page, game)
            play_a_little(page, game)
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(HERE / f"{game}-1280.png"))
            phone = browser.new_context(base_url=args.server, viewport={"width": 390, "height": 844}, is_mobile=True,
                                        has_touch=True, reduced_motion="reduce", storage_state=desk.storage_state())
            small = phone.new_page()
            small.goto(url)
            small.wait_for_selector("#board > *")
            wait_for_turn_or_end(small)
            width = small.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"{game}: the phone page is {width} px wide"
            small.screenshot(path=str(HERE / f"{game}-390.png"))
            print(f"{game}: {url}")
            desk.close()
            phone.close()
        browser.close()


if __name__ == "__main__":
    main()
