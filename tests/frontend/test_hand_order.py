"""A hand its player arranges and moves they confirm (issue #42 item 5): a sort with one click, a
card dragged or moved with Alt+arrows, the order kept for the match after a reload, on a desk and
on a phone; a move offered for confirming first where the player asked for it."""
from __future__ import annotations

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end

pytestmark = [pytest.mark.browser, needs_chromium]

HAND = "#board .hand-arranged .hand-fan > .card"


def shown(page) -> list[int]:
    return [int(card) for card in page.locator(HAND).evaluate_all("(cards) => cards.map((c) => c.dataset.card)")]


def open_the_game(page) -> None:
    page.goto("/")
    page.get_by_label("Game", exact=True).select_option("the-game")
    page.get_by_label("Seats", exact=True).select_option("2")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")
    wait_for_turn_or_end(page)


def drag(page, card, to) -> None:
    """Presses `card`, moves the pointer past `to`'s centre in steps, and lets go."""
    start, end = card.bounding_box(), to.bounding_box()
    y = start["y"] + start["height"] / 2
    page.mouse.move(start["x"] + start["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(end["x"] + end["width"] * 0.9, y, steps=8)
    page.mouse.up()


def test_the_hand_is_sorted_dragged_and_moved_by_keys_and_kept_for_the_match(pages):
    pages.name = "hand-order"
    page = pages.open()
    sign_up(page, unique("hands"))
    open_the_game(page)
    dealt = shown(page)
    assert dealt == sorted(dealt) and len(dealt) == 7  # the engine deals low to high
    sorts = page.get_by_role("group", name="Arrange your hand")

    sorts.get_by_role("button", name="High to low").click()
    assert shown(page) == sorted(dealt, reverse=True)
    assert sorts.get_by_role("button", name="High to low").get_attribute("aria-pressed") == "true"
    page.reload()
    wait_for_turn_or_end(page)
    assert shown(page) == sorted(dealt, reverse=True), "kept for the match"

    # Dragged: the highest card to the right end; the card is not picked by the drag.
    before = shown(page)
    drag(page, page.locator(HAND).first, page.locator(HAND).last)
    assert shown(page) == before[1:] + before[:1]
    assert page.locator(f'{HAND}[aria-pressed="true"]').count() == 0
    assert sorts.get_by_role("button", name="High to low").get_attribute("aria-pressed") == "false"
    pages.screenshot(page, "dragged")

    # By keys: the focused card one place left, and the focus stays on it.
    order = shown(page)
    moving = page.locator(HAND).nth(3)
    card = moving.get_attribute("data-card")
    moving.focus()
    page.keyboard.press("Alt+ArrowLeft")
    assert shown(page) == order[:2] + [order[3], order[2]] + order[4:]
    assert page.evaluate("document.activeElement.dataset.card") == card

    # Kept after a reload too.
    kept = shown(page)
    page.reload()
    wait_for_turn_or_end(page)
    assert shown(page) == kept

    # On a phone (another browser, so the order as dealt): the sorts there, nothing wider than it.
    phone = pages.open(width=390, height=844, mobile=True)
    phone.context.add_cookies(page.context.cookies())
    phone.goto(page.url)
    wait_for_turn_or_end(phone)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390
    assert phone.get_by_role("group", name="Arrange your hand").is_visible()
    pages.screenshot(phone, "phone")


def test_a_move_is_confirmed_first_when_asked_and_cancel_sends_nothing(pages):
    pages.name = "move-confirm"
    page = pages.open()
    sign_up(page, unique("careful"))
    open_the_game(page)
    page.get_by_label("Confirm moves").select_option("untimed")  # this table has no clock
    state = table_state(page)
    move = choose("the-game", state["view"], state["legal"])
    perform(page, "the-game", move)
    offer = page.get_by_role("group", name="Confirm your move")
    offer.wait_for()
    assert f"Play {move['card']}" in offer.inner_text()
    assert offer.get_by_role("button", name="Confirm").evaluate("(b) => b === document.activeElement")
    pages.screenshot(page, "asked")
    offer.get_by_role("button", name="Cancel").click()
    assert offer.is_hidden() and table_state(page)["seq"] == state["seq"]

    page.reload()  # the choice is kept in this browser
    wait_for_turn_or_end(page)
    assert page.get_by_label("Confirm moves").input_value() == "untimed"
    perform(page, "the-game", move)
    page.keyboard.press("Enter")  # the focus is on Confirm
    wait_for_seq_after(page, state["seq"])
    assert offer.is_hidden()

    page.get_by_label("Confirm moves").select_option("never")
    wait_for_turn_or_end(page)
    state = table_state(page)
    perform(page, "the-game", choose("the-game", state["view"], state["legal"]))
    wait_for_seq_after(page, state["seq"])  # sent at once
