"""A whole match of each of the four games against a bot, in Welsh, with no English on screen.

The player signs up (in English), then their browser asks for Welsh (Accept-Language: cy) and
opens a table against the game's strongest bot. The page is read for English before the start
(the seats, the invitation links), at the start, in the middle of the match (the move log
filled), at the end (the result), and on the finished match's replay: every word the reader
sees, and the titles, aria-labels and placeholders of what is shown, apart from names (people,
bots) and "Card League".
"""
from __future__ import annotations

import pytest

from games.bots import BOTS
from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.english import english_words
from tests.frontend.players import play_until_finished

pytestmark = [pytest.mark.browser, needs_chromium]

GAME_OPTIONS = {"sequence-stacks": {"turn_limit": 40}}  # a full game, but a short one

# Everything a reader meets on the page: the text, and the words that only assistive
# technology or a hover shows (of visible elements only: a hidden panel is not on screen).
ON_SCREEN = """() => {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const words = [document.title, document.body.innerText];
  for (const el of document.querySelectorAll("[title], [aria-label], [placeholder], [alt], [aria-valuetext]")) {
    if (!visible(el)) continue;
    for (const name of ["title", "aria-label", "placeholder", "alt", "aria-valuetext"]) {
      if (el.getAttribute(name)) words.push(el.getAttribute(name));
    }
  }
  for (const option of document.querySelectorAll("select option")) {
    if (visible(option.parentElement)) words.push(option.textContent);
  }
  return words.join("\\n");
}"""

# Opens a table of `game` for the signed-in page, as the lobby's form does (through the page's
# own API module, with its CSRF token); the table page then seats the bot and starts it. Its ten
# minutes a move are said in the status line ("10 munud y symudiad": from the catalogue, not the
# browser's Intl, which in the headless shell knows no Welsh units and said "10 minutes").
OPEN_TABLE = """async ({game, options}) => {
  const script = document.querySelector("script[type=module]");
  const { post } = await import(new URL("api.js", script.src).href);
  const match = await post("matches", { game, players: 2, rated: false, clock_seconds: 600,
    contributed_shuffle: false, private: false, options });
  return match.id;
}"""


def assert_welsh(page, where: str, allowed: set[str]) -> None:
    text = page.evaluate(ON_SCREEN)
    english = english_words(text, allowed)
    assert not english, f"English on the Welsh {where}: {sorted(set(english))}\n---\n{text}"


@pytest.mark.parametrize("game", ["the-game", "ten", "sequence-stacks", "split"])
def test_a_whole_match_in_welsh(pages, game):
    pages.name = f"welsh-{game}"
    page = pages.open()
    username = unique("cymro")
    sign_up(page, username)
    page.context.set_extra_http_headers({"Accept-Language": "cy"})
    page.goto("/")
    assert page.locator("html").get_attribute("lang") == "cy"
    allowed = {username, *BOTS[game]}  # the seat chooser lists every bot of the game

    match_id = page.evaluate(OPEN_TABLE, {"game": game, "options": GAME_OPTIONS.get(game, {})})
    page.goto(f"/tables/{match_id}")
    page.wait_for_selector("#setup:not([hidden]) #invitations")
    assert_welsh(page, "table's seats before the start", allowed)
    page.locator("#setup [data-key=fill-bots]").click()  # the game's strongest bot
    page.locator("#setup [data-key=start]:not([disabled])").click()
    page.wait_for_selector("#table[data-status=running]")
    page.wait_for_selector("#connection:text('Byw')")
    assert "10 munud y symudiad" in page.locator("#table-status").inner_text()
    assert_welsh(page, "table at the start", allowed)

    def mid_game(moves: int, move: dict) -> None:
        if moves == 4:
            page.wait_for_function("() => document.querySelectorAll('#log-list li').length > 4")
            assert_welsh(page, "table in the middle of the match", allowed)
            pages.screenshot(page, "playing")

    assert play_until_finished(page, game, on_move=mid_game) > 4
    page.wait_for_selector("#result:not([hidden])")
    assert_welsh(page, "table at the end", allowed)
    pages.screenshot(page, "finished")

    page.goto(f"/tables/{match_id}/replay")
    page.wait_for_selector("#controls:not([hidden])")
    page.wait_for_selector("#chat[data-loaded=true]")
    page.wait_for_selector("#result:not([hidden])")  # it opens at the end of the match
    assert_welsh(page, "replay at the end", allowed)
    page.locator("#first").click()
    page.wait_for_function("() => document.getElementById('replay').dataset.index === '0'")
    page.locator("#next").click()
    page.locator("#next").click()
    page.wait_for_function("() => document.getElementById('replay').dataset.index === '2'")
    assert_welsh(page, "replay in the middle", allowed)
    pages.screenshot(page, "replay")
