"""While a match runs, no endpoint shows one player another's hand, the deck order or the seed."""
from __future__ import annotations

import json
import random

import pytest

from games.engines import ENGINES
from games.models import Event, Match
from games.state import state_at_head
from tests.conftest import client_for, make_user
from tests.games.helpers import game_params, started_match

pytestmark = pytest.mark.django_db


def everything_seen_by(client, match_id: int) -> list[dict]:
    """Every read endpoint about the match, as that client gets it."""
    return [
        client.get(f"/api/matches/{match_id}").json(),
        client.get(f"/api/matches/{match_id}/view").json(),
        client.get(f"/api/matches/{match_id}/log").json(),
        client.get("/api/matches?status=running").json(),
        client.get(f"/api/matches/{match_id}/events").json(),
    ]


@pytest.mark.no_cover  # volume: every response of a random whole game (tests/untraced.py)
@pytest.mark.parametrize(("game", "players"), game_params())
def test_each_seat_sees_exactly_its_engine_view_and_never_the_seed(game, players):
    users = [make_user(f"p{i}") for i in range(players)]
    match_id = started_match(game, users)
    clients = [client_for(u) for u in users] + [client_for(make_user("watcher")), client_for(None)]
    engine = ENGINES[game]
    rng = random.Random(3)
    for _ in range(40):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            break
        state = state_at_head(match_id, game, match.last_seq)
        for index, client in enumerate(clients):
            seat = index if index < players else None
            seen = everything_seen_by(client, match_id)
            assert seen[1]["view"] == json.loads(json.dumps(engine.view(state, seat)))
            assert seen[4]["error"]["code"] == "match_running"
            text = json.dumps(seen)
            assert str(match.seed) not in text
            assert '"deck"' not in text
        seat = rng.choice(engine.to_act(state))
        move = rng.choice(engine.legal_moves(state, seat))
        assert clients[seat].post(f"/api/matches/{match_id}/moves", {"move": move}, format="json").status_code == 200


def test_in_the_game_no_response_to_one_seat_names_a_card_in_anothers_hand():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    engine = ENGINES["the-game"]
    rng = random.Random(5)
    for _ in range(30):
        match = Match.objects.get(pk=match_id)
        if match.status != Match.Status.RUNNING:
            break
        state = state_at_head(match_id, "the-game", match.last_seq)
        hands = [set(engine.view(state, s)["hand"]) for s in (0, 1)]
        for seat, user in enumerate((alice, bob)):
            seen = everything_seen_by(client_for(user), match_id)
            cards_seen = _card_strings(seen)
            assert not (cards_seen & hands[1 - seat]), f"seat {seat} saw a card of seat {1 - seat}"
        seat = engine.to_act(state)[0]
        move = rng.choice(engine.legal_moves(state, seat))
        client_for((alice, bob)[seat]).post(f"/api/matches/{match_id}/moves", {"move": move}, format="json")
    assert Event.objects.filter(match_id=match_id, type="CardsDrawn").exists()


def _card_strings(value) -> set[str]:
    """Every string of 2..99 anywhere in a JSON value (The Game's card notation)."""
    found: set[str] = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= _card_strings(item)
    elif isinstance(value, list):
        for item in value:
            found |= _card_strings(item)
    elif isinstance(value, str) and value.isdigit() and 2 <= int(value) <= 99:
        found.add(value)
    return found
