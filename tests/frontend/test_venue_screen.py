"""The venue kit in a browser (issue #46): the big screen at 1920×1080 following a tournament of
bots to its end by itself; a round of people on it (tables playing highlighted, the clock, the
bell when time is up, scrolling or paging tables that do not fit, Welsh, a phone, axe-core); and
the printouts rendered to PDF on A4 and Letter by Chromium.

Kept small for the CI: one tournament of four bots, one round of twelve people who never move
(their tables stay playing, at no CPU cost), reduced motion except where the scrolling is tested.
"""
from __future__ import annotations

import re

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, axe_findings, axe_served, needs_chromium, unique
from tests.frontend.test_tournament_pages import organiser_api

pytestmark = [pytest.mark.browser, needs_chromium]

SCREEN = {"width": 1920, "height": 1080}
PEOPLE = ["Angharad Evans", "Bethan Lloyd", "Ceri Morgan", "Dafydd Jones", "Elin Rees", "Ffion Hughes",
          "Gareth Price", "Huw Williams", "Iolo Thomas", "Llinos Davies", "Mared Owen", "Rhys Roberts"]

# Records every state the screen shows: proof that it changed by itself, in one document.
RECORD_STATES = """() => {
  window.__sameDocument = true;
  window.__seen = [];
  const node = document.getElementById('screen');
  const note = () => window.__seen.push({
    seq: Number(node.dataset.seq), status: node.dataset.status,
    round: `${node.dataset.round}:${node.dataset.roundStatus}`,
    playing: document.querySelectorAll('#tables .is-playing').length,
  });
  new MutationObserver(note).observe(node, { attributes: true, subtree: true, childList: true });
  note();
}"""


@pytest.fixture(scope="module")
def people_round(live_server_url) -> dict:
    """A Swiss tournament of twelve people, started: six tables playing round 1 for an hour."""
    with organiser_api(live_server_url) as api:
        tournament = api.post("/api/tournaments", json={
            "name": "Friday night at the Llew Coch", "game": "sequence-stacks", "format": "swiss",
            "options": {"rounds": 3}, "match_options": {"turn_limit": 12}, "round_seconds": 3600, "clock_seconds": 600,
        }).json()
        for name in PEOPLE:
            answer = httpx.post(f"{live_server_url}/api/auth/register",
                                json={"username": unique("p"), "password": PASSWORD, "display_name": name})
            token = answer.json()["token"]
            registered = httpx.post(f"{live_server_url}/api/tournaments/{tournament['id']}/register",
                                    headers={"Authorization": f"Token {token}"})
            assert registered.status_code in (200, 201), registered.text
        assert api.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    return tournament


def test_the_screen_follows_a_tournament_of_bots_to_its_end(pages, live_server_url):
    """Three bots and Pat, who holds each round open until the screen shows it being played, then
    resigns (the bot plays her seat out): a night of bots alone once ended between two of the
    screen's reads, so the screen never showed it running (FLAKES.md)."""
    pages.name = "venue-bots"
    pat = httpx.post(f"{live_server_url}/api/auth/register",
                     json={"username": unique("pat"), "password": PASSWORD, "display_name": "Pat"}).json()
    as_pat = {"Authorization": f"Token {pat['token']}"}
    with organiser_api(live_server_url) as api:
        night = api.post("/api/tournaments", json={
            "name": "Bots' night", "game": "sequence-stacks", "format": "swiss", "options": {"rounds": 2},
            "match_options": {"turn_limit": 24}, "clock_seconds": 600, "round_seconds": 3600,
        }).json()
        for bot in ("stack_finisher", "random", "stack_finisher"):
            assert api.post(f"/api/tournaments/{night['id']}/bots", json={"bot": bot}).status_code == 201
        registered = httpx.post(f"{live_server_url}/api/tournaments/{night['id']}/register", headers=as_pat)
        assert registered.status_code in (200, 201), registered.text
        screen = pages.open(**SCREEN)
        screen.goto(f"/tournaments/{night['id']}/screen")
        screen.wait_for_selector("#screen[data-status=registration]")
        assert screen.locator("#clock-label").inner_text() == "Waiting for the first round"
        screen.evaluate(RECORD_STATES)
        assert api.post(f"/api/tournaments/{night['id']}/start").status_code == 200

    for number in (1, 2):
        screen.wait_for_selector(f"#screen[data-round='{number}'] #tables .is-playing")
        rnd = httpx.get(f"{live_server_url}/api/tournaments/{night['id']}/rounds").json()[number - 1]
        match = next(t["match"] for t in rnd["tables"] if any(seat["name"] == "Pat" for seat in t["seats"]))
        resigned = httpx.post(f"{live_server_url}/api/matches/{match}/resign", headers=as_pat)
        assert resigned.status_code == 200, resigned.text
    screen.wait_for_selector("#screen[data-status=finished]", timeout=180_000)
    screen.wait_for_function("() => document.querySelectorAll('#results li[data-seq]').length === 4")
    assert re.fullmatch(r"Champion: .+ won the tournament\.", screen.locator("#clock-note").inner_text())
    results = screen.locator("#results li").all_inner_texts()
    assert all(re.fullmatch(r"Round [12], table [12]: .+\.", line) for line in results), results
    assert results[0].startswith("Round 2")  # the newest first
    # Where the round's tables were, the final standings.
    assert screen.locator("#tables-title").text_content() == "Final standings"
    ranks = screen.eval_on_selector_all("#tables li[data-rank]", "rows => rows.map(r => Number(r.dataset.rank))")
    assert len(ranks) == 4 and ranks == sorted(ranks) and ranks[0] == 1
    pages.screenshot(screen, "finished-1920")

    assert screen.evaluate("() => window.__sameDocument === true"), "the screen reloaded"
    seen = screen.evaluate("() => window.__seen")
    assert seen[0]["status"] == "registration" and seen[-1]["status"] == "finished"
    assert "running" in {entry["status"] for entry in seen}
    assert {"1:playing", "2:playing"} & {entry["round"] for entry in seen}
    assert any(entry["playing"] for entry in seen), "no table was shown playing"
    seqs = [entry["seq"] for entry in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) >= 4, "the screen did not follow the tournament step by step"


def test_a_round_of_people_on_the_screen_with_its_clock_and_bell(pages, people_round, axe_script):
    pages.name = "venue-people"
    screen = pages.open(**SCREEN)
    axe_served(screen, axe_script)
    screen.clock.install()
    screen.goto(f"/tournaments/{people_round['id']}/screen")
    screen.wait_for_function("() => document.querySelectorAll('#tables li.is-playing').length === 6")
    assert screen.locator("#clock-label").inner_text() == "Round 1: time left"
    assert re.fullmatch(r"1:00:00|59:\d\d", screen.locator("#clock").inner_text())
    names = screen.locator("#tables .screen-table-players").all_inner_texts()
    assert sorted(n for line in names for n in line.split(" – ")) == PEOPLE
    # Every table fits a 1920×1080 screen: nothing scrolls, nothing pages.
    assert screen.locator("#screen").get_attribute("data-scrolling") == "no"
    assert screen.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight")
    assert axe_findings(screen) == []
    pages.screenshot(screen, "round-1920")

    # The bell: switched on (the gesture the browser needs), it rings once as the clock reaches zero.
    switch = screen.get_by_role("button", name="Sound off")
    switch.click()
    assert screen.get_by_role("button", name="Sound on").get_attribute("aria-pressed") == "true"
    screen.clock.fast_forward("59:50")
    screen.clock.fast_forward("00:15")
    screen.wait_for_selector("#screen[data-clock=up]")
    assert screen.locator("#clock-label").inner_text() == "Round 1: time is up"
    heard = screen.evaluate("() => window.cardLeagueSound.log")
    assert [entry["cue"] for entry in heard] == ["time"] and heard[0]["on"] is True
    screen.clock.fast_forward("00:05")
    assert len(screen.evaluate("() => window.cardLeagueSound.log")) == 1  # once a round
    pages.screenshot(screen, "time-up-1920")

    # In Welsh, and on a phone.
    welsh = pages.open(**SCREEN, locale="cy")
    axe_served(welsh, axe_script)
    welsh.goto(f"/tournaments/{people_round['id']}/screen")
    welsh.wait_for_function("() => document.querySelectorAll('#tables li.is-playing').length === 6")
    assert welsh.locator("html").get_attribute("lang") == "cy"
    label = welsh.locator("#clock-label").inner_text()
    assert label != "Round 1: time left" and "1" in label
    assert welsh.locator(".screen-language button").inner_text() == "English"  # named in its own language
    assert axe_findings(welsh) == []
    pages.screenshot(welsh, "round-1920-cy")
    phone = pages.open(width=390, height=844, mobile=True)
    axe_served(phone, axe_script)
    phone.goto(f"/tournaments/{people_round['id']}/screen")
    phone.wait_for_function("() => document.querySelectorAll('#tables li.is-playing').length === 6")
    assert axe_findings(phone) == []
    pages.screenshot(phone, "round-390")


def test_tables_that_do_not_fit_scroll_slowly_or_page_for_reduced_motion(pages, people_round):
    pages.name = "venue-scroll"
    small = {"width": 1280, "height": 720}
    moving = pages.open(**small, motion=True)
    moving.goto(f"/tournaments/{people_round['id']}/screen")
    moving.wait_for_selector("#screen[data-scrolling=scroll]")
    # It rests a few seconds at the top, then moves slowly down.
    moving.wait_for_function("() => document.getElementById('tables-window').scrollTop > 20", timeout=15_000)
    moving.close()  # its animation frames cost CPU

    paging = pages.open(**small)
    paging.clock.install()
    paging.goto(f"/tournaments/{people_round['id']}/screen")
    paging.wait_for_selector("#screen[data-scrolling=pages]")
    assert re.fullmatch(r"Page 1 of [2-9]", paging.locator("#tables-page").inner_text())
    assert paging.evaluate("() => document.getElementById('tables-window').scrollTop") == 0
    paging.clock.fast_forward("00:09")
    paging.wait_for_function("() => document.getElementById('tables-window').scrollTop > 0")
    assert paging.locator("#tables-page").inner_text().startswith("Page 2 of")
    pages.screenshot(paging, "paging-1280x720")


PDF_PAGE = re.compile(rb"/Type\s*/Page(?!s)")


@pytest.mark.parametrize("paper", ["A4", "Letter"])
def test_the_printouts_render_to_pdf(pages, people_round, live_server_url, paper, axe_script):
    pages.name = "venue-print"
    rounds = httpx.get(f"{live_server_url}/api/tournaments/{people_round['id']}/rounds").json()
    tables = rounds[-1]["tables"]
    assert len(tables) == 6
    page = pages.open()
    axe_served(page, axe_script)
    expected_pages = {"pairings": 2, "standings": 1, "cards": len(tables)}
    for kind, count in expected_pages.items():
        page.goto(f"/tournaments/{people_round['id']}/print/{kind}")
        text = page.locator("main").inner_text()
        for name in PEOPLE:
            assert name in text, (kind, name)
        if kind != "standings":
            shown = page.eval_on_selector_all("[data-table]", "rows => rows.map(r => Number(r.dataset.table))")
            assert sorted(set(shown)) == [table["table"] for table in tables]
        pdf = page.pdf(format=paper, print_background=True)
        assert len(PDF_PAGE.findall(pdf)) == count, (kind, paper)
        if paper == "A4":
            assert axe_findings(page) == [], kind
            pages.screenshot(page, f"{kind}-screen")
    if paper == "A4":  # on a phone too, each printout fits the screen's width
        phone = pages.open(width=390, height=844, mobile=True)
        axe_served(phone, axe_script)
        for kind in expected_pages:
            phone.goto(f"/tournaments/{people_round['id']}/print/{kind}")
            assert axe_findings(phone) == [], kind
        pages.screenshot(phone, "cards-390")
    page.emulate_media(media="print")
    page.goto(f"/tournaments/{people_round['id']}/print/cards")
    pages.screenshot(page, f"cards-print-{paper}")
