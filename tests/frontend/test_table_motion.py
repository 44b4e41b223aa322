"""Cards move on the table page (issue #42 item 3): a table of each game against a bot, on a phone.

The page is played by clicking (tests.frontend.players) until the bot has moved; every call of
the Web Animations API is counted by a wrapper the page cannot tell from the browser's own. A
card is animated, the last move is marked, nothing is wider than the screen, and with the page's
off switch or the system's reduced motion nothing is animated at all.
"""
from __future__ import annotations

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end

pytestmark = [pytest.mark.browser, needs_chromium]

# Each Element.animate call on a card (or a card's copy in flight), as the class of its target.
COUNT_ANIMATIONS = """
window.cardAnimations = [];
const animate = Element.prototype.animate;
Element.prototype.animate = function (...args) {
  if (this.matches('.card, .motion-ghost')) window.cardAnimations.push(this.className);
  return animate.apply(this, args);
};
"""


def play_one(page, game: str) -> str:
    """Makes one move for the reader's seat and waits for the table to move on; the status."""
    if wait_for_turn_or_end(page) == "finished":
        return "finished"
    state = table_state(page)
    perform(page, game, choose(game, state["view"], state["legal"]))
    wait_for_seq_after(page, state["seq"])
    return wait_for_turn_or_end(page)


def bot_moved(page) -> bool:
    return page.evaluate(
        "() => cardLeagueTable.state.log.some(e => typeof e.event.seat === 'number'"
        " && e.event.seat !== cardLeagueTable.state.seat && !/Started$/.test(e.event.type))")


def animated(page) -> int:
    return page.evaluate("() => window.cardAnimations.length")


def widest(page) -> int:
    return page.evaluate("() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)")


@pytest.mark.parametrize("game", ["the-game", "ten", "sequence-stacks", "split"])
def test_cards_move_against_a_bot_on_a_phone_and_stay_still_when_asked(pages, game):
    pages.name = f"motion-{game}"
    page = pages.open(width=390, height=844, mobile=True, motion=True)
    page.add_init_script(COUNT_ANIMATIONS)
    sign_up(page, unique("mover"))
    page.get_by_label("Game", exact=True).select_option(game)
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")
    assert page.get_by_label("Card motion").input_value() == "normal"

    # Moves until the bot has moved and its move was drawn moving.
    for _ in range(12):
        if play_one(page, game) == "finished":
            break
        if bot_moved(page) and animated(page) and page.evaluate("() => cardLeagueMotion.log.length"):
            break
        assert widest(page) <= 390
    assert bot_moved(page), "the bot never moved"
    assert animated(page), "no card was animated"
    kinds = page.evaluate("() => cardLeagueMotion.log.map(e => e.kind)")
    assert set(kinds) & {"move", "play", "draw", "draw-hidden"}, kinds
    # The last move stays marked: its cards, or the seat that made it.
    assert page.locator("#board .motion-last, #board .motion-last-seat").count(), "the last move is not marked"
    assert widest(page) <= 390
    # No copy of a card is left behind once its flight is over.
    page.wait_for_function("() => !document.querySelector('.motion-ghost')", timeout=2000)
    pages.screenshot(page, "moved")

    if page.locator("#table").get_attribute("data-status") == "finished":
        return
    # The system asks for less motion: the control says so and nothing moves.
    page.emulate_media(reduced_motion="reduce")
    page.wait_for_function("() => document.getElementById('motion-setting').disabled")
    assert page.get_by_label("Card motion").input_value() == "off"
    page.evaluate("() => { window.cardAnimations.length = 0; }")
    seq = table_state(page)["seq"]
    for _ in range(3):
        if play_one(page, game) == "finished":
            break
    assert table_state(page)["seq"] > seq
    assert animated(page) == 0

    # The page's own off switch, kept in this browser: nothing moves after a reload either.
    page.emulate_media(reduced_motion="no-preference")
    page.get_by_label("Card motion").select_option("off")
    page.reload()
    page.wait_for_function("() => cardLeagueTable.state.view")
    assert page.get_by_label("Card motion").input_value() == "off"
    seq = table_state(page)["seq"]
    for _ in range(3):
        if play_one(page, game) == "finished":
            break
    assert table_state(page)["seq"] > seq or page.locator("#table").get_attribute("data-status") == "finished"
    assert animated(page) == 0
    # The last move is still marked: the mark is no motion.
    if page.locator("#table").get_attribute("data-status") != "finished":
        assert page.locator("#board .motion-last, #board .motion-last-seat").count()
