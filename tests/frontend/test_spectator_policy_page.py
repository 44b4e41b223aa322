"""The spectator policy in the browser (issue #39): the lobby's form opens a delayed table and its
list says so; a spectator's table page says how far behind they watch, and shows the table there;
a closed table's page says it opens once its match has finished; the tournament form sets a policy
and the tournament's page shows it. At 1280 and 390 px."""
from __future__ import annotations

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, log_in, needs_chromium, unique

pytestmark = [pytest.mark.browser, needs_chromium]

WIDTHS = ((1280, 900), (390, 844))


def person(base: str, prefix: str) -> tuple[str, httpx.Client]:
    name = unique(prefix)
    answer = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return name, httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"})


def moves_played(players: list[httpx.Client], match_id: int, count: int) -> None:
    """`count` moves, each the first legal move of a seat to act."""
    for _ in range(count):
        views = [api.get(f"/api/matches/{match_id}/view").json() for api in players]
        mover = next(view for view in views if view["legal_moves"])
        answer = players[mover["seat"]].post(f"/api/matches/{match_id}/moves", json={
            "move": mover["legal_moves"][0], "expected_seq": mover["seq"],
        })
        assert answer.status_code == 200, answer.text


def test_a_delayed_table_is_opened_from_the_lobby_and_its_spectators_told_how_far_behind(pages, live_server_url):
    base = live_server_url
    cody_name, cody = person(base, "cody")
    _, ben = person(base, "ben")
    page = pages.open()
    log_in(page, cody_name)
    page.goto("/")
    page.get_by_label("Game", exact=True).select_option("ten")
    page.get_by_label("Spectators").select_option("delayed")
    page.get_by_label("Moves behind").fill("2")
    page.get_by_label("Leave them open for people").check()
    pages.screenshot(page, "lobby-form-delayed")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    match_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    table = cody.get(f"/api/matches/{match_id}").json()
    assert (table["spectator_policy"], table["spectator_delay_moves"]) == ("delayed", 2)
    assert ben.post(f"/api/matches/{match_id}/join", json={}).status_code == 200
    assert cody.post(f"/api/matches/{match_id}/start").status_code == 200
    moves_played([cody, ben], match_id, 4)
    head = cody.get(f"/api/matches/{match_id}/view").json()["seq"]
    shown = httpx.get(f"{base}/api/matches/{match_id}/view").json()["seq"]
    assert shown < head

    # A player sees the table live, and that spectators are behind.
    page.goto(f"/tables/{match_id}")
    page.wait_for_function("(seq) => document.getElementById('table').dataset.seq === String(seq)", arg=head)
    assert page.locator("#spectator-delay").is_hidden()
    assert "spectators 2 moves behind" in page.locator("#table-status").inner_text()

    eve_name, _eve = person(base, "eve")
    for width, height in WIDTHS:
        watcher = pages.open(width=width, height=height, mobile=width < 500)
        log_in(watcher, eve_name)
        watcher.goto(f"/tables/{match_id}")
        banner = watcher.locator("#spectator-delay")
        banner.wait_for()
        assert "You are watching 2 moves behind the players" in banner.inner_text()
        watcher.wait_for_function("(seq) => document.getElementById('table').dataset.seq === String(seq)", arg=shown)
        watcher.locator("#log-list li").first.wait_for()
        assert all(int(seq) <= shown for seq in watcher.locator("#log-list li").evaluate_all(
            "(items) => items.map((item) => item.dataset.seq)"))
        pages.screenshot(watcher, f"delayed-spectator-{width}")
        # The lobby's list says it too.
        watcher.goto("/")
        row = watcher.locator(f".table-row[data-match='{match_id}']")
        row.wait_for()
        assert "spectators 2 moves behind" in row.inner_text()
        pages.screenshot(watcher, f"lobby-list-{width}")

    # One more move: the spectator's page follows, still two moves behind.
    moves_played([cody, ben], match_id, 1)
    shown_after = httpx.get(f"{base}/api/matches/{match_id}/view").json()["seq"]
    assert shown_after > shown
    watcher = pages.open()
    log_in(watcher, eve_name)
    watcher.goto(f"/tables/{match_id}")
    watcher.wait_for_function("(seq) => document.getElementById('table').dataset.seq === String(seq)", arg=shown_after)


def test_a_closed_table_tells_a_spectator_it_opens_once_finished_in_english_and_welsh(pages, live_server_url):
    base = live_server_url
    _, cody = person(base, "cody")
    _, ben = person(base, "ben")
    table = cody.post("/api/matches", json={"game": "ten", "players": 2, "spectator_policy": "closed"}).json()
    assert ben.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert cody.post(f"/api/matches/{table['id']}/start").status_code == 200
    eve_name, _eve = person(base, "eve")
    for width, height in WIDTHS:
        page = pages.open(width=width, height=height, mobile=width < 500)
        log_in(page, eve_name)
        page.goto(f"/tables/{table['id']}")
        closed = page.locator("#table-closed")
        closed.get_by_text("This table is closed to spectators until its match has finished.").wait_for()
        assert page.locator("#board").count() == 0 and page.locator("#chat").count() == 0
        pages.screenshot(page, f"closed-{width}")
    welsh = pages.open()
    welsh.context.set_extra_http_headers({"Accept-Language": "cy"})
    welsh.goto(f"/tables/{table['id']}")
    assert welsh.locator("html").get_attribute("lang") == "cy"
    welsh.locator("#table-closed").get_by_text("Mae'r bwrdd hwn ar gau i wylwyr nes bod ei gêm wedi gorffen.").wait_for()
    pages.screenshot(welsh, "closed-cy")


def test_the_tournament_form_sets_a_policy_and_the_tournament_page_shows_it(pages, live_server_url):
    olga_name, _olga = person(live_server_url, "olga")
    for width, height in WIDTHS:
        page = pages.open(width=width, height=height, mobile=width < 500)
        log_in(page, olga_name)
        page.goto("/tournaments")
        page.get_by_label("Name").fill(f"Quiet cup {width}")
        page.get_by_label("Game", exact=True).select_option("ten")
        page.get_by_label("Spectators").select_option("delayed")
        page.get_by_label("Moves behind").fill("4")
        pages.screenshot(page, f"tournament-form-{width}")
        page.get_by_role("button", name="Create the tournament").click()
        page.wait_for_url("**/tournaments/*")
        page.wait_for_function("() => document.getElementById('t-summary').textContent.includes('spectators 4 moves behind')")
        pages.screenshot(page, f"tournament-page-{width}")
    created = httpx.get(f"{live_server_url}/api/tournaments").json()["results"][0]
    assert (created["spectator_policy"], created["spectator_delay_moves"]) == ("delayed", 4)
    page.goto("/tournaments")
    row = page.locator(f"#tournament-list li[data-tournament='{created['id']}']")
    row.wait_for()
    assert "spectators 4 moves behind" in row.inner_text()
