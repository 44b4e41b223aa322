"""Tournaments and leaderboards in Welsh: a reader whose language is Cymraeg organises a Swiss
tournament of bots from the form, follows it to the end, opens an elimination bracket and a
league's calendar, the tournaments list and the boards, and meets no English on the way; dates
carry Welsh month and day names.
"""
from __future__ import annotations

import datetime as dt

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.english import english_words
from tests.frontend.test_tournament_pages import bots_tournament

pytestmark = [pytest.mark.browser, needs_chromium]

# Everything a reader meets on the page: the text on screen, the tooltips and labels of what is
# shown, the bracket's words (SVG text and titles), the page's title.
SHOWN_TEXT = """() => {
  const texts = [document.title, document.body.innerText];
  for (const node of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    if (node.closest('[hidden]')) continue;
    for (const name of ['title', 'aria-label', 'placeholder']) texts.push(node.getAttribute(name) || '');
  }
  for (const node of document.querySelectorAll('svg text, svg title')) texts.push(node.textContent);
  return texts.join('\\n');
}"""

# The names of things (people, bots, tournaments) are not English to translate.
NAMES = """() => [...document.querySelectorAll(
  '#tournament-list .table-seats a, #entrants .player-name, #standings-table tbody th, #board-table tbody th a'
)].map(node => node.textContent)"""

WELSH_DATE_WORDS = {
    "Ionawr", "Chwefror", "Mawrth", "Ebrill", "Mai", "Mehefin", "Gorffennaf", "Awst", "Medi", "Hydref", "Tachwedd",
    "Rhagfyr", "Ion", "Chwef", "Maw", "Ebr", "Meh", "Gorff", "Hyd", "Tach", "Rhag",
    "Sul", "Llun", "Mer", "Iau", "Gwen", "Sad",
}
BOTS = {"stack_finisher", "random", "run_builder"}


def in_welsh(page, base: str) -> None:
    page.context.add_cookies([{"name": "django_language", "value": "cy", "url": base}])
    page.set_extra_http_headers({"Accept-Language": "cy"})


def assert_no_english(page, where: str) -> None:
    text = page.evaluate(SHOWN_TEXT).replace("Card League", "")
    for name in page.evaluate(NAMES):
        text = text.replace(name, "")
    found = english_words(text, allowed=BOTS)
    assert not found, f"English on {where}: {sorted(set(found))}"


def test_a_welsh_reader_follows_tournaments_and_boards_without_meeting_english(pages, live_server_url):
    pages.name = "welsh-tournament"
    page = pages.open()
    sign_up(page, unique("olwen"), display_name="Olwen")
    in_welsh(page, live_server_url)

    # The organiser's form, its field rules open, in Welsh.
    page.goto("/tournaments")
    assert page.evaluate("() => document.documentElement.lang") == "cy"
    page.wait_for_selector("#tournament-list[aria-busy=false]")
    page.locator("#field-rules-form summary").click()
    page.select_option("#t-game", "sequence-stacks")
    page.select_option("#t-format", "swiss")
    page.fill("#t-name", "Twrnamaint y Llan")
    page.fill("#opt-rounds", "2")
    page.fill("#t-turn-limit", "8")
    page.select_option("#t-clock", "30")
    assert_no_english(page, "the tournaments page and its form")
    pages.screenshot(page, "form")
    page.locator("#tournament-form button[type=submit]").click()
    page.wait_for_url("**/tournaments/*")
    swiss_url = page.url

    # The organiser's controls: four bots enter, then the tournament starts.
    for entered in range(4):
        page.locator("[data-key=add-bot]").click()
        page.wait_for_function("(n) => document.querySelectorAll('#entrants li[data-entrant]').length > n", arg=entered)
    page.wait_for_selector("[data-key=start]:not([disabled])")
    assert_no_english(page, "a tournament open for registration")
    pages.screenshot(page, "registration")
    page.locator("[data-key=start]").click()
    page.wait_for_selector("section.round[data-round='1'] tr[data-result=yes]", timeout=90_000)
    assert_no_english(page, "a running Swiss tournament")
    page.wait_for_selector("#tournament[data-status=finished]", timeout=120_000)
    page.wait_for_selector("#champion:not([hidden])")
    assert page.locator("section.round").count() == 2
    headers = page.eval_on_selector_all("#standings-table thead th", "cells => cells.map(c => c.textContent)")
    assert {"Chwaraewr", "Pwyntiau", "Buchholz", "Gradd"} <= set(headers), headers
    assert page.locator("section.round[data-round='2'] h3").inner_text().startswith("Rownd 2")
    assert_no_english(page, "a finished Swiss tournament")
    pages.screenshot(page, "swiss-finished")

    # A single elimination's bracket, in Welsh words.
    cup = bots_tournament(
        live_server_url, ["stack_finisher", "random"] * 2, name="Cwpan y Cymoedd", game="sequence-stacks",
        format="single-elimination", options={"third_place": True}, match_options={"turn_limit": 6}, clock_seconds=30,
    )
    page.goto(f"/tournaments/{cup['id']}")
    page.wait_for_selector("#bracket svg.bracket")
    page.wait_for_selector("#tournament[data-status=finished]", timeout=90_000)
    page.wait_for_function(
        "() => document.querySelectorAll('#bracket [data-bracket-match][data-status=played]').length === 4")
    texts = page.eval_on_selector_all("#bracket svg text", "nodes => nodes.map(n => n.textContent)")
    assert "Rownd derfynol" in texts and "Trydydd safle" in texts, texts
    assert_no_english(page, "a finished single elimination")
    pages.screenshot(page, "single-elimination")

    # A league's calendar: its matchdays' dates in Welsh.
    start = dt.date.today() + dt.timedelta(days=3)
    league = bots_tournament(
        live_server_url, ["random"] * 4, name="Cynghrair y Gaeaf", game="ten", format="league",
        options={"start": start.isoformat(), "every_days": 7}, clock_seconds=86400,
    )
    page.goto(f"/tournaments/{league['id']}")
    page.wait_for_selector("#calendar li[data-round='3']")
    page.wait_for_selector("section.round[data-round='1']")
    calendar = page.locator("#calendar").inner_text()
    assert WELSH_DATE_WORDS & set(calendar.replace(",", " ").split()), calendar
    assert "Diwrnod gemau 1" in calendar
    assert_no_english(page, "a league")
    pages.screenshot(page, "league")

    page.goto("/tournaments")
    page.wait_for_selector(f"[data-tournament='{league['id']}']")
    assert_no_english(page, "the tournaments list")

    # The boards: the bots' board lists the bots rated above, with the dates they last played.
    page.goto("/bots/sequence-stacks")
    page.wait_for_selector("#board-table[aria-busy=false]", state="attached")
    page.wait_for_selector("#board-table tbody tr[data-competitor]")
    last_played = page.eval_on_selector_all("#board-table tbody td:last-child", "cells => cells.map(c => c.textContent)")
    assert all(WELSH_DATE_WORDS & set(cell.split()) for cell in last_played), last_played
    assert_no_english(page, "the people-and-bots board")
    pages.screenshot(page, "bots-board")
    page.goto("/leaderboards/sequence-stacks")
    page.wait_for_selector("#board-table[aria-busy=false]", state="attached")
    page.wait_for_selector("#standing")
    assert_no_english(page, "the people's board")
    pages.screenshot(page, "peoples-board")
    page.goto("/leaderboards/the-game")
    page.wait_for_selector("#best-results:not(:has-text('…'))")
    assert_no_english(page, "the people's board of The Game")
    swiss = pages.open(width=390, height=844, mobile=True)
    in_welsh(swiss, live_server_url)
    swiss.goto(swiss_url)
    swiss.wait_for_selector("#standings-table")
    assert_no_english(swiss, "a finished Swiss tournament on a phone")
    pages.screenshot(swiss, "swiss-phone")
