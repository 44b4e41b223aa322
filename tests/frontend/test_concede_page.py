"""The team of The Game concedes on the table page (issue #43 item 1): one player proposes (asked
twice), every other player's page shows who has agreed and who is still to, live, and once the
last agrees both pages show the team's loss, conceded. Alone with a bot, conceding ends it at once."""
from __future__ import annotations

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, axe_findings, axe_served, log_in, needs_chromium, unique
from tests.frontend.test_accessibility import PHONE, _log_in
from tests.frontend.test_table_pages import bot_table, open_table

pytestmark = [pytest.mark.browser, needs_chromium]


def _person(base: str, prefix: str) -> dict:
    name = unique(prefix)
    answer = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return {"username": name, "api": httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"})}


def test_two_players_concede_together_and_both_see_the_team_lost(pages, live_server_url, axe_script):
    ana, bob = _person(live_server_url, "ana"), _person(live_server_url, "bob")
    try:
        table = ana["api"].post("/api/matches", json={"game": "the-game", "players": 2, "rated": False}).json()
        assert bob["api"].post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
        assert ana["api"].post(f"/api/matches/{table['id']}/start").status_code == 200
        wide = open_table(pages, table["id"], 1280, ana["username"])
        phone = pages.open(width=PHONE, height=900, mobile=True)
        log_in(phone, bob["username"])
        phone.goto(f"/tables/{table['id']}")
        phone.wait_for_selector("#board > *")
        for page in (wide, phone):
            axe_served(page, axe_script)

        # Ana proposes: asked first, then her page waits on Bob.
        wide.locator("[data-key=concede]").click()
        wide.wait_for_selector("text=Propose to concede?")
        wide.locator("[data-key=concede-cancel]").click()  # changing her mind writes nothing
        wide.locator("[data-key=concede]").click()
        wide.locator("[data-key=concede-confirm]").click()
        wide.wait_for_selector("[data-concession-waiting='1']")
        assert wide.locator("[data-key=concede-agree]").count() == 0
        assert wide.locator("[data-key=concede-withdraw]").inner_text() == "Withdraw the proposal"

        # Bob's page learns of it from the table's socket, with nobody reloading it.
        phone.wait_for_selector("[data-concession-agreed='0']")
        banner = phone.locator("[data-concession=pending]").inner_text()
        assert "Agreed:" in banner and "Still to agree:" in banner and "(you)" in banner, banner
        pages.screenshot(wide, "concession-proposed-1280")
        pages.screenshot(phone, "concession-asked-390")
        assert axe_findings(phone) == []
        assert axe_findings(wide) == []

        phone.locator("[data-key=concede-agree]").click()
        for page in (wide, phone):
            page.wait_for_selector("#table[data-status=finished]", timeout=30_000)
            page.wait_for_selector("#result:not([hidden])")
            result = page.locator("#result").inner_text()
            assert "The team lost." in result and "The team conceded with" in result, result
            assert page.locator("[data-concession]").count() == 0
            assert page.locator("#log-list li[data-type=TeamConceded]").count() == 1
        pages.screenshot(wide, "conceded-1280")
        pages.screenshot(phone, "conceded-390")
        assert axe_findings(phone) == []
        match = ana["api"].get(f"/api/matches/{table['id']}").json()
        assert (match["status"], match["outcome"]["won"], match["outcome"]["detail"]["reason"]) == ("finished", False, "conceded")
    finally:
        ana["api"].close()
        bob["api"].close()


@pytest.mark.parametrize(("locale", "asked", "conceded"), [
    ("en-GB", "Concede? The game ends at once as the team's loss.", "The team conceded with"),
    ("cy", "Ildio? Daw'r gêm i ben ar unwaith fel colled i'r tîm.", "Ildiodd y tîm gyda"),
], ids=["en", "cy"])
def test_a_player_alone_with_a_bot_concedes_at_once(pages, live_server_url, locale, asked, conceded):
    cai = _person(live_server_url, "cai")
    try:
        match_id = bot_table(cai["api"], "the-game", 2)
        page = pages.open(width=PHONE, height=900, mobile=True, locale=locale)
        _log_in(page, cai["username"])
        page.goto(f"/tables/{match_id}")
        page.locator("[data-key=concede]").click()
        assert page.locator("#players [role=alert] p").first.inner_text() == asked
        page.locator("[data-key=concede-confirm]").click()
        page.wait_for_selector("#table[data-status=finished]", timeout=30_000)
        page.wait_for_selector("#result:not([hidden])")
        assert conceded in page.locator("#result").inner_text()
        assert page.locator("[data-key=resign]").count() == 0
        pages.screenshot(page, f"alone-conceded-{locale}-390")
    finally:
        cai["api"].close()


def test_another_game_offers_no_concession(pages, live_server_url):
    dai = _person(live_server_url, "dai")
    try:
        match_id = bot_table(dai["api"], "ten", 2)
        page = open_table(pages, match_id, 1280, dai["username"])
        page.wait_for_selector("[data-key=resign]")
        assert page.locator("[data-key=concede]").count() == 0
    finally:
        dai["api"].close()
