"""Replays of finished matches: every position, with everything shown or as one seat saw it then."""
from __future__ import annotations

import json
import random

import pytest

from games import frames, services
from games.engines import ENGINES
from games.models import Match
from games.selectors import verify_match
from games.state import state_at_head
from tests.conftest import client_for, make_user
from tests.games.builders import finished_match
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def wire(value):
    return json.loads(json.dumps(value, default=str))


@pytest.mark.no_cover  # volume: every position of a random whole game (tests/untraced.py)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_position_replays_to_the_state_reached_live_and_each_seat_sees_what_it_was_sent(game):
    engine = ENGINES[game]
    players = max(2, engine.min_players)
    users = [make_user(f"p{i}") for i in range(players)]
    match = services.match_start_seated(game=game, seats=users, created_by=users[0])
    live: dict[int, dict] = {}
    rng = random.Random(2)
    while True:
        m = Match.objects.get(pk=match.pk)
        state = state_at_head(m.pk, game, m.last_seq)
        live[m.last_seq] = {
            "views": [engine.view(state, s) for s in range(players)],
            "frames": [frames.frame(m.pk, s, since=0)["view"] for s in list(range(players)) + [None]],
        }
        if m.status == Match.Status.FINISHED:
            break
        seat = rng.choice(engine.to_act(state))
        services.move_play(match_id=m.pk, seat=seat, move=rng.choice(engine.legal_moves(state, seat)), actor="test")
    client = client_for(users[0])
    positions = sorted(live)
    # Every position of the short games; a fixed sample (with the first and the last) of the long ones.
    sample = positions if len(positions) <= 40 else sorted({positions[0], positions[-1], *rng.sample(positions, 30)})
    for seq in sample:
        seen = live[seq]
        everything = client.get(f"/api/matches/{match.pk}/replay", {"seq": seq}).json()
        assert everything["views"] == wire(seen["views"])
        for viewer, frame in zip(list(range(players)) + ["spectator"], seen["frames"]):
            as_seen = client.get(f"/api/matches/{match.pk}/replay", {"seq": seq, "seat": viewer}).json()
            assert as_seen["view"] == wire(frame)


def test_the_replay_lists_every_decision_and_the_log_as_each_seat_saw_it(alice, bob):
    match = finished_match("the-game", [alice, bob])
    body = client_for(None).get(f"/api/matches/{match.pk}/replay", {"seat": 1}).json()
    assert body["seq"] == body["last_seq"] == match.last_seq
    assert body["decisions"][0]["seq"] < body["decisions"][0]["after"] <= body["decisions"][1]["seq"]
    assert all(d["actor"] == f"user:{[alice, bob][d['seat']].pk}" for d in body["decisions"])
    drawn_by_alice = [e["event"] for e in body["log"] if e["event"]["type"] == "CardsDrawn" and e["event"]["seat"] == 0]
    assert drawn_by_alice and all("cards" not in e for e in drawn_by_alice)
    full = client_for(None).get(f"/api/matches/{match.pk}/replay", {"seat": "all"}).json()
    assert any("cards" in e["event"] for e in full["log"] if e["event"]["type"] == "CardsDrawn")


def test_the_replay_refuses_a_running_match_except_to_staff(alice, bob, staff):
    match_id = started_match("the-game", [alice, bob])
    refused = client_for(alice).get(f"/api/matches/{match_id}/replay")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "match_running"
    assert client_for(staff).get(f"/api/matches/{match_id}/replay").status_code == 200


@pytest.mark.parametrize(("query", "code"), [({"seq": 0}, "bad_seq"), ({"seat": 7}, "bad_seat"), ({"seq": "x"}, "invalid_input")])
def test_the_replay_refuses_a_bad_position_or_seat(alice, bob, query, code):
    match = finished_match("the-game", [alice, bob])
    answer = client_for(None).get(f"/api/matches/{match.pk}/replay", query)
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code


def test_practice_starts_an_unrated_match_from_a_position_with_bots_in_the_other_seats(alice, bob):
    match = finished_match("the-game", [alice, bob])
    position = client_for(None).get(f"/api/matches/{match.pk}/replay").json()["decisions"][3]
    answer = client_for(bob).post(f"/api/matches/{match.pk}/practice", {"seq": position["after"], "seat": 1}, format="json")
    assert answer.status_code == 201, answer.json()
    practice = Match.objects.get(pk=answer.json()["id"])
    assert practice.origin == Match.Origin.PRACTICE and not practice.rated and practice.status == Match.Status.RUNNING
    assert answer.json()["seats"][1]["user"] == bob.pk and answer.json()["seats"][0]["bot"]
    engine = ENGINES["the-game"]
    then = client_for(None).get(f"/api/matches/{match.pk}/replay", {"seq": position["after"]}).json()["views"]
    now = state_at_head(practice.pk, "the-game", practice.last_seq)
    assert [engine.view(now, s)["hand"] for s in (0, 1)] == [v["hand"] for v in then]
    assert verify_match(practice).ok
    late = client_for(bob).post(f"/api/matches/{match.pk}/practice", {"seq": match.last_seq}, format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "position_not_playable"


def test_practice_needs_the_seed_of_the_match_it_follows(alice, bob):
    """An imported match whose file revealed no seed: a practice deal would commit to no seed."""
    match = finished_match("the-game", [alice, bob])
    Match.objects.filter(pk=match.pk).update(seed=None)
    before = Match.objects.count()
    answer = client_for(bob).post(f"/api/matches/{match.pk}/practice", {"seq": 3}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "position_not_playable"
    assert Match.objects.count() == before
