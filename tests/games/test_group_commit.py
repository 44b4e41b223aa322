"""The fast lane's group commit: claims that arrive while a commit is in flight commit together,
each still conditional on its own table's head.

A batch is made here the way a busy process makes one: several claims handed over in the same
turn of the loop, before the commit that takes them has started.
"""
from __future__ import annotations

import asyncio

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection
from psycopg.errors import UniqueViolation

from games import fastlane, services, store
from games.models import Event, Match, MoveReceipt
from games.selectors import verify_match
from games.state import state_at_head
from server import loop_watch
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.postgres,
    pytest.mark.skipif(not settings.FASTLANE, reason="the fast lane needs PostgreSQL and Redis"),
]


def _tables(count: int) -> list[tuple[int, object]]:
    """`count` running tables of The Game, two new players each; (match id, the player to move)."""
    tables = []
    for _ in range(count):
        players = [make_user(f"gc{Match.objects.count()}{seat}") for seat in range(2)]
        match_id = started_match("the-game", players)
        tables.append((match_id, _to_move(match_id, players)[0]))
    return tables


def _players(match_id: int) -> list:
    return [seat.user for seat in Match.objects.get(pk=match_id).seat_set.select_related("user").order_by("seat")]


def _to_move(match_id: int, players: list) -> tuple[object, dict]:
    """The player to move at the table, and their view of it."""
    for player in players:
        view = client_for(player).get(f"/api/matches/{match_id}/view").json()
        if view["legal_moves"]:
            return player, view
    raise AssertionError(f"nobody is to move at match {match_id}")


def _claim(match_id: int, user, *, receipt: store.Receipt | None = None) -> tuple[tuple[str, list], int]:
    """The claim a move of `user` at the table's head would make, as the lane builds it, and
    the seq it would take the table to."""
    move = client_for(user).get(f"/api/matches/{match_id}/view").json()["legal_moves"][0]
    head = store.head_read(match_id)
    assert head is not None
    seat = services.move_seat(head, match_id, None, move, user_id=user.pk, expected_seq=None)
    state = state_at_head(match_id, head.match.game, head.match.last_seq)
    decided = services.move_decide(head, state, seat, move, services.user_actor_of(user.pk))
    claim = store.claim_statement(match_id, decided.base_seq, decided.changes, decided.rows,
                                  receipt=receipt and (receipt, decided.response))
    return claim, decided.rows[-1].seq


def _last_seq(match_id: int) -> int:
    return Match.objects.get(pk=match_id).last_seq


def _verified(match_id: int) -> bool:
    report = verify_match(Match.objects.get(pk=match_id))
    return report.ok and list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("seq", flat=True)) \
        == list(range(1, report.events + 1))


def _batches() -> dict[int, int]:
    return dict(loop_watch.counts("group_commit_batch"))


def _counted(after: dict[int, int], before: dict[int, int]) -> dict[int, int]:
    return {size: times - before.get(size, 0) for size, times in after.items() if times != before.get(size, 0)}


async def test_a_batch_with_one_stale_claim_commits_the_others_and_refuses_that_one():
    tables = await sync_to_async(_tables)(3)
    claims = [await sync_to_async(_claim)(match_id, mover) for match_id, mover in tables]
    stale_table = tables[1][0]
    # Another writer moves the middle table on after its claim was decided: that claim is stale.
    await sync_to_async(services.table_fact_append)(
        match_id=stale_table, fact={"type": "SeatAbandoned", "seat": 1}, actor="clock")
    stale_head = await sync_to_async(_last_seq)(stale_table)
    heard: list[int] = []
    before = _batches()

    claimed = await asyncio.gather(*(
        fastlane.group_commit.claim(match_id, claim, lambda match_id=match_id: heard.append(match_id))
        for (match_id, _), (claim, _) in zip(tables, claims, strict=True)
    ))

    assert claimed == [True, False, True]
    assert _counted(_batches(), before) == {3: 1}  # one commit for the three
    assert heard == [tables[0][0], tables[2][0]]  # only what committed reached its sockets
    for (match_id, _), (_, seq) in zip(tables, claims, strict=True):
        expected = stale_head if match_id == stale_table else seq
        assert await sync_to_async(_last_seq)(match_id) == expected
        assert await sync_to_async(_verified)(match_id)


async def test_a_claim_whose_receipt_key_is_taken_fails_alone_and_the_rest_of_its_batch_commits():
    tables = await sync_to_async(_tables)(3)
    match_id, mover = tables[1]
    receipt = store.Receipt(mover.pk, "key-1", "0" * 64)
    claims = [await sync_to_async(_claim)(table, user, receipt=receipt if table == match_id else None)
              for table, user in tables]
    # The same key answered another request in the meantime (in another process, say).
    await sync_to_async(MoveReceipt.objects.create)(
        user=mover, match_id=match_id, key="key-1", request_sha256="1" * 64, response={})
    before = await sync_to_async(_last_seq)(match_id)

    outcomes = await asyncio.gather(*(
        fastlane.group_commit.claim(table, claim, lambda: None)
        for (table, _), (claim, _) in zip(tables, claims, strict=True)
    ), return_exceptions=True)

    assert outcomes[0] is True and outcomes[2] is True
    assert isinstance(outcomes[1], UniqueViolation)
    assert await sync_to_async(_last_seq)(match_id) == before
    for (table, _), (_, seq) in zip(tables, claims, strict=True):
        if table != match_id:
            assert await sync_to_async(_last_seq)(table) == seq
        assert await sync_to_async(_verified)(table)


async def test_a_claim_whose_caller_went_away_still_commits_and_reaches_its_sockets():
    tables = await sync_to_async(_tables)(2)
    claims = [await sync_to_async(_claim)(match_id, mover) for match_id, mover in tables]
    heard: list[int] = []
    gone, staying = (
        asyncio.ensure_future(fastlane.group_commit.claim(match_id, claim, lambda m=match_id: heard.append(m)))
        for (match_id, _), (claim, _) in zip(tables, claims, strict=True)
    )
    await asyncio.sleep(0)  # both claims are waiting for the commit
    gone.cancel()  # its socket closed

    assert await staying is True
    assert gone.cancelled()
    assert heard == [tables[0][0], tables[1][0]]
    assert await sync_to_async(_last_seq)(tables[0][0]) == claims[0][1]


async def test_many_tables_moving_at_once_each_commit_every_move_once_in_order():
    tables = await sync_to_async(_tables)(12)
    players = {match_id: await sync_to_async(_players)(match_id) for match_id, _ in tables}
    before = _batches()
    rounds = 4
    for _ in range(rounds):
        turns = [await sync_to_async(_to_move)(match_id, players[match_id]) for match_id, _ in tables]
        answers = await asyncio.gather(*(
            fastlane.move_submit(match_id=match_id, user_id=mover.pk, move=view["legal_moves"][0],
                                 expected_seq=view["seq"])
            for (match_id, _), (mover, view) in zip(tables, turns, strict=True)
        ))
        assert all(answer["seq"] > view["seq"] for answer, (_, view) in zip(answers, turns, strict=True))
    counted = _counted(_batches(), before)
    assert sum(size * times for size, times in counted.items()) == rounds * len(tables)  # each claim once
    for match_id, _ in tables:
        assert await sync_to_async(_verified)(match_id)


async def test_a_batch_that_meets_a_row_another_writer_holds_lets_go_and_commits_claim_by_claim():
    tables = await sync_to_async(_tables)(3)
    claims = [await sync_to_async(_claim)(match_id, mover) for match_id, mover in tables]
    held = tables[1][0]
    # Another writer of several rows (a round's deadlines, say) holds the middle table's row.
    other = await psycopg.AsyncConnection.connect(_conninfo())
    try:
        await other.execute("BEGIN")
        await other.execute(f"SELECT 1 FROM {Match._meta.db_table} WHERE id = %s FOR UPDATE", [held])
        claiming = asyncio.gather(*(
            fastlane.group_commit.claim(match_id, claim, lambda: None)
            for (match_id, _), (claim, _) in zip(tables, claims, strict=True)
        ))
        # The batch gave up on the row (its lock timeout) and the other tables committed alone.
        while await sync_to_async(_last_seq)(tables[2][0]) != claims[2][1]:
            await asyncio.sleep(0.05)
        assert await sync_to_async(_last_seq)(held) != claims[1][1]
        await other.execute("COMMIT")  # the other writer was never made a deadlock's victim
    finally:
        await other.close()
    assert await claiming == [True, True, True]
    for match_id, _ in tables:
        assert await sync_to_async(_verified)(match_id)


async def test_a_lone_claim_on_a_held_row_does_not_hold_up_the_next_moves():
    (held, held_mover), (free, free_mover) = await sync_to_async(_tables)(2)
    held_claim, held_seq = await sync_to_async(_claim)(held, held_mover)
    free_claim, free_seq = await sync_to_async(_claim)(free, free_mover)
    other = await psycopg.AsyncConnection.connect(_conninfo())
    try:
        await other.execute("BEGIN")
        await other.execute(f"SELECT 1 FROM {Match._meta.db_table} WHERE id = %s FOR UPDATE", [held])
        waiting = asyncio.ensure_future(fastlane.group_commit.claim(held, held_claim, lambda: None))
        await asyncio.sleep(0.05)  # its commit is on its way, alone, and waits for the row
        # Another table's move commits while the first still waits for its row.
        assert await asyncio.wait_for(fastlane.group_commit.claim(free, free_claim, lambda: None), 10) is True
        assert not waiting.done()
        await other.execute("COMMIT")
    finally:
        await other.close()
    assert await waiting is True
    assert await sync_to_async(_last_seq)(held) == held_seq
    assert await sync_to_async(_last_seq)(free) == free_seq


def _conninfo() -> str:
    db = connection.settings_dict
    return " ".join(f"{key}={value}" for key, value in (
        ("dbname", db["NAME"]), ("user", db["USER"]), ("password", db["PASSWORD"]), ("host", db["HOST"]),
        ("port", db["PORT"])) if value)
