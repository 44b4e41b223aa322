"""Plays a seat of a table page by clicking, the way a person would.

`choose` picks one of the seat's legal moves (a simple strategy per game that finishes a
match quickly); `perform` makes that move through the page's own controls: a card first when
the move needs one (the page then offers the targets), then the control that carries the move.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
except ImportError:  # the browser tests skip without Playwright; this module must still import
    PlaywrightTimeout = TimeoutError

if TYPE_CHECKING:
    from playwright.sync_api import Page

MOVE_TIMEOUT_MS = 30_000
_STACKS_ACTION_CARDS = ("skip", "reverse", "steal_card", "steal_chip")


def move_selector(move: dict) -> str:
    """The control that sends exactly `move` (the page writes it as JSON.stringify does)."""
    return f"#board [data-move={json.dumps(json.dumps(move, separators=(',', ':')))}]"


def table_state(page: Page) -> dict:
    return page.evaluate(
        "() => ({seq: cardLeagueTable.state.seq, status: cardLeagueTable.state.status,"
        " view: cardLeagueTable.state.view, legal: cardLeagueTable.state.legal})"
    )


def diagnosis(page: Page) -> str:
    """What the page shows, for a failure message."""
    return json.dumps(page.evaluate(
        "() => ({seq: cardLeagueTable.state.seq, status: cardLeagueTable.state.status,"
        " busy: cardLeagueTable.state.busy, refused: cardLeagueTable.state.lastRefusal,"
        " connection: cardLeagueTable.state.connection,"
        " to_act: cardLeagueTable.state.view && cardLeagueTable.state.view.to_act,"
        " phase: cardLeagueTable.state.view && cardLeagueTable.state.view.phase,"
        " legal: cardLeagueTable.state.legal, flash: document.getElementById('flash').innerText,"
        " log: [...document.querySelectorAll('#log-list li')].slice(-5).map(li => li.innerText)})"
    ))


def wait_for_turn_or_end(page: Page, timeout: float = MOVE_TIMEOUT_MS) -> str:
    """Waits until the page offers this seat a move or shows the end; returns the status."""
    try:
        page.wait_for_function(
            "() => { const t = document.getElementById('table');"
            " return t.dataset.status === 'finished' || t.dataset.myTurn === 'true'; }",
            timeout=timeout,
        )
    except PlaywrightTimeout:
        raise AssertionError(f"the page never offered a move: {diagnosis(page)}") from None
    return page.locator("#table").get_attribute("data-status")


def wait_for_seq_after(page: Page, seq: int, timeout: float = MOVE_TIMEOUT_MS) -> None:
    try:
        page.wait_for_function(
            "(seq) => Number(document.getElementById('table').dataset.seq) > seq", arg=seq, timeout=timeout
        )
    except PlaywrightTimeout:
        raise AssertionError(f"the page did not move on from {seq}: {diagnosis(page)}") from None


def pick(page: Page, selector: str) -> None:
    """Selects a card (clicking it again would put it back)."""
    card = page.locator(selector).first
    if card.get_attribute("aria-pressed") != "true":
        card.click()


def choose(game: str, view: dict, legal: list[dict]) -> dict:
    by_action: dict[str, list[dict]] = {}
    for move in legal:
        by_action.setdefault(move["action"], []).append(move)

    def first(*actions: str) -> dict:
        return next((by_action[a][0] for a in actions if a in by_action), legal[0])

    if game == "the-game":
        return first("play", "end_turn")
    if game == "ten":
        if view["phase"] == "draw":
            if "take" in by_action and (len(view["tableau"]) >= 2 or view["running_total"] >= 5):
                return next(m for m in by_action["take"] if m["reward"] == "numbers")
            return first("draw", "take")
        if view["phase"] in ("buy", "final_buy"):
            return first("buy", "pass")
        return first("pass")
    if game == "sequence-stacks":
        return first("play", "end_turn", "pass", "discard")
    if game == "split":
        if view["phase"] == "draw":
            return first("draw")
        return first("match", "upgrade", "penalize", "skip", "done", "discard")
    raise ValueError(game)


def perform(page: Page, game: str, move: dict) -> None:
    """Makes `move` by clicking the page's controls."""
    action = move["action"]
    if game == "the-game" and action == "play":
        pick(page, f'#board .hand [data-card="{move["card"]}"]')
    elif game == "ten" and action == "buy":
        pick(page, f'#board .ten-market [data-card="{move["card"]}"]')
        # The page pays with the collection cards that cost the fewest points, not always the
        # canonical move's first k: the payment is found by its tokens and card count.
        page.locator(f'#board [data-payment="{move["bust"]}:{move["currency"]}:{len(move["cards"])}"]').first.click()
        return
    elif game == "sequence-stacks" and action in ("play", "discard", *_STACKS_ACTION_CARDS):
        card = move.get("card") or action
        if move.get("source") == "discard":
            pick(page, "#board [data-key=discard-top]")
        else:
            pick(page, f'#board .hand [data-card="{card}"][data-source=hand]')
    elif game == "split" and action in ("match", "upgrade", "discard"):
        card = move["cards"][0] if action == "match" else move["card"]
        pick(page, f'#board .hand [data-card="{card}"]')
    try:
        page.locator(move_selector(move)).first.click(timeout=MOVE_TIMEOUT_MS)
    except PlaywrightTimeout:
        # What the page showed instead, and the card it held picked: a bare timeout said neither.
        shown = page.evaluate("() => ({picked: [...document.querySelectorAll('#board [aria-pressed=true]')]"
                              ".map(el => el.dataset.key), offered: [...document.querySelectorAll('#board [data-move]')]"
                              ".slice(0, 12).map(el => el.dataset.move)})")
        raise AssertionError(f"the page never offered {move} ({shown}): {diagnosis(page)}") from None


def play_until_finished(page: Page, game: str, *, max_moves: int = 2000, on_move=None) -> int:
    """Plays this page's seat to the end of the match; returns the number of moves made."""
    moves = 0
    while wait_for_turn_or_end(page) != "finished":
        state = table_state(page)
        move = choose(game, state["view"], state["legal"])
        perform(page, game, move)
        wait_for_seq_after(page, state["seq"])
        moves += 1
        if on_move is not None:
            on_move(moves, move)
        assert moves < max_moves, "the match did not end"
    return moves
