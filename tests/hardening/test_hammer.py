"""Many clients hammer one table at once: moves, duplicate idempotency keys and reconnects.

Afterwards the sequence is gapless, the chain and every move verify, and no request was
played twice.
"""
from __future__ import annotations

import random

import pytest

from games.engines import ENGINES
from games.models import Event, Match, MoveReceipt
from games.selectors import verify_match
from games.state import state_at_head
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.test_concurrency import run_at_once

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_hammered_table_keeps_a_gapless_verified_log_and_plays_each_key_once():
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    engine = ENGINES["the-game"]
    rng = random.Random(8)
    answered_keys: dict[str, list[int]] = {}
    for round_number in range(12):
        match = Match.objects.get(pk=match_id)
        if match.status == Match.Status.FINISHED:
            break
        state = state_at_head(match_id, "the-game", match.last_seq)
        seat = engine.to_act(state)[0]
        user, other = (alice, bob) if seat == 0 else (bob, alice)
        legal = engine.legal_moves(state, seat)
        calls = []
        for i in range(10):
            key = f"r{round_number}-k{i % 3}"  # three keys, each sent by several clients at once
            move = rng.choice(legal)
            calls.append(_post(user, match_id, move, key))
        calls += [_post(other, match_id, legal[0], f"other-{round_number}")]  # out of turn
        calls += [lambda: client_for(None).get(f"/api/matches/{match_id}/log?since={rng.randrange(1, 20)}")] * 3
        for answer, key in zip(run_at_once(calls), [c.key for c in calls if hasattr(c, "key")] + [None] * 3):
            if key is not None and answer.status_code == 200:
                answered_keys.setdefault(key, []).append(answer.json()["seq"])
    # Every key answered with one seq only, however many clients sent it.
    assert answered_keys and all(len(set(seqs)) == 1 for seqs in answered_keys.values())
    receipts = MoveReceipt.objects.filter(match_id=match_id)
    played = Event.objects.filter(match_id=match_id, type="MovePlayed").count()
    assert receipts.count() == len(set(answered_keys)) == played
    seqs = list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))
    assert verify_match(Match.objects.get(pk=match_id)).ok


def _post(user, match_id, move, key):
    def call():
        return client_for(user).post(f"/api/matches/{match_id}/moves", {"move": move}, format="json", HTTP_IDEMPOTENCY_KEY=key)

    call.key = key
    return call
