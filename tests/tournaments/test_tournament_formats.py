"""GET /api/tournaments/formats: per game, the formats a tournament may use; exactly those the
create operation accepts."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from games.engines import ENGINES
from server.errors import ApplicationError
from tournaments import selectors, services
from tournaments.formats import FORMATS

pytestmark = pytest.mark.django_db


def test_the_game_offers_no_two_player_format():
    """Regression: the form offered Swiss, round robin, elimination and a round-robin league for
    The Game, which the server refuses only after submit."""
    rows = {row["game"]: row for row in APIClient().get("/api/tournaments/formats").json()}
    assert rows["the-game"] == {
        "game": "the-game",
        "formats": ["swiss-tables", "table-elimination", "league"],
        "league_formats": ["swiss-tables", "table-elimination"],
    }
    assert set(rows) == set(ENGINES)
    assert set(rows["ten"]["formats"]) == set(FORMATS)


def _refused(organiser, game: str, fmt: str, options: dict) -> bool:
    try:
        services.tournament_create(organiser=organiser, name="t", game=game, format=fmt, options=options)
    except ApplicationError as exc:
        assert exc.code == "bad_options"
        return True
    return False


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_format_offered_is_accepted_and_every_other_refused(alice, game):
    row = next(r for r in selectors.game_formats() if r["game"] == game)
    for slug in FORMATS:
        if slug != "league":
            assert _refused(alice, game, slug, {}) == (slug not in row["formats"]), slug
            assert _refused(alice, game, "league", {"format": slug}) == (slug not in row["league_formats"]), slug
