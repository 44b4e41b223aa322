"""Judging in a browser (issue #46 items 3 and 4): a player at a tournament table calls a judge,
the judge the organiser named takes the call from the queue and resolves it with five minutes
added to the table; the player's table and the venue screen show the time added. Nobody moves:
the table keeps playing (a ten-minute turn clock) while the call goes round."""
from __future__ import annotations

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, axe_findings, axe_served, log_in, needs_chromium, unique
from tests.frontend.test_tournament_pages import organiser_api

pytestmark = [pytest.mark.browser, needs_chromium]


def register(base: str, name: str) -> str:
    """A new account whose display name is `name` and a number (display names are the site's own)."""
    username = unique(name.lower())
    shown = f"{name} {username.removeprefix(name.lower())}"
    answer = httpx.post(f"{base}/api/auth/register", json={"username": username, "password": PASSWORD, "display_name": shown})
    assert answer.status_code == 201, answer.text
    return username


def test_a_call_is_made_taken_and_resolved_with_time_added(pages, live_server_url, axe_script):
    base = live_server_url
    alice, bob, jess = register(base, "Alice"), register(base, "Bob"), register(base, "Jess")
    with organiser_api(base) as api:
        tournament = api.post("/api/tournaments", json={
            "name": "Judged night", "game": "sequence-stacks", "format": "swiss", "options": {"rounds": 2},
            "match_options": {"turn_limit": 12}, "round_seconds": 3600, "clock_seconds": 600,
        }).json()
        tid = tournament["id"]
        for person in (alice, bob):
            token = httpx.post(f"{base}/api/auth/login", json={"username": person, "password": PASSWORD}).json()["token"]
            answer = httpx.post(f"{base}/api/tournaments/{tid}/register", headers={"Authorization": f"Token {token}"})
            assert answer.status_code in (200, 201), answer.text
        assert api.post(f"/api/tournaments/{tid}/judges", json={"username": jess}).status_code == 201
        assert api.post(f"/api/tournaments/{tid}/start").status_code == 200
        match_id = api.get(f"/api/tournaments/{tid}/rounds").json()[0]["tables"][0]["match"]

    # Alice calls a judge from her table, on a phone.
    player = pages.open(width=390, height=844, mobile=True)
    axe_served(player, axe_script)
    log_in(player, alice)
    player.goto(f"/tables/{match_id}")
    panel = player.locator("#judging")
    panel.get_by_role("button", name="Call a judge").click()
    panel.get_by_label("Why?").select_option(label="We disagree about what happened")
    panel.get_by_label("Anything the judge should know (optional)").fill("Bob says a run may wrap round from 99 to 1.")
    panel.get_by_role("button", name="Call", exact=True).click()
    panel.locator(".judge-call[data-status=open]").wait_for()
    assert "Waiting for a judge." in panel.inner_text()
    assert panel.get_by_role("button", name="Call a judge").count() == 0  # one call at a time
    pages.screenshot(player, "called")
    assert axe_findings(player) == []

    # Jess takes it from the queue and adds five minutes.
    judge = pages.open()
    axe_served(judge, axe_script)
    log_in(judge, jess)
    judge.goto(f"/tournaments/{tid}/judging")
    waiting = judge.locator("#calls-open .judge-call")
    waiting.wait_for()
    assert "Bob says a run may wrap round from 99 to 1." in waiting.inner_text()
    assert ": We disagree about what happened" in waiting.inner_text()
    assert judge.title().startswith("(1) ")
    pages.screenshot(judge, "queue")
    assert axe_findings(judge) == []
    waiting.get_by_role("button", name="Take this call").click()
    taken = judge.locator("#calls-claimed .judge-call[data-status=claimed]")
    taken.wait_for()
    assert " is on the way." in taken.inner_text()
    player.locator("#judging .judge-call[data-status=claimed]").wait_for()  # Alice sees the judge coming
    taken.get_by_label("Ruling").select_option(label="Add time to the table")
    taken.get_by_label("Time to add").select_option(label="5 minutes")
    taken.get_by_label("What you ruled, for the players").fill("Runs do not wrap. Five minutes for the time it took.")
    pages.screenshot(judge, "ruling")
    assert axe_findings(judge) == []
    taken.get_by_role("button", name="Resolve").click()
    resolved = judge.locator("#calls-resolved .judge-call[data-status=resolved]")
    resolved.wait_for()
    assert "5 minutes added to the table's time." in resolved.inner_text()

    # Alice's table shows the ruling and its time added; so does the venue screen.
    ruling = player.locator("#judging .judge-call[data-status=resolved] .judge-ruling")
    ruling.wait_for()
    assert ruling.inner_text() == "5 minutes added to the table's time. Runs do not wrap. Five minutes for the time it took."
    player.locator("[data-key=table-time][data-extra-seconds='300']").wait_for()
    assert "(5 minutes added by a judge)" in player.locator("[data-key=table-time]").inner_text()
    panel.get_by_role("button", name="Call a judge").wait_for()  # ruled on: she may call again
    pages.screenshot(player, "resolved")
    assert axe_findings(player) == []
    judge.goto(f"/tournaments/{tid}")
    judge.get_by_text("playing… (5 minutes added)").wait_for()  # the tournament page's round too
    assert judge.locator("#t-judging").count() == 1
    screen = pages.open(width=1920, height=1080)
    screen.goto(f"/tournaments/{tid}/screen")
    screen.locator("#tables .is-playing", has_text="(5 minutes added)").wait_for()
    assert screen.locator("#tables .is-playing").count() == 1


def test_the_queue_is_closed_to_a_player(pages, live_server_url):
    alice = register(live_server_url, "Alice")
    with organiser_api(live_server_url) as api:
        spec = {"name": "Closed", "game": "ten", "format": "swiss", "options": {"rounds": 1}}
        tid = api.post("/api/tournaments", json=spec).json()["id"]
    page = pages.open()
    log_in(page, alice)
    answer = page.goto(f"/tournaments/{tid}/judging")
    assert answer.status == 403
    pages.errors[:] = [error for error in pages.errors if "403" not in error]  # the browser's own line for it
    assert "Only the tournament's organiser and the judges they named see the calls for a judge." in page.inner_text("main")
    page.goto(f"/tournaments/{tid}")
    page.locator("#t-screen").wait_for()
    assert page.locator("#t-judging").count() == 0
