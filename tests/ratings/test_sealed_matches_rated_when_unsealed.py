"""A duplicate deal's rated table is rated once every table of the deal has finished (issue #39):
its rating change would tell the tables still playing the same deal how it went.

Regression: the finished table was rated at once (its players' history and the leaderboard moved,
and its rating entries went to the public league log) while the other table still played."""
from __future__ import annotations

import pytest

from games import turns
from games.models import Match, Seat
from ratings.models import RatingEntry
from ratings.services import match_rate
from tests.conftest import client_for, make_user
from tests.tournaments.builders import make_tournament, running_matches
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

GAME = "sequence-stacks"


def test_a_sealed_match_is_rated_when_its_deal_is_done(eager_tasks, django_capture_on_commit_callbacks):
    olga = make_user("olga")
    # Bots play their own moves (a person played out by the clock is never rated).
    tournament = make_tournament(olga, bots=2, bot="random", options={"duplicate": True, "rounds": 1}, rated=True)
    for _ in range(2):
        tournament_services.entrant_bot_add(tournament_id=tournament.pk, user=olga, bot="stack_finisher")
    tournament_services.tournament_start(tournament_id=tournament.pk, user=olga)
    first, second = running_matches(tournament)
    with django_capture_on_commit_callbacks(execute=True):
        turns.match_play_out(match_id=first)
        tournament_services.tournament_match_finished(match_id=first)
    assert Match.objects.get(pk=first).sealed
    assert match_rate(match_id=first) == 0 and not RatingEntry.objects.exists()
    player = f"bot:{Seat.objects.filter(match_id=first).first().bot}"
    for persona in (None, make_user("eve")):  # anonymous, another player
        history = client_for(persona).get(f"/api/ratings/{GAME}/players/{player}/history").json()
        assert history.get("count", 0) == 0
    with django_capture_on_commit_callbacks(execute=True):
        turns.match_play_out(match_id=second)
        tournament_services.tournament_match_finished(match_id=second)
    assert not Match.objects.filter(pk__in=[first, second], sealed=True).exists()
    assert set(RatingEntry.objects.values_list("match_id", flat=True)) == {first, second}
    history = client_for().get(f"/api/ratings/{GAME}/players/{player}/history").json()
    assert history["count"] >= 1
