"""Issue #39, finding 6 for tournaments: a non-staff organiser enters at most
`MAX_BOT_ENTRANTS_PER_TOURNAMENT` bots (409 `too_many_bot_entrants`), and tournaments are
created at most `THROTTLE_TOURNAMENT_CREATE` per user (429 `throttled`)."""
from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from server.limits import ScopedThrottle
from tests.conftest import client_for, make_user
from tests.tournaments.builders import make_tournament
from tournaments.models import Entrant

pytestmark = pytest.mark.django_db


def add_bot(client, tournament):
    return client.post(f"/api/tournaments/{tournament.pk}/bots", {"bot": "random"}, format="json")


def test_an_organiser_cannot_enter_bots_without_end(settings, alice):
    """Prevents one organiser filling the worker with thousands of bot entrants."""
    settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT = 2
    tournament = make_tournament(alice, game="ten", bots=2)
    answer = add_bot(client_for(alice), tournament)
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "too_many_bot_entrants"
    assert answer.json()["error"]["extra"] == {"max": 2}
    assert Entrant.objects.filter(tournament=tournament).exclude(bot="").count() == 2  # nothing written


@pytest.mark.parametrize("persona", ["anonymous", "another player", "staff organiser"])
def test_who_may_add_bots_past_the_cap(settings, alice, persona):
    """Anonymous 401 and another player 403 as before; a staff organiser is not capped."""
    settings.MAX_BOT_ENTRANTS_PER_TOURNAMENT = 0
    if persona == "staff organiser":
        sam = make_user("sam", staff=True)
        assert add_bot(client_for(sam), make_tournament(sam, game="ten")).status_code == 201
        return
    tournament = make_tournament(alice, game="ten")
    caller = client_for(make_user("bob")) if persona == "another player" else client_for(None)
    assert add_bot(caller, tournament).status_code == (403 if persona == "another player" else 401)
    assert not Entrant.objects.filter(tournament=tournament).exists()


def test_tournaments_are_created_at_a_bounded_rate_per_user(monkeypatch, alice, bob):
    """Prevents one account creating tournaments without end; listing is not counted."""
    monkeypatch.setattr(ScopedThrottle, "THROTTLE_RATES", {"tournament_create": "2/hour"})
    hour = int(time.time() // 3600)
    for user in (alice, bob):  # ids are reused between tests on SQLite
        cache.delete(ScopedThrottle.window_key(f"throttle_tournament_create_{user.pk}", hour))
    body = {"name": "Friday", "game": "ten", "format": "swiss"}
    mine = client_for(alice)
    codes = [mine.post("/api/tournaments", body, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    assert mine.post("/api/tournaments", body, format="json").json()["error"]["code"] == "throttled"
    assert mine.get("/api/tournaments").status_code == 200
    assert client_for(bob).post("/api/tournaments", body, format="json").status_code == 201
