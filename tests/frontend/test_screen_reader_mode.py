"""The screen-reader play mode (issue #43 item 4): one whole match of each game against a bot,
played through the accessibility tree alone.

The mode is turned on from the account page (it is kept in the browser); at the table the
player finds the command box and the keys by their roles and names, reads the table with the
single-letter keys, and makes every move by typing its words or by choosing it from the list of
legal moves; what happens is read from the one live region the mode speaks through.
"""
from __future__ import annotations

import json
import re
import time

import pytest

from tests.frontend.conftest import axe_findings, axe_served, needs_chromium, sign_up, unique
from tests.frontend.players import choose, table_state, wait_for_seq_after, wait_for_turn_or_end
from tests.frontend.test_accessibility import PHONE, _log_in

pytestmark = [pytest.mark.browser, needs_chromium]

COMMAND = "Command (a letter to read, or a move)"
KEYS = {
    "h": re.compile(r"Your hand: |Your hand is empty|Your cards: "),
    "p": re.compile(r"\w"),
    "m": re.compile(r"Market|This game has no market"),
    "l": re.compile(r"Last moves: "),
    "t": re.compile(r"Your turn|Your answer"),
    "c": re.compile(r"No clock runs at this table\."),
    "s": re.compile(r"\w"),
}


def turn_the_mode_on(page) -> None:
    page.goto("/account")
    page.get_by_role("checkbox", name="Play in screen-reader mode").check()


def open_table(page, game: str) -> None:
    page.goto("/")
    page.get_by_label("Game", exact=True).select_option(game)
    if game == "the-game":
        page.get_by_label("Seats", exact=True).select_option("2")
    if game == "sequence-stacks":
        page.get_by_label("Turn limit").fill("40")  # a full game, but a short one
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")


def hear(page, pattern: re.Pattern) -> str:
    """Waits for the live region to say `pattern` (events still waiting are told first, in the
    same words); returns its words."""
    return page.wait_for_function(
        "(source) => { const told = document.getElementById('sr-live').textContent.trim();"
        " return new RegExp(source).test(told) && told; }", arg=pattern.pattern, timeout=5000).json_value()


def read_every_key(page) -> None:
    """Each letter, typed in the box then Enter, and pressed alone on the key list."""
    box = page.get_by_role("textbox", name=COMMAND)
    keys = page.get_by_role("list", name=re.compile("^Keys"))
    for key, answer in KEYS.items():
        box.fill(key)
        box.press("Enter")
        hear(page, answer)
        page.evaluate("document.getElementById('sr-live').textContent = ''")
        keys.press(key)
        hear(page, answer)
        page.evaluate("document.getElementById('sr-live').textContent = ''")


def list_text(page, move: dict) -> str:
    """The words the list of legal moves gives `move` (the renderer's describeMove)."""
    return page.locator(f"#all-moves [data-list-move={json.dumps(json.dumps(move, separators=(',', ':')))}]").inner_text()


@pytest.mark.parametrize("game", ["the-game", "ten", "sequence-stacks", "split"])
def test_a_whole_match_in_the_screen_reader_mode(pages, game):
    pages.name = f"screen-reader-{game}"
    page = pages.open()
    sign_up(page, unique("blind"))
    turn_the_mode_on(page)
    open_table(page, game)
    assert page.get_by_role("checkbox", name="Screen-reader mode").is_checked()
    box = page.get_by_role("textbox", name=COMMAND)
    # One voice: the turn, the log and the result are quiet while the mode speaks for them.
    for region in ("#turn", "#log-list", "#result"):
        assert page.locator(region).get_attribute("aria-live") == "off"
    assert page.locator("#all-moves").get_attribute("open") is not None

    moves = 0
    started = time.monotonic()
    while wait_for_turn_or_end(page) != "finished":
        state = table_state(page)
        if moves == 0:
            read_every_key(page)
            list_top = page.locator("#all-moves").bounding_box()["y"]
            box.fill("frobnicate the widget")
            box.press("Enter")
            heard = hear(page, re.compile("No legal move matches “frobnicate the widget”. Closest: "))
            assert any(list_text(page, legal) in heard for legal in state["legal"])
            # A longer line said does not move the list under a pointer about to press a move.
            assert page.locator("#all-moves").bounding_box()["y"] == list_top
            assert table_state(page)["seq"] == state["seq"]
            pages.screenshot(page, "keys")
            # A frame that changes no move (here an update with nothing new, as a table fact's hint
            # brings) leaves the list's buttons in place: a button rebuilt under a press clicked
            # nothing (FLAKES.md), and a rebuild takes a keyboard user's focus away.
            button = page.locator("#all-moves button").first.element_handle()
            page.evaluate("() => cardLeagueTable.socket.receive("
                          "{ type: 'update', seq: cardLeagueTable.state.seq, events: [] })")
            assert button.evaluate("(node) => node.isConnected")
        move = choose(game, state["view"], state["legal"])
        text = list_text(page, move)
        if moves % 3 == 2:
            page.locator("#all-moves").get_by_role("button", name=text, exact=True).first.click()
        else:
            box.fill(text.lower())
            box.press("Enter")
        try:
            wait_for_seq_after(page, state["seq"])
        except AssertionError as failure:  # what the mode answered says why a move was not sent (FLAKES.md)
            said, how = page.locator("#sr-live").inner_text(), "from the list" if moves % 3 == 2 else "typed"
            raise AssertionError(f"{failure}; sent {text!r} {how}; the mode said {said!r}") from None
        if moves == 0:
            # The move is told once, in the log's words.
            page.wait_for_function(
                "(seq) => { const told = document.getElementById('sr-live').textContent;"
                " return [...document.querySelectorAll('#log-list li')].some("
                "(li) => Number(li.dataset.seq) > seq && told.includes(li.textContent.trim())); }",
                arg=state["seq"], timeout=5000)
        moves += 1
        assert time.monotonic() - started < 300, "the match took too long"
    page.wait_for_selector("#result:not([hidden])")
    hear(page, re.compile(re.escape(page.locator("#result .result-headline").inner_text())))
    assert moves > 3
    pages.screenshot(page, "finished")


def test_the_game_typed_in_few_words(pages):
    """A command may be the beginning of a move or some of its words; when more than one move
    fits, the answer lists them and nothing is played."""
    pages.name = "screen-reader-words"
    page = pages.open()
    sign_up(page, unique("blind"))
    turn_the_mode_on(page)
    open_table(page, "the-game")
    wait_for_turn_or_end(page)
    state = table_state(page)
    box = page.get_by_role("textbox", name=COMMAND)
    box.fill("play")
    box.press("Enter")
    heard = hear(page, re.compile("“play” could be: "))
    assert "Play " in heard and "Say more of the move." in heard
    assert table_state(page)["seq"] == state["seq"]
    card = state["legal"][0]["card"]
    pile = state["legal"][0]["pile"]
    words = f"{card} {'up' if pile < 2 else 'down'} {pile + 1 if pile < 2 else pile - 1}"
    box.fill(words)
    box.press("Enter")
    wait_for_seq_after(page, state["seq"])
    played = table_state(page)["view"]["piles"][pile]["top"]
    assert str(played) == str(card)


@pytest.mark.parametrize("locale", ["en-GB", "cy"])
def test_the_table_in_the_mode_has_no_serious_accessibility_violation(pages, axe_script, locale):
    pages.name = f"screen-reader-axe-{locale}"
    page = pages.open()
    username = unique("blind")
    sign_up(page, username)
    turn_the_mode_on(page)
    open_table(page, "ten")
    path = page.url
    page = pages.open(locale=locale)
    axe_served(page, axe_script)
    _log_in(page, username)
    page.goto("/account")
    page.locator("#sr-mode-toggle").check()
    problems = []
    for width in (1280, PHONE):
        page.set_viewport_size({"width": width, "height": 900 if width == 1280 else 844})
        page.goto(path)
        page.wait_for_selector("#table[data-status=running] #board *")
        assert page.locator("#sr-panel").is_visible()
        problems += [f"{width} px: {found}" for found in axe_findings(page)]
        pages.screenshot(page, f"{width}")
    assert not problems, "\n".join(problems)
