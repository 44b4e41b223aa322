"""The embedded default's demo keeps bot tables at play: each that ends is replaced, never more
than DEMO_LIVE_TABLES at once, one of every game first."""
from __future__ import annotations

import threading
import time
from collections import Counter

import httpx
import pytest
from django.db import connection

from accounts.models import User
from games import turns
from games.bots import BOTS, STRONG_BOT
from games.demo import demo_tables_live, demo_tables_top_up, demo_users_ensure
from games.models import Match, Seat
from games.tasks import demo_table_finished_task, demo_top_up_task
from tests.embedded import serve
from tests.games.helpers import started_match
from tests.server.test_production_shape import settings_in_a_fresh_process


@pytest.fixture
def house(db):
    demo_users_ensure()


def test_the_first_tables_are_one_of_each_game_played_by_bots(house):
    started = demo_tables_top_up(live=4)
    assert sorted(m.game for m in started) == sorted(BOTS)
    assert all(m.status == Match.Status.RUNNING and not m.rated for m in started)
    assert all(Seat.objects.filter(match__in=started).values_list("bot", flat=True))


def test_every_seat_of_a_demo_table_is_the_games_stronger_bot(house):
    """Regression: The Game's team seated a random bot beside the strong one and lost within
    half a minute; a newcomer watching learns nothing from random play."""
    for match in demo_tables_top_up(live=4):
        assert set(Seat.objects.filter(match=match).values_list("bot", flat=True)) == {STRONG_BOT[match.game]}


def test_a_demo_table_that_ends_is_replaced_at_once_by_the_match_finished_task(house, settings):
    settings.DEMO = True
    first = {m.game: m for m in demo_tables_top_up()}
    assert turns.match_play_out(match_id=first["split"].pk)

    [replacement] = demo_table_finished_task(first["split"].pk)

    assert Match.objects.get(pk=replacement).game == "split"
    assert demo_table_finished_task(first["split"].pk) == []  # told twice: nothing more
    people = list(User.objects.filter(username__in=["alice", "bob"]).order_by("username"))
    assert demo_table_finished_task(started_match("ten", people)) == []  # not the house's
    settings.DEMO = False
    assert turns.match_play_out(match_id=first["ten"].pk)
    assert demo_table_finished_task(first["ten"].pk) == []


@pytest.mark.processes
def test_the_demo_adds_its_replacement_task_to_the_match_finished_tasks_only_when_on():
    code = "'games.tasks.demo_table_finished_task' in settings.MATCH_FINISHED_TASKS"
    assert settings_in_a_fresh_process({"DEMO": "1", "SECRET_KEY": "x" * 50}, code).stdout.strip() == "True"
    assert settings_in_a_fresh_process({"SECRET_KEY": "x" * 50}, code).stdout.strip() == "False"


def test_a_table_that_ends_is_replaced_by_a_new_one_of_its_game(house):
    first = {m.game: m for m in demo_tables_top_up(live=4)}
    for game in ("the-game", "ten"):
        assert turns.match_play_out(match_id=first[game].pk)
    assert len(demo_tables_live()) == 2

    replacements = demo_tables_top_up(live=4)

    assert sorted(m.game for m in replacements) == ["ten", "the-game"]
    assert all(m.pk > max(t.pk for t in first.values()) for m in replacements)
    assert sorted(m.game for m in demo_tables_live()) == sorted(BOTS)


def test_a_second_top_up_starts_nothing_and_none_goes_past_the_count(house):
    demo_tables_top_up(live=4)
    assert demo_tables_top_up(live=4) == []
    assert demo_tables_top_up(live=2) == []
    assert len(demo_tables_live()) == 4


def test_more_tables_than_games_are_spread_over_the_games(house):
    demo_tables_top_up(live=len(BOTS) + 2)
    per_game = Counter(m.game for m in demo_tables_live())
    assert sum(per_game.values()) == len(BOTS) + 2
    assert set(per_game) == set(BOTS) and max(per_game.values()) - min(per_game.values()) == 1


def test_the_task_tops_up_only_while_the_demo_is_on(house, settings):
    settings.DEMO_LIVE_TABLES = 3
    settings.DEMO = False
    assert demo_top_up_task() == [] and demo_tables_live() == []
    settings.DEMO = True
    assert len(demo_top_up_task()) == 3
    assert demo_top_up_task() == []


@pytest.mark.processes
def test_beat_schedules_the_top_up_only_when_serve_turns_the_demo_on():
    code = "'demo-top-up' in settings.CELERY_BEAT_SCHEDULE"
    assert settings_in_a_fresh_process({"DEMO": "1", "SECRET_KEY": "x" * 50}, code).stdout.strip() == "True"
    assert settings_in_a_fresh_process({"SECRET_KEY": "x" * 50}, code).stdout.strip() == "False"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_top_ups_at_once_start_the_missing_tables_once():
    """The serve command and the worker's beat may top up at the same moment."""
    demo_users_ensure()
    both_ready = threading.Barrier(2)
    started: list[int] = []

    def top_up() -> None:
        try:
            both_ready.wait(timeout=10)
            started.extend(m.pk for m in demo_tables_top_up(live=4))
        finally:
            connection.close()

    threads = [threading.Thread(target=top_up) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(started) == 4 and len(demo_tables_live()) == 4


@pytest.mark.processes
def test_make_run_still_has_live_demo_tables_after_its_first_ones_end(tmp_path):
    """Regression: the first bot tables ended within 12 to 88 seconds and nothing replaced them,
    so the lobby's "Playing now" showed nobody."""
    with serve(tmp_path, BOT_MOVE_DELAY="0") as (base, _console):
        first = {m["id"] for m in httpx.get(f"{base}/api/matches", params={"status": "running"}).json()["results"]}
        assert len(first) == 4
        deadline = time.monotonic() + 90
        while True:
            running = httpx.get(f"{base}/api/matches", params={"status": "running"}).json()["results"]
            assert len(running) <= 4
            ended = {m["id"] for m in httpx.get(f"{base}/api/matches", params={"status": "finished"}).json()["results"]}
            replacements = {m["id"] for m in running} - first
            if ended & first and replacements:
                break
            assert time.monotonic() < deadline, f"no table replaced those that ended ({ended & first})"
            time.sleep(0.5)
    assert all(all(seat["bot"] for seat in m["seats"]) for m in running if m["id"] in replacements)
