"""Bots in seats and turn clocks: a table never stalls on an empty seat or an idle player."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from games import services, turns
from games.bots import STRONG_BOT
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.selectors import match_result_ranks, result_ranks, verify_match
from games.state import state_at_head
from server.celery import app
from tests.conftest import make_user
from tests.games.worker import celery_worker, wait_for


def bot_table(game: str, players: int, owner) -> Match:
    match = services.match_create(user=owner, game=game, players=players, rated=False)
    services.match_leave(match_id=match.pk, user=owner)
    for seat in range(players):
        services.match_seat_bot(match_id=match.pk, user=owner, bot=STRONG_BOT[game] if seat == 0 else "random")
    return services.match_start(match_id=match.pk, user=owner)


def current(match_id: int) -> Match:
    return Match.objects.get(pk=match_id)


def to_act(match: Match) -> list[int]:
    return ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))


@pytest.mark.django_db
def test_a_bot_moves_only_for_the_decision_it_was_scheduled_for(alice):
    match = bot_table("the-game", 2, alice)
    head = match.last_seq
    assert turns.bot_move(match_id=match.pk, seat=0, expected_seq=head)
    assert not turns.bot_move(match_id=match.pk, seat=0, expected_seq=head)  # a repeated task
    moved = current(match.pk)
    assert moved.last_seq > head
    assert Event.objects.get(match=match, seq=head + 1).actor == f"bot:{STRONG_BOT['the-game']}"


@pytest.mark.django_db
def test_a_bot_never_moves_for_a_person(alice, bob):
    match = services.match_create(user=alice, game="the-game", players=2)
    services.match_join(match_id=match.pk, user=bob)
    match = services.match_start(match_id=match.pk, user=alice)
    assert not turns.bot_move(match_id=match.pk, seat=0, expected_seq=match.last_seq)


@pytest.mark.django_db
def test_an_idle_seat_gets_a_clock_move_and_is_abandoned_after_three_in_a_row(alice, bob):
    match = services.match_create(user=alice, game="the-game", players=2, clock_seconds=30)
    services.match_join(match_id=match.pk, user=bob)
    match = services.match_start(match_id=match.pk, user=alice)
    assert match.deadline is not None
    for timeout in range(1, 4):
        match = current(match.pk)
        seat = to_act(match)[0]
        assert seat == 0
        assert not turns.clock_expire(match_id=match.pk, seat=0, expected_seq=match.last_seq - 1)  # stale
        assert turns.clock_expire(match_id=match.pk, seat=0, expected_seq=match.last_seq)
        abandoned = Seat.objects.get(match=match, seat=0).abandoned
        assert abandoned == (timeout == 3)
    moves = Event.objects.filter(match=match, type="MovePlayed").order_by("seq")
    assert [m.actor for m in moves] == ["clock"] * 3
    fact = Event.objects.get(match=match, type="SeatAbandoned")
    assert fact.data == {"type": "SeatAbandoned", "seat": 0} and fact.seq == current(match.pk).last_seq
    assert verify_match(current(match.pk)).ok


@pytest.mark.django_db
def test_a_move_by_the_player_resets_the_count_of_timeouts(alice, bob):
    match = services.match_create(user=alice, game="the-game", players=2, clock_seconds=30)
    services.match_join(match_id=match.pk, user=bob)
    match = services.match_start(match_id=match.pk, user=alice)
    for _ in range(2):
        m = current(match.pk)
        turns.clock_expire(match_id=m.pk, seat=0, expected_seq=m.last_seq)
    m = current(match.pk)
    legal = ENGINES["the-game"].legal_moves(state_at_head(m.pk, m.game, m.last_seq), 0)
    services.move_submit(match_id=m.pk, user=alice, move=legal[-1])
    m = current(match.pk)
    if to_act(m) == [0]:
        turns.clock_expire(match_id=m.pk, seat=0, expected_seq=m.last_seq)
    assert not Seat.objects.get(match=match, seat=0).abandoned


def test_abandoned_seats_rank_after_the_rest_in_the_order_the_bot_finished_them():
    assert result_ranks([1, 2, 3, 4], {0}) == [4, 1, 2, 3]
    assert result_ranks([1, 1, 3, 4], {2, 3}) == [1, 1, 3, 4]
    assert result_ranks([1, 2, 3, 4], {0, 1}) == [3, 4, 1, 2]
    assert result_ranks([2, 1, 3], set()) == [2, 1, 3]
    # Every seat left: the outcome's own order, the winner the table shows.
    assert result_ranks([2, 1], {0, 1}) == [2, 1]
    assert result_ranks([1, 1, 3], {0, 1, 2}) == [1, 1, 3]


def test_forfeited_seats_tie_last_after_the_abandoned_ones():
    assert result_ranks([1, 2, 3, 4], {1}, {0}) == [4, 3, 1, 2]
    assert result_ranks([1, 2, 3, 4], (), {0, 3}) == [3, 1, 2, 3]


needs_redis = pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")


@needs_redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("game", sorted(ENGINES))
@pytest.mark.processes
def test_a_table_of_bots_plays_itself_to_the_end_through_a_real_worker(game):
    owner = make_user("owner")
    with celery_worker():
        match = bot_table(game, 3 if ENGINES[game].max_players >= 3 else 2, owner)
        wait_for(lambda: current(match.pk).status == Match.Status.FINISHED, timeout=240, what=f"{game} to finish")
    finished = current(match.pk)
    assert finished.outcome["finished"] is True
    assert verify_match(finished).ok
    actors = set(Event.objects.filter(match=match, type="MovePlayed").values_list("actor", flat=True))
    assert actors <= {"bot:random", f"bot:{STRONG_BOT[game]}"}


@needs_redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_idle_people_are_played_by_the_clock_then_abandoned_and_the_match_still_ends():
    alice, bob = make_user("alice"), make_user("bob")
    match = services.match_create(user=alice, game="the-game", players=2, clock_seconds=1)
    services.match_join(match_id=match.pk, user=bob)
    with celery_worker():
        services.match_start(match_id=match.pk, user=alice)
        wait_for(lambda: Seat.objects.filter(match=match, abandoned=True).count() == 2, timeout=60, what="abandonment")
        wait_for(lambda: current(match.pk).status == Match.Status.FINISHED, timeout=120, what="the end")
    moves = list(Event.objects.filter(match=match, type="MovePlayed").order_by("seq").values_list("data__seat", "actor"))
    first_of_seat_0 = [actor for seat, actor in moves if seat == 0][:3]
    assert first_of_seat_0 == ["clock", "clock", "clock"]
    assert any(actor.startswith("bot:") for _, actor in moves)
    assert match_result_ranks(current(match.pk)) == current(match.pk).outcome["ranks"]
    assert verify_match(current(match.pk)).ok


@needs_redis
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_the_sweep_resends_a_bot_turn_whose_task_was_lost():
    owner = make_user("owner")
    match = bot_table("the-game", 2, owner)
    app.control.purge()  # the bot's task is lost, as with a broker that forgot it
    head = current(match.pk).last_seq
    with celery_worker():
        assert turns.sweep(stale_after=0) == {"clocks": 0, "windows": 0, "bots": 1}
        wait_for(lambda: current(match.pk).last_seq > head, timeout=30, what="the bot to move")


@pytest.mark.django_db
def test_the_sweep_resends_an_overdue_clock(alice, bob):
    match = services.match_create(user=alice, game="the-game", players=2, clock_seconds=30)
    services.match_join(match_id=match.pk, user=bob)
    services.match_start(match_id=match.pk, user=alice)
    Match.objects.filter(pk=match.pk).update(deadline=timezone.now() - timedelta(minutes=5))
    assert turns.sweep()["clocks"] == 1
