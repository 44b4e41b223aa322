"""Over whole random games of every game, each socket's frames hold exactly what its seat may see."""
from __future__ import annotations

import json
import random

import pytest

from games import frames, services
from games.engines import ENGINES
from games.models import Event, Match
from games.state import engine_events, state_at_head
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def secrets_in(value) -> list[str]:
    """Keys that must never reach a client while a match runs: a deck order or the seed."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("deck", "seed") and item not in (None, [], {}):
                found.append(key)
            found += secrets_in(item)
    elif isinstance(value, list):
        for item in value:
            found += secrets_in(item)
    return found


@pytest.mark.no_cover  # volume: every frame of a random whole game (tests/untraced.py)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_frame_is_the_engines_view_and_redaction_for_that_seat(game):
    engine = ENGINES[game]
    players = max(2, engine.min_players)
    users = [make_user(f"p{i}") for i in range(players)]
    match = services.match_start_seated(game=game, seats=users, created_by=users[0])
    viewers = list(range(players)) + [None]
    seen = {viewer: 0 for viewer in viewers}
    rng = random.Random(11)
    while True:
        match = Match.objects.get(pk=match.pk)
        state = state_at_head(match.pk, game, match.last_seq)
        seed = str(match.seed)
        for viewer in viewers:
            frame = frames.frame(match.pk, viewer, since=seen[viewer])
            wire = json.loads(json.dumps(frame, default=str))
            assert wire["view"] == json.loads(json.dumps(engine.view(state, viewer)))
            stored = {e.seq: e.data for e in Event.objects.filter(match=match, seq__gt=seen[viewer], kind="engine")}
            for item in wire["events"]:
                assert item["event"] == json.loads(json.dumps(engine.redact(stored[item["seq"]], viewer)))
            if match.status == Match.Status.RUNNING:
                assert not secrets_in(wire), f"{viewer} was sent {secrets_in(wire)}"
                assert seed not in json.dumps(wire)
            seen[viewer] = frame["seq"]
        if match.status == Match.Status.FINISHED:
            break
        seat = rng.choice(engine.to_act(state))
        services.move_play(match_id=match.pk, seat=seat, move=rng.choice(engine.legal_moves(state, seat)), actor="test")
    assert engine.outcome(engine.replay(engine_events(match.pk))) == match.outcome
