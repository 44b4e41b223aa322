"""A table, seated (issue #42 items 2 and 6): the seats around the felt with their avatars, names,
card backs, turn and clock, the reader's fanned hand along the bottom; and the end of a game with
every hand face up and the scores counted up, at 1280 px and on a 390 × 844 phone.

Tables are set up over the API (the person at seat 0, bots at the others, two of one kind so that
they are numbered); the person's moves are random legal ones sent over the API, the bots move
through the server's worker.
"""
from __future__ import annotations

import re

import httpx
import pytest

from games.engines.ten import canonical_deck
from tests.frontend.conftest import PASSWORD, axe_findings, axe_served, log_in, needs_chromium, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end
from tests.frontend.test_table_pages import play_to_end

pytestmark = [pytest.mark.browser, needs_chromium]

GAMES = ("the-game", "ten", "sequence-stacks", "split")
SIZES = ((1280, 800), (390, 844))
# A short game where a game has a choice: Sequence Stacks ends at its turn limit.
SHORT = {"sequence-stacks": {"turn_limit": 4}}

# Every figure a score element shows, in order: a count-up shows more than the final one.
WATCH_SCORES = """
window.scoreFigures = [];
new MutationObserver((changes) => {
  for (const change of changes) {
    const node = change.target.nodeType === Node.TEXT_NODE ? change.target.parentElement : change.target;
    if (node && node.matches && node.matches('.seat-score, .score-count')) window.scoreFigures.push(node.textContent);
  }
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


@pytest.fixture
def person(live_server_url):
    """A person of their own for each test: one may have only three tables with nobody but bots."""
    name = unique("sara")
    answer = httpx.post(f"{live_server_url}/api/auth/register",
                        json={"username": name, "password": PASSWORD, "display_name": f"Sara {name[-5:]}"})
    assert answer.status_code == 201, answer.text
    client = httpx.Client(base_url=live_server_url, headers={"Authorization": f"Token {answer.json()['token']}"},
                          timeout=30)
    yield {"username": name, "api": client, "id": answer.json()["user"]["id"]}
    client.close()


def bot_table(api: httpx.Client, game: str, players: int, *, options: dict | None = None) -> tuple[int, list[str]]:
    """A started table: the person at seat 0, the game's strongest bot at seats 1 and 2 (two of a
    kind), another bot beyond. Returns the table and its bots by seat."""
    about = next(g for g in api.get("/api/games").json() if g["slug"] == game)
    strong = about["strong_bot"]
    other = next(bot for bot in about["bots"] if bot != strong)
    table = api.post("/api/matches", json={"game": game, "players": players, "rated": False,
                                           "options": options or SHORT.get(game, {})}).json()
    bots = [""] + [strong if seat < 3 else other for seat in range(1, players)]
    for seat in range(1, players):
        answer = api.post(f"/api/matches/{table['id']}/bots", json={"seat": seat, "bot": bots[seat]})
        assert answer.status_code == 200, answer.text
    answer = api.post(f"/api/matches/{table['id']}/start")
    assert answer.status_code == 200, answer.text
    return table["id"], bots


def open_table(pages, person, match_id: int, size: tuple[int, int], **options):
    width, height = size
    page = pages.open(width=width, height=height, mobile=width < 500, **options)
    log_in(page, person["username"])
    page.goto(f"/tables/{match_id}")
    page.wait_for_function("() => document.getElementById('table').dataset.seq")
    page.wait_for_selector("#board .felt")
    return page


def box(page, selector: str) -> dict:
    return page.locator(selector).first.evaluate(
        "(node) => { const b = node.getBoundingClientRect();"
        " return {top: b.top, bottom: b.bottom, left: b.left, right: b.right}; }")


@pytest.mark.parametrize("game", GAMES)
def test_the_seats_sit_around_the_felt(pages, person, axe_script, game):
    """Four seats: the two bots of one kind are numbered, every seat has its picture, the others'
    hidden cards are backs, the seats are named for a screen reader with their count and turn,
    and at 390 × 844 the hand and the piles are on the first screen, nothing wider than it."""
    pages.name = f"seated-{game}"
    match_id, bots = bot_table(person["api"], game, 4)
    for size in SIZES:
        page = open_table(pages, person, match_id, size)
        width, height = size
        pods = page.locator("#board .seat-pod")
        assert pods.count() == 4
        names = page.locator("#board .seat-pod .seat-name").all_inner_texts()
        assert any(re.match(rf"{bots[1]} 1 \(bot\)", text) for text in names), names
        assert any(re.match(rf"{bots[1]} 2 \(bot\)", text) for text in names), names
        assert any(re.match(rf"{bots[3]} \(bot\)", text) for text in names), names
        # The person's avatar is theirs; a bot's face is drawn.
        mine = page.locator("#board .seat-pod.is-me")
        assert mine.locator("img.seat-avatar").get_attribute("src") == f"/avatars/{person['id']}.svg"
        assert page.locator("#board .seat-pod:not(.is-me) .seat-avatar-bot svg").count() == 3
        if game != "ten":  # Ten hides no card in a hand: it has none
            for pod in page.locator("#board .seat-pod:not(.is-me)").all():
                assert pod.locator(".card-back").count(), pod.inner_text()
        # Named as a group: who, how many cards, whose turn.
        state = table_state(page)
        for seat in range(4):
            label = page.locator(f"#board .seat-pod[data-seat='{seat}']").get_attribute("aria-label")
            if game != "ten":
                assert re.search(r", \d+ cards?", label), label
            assert ("to play" in label) == (seat in state["view"]["to_act"] and not state["view"]["finished"]), label
        me_label = page.get_by_role("group", name=re.compile(r"^Sara \w+ \(you\)"))
        assert me_label.count() == 1
        # The reader sits at the bottom, below the middle; the others above or beside it.
        centre = box(page, "#board .felt-centre")
        assert box(page, "#board .felt-mine")["top"] >= centre["bottom"] - 1
        for pod in page.locator("#board .felt-ring .seat-pod").all():
            own = pod.evaluate("(node) => node.getBoundingClientRect().top")
            assert own < centre["bottom"], "a seat sits below the middle of the table"
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        if width < 500:
            first_screen = {"the-game": ".tg-piles", "sequence-stacks": ".ss-piles", "split": ".split-row",
                            "ten": ".ten-market"}[game]
            assert box(page, f"#board {first_screen}")["top"] < height, "the piles are below the first screen"
            if game != "ten":
                assert box(page, "#board .hand-panel .hand .card")["top"] < height - 20, "the hand is below the first screen"
        pages.screenshot(page, f"running-{width}")
        axe_served(page, axe_script)
        assert axe_findings(page) == []


@pytest.mark.parametrize("game", GAMES)
def test_the_end_shows_every_hand_and_counts_the_scores_up(pages, person, axe_script, game):
    pages.name = f"seated-end-{game}"
    match_id, _ = bot_table(person["api"], game, 3)
    play_to_end(person["api"], match_id, seed=7, seconds=150)
    outcome = person["api"].get(f"/api/matches/{match_id}/view").json()["view"]["outcome"]
    end = person["api"].get(f"/api/matches/{match_id}/replay", params={"seat": "all"}).json()
    for size in SIZES:
        width, _ = size
        page = pages.open(width=width, height=size[1], mobile=width < 500, motion=True)
        page.add_init_script(WATCH_SCORES)
        log_in(page, person["username"])
        page.goto(f"/tables/{match_id}")
        page.wait_for_selector("#table[data-scores-counted=true]")
        # Every hand face up: the others' in their seats, the reader's in the hand.
        for seat, view in enumerate(end["views"]):
            hand = view["hand"] or []
            pod = page.locator(f"#board .seat-pod[data-seat='{seat}']")
            assert pod.locator(".card-back").count() == 0, f"seat {seat} still shows backs at the end"
            if seat and hand:
                assert pod.locator(".mini-hand .card").count() == len(hand), (seat, hand)
        if (end["views"][0]["hand"] or []):
            assert page.locator("#board .hand-panel .hand .card").count() == len(end["views"][0]["hand"])
        # The scores: counted up from 0 to the final figures, in the seats and the result.
        figures = page.evaluate("() => window.scoreFigures")
        assert "0" in figures, figures
        # A final score above 0 is counted up to, through figures between; when every final score
        # is 0 there is nothing to count (FLAKES.md).
        assert len(set(figures)) > 1 or not any(outcome["scores"]), (figures, outcome["scores"])
        shown = page.locator("#result tbody tr .score-count").all_inner_texts()
        assert sorted(int(text.replace(",", "")) for text in shown) == sorted(outcome["scores"])
        if not outcome["cooperative"]:
            for seat, score in enumerate(outcome["scores"]):
                assert page.locator(f"#board .seat-pod[data-seat='{seat}'] .seat-score").inner_text() == str(score)
        if game == "ten":
            assert page.locator("#result .ten-runs").count() == 3
            assert page.locator("#result .ten-runs").first.locator(".run-bar").count() == 4
        if game == "split":
            assert page.locator("#board details.pad[open]").count() == 1
            assert page.locator("#board .pad-filled").count()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        pages.screenshot(page, f"finished-{width}")
        axe_served(page, axe_script)
        assert axe_findings(page) == []

    # Asked for less motion, the scores are simply there: no figure but the final ones.
    page = pages.open(width=1280, height=800)  # which asks for reduced motion
    page.add_init_script(WATCH_SCORES)
    log_in(page, person["username"])
    page.goto(f"/tables/{match_id}")
    page.wait_for_selector("#table[data-scores-counted=true]")
    figures = page.evaluate("() => window.scoreFigures")
    assert set(figures) <= {str(score) for score in outcome["scores"]}, figures


def test_a_short_game_played_to_its_end_on_the_page_plays_the_end_cue(pages, person):
    """Sequence Stacks with a turn limit of 2, played by clicking: the win or loss cue sounds, and
    the end is shown as above."""
    pages.name = "seated-end-cue"
    match_id, _ = bot_table(person["api"], "sequence-stacks", 2, options={"turn_limit": 2})
    page = open_table(pages, person, match_id, (1280, 800))
    while wait_for_turn_or_end(page) != "finished":
        state = table_state(page)
        perform(page, "sequence-stacks", choose("sequence-stacks", state["view"], state["legal"]))
        wait_for_seq_after(page, state["seq"])
    page.wait_for_selector("#table[data-scores-counted=true]")
    cues = page.evaluate("() => window.cardLeagueSound.log.map((entry) => entry.cue)")
    assert "win" in cues or "loss" in cues, cues


def test_the_turn_bar_keeps_clear_of_the_side_column_and_the_auction_is_in_view(pages, person):
    """At 1280 × 800 the sticky turn bar stays over the board's column (it covered the top of the
    side column), and Ten's Bid and Pass are on the first screen during an auction."""
    pages.name = "seated-auction"
    api = person["api"]
    deck = ten_deck_with_a_wild_first()
    for _attempt in range(3):
        match_id, _ = bot_table(api, "ten", 2, options={"deck": deck})
        page = open_table(pages, person, match_id, (1280, 800))
        page.locator("[data-key='ten:draw:']").click()
        page.wait_for_function("() => { const s = cardLeagueTable.state; return s.view && s.view.phase !== 'draw'; }")
        if wait_for_turn_or_end(page) == "running" and table_state(page)["view"]["phase"] == "auction":
            break
        page.close()
    else:
        pytest.skip("the bot outbid every coin the reader had in each auction tried")
    assert page.evaluate("() => window.scrollY") == 0
    for key in ("ten:bid", "ten:pass"):
        own = box(page, f"[data-key='{key}']")
        assert 0 <= own["top"] and own["bottom"] <= 800, (key, own)
    assert box(page, "#board .ten-market")["top"] < 800
    pages.screenshot(page, "auction-1280")
    # Scrolled down, the turn bar sticks over the board, not over the side column.
    page.evaluate("() => window.scrollTo(0, 400)")
    bar = box(page, ".turn-bar")
    side = box(page, ".table-side")
    assert bar["right"] <= side["left"], (bar, side)


def ten_deck_with_a_wild_first() -> list[str]:
    deck = canonical_deck(2)
    deck.remove("R#")
    return ["R#", *deck]
