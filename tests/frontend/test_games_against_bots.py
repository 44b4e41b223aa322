"""One whole match of Ten, Sequence Stacks and Split against a bot, played by clicking.

The player opens the table from the lobby's form (the other seat goes to the game's strongest
bot, and the table starts at once), then makes every move with the page's own controls: only
the moves in `legal_moves` are offered, and the page follows the bot's moves live.
"""
from __future__ import annotations

import json
import time
from collections import Counter

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end

pytestmark = [pytest.mark.browser, needs_chromium]


def offered_moves_are_legal(page) -> None:
    """Every control that sends a move sends one of the seat's legal moves. A Ten payment may name
    any of the buyer's collection cards (rules R9; `legal_moves` lists the first k of them)."""
    offered, legal, collection = page.evaluate(
        "() => [[...document.querySelectorAll('#board [data-move]')].map(b => JSON.parse(b.dataset.move)),"
        " cardLeagueTable.state.legal, cardLeagueTable.state.view.game === 'ten'"
        " ? cardLeagueTable.state.view.seats[cardLeagueTable.state.seat].collection : []]")

    def canonical(move: dict) -> str:
        if move["action"] == "buy":
            assert not Counter(move["cards"]) - Counter(collection), move
            move = {**move, "cards": len(move["cards"])}
        return json.dumps(move, sort_keys=True)

    assert {canonical(m) for m in offered} <= {canonical(m) for m in legal}, offered


def view_frames_heard(page) -> Counter:
    """Counts the table socket's view frames as the page receives them: whole views and patches."""
    heard: Counter = Counter()

    def on_frame(payload) -> None:
        frame = json.loads(payload) if isinstance(payload, str) else {}
        if frame.get("type") in ("snapshot", "update"):
            heard["patch" if "view_patch" in frame else "view" if frame.get("view") else "none"] += 1

    page.on("websocket", lambda socket: "/ws/matches/" in socket.url and socket.on("framereceived", on_frame))
    return heard


def view_as_the_server_gives_it(page) -> dict:
    """The page's view beside GET /api/matches/<id>/view's, read again until both name one seq
    (a bot may move between the two reads)."""
    return page.wait_for_function("""async () => {
        const id = location.pathname.match(/tables\\/(\\d+)/)[1];
        const answer = await (await fetch(`/api/matches/${id}/view`)).json();
        const state = cardLeagueTable.state;
        return state.seq === answer.seq && {page: state.view, server: answer.view};
    }""", polling=100).json_value()


@pytest.mark.parametrize("game", ["ten", "sequence-stacks", "split"])
def test_a_whole_match_against_a_bot_by_clicking(pages, game):
    pages.name = game
    page = pages.open()
    heard = view_frames_heard(page)
    sign_up(page, unique("solo"))
    page.get_by_label("Game", exact=True).select_option(game)
    if game == "sequence-stacks":
        page.get_by_label("Turn limit").fill("40")  # a full game, but a short one
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")
    if game == "sequence-stacks":
        auto_pass = page.get_by_label("Pass automatically when an opponent finishes a stack (Block windows)")
        auto_pass.check()
        page.wait_for_selector("#flash :text('pass automatically')")
        auto_pass.uncheck()

    moves = 0
    started = time.monotonic()
    while wait_for_turn_or_end(page) != "finished":
        state = table_state(page)
        offered_moves_are_legal(page)
        move = choose(game, state["view"], state["legal"])
        perform(page, game, move)
        wait_for_seq_after(page, state["seq"])
        moves += 1
        if moves == 3:
            pages.screenshot(page, "playing")
        assert time.monotonic() - started < 240, "the match took too long"
    page.wait_for_selector("#result:not([hidden])")
    assert page.locator("#result .result-headline").inner_text()
    assert moves > 3
    # The page followed the match on patches to its view (`?patches=1`), and its view is the server's.
    assert heard["patch"] > moves, heard
    views = view_as_the_server_gives_it(page)
    assert views["page"] == views["server"]
    pages.screenshot(page, "finished")


def test_a_page_that_lost_its_view_asks_for_the_whole_one_and_plays_on(pages):
    pages.name = "lost-view"
    page = pages.open()
    sent: list[dict] = []
    page.on("websocket", lambda socket: socket.on(
        "framesent", lambda payload: sent.append(json.loads(payload)) if isinstance(payload, str) else None))
    sign_up(page, unique("lost"))
    page.get_by_label("Game", exact=True).select_option("ten")
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.wait_for_selector("#table[data-status=running]")
    wait_for_turn_or_end(page)
    page.evaluate("() => { cardLeagueTable.socket.view = null; }")  # as if its view were lost

    state = table_state(page)
    perform(page, "ten", choose("ten", state["view"], state["legal"]))
    wait_for_seq_after(page, state["seq"])
    page.wait_for_function("() => cardLeagueTable.socket.view !== null")
    assert any(frame.get("type") == "resync" and frame.get("full") is True for frame in sent), sent
    views = view_as_the_server_gives_it(page)
    assert views["page"] == views["server"]
