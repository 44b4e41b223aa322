"""The table's sound cues (issue #42 item 4 and item 6's end cue), against a bot.

The test asks for real audio (window.cardLeagueSoundAudible, set before the page loads; other
browser tests hear nothing) and reads window.cardLeagueSound.log, where the page writes each cue
it let through and whether the Web Audio API played it (it may only once a click unlocked it).

The table is dealt a descending deck (a casual table's chosen deck, added to the lobby's create
request): every card a seat draws is then lower than every card on the descending piles, so the
game cannot end before its muted part, as a random deal could (tests/FLAKES.md).
"""
from __future__ import annotations

import json
import time

import pytest

from tests.frontend.conftest import needs_chromium, sign_up, unique
from tests.frontend.players import choose, perform, table_state, wait_for_seq_after, wait_for_turn_or_end

pytestmark = [pytest.mark.browser, needs_chromium]

ASK_FOR_SOUND = "window.cardLeagueSoundAudible = true;"
DESCENDING_DECK = [str(n) for n in range(99, 1, -1)]


def with_descending_deck(route) -> None:
    """The lobby's create request, with the deck added (other requests go on as they are)."""
    if route.request.method != "POST":
        route.continue_()
        return
    body = json.loads(route.request.post_data or "{}")
    body["options"] = {**body.get("options", {}), "deck": DESCENDING_DECK}
    route.continue_(post_data=json.dumps(body))


def cues(page) -> list[dict]:
    return page.evaluate("() => window.cardLeagueSound.log")


def play_one(page, game: str) -> str:
    """One move of the reader's seat, then waits for their next turn or the end; the status."""
    state = table_state(page)
    perform(page, game, choose(game, state["view"], state["legal"]))
    wait_for_seq_after(page, state["seq"])
    return wait_for_turn_or_end(page)


def play_until_the_bot_moved(page, game: str) -> str:
    """Moves until the bot has played since this call and the turn came back (or the game ended)."""
    start = table_state(page)["seq"]
    while True:
        status = play_one(page, game)
        if status == "finished" or page.evaluate(
            "(seq) => cardLeagueTable.state.log.some(e => e.seq > seq && e.event.seat !== undefined"
            " && e.event.seat !== cardLeagueTable.state.seat)", start):
            return status


def mute_button(page):
    return page.get_by_role("button", name="Mute sounds")


def test_turn_and_card_cues_play_mute_is_kept_and_the_end_sounds(pages, live_server_url):
    game = "the-game"
    page = pages.open()
    page.add_init_script(ASK_FOR_SOUND)
    sign_up(page, unique("hark"))
    page.get_by_label("Game", exact=True).select_option(game)
    page.get_by_label("Casual").check()
    page.route("**/api/matches", with_descending_deck)
    page.get_by_role("button", name="Open the table").click()
    page.wait_for_url("**/tables/*")
    page.unroute("**/api/matches")
    page.wait_for_selector("#table[data-status=running]")
    table_url = page.url

    # An anonymous spectator hears nothing until they unmute.
    watcher = pages.open()
    watcher.add_init_script(ASK_FOR_SOUND)
    watcher.goto(table_url)
    watcher.wait_for_selector("#board > *")
    assert mute_button(watcher).get_attribute("aria-pressed") == "true"

    assert mute_button(page).get_attribute("aria-pressed") == "false"
    wait_for_turn_or_end(page)
    assert play_until_the_bot_moved(page, game) == "running"
    heard = cues(page)
    assert {"turn", "card"} <= {entry["cue"] for entry in heard}, heard
    assert all(entry["audible"] for entry in heard if entry["cue"] == "turn"), heard  # the first click unlocked it
    watcher.wait_for_function("(seq) => Number(document.getElementById('table').dataset.seq) >= seq",
                              arg=table_state(page)["seq"])
    assert cues(watcher) == []

    # Muted: saved on the account at once, and nothing plays.
    with page.expect_response(lambda answer: answer.url.endswith("/api/auth/me") and answer.request.method == "PATCH") as patched:
        mute_button(page).click()
    assert patched.value.ok and patched.value.json()["sound_volume"] == 0
    assert mute_button(page).get_attribute("aria-pressed") == "true"
    before = len(cues(page))
    assert play_until_the_bot_moved(page, game) == "running"
    assert len(cues(page)) == before

    # Kept after a reload, and given back at the volume it had.
    page.reload()
    page.wait_for_selector("#board > *")
    assert mute_button(page).get_attribute("aria-pressed") == "true"
    assert page.evaluate("() => window.cardLeagueSound.volume") == 0
    with page.expect_response(lambda answer: answer.url.endswith("/api/auth/me") and answer.request.method == "PATCH") as patched:
        mute_button(page).click()
    assert patched.value.json()["sound_volume"] == 70
    assert mute_button(page).get_attribute("aria-pressed") == "false"

    started = time.monotonic()
    while wait_for_turn_or_end(page) != "finished":
        play_one(page, game)
        assert time.monotonic() - started < 240, "the match took too long"
    page.wait_for_function("() => window.cardLeagueSound.log.some(e => e.cue === 'win' || e.cue === 'loss')")
    assert cues(page)[-1]["cue"] in ("win", "loss")
    assert cues(watcher) == []
