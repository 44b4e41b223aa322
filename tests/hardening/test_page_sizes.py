"""Every list has a maximum page size (`MAX_PAGE_SIZE`): a larger `limit` is refused with 400
`bad_limit`, not clamped; a `limit` or `offset` that is not a whole number is refused too."""
from __future__ import annotations

import pytest

from tests.conftest import client_for
from tests.tournaments.builders import make_tournament

pytestmark = pytest.mark.django_db

LISTS = [
    "/api/matches",
    "/api/tournaments",
    "/api/tournaments/{tournament}/entrants",
    "/api/tournaments/{tournament}/standings",
    "/api/ratings/the-game/leaderboard",
    "/api/ratings/the-game/best-results",
    "/api/ratings/the-game/players/alice/history",
    "/api/ratings/the-game/players/alice/head-to-head",
]


@pytest.fixture
def tournament(alice):
    return make_tournament(alice, bots=3)


@pytest.mark.parametrize("path", LISTS)
def test_no_list_answers_a_page_larger_than_the_maximum(path, tournament, settings):
    """Prevents `limit=100000` making one request read and send a whole table of the database."""
    url = path.format(tournament=tournament.pk)
    client = client_for()
    for limit in (settings.MAX_PAGE_SIZE + 1, 100000):
        answer = client.get(url, {"limit": limit})
        assert answer.status_code == 400, answer.json()
        error = answer.json()["error"]
        assert error["code"] == "bad_limit" and str(settings.MAX_PAGE_SIZE) in error["message"]
    assert client.get(url, {"limit": settings.MAX_PAGE_SIZE}).status_code == 200
    for bad in ("0", "-1", "ten", "³", str(2**63)):
        assert client.get(url, {"limit": bad}).json()["error"]["code"] == "bad_limit"
    for bad in ("-1", "x", str(2**63)):
        assert client.get(url, {"offset": bad}).json()["error"]["code"] == "bad_offset"


def test_the_maximum_is_a_setting(tournament, settings):
    """Prevents the cap being a constant an operator cannot lower."""
    settings.MAX_PAGE_SIZE = 2
    client = client_for()
    url = f"/api/tournaments/{tournament.pk}/entrants"
    assert client.get(url, {"limit": 3}).json()["error"]["extra"] == {"max": 2}
    page = client.get(url, {"limit": 2}).json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert len(client.get(url, {"limit": 2, "offset": 2}).json()["results"]) == 1


def test_entrants_and_standings_come_in_pages(tournament):
    """Prevents a tournament's entrants (up to 100,000) and standings being sent whole."""
    for kind in ("entrants", "standings"):
        page = client_for().get(f"/api/tournaments/{tournament.pk}/{kind}").json()
        assert set(page) == {"count", "next", "previous", "results"}


def test_a_users_token_list_has_the_same_maximum(alice, settings):
    """Prevents the token list (one row per login) being the one list without a cap."""
    client = client_for(alice)
    answer = client.get("/api/auth/tokens", {"limit": settings.MAX_PAGE_SIZE + 1})
    assert answer.status_code == 400 and answer.json()["error"]["code"] == "bad_limit"
    assert client.get("/api/auth/tokens", {"limit": 1}).json()["count"] == 1
