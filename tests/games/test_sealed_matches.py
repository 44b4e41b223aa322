"""A sealed match (a duplicate deal other tables still play) keeps its secrets after it ends."""
from __future__ import annotations

import random

import pytest

from games import services
from games.engines import ENGINES
from games.models import Match
from games.state import state_at_head
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def play_out(match_id: int) -> None:
    engine, rng = ENGINES["the-game"], random.Random(1)
    while (match := Match.objects.get(pk=match_id)).status == Match.Status.RUNNING:
        state = state_at_head(match_id, "the-game", match.last_seq)
        seat = engine.to_act(state)[0]
        services.move_play(match_id=match_id, seat=seat, move=rng.choice(engine.legal_moves(state, seat)), actor="test")


def test_a_sealed_match_hides_its_deck_and_seed_until_it_is_unsealed(alice, bob, staff):
    match = services.match_start_seated(game="the-game", seats=[alice, bob], created_by=alice, sealed=True)
    play_out(match.pk)
    client = client_for(bob)
    for suffix in ("/events", "/replay", "/export"):
        assert client.get(f"/api/matches/{match.pk}{suffix}").status_code == 403
    assert client.get(f"/api/matches/{match.pk}").json()["seed"] is None
    assert client.post(f"/api/matches/{match.pk}/practice", {"seq": 3}, format="json").status_code == 403
    assert client_for(staff).get(f"/api/matches/{match.pk}/events").status_code == 200
    services.matches_unseal(match_ids=[match.pk])
    assert client.get(f"/api/matches/{match.pk}/events").status_code == 200
    assert client.get(f"/api/matches/{match.pk}").json()["seed"] is not None
