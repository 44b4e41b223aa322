"""Tournament pages: a Swiss tournament followed live while its rounds are played; an
elimination bracket drawn as SVG; a league's calendar.
"""
from __future__ import annotations

import datetime as dt
import re

import httpx
import pytest

from tests.frontend.conftest import PASSWORD, log_in, needs_chromium, sign_up, unique
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


def bots_tournament(base: str, bots: list[str], **spec) -> dict:
    """A tournament (`spec` as POST /api/tournaments takes it) of these bots, started."""
    with organiser_api(base) as api:
        tournament = api.post("/api/tournaments", json=spec).json()
        for bot in bots:
            assert api.post(f"/api/tournaments/{tournament['id']}/bots", json={"bot": bot}).status_code == 201
        assert api.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    return tournament


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
    pages.done(player)

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
            # The standings follow the result (a moment later on a busy machine): the bots' table
            # counts one game played for each of its two.
            watcher.wait_for_function("() => [...document.querySelectorAll('#standings-table tbody tr td:nth-child(4)')]"
                                      ".reduce((sum, cell) => sum + Number(cell.textContent), 0) === 2")
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
    # An entry names a person by id alone (issue #39): the story names them from the entrants list.
    assert watcher.locator("#activity li[data-type=PlayerRegistered]", has_text="Olga entered.").count() == 1
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


# --- a newcomer's first look: the form, a double elimination, a league, the lobby -------------------

BRACKET_ID = r"^(W|L)\d+\.\d+$|^GF2?$|^3P$"
WIDTHS = [(1280, 900, False), (390, 844, True)]


def test_the_create_form_offers_only_what_the_game_allows(pages):
    """Regression: The Game was offered Swiss, round robin, elimination and a round-robin league,
    all refused only after submit; the "Starts by itself at" input was unstyled."""
    pages.name = "create-form"
    page = pages.open()
    sign_up(page, unique("orla"), display_name="Orla")
    page.goto("/tournaments")
    formats = "() => [...document.querySelectorAll('#t-format option')].map(o => o.value)"
    page.get_by_label("Game").select_option("the-game")
    assert page.evaluate(formats) == ["swiss-tables", "table-elimination", "league"]
    assert not page.get_by_label("Turn limit per table").is_visible()  # a Sequence Stacks option
    page.get_by_label("Format").select_option("league")
    inner = page.eval_on_selector_all("#opt-format option", "options => options.map(o => o.value)")
    assert inner == ["swiss-tables", "table-elimination"]
    page.get_by_label("Game").select_option("ten")
    assert page.get_by_label("Format").input_value() == "league"  # the choice survives a game that allows it
    assert len(page.evaluate(formats)) == 7
    styled = page.eval_on_selector("#t-starts", "el => [getComputedStyle(el).minHeight, getComputedStyle(el).borderRadius]")
    assert styled == ["40px", "8px"]
    for width, height, mobile in WIDTHS:
        phone = pages.open(width=width, height=height, mobile=mobile)
        phone.context.add_cookies(page.context.cookies())
        phone.goto("/tournaments")
        phone.get_by_label("Game").select_option("the-game")
        phone.get_by_label("Format").select_option("league")
        assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        pages.screenshot(phone, f"form-the-game-league-{width}")

    # A league of The Game with no start date: created from the form, its matchdays dated from its start.
    page.get_by_label("Name").fill("Club nights")
    page.get_by_label("Game").select_option("the-game")
    page.get_by_label("Format").select_option("league")
    page.get_by_label("Rounds").fill("3")
    page.get_by_label("Days between matchdays").fill("7")
    page.get_by_role("button", name="Create the tournament").click()
    page.wait_for_url("**/tournaments/*")
    page.wait_for_selector("#calendar li[data-round]")
    assert "the day the league starts" in page.locator("#calendar li[data-round='1']").inner_text()
    for _ in range(4):
        before = page.locator("#entrants li[data-entrant]").count()
        page.get_by_role("button", name="Add a bot").click()
        page.wait_for_function("(n) => document.querySelectorAll('#entrants li[data-entrant]').length > n", arg=before)
    page.get_by_role("button", name="Start now").click()
    page.wait_for_selector("section.round[data-round='1']")
    today = dt.datetime.now(dt.UTC).date()
    page.wait_for_function("() => !document.querySelector('#calendar').textContent.includes('league starts')")
    shown = page.eval_on_selector_all("#calendar li[data-round]", "items => items.map(i => i.dataset.date)")
    assert shown == [(today + dt.timedelta(days=7 * n)).isoformat() for n in range(3)], shown
    for width, height, mobile in WIDTHS:
        view = pages.open(width=width, height=height, mobile=mobile)
        view.goto(page.url)
        view.wait_for_selector("#calendar li[data-round='2']")
        pages.screenshot(view, f"league-without-start-{width}")


def test_a_double_elimination_reads_in_words_and_fits_at_1280(pages, live_server_url):
    """Regression: the Reset column was cut off at 1280 px, matches were labelled W1.1 and GF2,
    the standings showed Swiss tie-breaks (Buchholz, S-B), and the lobby listed the bots' kinds
    at tournament tables without saying they were tournament tables."""
    pages.name = "double-elimination"
    cup = bots_tournament(
        live_server_url, ["stack_finisher", "random"] * 4, name="Double cup", game="sequence-stacks",
        format="double-elimination", options={"grand_final_reset": True}, match_options={"turn_limit": 6},
        clock_seconds=30,
    )

    page = pages.open()
    page.goto(f"/tournaments/{cup['id']}")
    page.wait_for_selector("#bracket svg.bracket [data-bracket-match='GF2']")
    page.wait_for_selector("#tournament[data-status=finished]", timeout=180_000)
    page.wait_for_selector("#champion:not([hidden])")

    # Every column, the reset's too, is on screen at 1280 px: the bracket does not scroll.
    fits = page.eval_on_selector("#bracket", "el => [el.scrollWidth, el.clientWidth]")
    assert fits[0] <= fits[1], fits
    reset = page.locator("[data-bracket-match='GF2']").bounding_box()
    assert reset["x"] + reset["width"] <= 1280
    texts = page.eval_on_selector_all("#bracket svg text", "nodes => nodes.map(n => n.textContent)")
    assert "Grand final reset" in texts and "Winners round 1" in texts and "Losers round 1" in texts
    assert not [t for t in texts if re.match(BRACKET_ID, t)], texts
    assert page.locator("[data-bracket-match='W1.1']").get_attribute("data-label") == "Winners round 1, table 1"
    cells = page.eval_on_selector_all("section.round tbody tr td:first-child", "cells => cells.map(c => c.textContent)")
    assert cells and all(re.fullmatch(r"(Winners|Losers) round \d, table \d|Grand final( reset)?", c) for c in cells), cells
    assert page.locator("#activity li", has_text="Winners round 1, table 1:").count() == 1
    results = page.eval_on_selector_all("section.round tbody tr td:nth-child(3)", "cells => cells.map(c => c.textContent)")
    assert all(r != "Draw" for r in results), results  # a drawn match says who goes through
    if page.locator("[data-bracket-match='GF2']").get_attribute("data-status") == "void":
        assert "not needed" in page.locator("[data-bracket-match='GF2'] title").text_content()
    headers = page.eval_on_selector_all("#standings-table thead th", "cells => cells.map(c => c.textContent)")
    assert "Place" in headers and "Buchholz" not in headers and "S-B" not in headers
    assert "Buchholz" not in page.locator("#tiebreak-help").inner_text()
    points = page.eval_on_selector_all("#standings-table tbody td[data-points]", "cells => cells.map(c => c.textContent)")
    assert all(re.fullmatch(r"\d+(\.\d{1,2})?", p) for p in points), points
    pages.screenshot(page, "finished-1280")
    phone = pages.open(width=390, height=844, mobile=True)
    phone.goto(f"/tournaments/{cup['id']}")
    phone.wait_for_selector("#bracket svg.bracket [data-bracket-match='GF2']")
    assert phone.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")  # the bracket scrolls, not the page
    pages.screenshot(phone, "finished-390")

    # The lobby: the cup's tables name their entrants ("random 2 (bot)") and say they are the cup's.
    for width, height, mobile in WIDTHS:
        lobby = pages.open(width=width, height=height, mobile=mobile)
        lobby.goto("/")
        row = lobby.locator(f"li.is-tournament-table[data-tournament='{cup['id']}']").first
        row.wait_for()
        assert re.search(r"(stack_finisher|random) \d+ \(bot\)", row.inner_text()), row.inner_text()
        assert "Tournament: Double cup" in row.locator(".badge-tournament").inner_text()
        pages.screenshot(lobby, f"lobby-{width}")


def test_tables_of_three_count_first_places_and_a_finished_log_opens_at_its_first_line(pages, live_server_url):
    """Regression: at tables of three the standings' W/D/L called a 2nd place a loss ("L"), and
    the "What happened" list of a finished tournament opened scrolled to its end, past its first line."""
    pages.name = "tables-of-three"
    night = bots_tournament(
        live_server_url, ["run_builder", "random"] * 3, name="Ten at threes", game="ten", format="swiss-tables",
        options={"table_size": 3, "rounds": 2}, clock_seconds=30,
    )

    live = pages.open()
    live.goto(f"/tournaments/{night['id']}")
    live.wait_for_selector("#tournament[data-status=finished]", timeout=180_000)
    headers = live.eval_on_selector_all("#standings-table thead th", "cells => cells.map(c => c.textContent)")
    assert {"1st", "Shared 1st", "Below 1st"} <= set(headers) and not {"W", "D", "L"} & set(headers), headers
    assert live.locator("#standings-table thead th", has_text="Below 1st").get_attribute("title")

    for width, height, mobile in WIDTHS:
        page = pages.open(width=width, height=height, mobile=mobile)
        page.goto(f"/tournaments/{night['id']}")
        page.wait_for_selector("#activity li[data-type=TournamentFinished]")
        top, overflow = page.eval_on_selector("#activity", "el => [el.scrollTop, el.scrollHeight > el.clientHeight]")
        assert overflow, "the log is too short to show where it opens"
        assert top == 0
        pages.screenshot(page, f"finished-{width}")


def test_the_games_standings_rank_by_cards_left_without_wins_points_or_tie_breaks(pages, live_server_url):
    """Regression: a tournament of The Game (a team against the deck) showed W/D/L, points and
    Buchholz columns that are always 0 there; it ranks by the mean cards its tables left."""
    pages.name = "the-game-standings"
    night = bots_tournament(
        live_server_url, ["tight", "random"] * 2, name="Team night", game="the-game", format="swiss-tables",
        options={"table_size": 2, "rounds": 1}, clock_seconds=30,
    )
    assert night["cooperative"] is True

    page = pages.open()
    page.goto(f"/tournaments/{night['id']}")
    page.wait_for_selector("#tournament[data-status=finished]", timeout=180_000)
    headers = page.eval_on_selector_all("#standings-table thead th", "cells => cells.map(c => c.textContent)")
    assert "Mean cards left" in headers and not {"Points", "W", "D", "L", "1st", "Buchholz", "S-B"} & set(headers), headers
    assert "cards their tables left" in page.locator("#tiebreak-help").inner_text()
    # The best table's team is crowned together (both tight bots sit at table 1: seeds 1 and 3).
    assert re.fullmatch(r"Champions: tight \d, tight \d won the tournament\.", page.locator("#champion").inner_text())
    assert "Champions: tight" in page.locator("#activity li[data-type=TournamentFinished]").inner_text()
    results = page.eval_on_selector_all("section.round tbody tr td:nth-child(3)", "cells => cells.map(c => c.textContent)")
    assert all(re.fullmatch(r"1 card left|\d+ cards left", r) for r in results), results
    assert "(tables of 2)" in page.locator("#t-summary").inner_text()
    pages.screenshot(page, "finished-1280")


def test_a_player_s_tournament_page_adds_to_their_table_s_shuffle(pages, live_server_url):
    """In a tournament with contributed shuffles the player's page sends a contribution to their
    paired table by itself, and the table is dealt with it once the round starts."""
    name = unique("cora")
    answer = httpx.post(f"{live_server_url}/api/auth/register", json={"username": name, "password": PASSWORD})
    player = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"})
    with organiser_api(live_server_url) as api:
        tournament = api.post("/api/tournaments", json={
            "name": "Shuffled", "game": "ten", "format": "swiss", "options": {"rounds": 1}, "rated": False,
            "contributed_shuffle": True,
        }).json()
        assert player.post(f"/api/tournaments/{tournament['id']}/register").status_code in (200, 201)
        assert api.post(f"/api/tournaments/{tournament['id']}/bots", json={"bot": "random"}).status_code == 201
        # The page is open before the round starts, as a player's would be: opened after, on a busy
        # machine, it met the round's shuffle window (4 s here) already closed (tests/FLAKES.md).
        page = pages.open()
        log_in(page, name)
        page.goto(f"/tournaments/{tournament['id']}")
        page.wait_for_selector("#tournament[data-status=registration]")
        assert api.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    key = f"card-league:shuffle:tournament:{tournament['id']}:1:1"
    page.wait_for_function(f"() => localStorage.getItem('{key}')")
    sent = page.evaluate(f"() => localStorage.getItem('{key}')")
    deadline = dt.datetime.now() + dt.timedelta(seconds=60)
    while not (table := player.get(f"/api/tournaments/{tournament['id']}/rounds").json()[0]["tables"][0])["match"]:
        assert dt.datetime.now() < deadline, "the round did not start"
        page.wait_for_timeout(250)
    match = player.get(f"/api/matches/{table['match']}").json()
    seat = next(s["seat"] for s in table["seats"] if s["name"] != "random" and s["user"])
    assert match["shuffle"]["contributions"] == [{"seat": seat, "value": sent}]
    player.close()


def test_a_player_checks_in_another_waits_in_line_and_the_log_says_why(pages, live_server_url):
    """The field's decisions on the page: check-in, the waitlist, and each log line's rule."""
    pages.name = "field"
    with organiser_api(live_server_url) as api:
        tournament = api.post("/api/tournaments", json={
            "name": "Open night", "game": "sequence-stacks", "format": "swiss", "max_entrants": 2,
            "match_options": {"turn_limit": 6}, "field_rules": {"check_in_minutes": 30, "waitlist": 2},
        }).json()
        assert api.post(f"/api/tournaments/{tournament['id']}/bots", json={"bot": "random"}).status_code == 201
        player, waiter = pages.open(), pages.open()
        sign_up(player, unique("pia"), display_name="Pia")
        player.goto(f"/tournaments/{tournament['id']}")
        player.wait_for_selector("#field-rules")
        player.get_by_role("button", name="Register").click()
        player.get_by_role("button", name="Check in").click()
        player.wait_for_selector("#entry [data-key=checked-in]")

        sign_up(waiter, unique("wes"), display_name="Wes")
        waiter.goto(f"/tournaments/{tournament['id']}")
        waiter.get_by_role("button", name="Join the waitlist").click()
        waiter.wait_for_selector("text=You are number 1 on the waitlist")
        waiter.wait_for_selector("#activity li[data-type=PlayerWaitlisted] [data-rule='waitlist.joined']")
        pages.screenshot(waiter, "waitlist")

        assert api.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    waiter.wait_for_selector("#activity li[data-type=WaitlistClosed] [data-rule='waitlist.closed']", timeout=30_000)
    assert "Why:" in waiter.locator("#activity li[data-type=WaitlistClosed]").inner_text()


def test_a_player_who_did_not_check_in_is_shown_so_not_as_withdrawn(pages, live_server_url):
    with organiser_api(live_server_url) as api:
        tournament = api.post("/api/tournaments", json={
            "name": "Check-in night", "game": "sequence-stacks", "format": "swiss",
            "match_options": {"turn_limit": 6}, "field_rules": {"check_in_minutes": 30},
        }).json()
        for _ in range(2):
            assert api.post(f"/api/tournaments/{tournament['id']}/bots", json={"bot": "random"}).status_code == 201
        player = pages.open()
        sign_up(player, unique("nia"), display_name="Nia")
        player.goto(f"/tournaments/{tournament['id']}")
        player.get_by_role("button", name="Register").click()
        player.wait_for_selector("#entrants li:has-text('Nia')")
        assert api.post(f"/api/tournaments/{tournament['id']}/start").status_code == 200
    player.wait_for_selector("#activity li[data-type=CheckInMissed]", timeout=30_000)
    player.reload()
    badge = player.locator("#entrants li:has-text('Nia') .badge")
    badge.first.wait_for()
    assert badge.all_inner_texts() == ["did not check in"]


def test_an_organiser_runs_an_open_swiss_with_late_arrivals_from_the_pages_alone(pages):
    """The create form sets the field rules; a latecomer joins a running Swiss from its page and the
    log says why they got a bye."""
    pages.name = "late-entry"
    organiser, latecomer = pages.open(), pages.open()
    sign_up(organiser, unique("ola"), display_name="Ola")
    organiser.get_by_role("link", name="Tournaments").click()
    organiser.get_by_label("Name").fill("Open Swiss")
    organiser.get_by_label("Game").select_option("sequence-stacks")
    organiser.get_by_label("Format").select_option("swiss")
    organiser.get_by_label("Rounds").fill("3")
    organiser.get_by_label("Clock").select_option("86400")
    organiser.locator("#field-rules-form summary").click()
    organiser.get_by_label("Waitlist size").fill("2")
    organiser.get_by_label("Late entry", exact=True).check()
    organiser.get_by_label("Players who drop may come back").check()
    pages.screenshot(organiser, "field-rules-form")
    organiser.get_by_role("button", name="Create the tournament").click()
    organiser.wait_for_url("**/tournaments/*")
    organiser.wait_for_selector("#field-rules:has-text('late entry until half the rounds have started')")
    tournament_url = organiser.url
    organiser.get_by_role("button", name="Register").click()
    organiser.wait_for_selector("#entrants li:has-text('Ola')")
    for _ in range(3):
        before = organiser.locator("#entrants li[data-entrant]").count()
        organiser.get_by_role("button", name="Add a bot").click()
        organiser.wait_for_function(
            "(n) => document.querySelectorAll('#entrants li[data-entrant]').length > n", arg=before)
    organiser.get_by_role("button", name="Start now").click()
    organiser.wait_for_selector("#tournament[data-status=running]")

    sign_up(latecomer, unique("lou"), display_name="Lou")
    latecomer.goto(tournament_url)
    latecomer.get_by_role("button", name="Join late").click()  # Ola's table is still on: round 2 is next
    latecomer.wait_for_selector("#activity li[data-type=PlayerLateEntered] [data-rule='late_entry.joined']")
    line = latecomer.locator("#activity li[data-type=PlayerLateEntered]").inner_text()
    assert "a bye's points for round 1" in line
    latecomer.wait_for_selector("#entry :text('You are playing in this tournament')")
    pages.screenshot(latecomer, "late-entry")


def test_each_rounds_pairing_report_opens_to_what_the_checker_measured(pages, live_server_url):
    """The report's line is the summary of a details block; opened, it lists the tables, the byes,
    the rematches, the seats and the score groups floated, with names, in English and in Welsh."""
    pages.name = "pairing-report"
    night = bots_tournament(
        live_server_url, ["run_builder", "random"] * 3 + ["random"], name="Reported", game="ten",
        format="swiss-tables", options={"table_size": 3, "rounds": 2}, clock_seconds=30,
    )
    for locale, line, first_seat in (("en-GB", "Pairing: ", "Turns in the first seat"),
                                     ("cy", "Paru: ", "Troeon yn y sedd gyntaf")):
        page = pages.open(locale=locale)
        page.goto(f"/tournaments/{night['id']}")
        page.wait_for_selector("#tournament[data-status=finished]", timeout=180_000)
        rounds = httpx.get(f"{live_server_url}/api/tournaments/{night['id']}/rounds").json()
        assert [rnd["round"] for rnd in rounds] == [1, 2]
        for rnd in rounds:
            report = page.locator(f"section.round[data-round='{rnd['round']}'] details.pairing-quality")
            assert report.get_attribute("open") is None  # closed: the line alone until asked
            assert report.locator("summary").inner_text().startswith(line)
            report.locator("summary").click()
            items = report.locator("li").all_inner_texts()
            assert len(items) >= 5 and any(item.startswith(first_seat) for item in items), items
            if locale == "en-GB":
                assert items == rnd["quality_details"]
                for bye in rnd["byes"]:
                    assert bye["name"] in items[1]
        pages.screenshot(page, f"rounds-{locale}")
