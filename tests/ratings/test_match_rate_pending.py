"""A task that finds many matches of its ladder pending rates them all at once, exactly as one at a time."""
from __future__ import annotations

import io
import random
import threading
from collections import Counter

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from games.engines import ENGINES
from games.selectors import seats_never_moved
from ratings import math as rmath
from ratings.models import Ladder, Pool, Rating, RatingEntry, TeamResult
from ratings.selectors import game_params, ratable_matches
from ratings.services import match_rate
from ratings.tasks import match_rate_task
from tests.conftest import make_user
from tests.ratings.builders import random_matches, stored

TWO = {"finished": True, "ranks": [1, 2], "scores": [30, 20], "winners": [0], "cooperative": False}


@pytest.fixture
def people(db):
    return [make_user(f"player{i}") for i in range(8)]


def one_at_a_time(game: str) -> tuple[list[tuple], dict[str, rmath.Pair]]:
    """The ledger rows and current ratings of rating the game's matches one after the other in
    match-end order, computed by the maths alone."""
    env = rmath.environment(game_params(game))
    current: dict[str, rmath.Pair] = {}
    rows = []
    for position, match in enumerate(ratable_matches(game), start=1):
        for change in rmath.rate_table(env, match.table, current):
            current[change.competitor] = change.after
            rows.append((position, match.match_id, change.competitor, change.seat, change.rank, *change.before, *change.after))
    return rows, current


def ledger() -> list[tuple]:
    return sorted(
        RatingEntry.objects.values_list(
            "position", "match_id", "competitor", "seat", "rank", "mu_before", "sigma_before", "mu_after", "sigma_after"
        )
    )


def snapshot() -> tuple:
    return (
        ledger(),
        sorted(Rating.objects.values_list("competitor", "mu", "sigma", "games", "wins", "last_position")),
        sorted(
            Ladder.objects.filter(position__gt=0).values_list("game", "pool", "position", "last_finished_at", "last_match_id")
        ),
    )


@pytest.mark.django_db
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_one_task_rates_every_pending_match_in_match_end_order_exactly_as_one_at_a_time(game, people):
    matches = random_matches(game, people, 40, seed=3)
    assert match_rate(match_id=matches[9].pk) == 10  # some ratings exist before the batch
    assert match_rate(match_id=matches[-1].pk) == 30

    rows, current = one_at_a_time(game)
    assert ledger() == sorted(rows)
    ratings = {r.competitor: r for r in Rating.objects.all()}
    assert {competitor: (r.mu, r.sigma) for competitor, r in ratings.items()} == current
    assert {competitor: r.games for competitor, r in ratings.items()} == Counter(row[2] for row in rows)
    last = {competitor: position for position, _, competitor, *_ in sorted(rows)}
    assert {competitor: r.last_position for competitor, r in ratings.items()} == last
    assert Ladder.objects.get(game=game, pool=Pool.PEOPLE).last_match_id == matches[-1].pk
    if game == "the-game":
        assert TeamResult.objects.count() == 40


@pytest.mark.django_db
def test_the_tasks_of_the_matches_rated_with_another_change_nothing(people):
    matches = random_matches("ten", people, 12, seed=4)
    assert match_rate(match_id=matches[-1].pk) == 12
    before = snapshot()

    assert [match_rate(match_id=m.pk) for m in matches] == [0] * 12

    assert snapshot() == before


@pytest.mark.django_db
def test_a_task_rating_many_matches_leaves_out_those_where_a_person_never_moved(people):
    """Regression (rating farming with a second account that never moves) on the path that rates
    a ladder's pending matches together: the idle matches among them count for nobody."""
    matches = random_matches("ten", people, 60, seed=5, never_moved=0.15)
    idle = {m.pk for m in matches if seats_never_moved(m.pk)}
    assert 5 < len(idle) < 55

    assert match_rate(match_id=matches[-1].pk) == 60 - len(idle)

    assert set(RatingEntry.objects.values_list("match_id", flat=True)) == {m.pk for m in matches} - idle
    assert [match_rate(match_id=pk) for pk in sorted(idle)] == [0] * len(idle)


def _arabic_indic(number: int) -> str:
    return "".join(chr(0x0660 + int(digit)) for digit in str(number))


@pytest.mark.django_db
@pytest.mark.parametrize(
    "spelling, moved",
    [
        ("user:{id}", True),
        ("user:00{id}", True),  # `whole_number` reads leading zeros
        ("user:{id} ", False),
        ("user:+{id}", False),
        ("user:{arabic}", False),  # digits, but not ASCII ones
        ("user:{other}", False),  # the other person's move
        ("clock", False),
        ("USER:{id}", None),  # as the database's LIKE has it (SQLite's ignores case): as the summary says
    ],
)
def test_the_task_reads_who_moved_exactly_as_the_match_summary_does(alice, bob, spelling, moved):
    actor = spelling.format(id=bob.pk, other=alice.pk, arabic=_arabic_indic(bob.pk))
    match = stored("ten", [alice, bob], TWO, actors={1: actor})
    summary_says_moved = not seats_never_moved(match.pk)
    if moved is not None:
        assert summary_says_moved is moved

    assert match_rate(match_id=match.pk) == (1 if summary_says_moved else 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_task_of_a_match_already_rated_does_not_wait_for_the_ladder():
    """Prevents the tasks of a round's matches, once the first of them rated them all, from
    queueing one after the other on the ladder's lock only to find there is nothing to do."""
    alice, bob = make_user("alice"), make_user("bob")
    matches = [stored("ten", [alice, bob], TWO) for _ in range(5)]
    assert match_rate(match_id=matches[-1].pk) == 5
    ladder = Ladder.objects.get(game="ten", pool=Pool.PEOPLE)
    locked, release = threading.Event(), threading.Event()

    def hold_the_ladder():
        try:
            with transaction.atomic():
                Ladder.objects.select_for_update().get(pk=ladder.pk)
                locked.set()
                release.wait(30)
        finally:
            connection.close()

    holder = threading.Thread(target=hold_the_ladder)
    holder.start()
    try:
        assert locked.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")  # waiting for the lock fails the test
        assert [match_rate(match_id=m.pk) for m in matches[:-1]] == [0] * 4
    finally:
        release.set()
        holder.join()
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


@pytest.mark.django_db
def test_the_first_of_a_rounds_tasks_rates_the_round_and_the_others_find_their_match_rated(people):
    """Workers take tasks in the order the matches ended: the first task must not leave the rest
    of the round to a transaction each."""
    matches = random_matches("ten", people, 12, seed=6)

    assert [match_rate_task(m.pk) for m in matches] == [12] + [0] * 11

    rows, _ = one_at_a_time("ten")
    assert ledger() == sorted(rows)
    positions = dict(RatingEntry.objects.values_list("match_id", "position").distinct())
    assert [positions[m.pk] for m in matches] == list(range(1, 13))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_tasks_on_four_workers_rate_each_match_once_and_a_rebuild_reproduces_them():
    """The task takes later matches along while other workers are still committing theirs:
    some arrive late, none is rated twice or lost, and the ledger's order rebuilds exactly."""
    people = [make_user(f"player{i}") for i in range(6)]
    outcome = {"finished": True, "ranks": [1, 2, 2], "scores": [3, 1, 1], "winners": [0], "cooperative": False}
    errors = []
    start = threading.Barrier(4)

    def worker(index: int) -> None:
        try:
            rng = random.Random(index)
            start.wait()
            for _ in range(12):
                match = stored("ten", rng.sample(people, 3), outcome)
                match_rate_task(match.pk)
                match_rate_task(match.pk)  # a replayed task
        except Exception as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)
        finally:
            connection.close()

    workers = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for thread in workers:
        thread.start()
    for thread in workers:
        thread.join()
    assert errors == []

    positions = dict(RatingEntry.objects.values_list("match_id", "position").distinct())
    assert sorted(positions.values()) == list(range(1, 49))
    assert RatingEntry.objects.count() == 48 * 3
    incremental = snapshot()
    out = io.StringIO()
    call_command("rebuild_ratings", "--game", "ten", stdout=out)
    assert "epoch 1 reproduced, 0 ledger rows appended" in out.getvalue()
    assert snapshot() == incremental
