"""Concurrent writers on one match (PostgreSQL): exactly one wins a seq; nothing is lost or doubled."""
from __future__ import annotations

import threading

import pytest
from django.db import connection

from games.models import Event, Match
from games.selectors import verify_match
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def run_at_once(calls):
    """Runs each call in its own thread (its own database connection), released together."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def worker(i, call):
        try:
            barrier.wait()
            results[i] = call()
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def post(user, match_id, body, key=None):
    headers = {"HTTP_IDEMPOTENCY_KEY": key} if key else {}
    return lambda: client_for(user).post(f"/api/matches/{match_id}/moves", body, format="json", **headers)


def test_two_moves_with_the_same_expected_seq_store_exactly_one():
    alice = make_user("alice")
    match_id = started_match("the-game", [alice])
    seen = client_for(alice).get(f"/api/matches/{match_id}/view").json()
    first, second = seen["legal_moves"][0], seen["legal_moves"][-1]
    answers = run_at_once(
        [
            post(alice, match_id, {"move": first, "expected_seq": seen["seq"]}),
            post(alice, match_id, {"move": second, "expected_seq": seen["seq"]}),
        ]
    )
    statuses = sorted(a.status_code for a in answers)
    assert statuses == [200, 409]
    loser = next(a for a in answers if a.status_code == 409)
    assert loser.json()["error"]["code"] == "stale_seq"
    assert Event.objects.filter(match_id=match_id, type="MovePlayed").count() == 1


def test_many_concurrent_moves_without_expected_seq_are_each_stored_once_in_some_legal_order():
    alice = make_user("alice")
    match_id = started_match("the-game", [alice])
    seen = client_for(alice).get(f"/api/matches/{match_id}/view").json()
    plays = [m for m in seen["legal_moves"] if m["action"] == "play"]
    # Eight different cards onto piles that may or may not still accept them when their turn comes.
    moves = [plays[i % len(plays)] for i in range(8)]
    answers = run_at_once([post(alice, match_id, {"move": m}) for m in moves])
    accepted = [a for a in answers if a.status_code == 200]
    refused = [a for a in answers if a.status_code != 200]
    assert accepted, "at least the first move is legal"
    assert all(a.status_code == 409 for a in refused)
    seqs = list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))  # gapless
    assert Event.objects.filter(match_id=match_id, type="MovePlayed").count() == len(accepted)
    assert verify_match(Match.objects.get(pk=match_id)).ok  # each was legal when applied


def test_the_same_idempotency_key_sent_at_once_plays_once_and_both_get_the_same_answer():
    alice = make_user("alice")
    match_id = started_match("the-game", [alice])
    move = client_for(alice).get(f"/api/matches/{match_id}/view").json()["legal_moves"][0]
    answers = run_at_once([post(alice, match_id, {"move": move}, key="same") for _ in range(4)])
    assert [a.status_code for a in answers] == [200] * 4
    assert all(a.json() == answers[0].json() for a in answers)
    assert Event.objects.filter(match_id=match_id, type="MovePlayed").count() == 1
