"""Issue #39, finding 6: a budget of bot moves per user. A casual table's bot moves are charged to
its creator, `BOT_MOVES_PER_MINUTE_PER_USER` a minute over all their tables; past it a bot move
is queued again for the next minute (never dropped), and a tournament's tables are not charged."""
from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.utils.module_loading import import_string

from games import bot_budget, schedule, turns
from games.models import Match
from games.schedule import FollowUp
from server import metrics
from server.redis_clients import redis_client
from tests.conftest import make_user
from tests.games.test_bots_and_clocks import bot_table, current, to_act
from tests.tournaments.builders import make_tournament, running_matches
from tournaments import services as tournament_services

pytestmark = pytest.mark.django_db

START = 1_000_000 * 60.0  # a minute's start, so that the windows are predictable


class Clock:
    """The budget's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def time(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = Clock()
    monkeypatch.setattr(bot_budget, "_now", fake.time)
    return fake


@pytest.fixture
def sent(monkeypatch):
    """The tasks the budget queues again, instead of a broker's queue."""
    queued: list[FollowUp] = []
    monkeypatch.setattr(schedule, "followups_send", queued.extend)
    return queued


@pytest.fixture(autouse=True)
def _budget_forgotten():
    """Counts and marks of this test do not reach the next, whose users and tables reuse ids."""
    yield
    if django_settings.REDIS_URL:
        client = redis_client()
        for key in client.scan_iter("*bot_move*"):
            client.delete(key)
    else:
        cache.clear()


def delayed() -> float:
    return metrics.bot_moves_delayed._value.get()


def bot_to_move(match: Match) -> int:
    return to_act(current(match.pk))[0]


def test_past_the_budget_a_bot_move_is_queued_for_the_next_minute_not_played(settings, clock, sent):
    """Before: every bot move of every table a user started was played at once, as many as came."""
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 2
    alice = make_user("alice")
    tables = [bot_table("the-game", 2, alice) for _ in range(3)]
    before = delayed()
    heads = [current(t.pk).last_seq for t in tables]
    played = [turns.bot_move(match_id=t.pk, seat=bot_to_move(t), expected_seq=h) for t, h in zip(tables, heads)]
    assert played == [True, True, False]
    assert current(tables[2].pk).last_seq == heads[2]  # nothing written
    [again] = sent
    assert again.task == "games.tasks.bot_move_task" and again.args == (tables[2].pk, bot_to_move(tables[2]), heads[2])
    assert 60 <= again.options["countdown"] <= 120  # within the next minute
    assert again.options["kwargs"]["postponed_token"]
    assert delayed() == before + 1


def test_another_users_tables_have_their_own_budget(settings, clock, sent):
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 1
    alice, bob = make_user("alice"), make_user("bob")
    mine, theirs = bot_table("the-game", 2, alice), bot_table("the-game", 2, bob)
    assert turns.bot_move(match_id=mine.pk, seat=bot_to_move(mine), expected_seq=current(mine.pk).last_seq)
    assert turns.bot_move(match_id=theirs.pk, seat=bot_to_move(theirs), expected_seq=current(theirs.pk).last_seq)
    assert not sent


def test_a_tournaments_bot_is_not_held_behind_its_organisers_casual_tables(settings, clock, sent):
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 1
    alice = make_user("alice")
    casual = bot_table("the-game", 2, alice)
    assert turns.bot_move(match_id=casual.pk, seat=bot_to_move(casual), expected_seq=current(casual.pk).last_seq)
    assert not turns.bot_move(match_id=casual.pk, seat=bot_to_move(casual), expected_seq=current(casual.pk).last_seq)
    assert len(sent) == 1  # alice's budget is spent
    tournament = make_tournament(alice, bots=4)
    tournament_services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert running_matches(tournament)
    for match_id in running_matches(tournament):
        for _ in range(3):
            match = current(match_id)
            if match.status != Match.Status.RUNNING:
                break
            assert turns.bot_move(match_id=match_id, seat=bot_to_move(match), expected_seq=match.last_seq)
    assert len(sent) == 1  # none of the tournament's moves was put off


def test_a_copy_the_sweep_sends_meanwhile_ends_and_the_put_off_one_plays(settings, clock, sent):
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 1
    alice = make_user("alice")
    first, second = bot_table("the-game", 2, alice), bot_table("the-game", 2, alice)
    assert turns.bot_move(match_id=first.pk, seat=bot_to_move(first), expected_seq=current(first.pk).last_seq)
    head, seat = current(second.pk).last_seq, bot_to_move(second)
    assert not turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head)
    [again] = sent
    clock.now += 30
    assert not turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head)  # the sweep's copy, same minute
    assert len(sent) == 1  # it ended: one put-off copy at a time
    clock.now = START + again.options["countdown"]
    assert turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head, **again.options["kwargs"])
    assert current(second.pk).last_seq > head
    assert not turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head)  # a late copy: moved on


def test_a_put_off_move_whose_task_was_lost_is_taken_over_by_a_later_copy(settings, clock, sent):
    """The mark that ends other copies expires a minute after the put-off copy was due."""
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 1
    alice = make_user("alice")
    first, second = bot_table("the-game", 2, alice), bot_table("the-game", 2, alice)
    assert turns.bot_move(match_id=first.pk, seat=bot_to_move(first), expected_seq=current(first.pk).last_seq)
    head, seat = current(second.pk).last_seq, bot_to_move(second)
    assert not turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head)
    sent.clear()  # the broker lost it
    # Each minute one move: the first table spends it, so the sweep's copies of the second are put off.
    for minute in range(1, 4):
        clock.now = START + 60 * minute
        assert turns.bot_move(match_id=first.pk, seat=bot_to_move(first), expected_seq=current(first.pk).last_seq)
        assert not turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head)
    assert sent  # a copy took the move over once the lost one was overdue
    clock.now = START + 60 * 5
    assert turns.bot_move(match_id=second.pk, seat=seat, expected_seq=head, **sent[-1].options["kwargs"])


def test_every_put_off_bot_move_is_played_in_the_end(settings, clock, sent, django_capture_on_commit_callbacks,
                                                     monkeypatch):
    """Three tables of bots on a budget of 4 moves a minute all play to their end: nothing is lost."""
    settings.BOT_MOVES_PER_MINUTE_PER_USER = 4
    settings.MAX_RUNNING_BOT_TABLES_PER_USER = 3
    alice = make_user("alice")
    queue: list[tuple[float, FollowUp]] = []  # (when, task), as the broker would hold them
    monkeypatch.setattr(schedule, "followups_send",
                        lambda followups: queue.extend((clock.now + (f.options.get("countdown") or 0), f)
                                                       for f in followups))
    monkeypatch.setattr("server.celery.send_now", lambda path, *args, **options: queue.append(
        (clock.now + (options.get("countdown") or 0), FollowUp(path, args, options))))
    with django_capture_on_commit_callbacks(execute=True):
        tables = [bot_table("the-game", 2, alice) for _ in range(3)]
    assert len(queue) == 3
    before = delayed()
    ran = 0
    while queue and ran < 20_000:
        queue.sort(key=lambda item: item[0])
        when, task = queue.pop(0)
        clock.now = max(clock.now, when)
        with django_capture_on_commit_callbacks(execute=True):
            import_string(task.task)(*task.args, **task.options.get("kwargs", {}))
        ran += 1
    assert all(current(t.pk).status == Match.Status.FINISHED for t in tables)
    assert delayed() > before  # the budget did put moves off
    moves = sum(current(t.pk).events.filter(type="MovePlayed").count() for t in tables)
    # At most the budget a minute: the tables took at least as many minutes as the moves need.
    assert clock.now - START >= 60 * (moves // 4 - 1)


def test_a_put_off_task_is_sent_with_its_token_as_the_worker_takes_it(eager_tasks, django_capture_on_commit_callbacks):
    """The queued-again task's options are `apply_async`'s own: the broker (here run in place) takes them."""
    alice = make_user("alice")
    with django_capture_on_commit_callbacks(execute=False):
        table = bot_table("the-game", 2, alice)
    head = current(table.pk).last_seq
    postponed = bot_budget.Postponed(countdown=0.01, token="cafe")
    schedule.followups_send([schedule.bot_turn_postponed(table.pk, bot_to_move(table), head, postponed)])
    assert current(table.pk).last_seq > head
