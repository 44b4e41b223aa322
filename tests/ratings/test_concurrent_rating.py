"""Rating tasks on several workers at once (PostgreSQL): one order, no row twice, the rebuild agrees."""
from __future__ import annotations

import io
import random
import threading

import pytest
from django.core.management import call_command
from django.db import connection

from ratings.models import Rating, RatingEntry
from ratings.services import match_rate
from tests.conftest import make_user
from tests.ratings.builders import stored

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_threads(work, count: int) -> None:
    barrier = threading.Barrier(count)
    errors = []

    def run(index):
        try:
            barrier.wait()
            work(index)
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def state():
    return (
        sorted(Rating.objects.values_list("competitor", "mu", "sigma", "games", "last_position")),
        sorted(RatingEntry.objects.values_list("epoch", "position", "match_id", "competitor", "mu_after", "sigma_after")),
    )


def test_matches_ending_and_rated_on_four_workers_at_once_are_rated_once_each_and_rebuilt_exactly():
    people = [make_user(f"player{i}") for i in range(6)]
    outcome = {"finished": True, "ranks": [1, 2, 2], "scores": [3, 1, 1], "winners": [0], "cooperative": False}

    def worker(index):
        rng = random.Random(index)
        for _ in range(12):
            match = stored("ten", rng.sample(people, 3), outcome)
            match_rate(match_id=match.pk)
            match_rate(match_id=match.pk)  # a replayed task

    in_threads(worker, 4)

    positions = dict(RatingEntry.objects.values_list("match_id", "position").distinct())
    assert sorted(positions.values()) == list(range(1, 49))
    assert RatingEntry.objects.count() == 48 * 3
    incremental = state()
    out = io.StringIO()
    call_command("rebuild_ratings", "--game", "ten", stdout=out)
    assert "epoch 1 reproduced, 0 ledger rows appended" in out.getvalue()
    assert state() == incremental
