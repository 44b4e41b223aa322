"""Tournament pages: a Swiss tournament followed live while its rounds are played; an
elimination bracket drawn as SVG; a league's calendar.
"""
from __future__ import annotations

import datetime as dt

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, needs_chromium, sign_up, unique
from tests.frontend.players import play_until_finished

pytestmark = [pytest.mark.browser, needs_chromium]

# Records, on the watching page, every state the page shows: proof that it changed by itself.
RECORD_STATES = """() => {
  window.__sameDocument = true;
  window.__seen = [];
  const node = document.getElementById('tournament');
  const note = () => window.__seen.push({
    seq: Number(node.dataset.seq), status: node.dataset.status,
    rounds: [...document.querySelectorAll('section.round')].map(r => `${r.dataset.round}:${r.dataset.status}`)
  });
  new MutationObserver(note).observe(node, { attributes: true, subtree: true, childList: true });
  note();
}"""


def organiser_api(base: str) -> httpx.Client:
    answer = httpx.post(f"{base}/api/auth/register", json={"username": unique("org"), "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"})


def test_a_swiss_tournament_page_follows_a_bot_played_round_live(pages):
    """The organiser plays in it with three bots; a phone watches the bots' table finish live."""
    pages.name = "swiss"
    organiser, player, watcher = pages.open(), pages.open(), pages.open(width=390, height=844, mobile=True)
    sign_up(organiser, unique("olga"), display_name="Olga")
    organiser.get_by_role("link", name="Tournaments").click()
    organiser.get_by_label("Name").fill("Swiss open")
    organiser.get_by_label("Game").select_option("sequence-stacks")
    organiser.get_by_label("Format").select_option("swiss")
    organiser.get_by_label("Rounds").fill("2")
    organiser.get_by_label("Turn limit per table").fill("12")
    organiser.get_by_label("Clock").select_option("30")
    pages.screenshot(organiser, "tournaments")
    organiser.get_by_role("button", name="Create the tournament").click()
    organiser.wait_for_url("**/tournaments/*")
    tournament_url = organiser.url
    organiser.get_by_role("button", name="Register").click()
    organiser.wait_for_selector("#entrants li:has-text('Olga')")

    # Another person registers and withdraws again.
    sign_up(player, unique("pat"), display_name="Pat")
    player.goto(tournament_url)
    player.get_by_role("button", name="Register").click()
    player.wait_for_selector("#entry :text('You are registered')")
    player.wait_for_selector("#entrants li:has-text('Pat')")
    player.get_by_role("button", name="Withdraw").click()
    player.wait_for_selector("#entry button:has-text('Register')")

    for _ in range(3):
        before = organiser.locator("#entrants li[data-entrant]").count()
        organiser.get_by_role("button", name="Add a bot").click()
        organiser.wait_for_function(
            "(n) => document.querySelectorAll('#entrants li[data-entrant]').length > n", arg=before)
    pages.screenshot(organiser, "tournament-registration")

    watcher.goto(tournament_url)
    watcher.wait_for_selector("#tournament[data-status=registration]")
    watcher.evaluate(RECORD_STATES)
    organiser.get_by_role("button", name="Start now").click()

    for number in (1, 2):
        this_round = f"section.round[data-round='{number}']"
        # The bots' table ends while the organiser's is still being played: its result, and the
        # standings, reach the watching page by themselves.
        watcher.wait_for_selector(f"{this_round}[data-status=playing] tr[data-result=yes]", timeout=90_000)
        if number == 1:
            pages.screenshot(watcher, "swiss-round-1-phone")
            played = watcher.eval_on_selector_all("#standings-table tbody tr td:nth-child(4)",
                                                  "cells => cells.map(c => Number(c.textContent))")
            assert sorted(played) == [0, 0, 1, 1]
        organiser.get_by_role("link", name="Play your match").click()
        organiser.wait_for_url("**/tables/*")
        play_until_finished(organiser, "sequence-stacks")
        organiser.goto(tournament_url)
        watcher.wait_for_selector(f"{this_round}[data-status=complete]", timeout=30_000)
    watcher.wait_for_selector("#tournament[data-status=finished]", timeout=30_000)
    watcher.wait_for_selector("#champion:not([hidden])")
    pages.screenshot(watcher, "swiss-finished-phone")
    organiser.wait_for_selector("#tournament[data-status=finished]")
    pages.screenshot(organiser, "swiss-finished")

    assert watcher.evaluate("() => window.__sameDocument === true"), "the page reloaded"
    seen = watcher.evaluate("() => window.__seen")
    statuses = [entry["status"] for entry in seen]
    assert statuses[0] == "registration" and statuses[-1] == "finished"
    assert "running" in statuses
    shown_rounds = {r for entry in seen for r in entry["rounds"]}
    assert {"1:playing", "1:complete", "2:playing", "2:complete"} <= shown_rounds
    seqs = [entry["seq"] for entry in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) >= 4, "the page did not follow the tournament step by step"
    assert watcher.locator("#activity li[data-type=TableResult]").count() == 4  # two rounds of two tables
    rows = watcher.locator("#standings-table tbody tr")
    assert rows.count() == 4
    assert watcher.locator("#standings-table thead th", has_text="Buchholz").count() == 1


def test_an_elimination_bracket_is_drawn_and_a_league_shows_its_calendar(pages, live_server_url):
    pages.name = "bracket-league"
    api = organiser_api(live_server_url)
    cup = api.post("/api/tournaments", json={
        "name": "Knockout", "game": "sequence-stacks", "format": "single-elimination",
        "options": {"third_place": True}, "match_options": {"turn_limit": 6}, "clock_seconds": 30,
    }).json()
    for bot in ("stack_finisher", "random", "stack_finisher", "random"):
        assert api.post(f"/api/tournaments/{cup['id']}/bots", json={"bot": bot}).status_code == 201
    assert api.post(f"/api/tournaments/{cup['id']}/start").status_code == 200

    start = dt.date.today() + dt.timedelta(days=3)
    league = api.post("/api/tournaments", json={
        "name": "Winter league", "game": "ten", "format": "league",
        "options": {"start": start.isoformat(), "every_days": 7}, "clock_seconds": 86400,
    }).json()
    for _ in range(4):
        assert api.post(f"/api/tournaments/{league['id']}/bots", json={"bot": "random"}).status_code == 201
    assert api.post(f"/api/tournaments/{league['id']}/start").status_code == 200

    page = pages.open()
    page.goto(f"/tournaments/{cup['id']}")
    page.wait_for_selector("#bracket svg.bracket")
    page.wait_for_selector("#tournament[data-status=finished]", timeout=90_000)
    page.wait_for_selector("#champion:not([hidden])")
    page.wait_for_function(
        "() => document.querySelectorAll('#bracket [data-bracket-match][data-status=played]').length === 4")
    assert page.locator("#bracket svg a").count() == 4  # each played match links to its table
    pages.screenshot(page, "single-elimination")

    page.goto("/tournaments")
    page.wait_for_selector(f"[data-tournament='{league['id']}']")
    page.get_by_role("link", name="Winter league").click()
    page.wait_for_selector("#calendar li[data-round]")
    assert page.locator("#calendar li[data-round]").count() == 3  # a round robin of four: three matchdays
    page.wait_for_selector("section.round[data-round='1'][data-status=paired]")
    pages.screenshot(page, "league")
    api.close()
