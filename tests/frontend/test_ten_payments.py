"""Ten's payments on the table page (issue #43 item 5): the page scores a collection exactly as the
engine does (rules R13), pays with the collection cards that cost the fewest points, and offers the
payments cheapest first: a red 7 was offered only as "2 currency + B2 B4 B7 G3 W#" before, the whole
collection and the full wild."""
from __future__ import annotations

import itertools
import random

import pytest

from games.engines.ten import best_runs
from tests.frontend.conftest import needs_chromium

pytestmark = [pytest.mark.browser, needs_chromium]

CARDS = [f"{colour}{number}" for colour in "RBOG" for number in "123456789"] + \
    [f"{colour}#" for colour in "RBOG"] + [f"W{number}" for number in "123456789#"]
SCORE = "/static/frontend/js/games/ten-score.js"
TEN = "/static/frontend/js/games/ten.js"


def _collections(count: int, seed: int, largest: int) -> list[list[str]]:
    rng = random.Random(seed)
    order = {card: index for index, card in enumerate(CARDS)}
    return [sorted(rng.choices(CARDS, k=rng.randint(0, largest)), key=order.__getitem__) for _ in range(count)]


@pytest.fixture
def page(pages):
    page = pages.open()
    page.goto("/rules/ten")  # any page of the site: its modules load from the same origin
    return page


def test_the_page_scores_a_collection_as_the_engine_does(page):
    collections = _collections(400, seed=43, largest=18)
    totals = page.evaluate(f"async (all) => {{ const m = await import('{SCORE}'); return all.map(m.bestTotal); }}",
                           collections)
    assert totals == [best_runs(collection)[0] for collection in collections]


def test_the_cards_it_pays_with_cost_the_fewest_points_there_are(page):
    cases = [(collection, count) for collection in _collections(60, seed=5, largest=9)
             for count in range(1, len(collection) + 1)]
    chosen = page.evaluate(
        f"async (cases) => {{ const m = await import('{SCORE}');"
        " return cases.map(([c, k]) => m.cheapestCards(c, k)); }", cases)
    for (collection, count), answer in zip(cases, chosen, strict=True):
        whole = best_runs(collection)[0]
        fewest = min(whole - best_runs([c for i, c in enumerate(collection) if i not in drop])[0]
                     for drop in map(set, itertools.combinations(range(len(collection)), count)))
        kept = list(collection)
        for card in answer["cards"]:
            kept.remove(card)  # the cards are the collection's own
        assert answer["loss"] == fewest == whole - best_runs(kept)[0], (collection, count, answer)


def test_the_payments_are_offered_cheapest_first(page):
    """The red 7 of the report, from a collection of B2 B4 B7 G3 W# with 2 currency and 2 bust
    tokens: its payments as legal_moves lists them (R9: exact, the first k cards of the collection)."""
    collection = ["B2", "B4", "B7", "G3", "W#"]
    legal = [{"action": "buy", "card": "R7", "currency": currency, "bust": bust, "cards": collection[:cards]}
             for bust, currency, cards in [(0, 2, 5), (1, 0, 4), (1, 1, 3), (1, 2, 2), (2, 0, 1), (2, 1, 0)]]
    offered = page.evaluate(
        f"async ([legal, collection]) => {{ const m = await import('{TEN}');"
        " return m.payments(legal, collection, []).map(o => [o.move, o.loss]); }", [legal, collection])
    assert len(offered) == len(legal)
    first, loss = offered[0]
    # Two bust tokens (they count for nothing at the end) and B7, which scores nothing here.
    assert (first["bust"], first["currency"], first["cards"], loss) == (2, 0, ["B7"], 0)
    assert (offered[1][0]["bust"], offered[1][0]["currency"], offered[1][0]["cards"]) == (2, 1, [])
    assert offered[-1][0]["cards"] == collection and offered[-1][1] == best_runs(collection)[0]
    losses = [loss for _, loss in offered]
    assert losses == sorted(losses)


def test_a_payment_with_chosen_cards_uses_them(page):
    collection = ["B2", "B4", "B7", "G3", "W#"]
    legal = [{"action": "buy", "card": "R7", "currency": currency, "bust": bust, "cards": collection[:cards]}
             for bust, currency, cards in [(1, 2, 2), (2, 0, 1), (2, 1, 0)]]
    offered = page.evaluate(
        f"async ([legal, collection]) => {{ const m = await import('{TEN}');"
        " return m.payments(legal, collection, [3, 4]).map(o => [o.move, o.loss]); }", [legal, collection])
    assert offered == [[{**legal[0], "cards": ["G3", "W#"]},
                        best_runs(collection)[0] - best_runs(["B2", "B4", "B7"])[0]]]
