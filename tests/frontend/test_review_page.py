"""The review on the replay page (issue #44 item 5): a short match of each game, a person against
a bot, then the replay with the search bot's review of the person's decisions: the graph of the
win chance (The Game: the team's expected cards left), the moves marked as mistakes in the list
of moves and under the graph, and at a marked move, the best move beside it; no wider than a
phone, and axe-core clean."""
from __future__ import annotations

import random
import time

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, axe_findings, axe_served, log_in, needs_chromium, unique
from tests.frontend.test_accessibility import PHONE

pytestmark = [pytest.mark.browser, needs_chromium]


@pytest.fixture(scope="module")
def person(live_server_url):
    name = unique("adolygu")
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    client = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"},
                          timeout=30)
    yield {"username": name, "api": client}
    client.close()


def _finished_against_a_bot(api: httpx.Client, game: str) -> int:
    """A table of `game`, the person at seat 0 (random legal moves, over the API) and the game's
    stronger bot at seat 1, played to its end; Sequence Stacks with a short turn limit."""
    options = {"turn_limit": 40} if game == "sequence-stacks" else {}
    table = api.post("/api/matches", json={"game": game, "players": 2, "rated": False, "options": options})
    assert table.status_code == 201, table.text
    match_id = table.json()["id"]
    strong = next(g for g in api.get("/api/games").json() if g["slug"] == game)["strong_bot"]
    assert api.post(f"/api/matches/{match_id}/bots", json={"seat": 1, "bot": strong}).status_code == 200
    assert api.post(f"/api/matches/{match_id}/start").status_code == 200
    rng = random.Random(7)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        answer = api.get(f"/api/matches/{match_id}/view").json()
        if answer["view"] and answer["view"]["finished"]:
            return match_id
        if answer["legal_moves"]:
            api.post(f"/api/matches/{match_id}/moves", json={"move": rng.choice(answer["legal_moves"])})
        else:
            time.sleep(0.05)
    raise AssertionError(f"{game}: the match did not end")


@pytest.mark.parametrize("game", ["sequence-stacks", "the-game", "ten", "split"])
def test_a_finished_match_shows_its_review_on_the_replay_page(pages, person, axe_script, game):
    pages.name = f"review-{game}"
    match_id = _finished_against_a_bot(person["api"], game)
    problems = []
    for width in (1280, PHONE):
        page = pages.open(width=width, height=900, mobile=width == PHONE)
        axe_served(page, axe_script)
        log_in(page, person["username"])
        page.goto(f"/tables/{match_id}/replay")
        page.wait_for_selector("#review[data-ready=true]", timeout=180_000)  # computed by the worker meanwhile
        review = person["api"].get(f"/api/matches/{match_id}/review").json()
        assert review["status"] == "done"
        mine = [d for d in review["decisions"] if d["seat"] == 0]
        assert mine, "the person had no decision to review"
        assert page.locator("#review-seat").input_value() == "0"  # the reader's own seat first
        assert page.locator("#review-chart svg.chart circle.dot").count() == len(mine)
        assert "Win chance" in page.locator("#review-chart").inner_text() or game == "the-game"
        mistakes = [d for d in review["decisions"] if d["mistake"]]
        marked = page.locator("#decisions li.is-mistake")
        assert marked.count() == len(mistakes)
        assert page.locator("#review-chart circle.is-mistake").count() == len([d for d in mine if d["mistake"]])
        if any(d["mistake"] for d in mine):
            page.locator("#review-mistakes button").first.click()
            page.wait_for_selector("#review-here .review-badge")
            assert page.locator("#review-here .review-best").inner_text()
            assert page.get_by_role("button", name="What if? Play on from before this move as").count() == 1
        else:
            page.locator(f"#decisions li[data-after='{mine[0]['after']}'] button").click()
            page.wait_for_selector("#review-here dl")
        pages.screenshot(page, f"{width}")
        problems += [f"{game} at {width} px: {found}" for found in axe_findings(page)]
    assert not problems, "\n".join(problems)


def _register(base: str) -> tuple[str, httpx.Client]:
    name = unique("chwaraewr")
    answer = httpx.post(f"{base}/api/auth/register", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text
    return name, httpx.Client(base_url=base, headers={"Authorization": f"Token {answer.json()['token']}"}, timeout=30)


def test_two_players_review_together_one_leading_and_a_spectator_is_not_offered_it(pages, live_server_url):
    """Issue #44 item 6: the leader steps through the replay and the other player's page follows."""
    (lead_name, lead_api), (follow_name, follow_api), (watch_name, watch_api) = (
        _register(live_server_url) for _ in range(3))
    table = lead_api.post("/api/matches", json={"game": "the-game", "players": 2, "rated": False}).json()
    assert follow_api.post(f"/api/matches/{table['id']}/join", json={}).status_code == 200
    assert lead_api.post(f"/api/matches/{table['id']}/start").status_code == 200
    rng = random.Random(3)
    deadline = time.monotonic() + 120
    while True:
        assert time.monotonic() < deadline, "the match did not end"
        views = [api.get(f"/api/matches/{table['id']}/view").json() for api in (lead_api, follow_api)]
        if views[0]["view"]["finished"]:
            break
        for api, answer in zip((lead_api, follow_api), views):
            if answer["legal_moves"]:
                api.post(f"/api/matches/{table['id']}/moves", json={"move": rng.choice(answer["legal_moves"])})
    opened = []
    for username in (lead_name, follow_name, watch_name):
        page = pages.open(width=1280, height=900)
        log_in(page, username)
        page.goto(f"/tables/{table['id']}/replay?seq=1")
        page.wait_for_selector("#controls:not([hidden])")
        opened.append(page)
    leader, follower, spectator = opened
    for page in (leader, follower):
        page.wait_for_selector("#review-together:not([hidden])")
    leader.locator("#review-lead").click()
    assert leader.locator("#review-lead").get_attribute("aria-pressed") == "true"
    for _ in range(3):
        leader.locator("#next").click()
    leader.wait_for_function("() => document.getElementById('replay').dataset.index === '3'")
    wanted = leader.locator("#replay").get_attribute("data-seq")
    follower.wait_for_function(
        "(seq) => document.getElementById('replay').dataset.seq === seq", arg=wanted)
    assert lead_name[:8] in follower.locator("#review-together-status").inner_text() or follower.locator(
        "#review-together-status").inner_text()
    pages.screenshot(follower, "following")
    assert spectator.locator("#review-together").is_hidden()
    assert spectator.locator("#replay").get_attribute("data-seq") != wanted or wanted == "1"
    for api in (lead_api, follow_api, watch_api):
        api.close()
