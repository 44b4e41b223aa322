"""One contract for every writer of a match's stream (eventsourcing's abstract recorder test case).

Three paths append to `games_event`: the move service, the event loop's fast lane, and table
facts (`table_fact_append`: a seat abandoned, a round's deadline). Each subclass names its
writer; the contract's tests run against all three, so a fourth writer cannot be added without
them. The lanes' answers are compared request by request in tests/games/test_fastlane.py.
"""
from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings

from games import fastlane, services
from games.models import Event, Match
from games.selectors import verify_match
from tests.conftest import client_for
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db(transaction=True)


def _stream(match_id: int) -> list[tuple[int, str, str]]:
    return list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("seq", "type", "hash"))


def _head(match_id: int) -> tuple[int, str]:
    match = Match.objects.get(pk=match_id)
    return match.last_seq, match.head_hash


def _legal_move(user, match_id: int) -> dict:
    return client_for(user).get(f"/api/matches/{match_id}/view").json()["legal_moves"][0]


class AppendPathContract:
    """What every writer keeps: it appends after the head, gapless, chained, and rewrites nothing."""

    async def append(self, match_id: int, mover) -> None:
        raise NotImplementedError

    @pytest.fixture
    async def table(self, alice, bob):
        return await sync_to_async(started_match)("the-game", [alice, bob]), alice

    async def test_it_appends_after_the_head_without_a_gap(self, table):
        match_id, mover = table
        before = await sync_to_async(_stream)(match_id)
        await self.append(match_id, mover)
        after = await sync_to_async(_stream)(match_id)
        assert len(after) > len(before)
        assert [seq for seq, _, _ in after] == list(range(1, len(after) + 1))

    async def test_what_was_there_is_never_rewritten(self, table):
        match_id, mover = table
        before = await sync_to_async(_stream)(match_id)
        await self.append(match_id, mover)
        assert (await sync_to_async(_stream)(match_id))[: len(before)] == before

    async def test_the_chain_verifies_and_the_head_names_the_last_event(self, table):
        match_id, mover = table
        await self.append(match_id, mover)
        stream = await sync_to_async(_stream)(match_id)
        assert await sync_to_async(_head)(match_id) == (stream[-1][0], stream[-1][2])
        report = await sync_to_async(lambda: verify_match(Match.objects.get(pk=match_id)))()
        assert report.ok, report.problems

    async def test_it_chains_after_another_writer_that_came_first(self, table):
        match_id, mover = table
        await sync_to_async(services.table_fact_append)(
            match_id=match_id, fact={"type": "SeatAbandoned", "seat": 1}, actor="clock"
        )
        await self.append(match_id, mover)
        stream = await sync_to_async(_stream)(match_id)
        assert "SeatAbandoned" in [type_ for _, type_, _ in stream]
        assert [seq for seq, _, _ in stream] == list(range(1, len(stream) + 1))
        assert (await sync_to_async(lambda: verify_match(Match.objects.get(pk=match_id)))()).ok


class TestTheMoveService(AppendPathContract):
    async def append(self, match_id, mover):
        move = await sync_to_async(_legal_move)(mover, match_id)
        await sync_to_async(services.move_submit)(match_id=match_id, user=mover, move=move)


@pytest.mark.postgres
@pytest.mark.skipif(not settings.FASTLANE, reason="the fast lane needs PostgreSQL and Redis")
class TestTheFastLane(AppendPathContract):
    async def append(self, match_id, mover):
        move = await sync_to_async(_legal_move)(mover, match_id)
        await fastlane.move_submit(match_id=match_id, user_id=mover.pk, move=move)


class TestTableFacts(AppendPathContract):
    async def append(self, match_id, mover):
        await sync_to_async(services.table_fact_append)(
            match_id=match_id, fact={"type": "SeatAbandoned", "seat": 1}, actor="clock"
        )
