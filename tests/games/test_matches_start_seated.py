"""Starting a batch of seated tables (a tournament round) at once: each table as it would start
alone, the batch all or nothing, and the after-commit work (cached states, hints, first tasks)
done for every table."""
from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import IntegrityError, transaction

from games import notify, services
from games.chain import seed_sha256
from games.engines import ENGINES, ten
from games.engines._common import seeded_shuffle
from games.models import Event, Match, Seat
from games.selectors import verify_match
from games.services import SeatedTable
from games.state import state_cache
from server.celery import app
from server.errors import ApplicationError
from tests.conftest import broker_emptied, make_user

CLOCK = 30
needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")


@pytest.fixture
def organiser(db):
    return make_user("organiser")


@pytest.fixture
def empty_queue():
    """The broker's queue holds only what the test sends, and is left empty."""
    broker_emptied()
    yield
    broker_emptied()


def duplicate_deck(players: int, deal: int) -> list[str]:
    """A deck as a tournament's duplicate deal passes it (`options={"deck": ...}`)."""
    return seeded_shuffle(ten.canonical_deck(players), deal, 0)


def seated(*seats, options: dict | None = None, sealed: bool = False) -> SeatedTable:
    return SeatedTable(seats=list(seats), options=options or {}, sealed=sealed)


def mixed_tables(alice, bob, carol) -> list[SeatedTable]:
    return [
        seated(alice, "random"),  # a person acts first: a clock
        seated("random", "run_builder"),  # a bot acts first: its move
        seated(bob, carol, options={"deck": duplicate_deck(2, 7)}, sealed=True),
        seated("run_builder", alice, "random", options={"deck": duplicate_deck(3, 7)}, sealed=True),
    ]


def started_alone(table: SeatedTable, organiser) -> Match:
    return services.match_start_seated(
        game="ten", seats=table.seats, created_by=organiser, options=table.options, rated=True,
        clock_seconds=CLOCK, sealed=table.sealed,
    )


def started_in_a_batch(tables: list[SeatedTable], organiser) -> list[Match]:
    return services.matches_start_seated(
        game="ten", tables=tables, created_by=organiser, rated=True, clock_seconds=CLOCK
    )


def columns(match: Match) -> dict:
    """The match's columns that do not depend on its seed or on when it started."""
    match.refresh_from_db()
    names = ("game", "origin", "status", "players", "options", "rated", "created_by_id", "clock_seconds", "sealed",
             "last_seq", "outcome", "finished_at")
    return {name: getattr(match, name) for name in names}


def seat_rows(match: Match) -> list[tuple]:
    rows = Seat.objects.filter(match=match).order_by("seat")
    return list(rows.values_list("seat", "user_id", "bot", "guest", "abandoned", "auto_pass"))


def events_of(match: Match) -> list[Event]:
    return list(Event.objects.filter(match=match).order_by("seq"))


def without_the_seed(event: Event, table: SeatedTable) -> tuple:
    """An event with what its match's seed decides left out (the deck too, unless it was chosen)."""
    data = dict(event.data)
    data.pop("seed_sha256", None)
    data.pop("seed", None)
    if "deck" not in table.options:
        data.pop("deck", None)
    return event.seq, event.kind, event.type, event.actor, data


def assert_started_as_the_rules_say(match: Match, table: SeatedTable) -> None:
    """The events follow from the match's own seed and seats alone, the chain verifies, the head is
    the last event, and the clock runs only for a person to act (seat 0 opens in Ten)."""
    match.refresh_from_db()
    events = events_of(match)
    seats = [
        {"seat": i, "user": who.pk, "bot": ""} if not isinstance(who, str)  # no person's name: issue #39
        else {"seat": i, "user": None, "bot": who}
        for i, who in enumerate(table.seats)
    ]
    assert events[0].data == {
        "type": "MatchStarted", "game": "ten", "engine_version": ENGINES["ten"].version, "players": len(table.seats),
        "rated": True, "seats": seats, "seed_sha256": seed_sha256(match.seed),
    }
    assert [e.data for e in events[1:]] == ENGINES["ten"].start(len(table.seats), match.seed, table.options)
    assert [(e.seq, e.kind, e.actor) for e in events] == [(1, "table", "server")] + [
        (seq, "engine", "server") for seq in range(2, len(events) + 1)
    ]
    assert match.seed_sha256 == seed_sha256(match.seed)
    assert (match.last_seq, match.head_hash) == (events[-1].seq, events[-1].hash)
    assert verify_match(match).ok
    if isinstance(table.seats[0], str):
        assert match.deadline is None
    else:
        assert abs(match.deadline - match.started_at - timedelta(seconds=CLOCK)) < timedelta(seconds=5)


def test_each_table_of_a_batch_is_started_as_it_would_be_alone(alice, bob, carol, organiser):
    tables = mixed_tables(alice, bob, carol)
    batch = started_in_a_batch(tables, organiser)
    alone = [started_alone(table, organiser) for table in tables]

    assert len({m.pk for m in batch}) == len(tables)
    assert len({m.seed for m in batch + alone}) == 2 * len(tables)  # a seed of its own for every match
    for in_batch, by_itself, table in zip(batch, alone, tables):
        assert columns(in_batch) == columns(by_itself)
        assert columns(in_batch)["options"] == table.options
        assert seat_rows(in_batch) == seat_rows(by_itself)
        assert [without_the_seed(e, table) for e in events_of(in_batch)] == [
            without_the_seed(e, table) for e in events_of(by_itself)
        ]
        assert (in_batch.deadline is None) == (by_itself.deadline is None)
        assert_started_as_the_rules_say(in_batch, table)
        assert_started_as_the_rules_say(by_itself, table)


def test_the_returned_matches_are_the_stored_ones_in_the_order_of_the_tables(alice, bob, carol, organiser):
    tables = mixed_tables(alice, bob, carol)
    batch = started_in_a_batch(tables, organiser)
    for match, table in zip(batch, tables):
        stored = Match.objects.get(pk=match.pk)
        assert (match.seed, match.last_seq, match.head_hash, match.deadline, match.status) == (
            stored.seed, stored.last_seq, stored.head_hash, stored.deadline, stored.status
        )
        seated = [who if isinstance(who, str) else who.pk for who in table.seats]
        assert [user_id or bot for _, user_id, bot, *_ in seat_rows(match)] == seated


def queued_tasks() -> list[tuple[str, list, str | None]]:
    """Every task waiting in the broker's queues (the default one and the bots'), taken off them:
    (task name, args, eta)."""
    taken = []
    for name in (app.conf.task_default_queue, settings.BOTS_QUEUE):
        # A connection each: closing a SimpleQueue closes its connection's default channel.
        with app.connection_for_read() as connection:
            queue = connection.SimpleQueue(name)
            try:
                while True:
                    message = queue.get(block=True, timeout=0.5)
                    args, _kwargs, _embed = message.decode()
                    taken.append((message.headers["task"], args, message.headers.get("eta")))
                    message.ack()
            except queue.Empty:
                pass
            finally:
                queue.close()
    return taken


def first_task_of(match: Match, table: SeatedTable) -> tuple[str, list]:
    """What Ten's opening waits on: seat 0's bot, or the clock of the person in seat 0."""
    name = "games.tasks.bot_move_task" if isinstance(table.seats[0], str) else "games.tasks.clock_expire_task"
    return name, [match.pk, 0, match.last_seq]


def test_once_committed_every_table_is_cached_and_its_first_bot_move_or_clock_is_queued(
    alice, bob, carol, organiser, empty_queue, django_capture_on_commit_callbacks
):
    tables = mixed_tables(alice, bob, carol)
    with django_capture_on_commit_callbacks(execute=True):
        batch = started_in_a_batch(tables, organiser)
    queued = queued_tasks()
    assert sorted((name, args) for name, args, _ in queued) == sorted(map(first_task_of, batch, tables))
    for name, args, eta in queued:
        match = next(m for m in batch if m.pk == args[0])
        if name == "games.tasks.clock_expire_task":
            assert datetime.fromisoformat(eta) == match.deadline
        assert state_cache.get(match.pk).seq == match.last_seq  # no read of the log for the first move

    with django_capture_on_commit_callbacks(execute=True):
        alone = [started_alone(table, organiser) for table in tables]
    assert sorted((name, args) for name, args, _ in queued_tasks()) == sorted(map(first_task_of, alone, tables))


def hints_heard(run) -> dict[int, list[dict]]:
    """What each table's sockets hear while `run()` returns match ids and then sends their hints:
    a real subscription to each table's group on the channel layer."""

    async def listen() -> dict[int, list[dict]]:
        layer = get_channel_layer()
        match_ids, send = await sync_to_async(run)()
        channels = {match_id: await layer.new_channel() for match_id in match_ids}
        for match_id, channel in channels.items():
            await layer.group_add(notify.match_moves_group(match_id), channel)
        await sync_to_async(send)()
        heard: dict[int, list[dict]] = {match_id: [] for match_id in match_ids}
        for match_id, channel in channels.items():
            with contextlib.suppress(asyncio.TimeoutError):
                heard[match_id].append(await asyncio.wait_for(layer.receive(channel), timeout=5))
                while True:  # and nothing more
                    heard[match_id].append(await asyncio.wait_for(layer.receive(channel), timeout=0.2))
        return heard

    return async_to_sync(listen)()


@needs_redis
def test_every_tables_sockets_hear_that_it_started(
    alice, bob, carol, organiser, empty_queue, django_capture_on_commit_callbacks
):
    tables = mixed_tables(alice, bob, carol)

    def start():
        with django_capture_on_commit_callbacks() as committed:
            batch = started_in_a_batch(tables, organiser)
        return [m.pk for m in batch], lambda: [callback() for callback in committed]

    heard = hints_heard(start)
    heads = dict(Match.objects.filter(pk__in=heard).values_list("pk", "last_seq"))
    assert heard == {match_id: [{"type": "match.changed", "seq": seq}] for match_id, seq in heads.items()}


def test_a_batch_of_bots_plays_itself_to_the_end_when_the_bots_tasks_run(
    organiser, eager_tasks, django_capture_on_commit_callbacks
):
    tables = [seated("random", "random"), seated("random", "random"), seated("run_builder", "random", "random")]
    with django_capture_on_commit_callbacks(execute=True):
        batch = services.matches_start_seated(game="ten", tables=tables, created_by=organiser, rated=False)
    for match in batch:
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED and match.outcome["finished"] is True
        assert verify_match(match).ok
        actors = set(Event.objects.filter(match=match, type="MovePlayed").values_list("actor", flat=True))
        assert actors and actors <= {"bot:random", "bot:run_builder"}


def assert_nothing_written() -> None:
    assert (Match.objects.count(), Seat.objects.count(), Event.objects.count()) == (0, 0, 0)


@pytest.mark.parametrize(
    "bad_seats, code",
    [(["random", "nobody"], "unknown_bot"), (["random"], "bad_player_count"), (["random"] * 6, "bad_player_count")],
)
def test_one_refused_table_refuses_the_batch_before_anything_is_written(
    bad_seats, code, alice, organiser, django_assert_num_queries
):
    tables = [seated(alice, "random"), seated(*bad_seats)]
    with pytest.raises(ApplicationError) as alone:
        services.match_start_seated(game="ten", seats=bad_seats, created_by=organiser)
    with django_assert_num_queries(0), pytest.raises(ApplicationError) as in_batch:
        started_in_a_batch(tables, organiser)
    assert in_batch.value.code == code
    assert (in_batch.value.code, in_batch.value.message) == (alone.value.code, alone.value.message)
    assert_nothing_written()


def test_a_deck_that_is_not_the_games_refuses_the_batch_before_anything_is_written(
    alice, organiser, django_assert_num_queries
):
    wrong_deck = duplicate_deck(2, 7)[:-1]
    tables = [seated("random", "random"), seated(alice, "random", options={"deck": wrong_deck}, sealed=True)]
    with django_assert_num_queries(0), pytest.raises(ValueError, match="deck"):
        started_in_a_batch(tables, organiser)
    assert_nothing_written()


def test_a_person_in_two_seats_of_one_table_refuses_the_whole_batch(alice, bob, organiser):
    tables = [seated(bob, "random"), seated(alice, alice)]
    with pytest.raises(IntegrityError):
        started_in_a_batch(tables, organiser)
    assert_nothing_written()


class _RolledBack(Exception):
    pass


@pytest.mark.django_db(transaction=True)
def test_a_batch_rolled_back_with_its_callers_transaction_leaves_no_rows_and_schedules_nothing(empty_queue):
    organiser, alice = make_user("organiser"), make_user("alice")
    tables = [seated("random", "random"), seated(alice, "random")]
    with pytest.raises(_RolledBack), transaction.atomic():
        batch = started_in_a_batch(tables, organiser)
        assert Match.objects.filter(pk__in=[m.pk for m in batch]).count() == len(tables)
        raise _RolledBack
    assert_nothing_written()
    assert queued_tasks() == []
    assert all(state_cache.get(match.pk) is None for match in batch)
