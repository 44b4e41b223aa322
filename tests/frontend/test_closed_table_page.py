"""A duplicate round's table page tells a spectator it is closed until every table of its deal has
finished, and shows nothing of the table; its own player sees the table (issue #39, finding 1)."""
from __future__ import annotations

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, log_in, needs_chromium, unique

pytestmark = [pytest.mark.browser, needs_chromium]


def person(base: str, prefix: str) -> tuple[str, httpx.Client]:
    name = unique(prefix)
    answer = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return name, httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"})


def test_a_spectator_is_told_when_a_duplicate_table_opens(pages, live_server_url):
    base = live_server_url
    _, organiser = person(base, "olga")
    tournament = organiser.post("/api/tournaments", json={
        "name": "Duplicate night", "game": "sequence-stacks", "format": "swiss",
        "options": {"duplicate": True, "rounds": 1}, "match_options": {"turn_limit": 12},
    }).json()
    players = [person(base, name) for name in ("ann", "ben", "cat", "dot")]
    for _, api in players:
        assert api.post(f"/api/tournaments/{tournament['id']}/register").status_code in (200, 201)
    assert organiser.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    rounds = organiser.get(f"/api/tournaments/{tournament['id']}/rounds").json()
    rounds = rounds if isinstance(rounds, list) else rounds["results"]
    match_id = rounds[0]["tables"][0]["match"]
    seated = {seat["user"] for seat in httpx.get(f"{base}/api/matches/{match_id}").json()["seats"]}
    player_name = next(name for name, api in players if api.get("/api/auth/me").json()["id"] in seated)

    spectator_name, _ = person(base, "eve")
    for width, height in ((1280, 900), (390, 844)):
        page = pages.open(width=width, height=height, mobile=width < 500)
        log_in(page, spectator_name)
        page.goto(f"/tables/{match_id}")
        closed = page.locator("#table-closed")
        closed.get_by_text("This table is closed to spectators until every table of its deal has finished.").wait_for()
        assert page.locator("#board").count() == 0 and page.locator("#chat").count() == 0
        pages.screenshot(page, f"closed-{width}")

    player = pages.open()
    log_in(player, player_name)
    player.goto(f"/tables/{match_id}")
    player.locator("#board").wait_for()
    assert player.locator("#table-closed").count() == 0
