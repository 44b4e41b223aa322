"""Bot moves have a Celery queue of their own (issue #44 item 3), taken by a worker of their own,
and a search bot thinks for BOT_MOVE_BUDGET_MS a move at most."""
from __future__ import annotations

import random
import sys

import pytest
from django.conf import settings

from games import turns
from games.bots import BOTS
from games.bots.search import SearchBot
from games.engines import ENGINES
from games.management.commands.serve import worker_commands
from games.services import match_start_seated
from games.state import state_at_head
from server.celery import app
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def queue_of(task: str) -> str:
    return app.amqp.router.route({}, task)["queue"].name


def test_a_bot_move_goes_to_the_bots_queue_and_clocks_windows_and_tournaments_do_not():
    assert queue_of("games.tasks.bot_move_task") == settings.BOTS_QUEUE == "bots"
    for task in ("games.tasks.clock_expire_task", "games.tasks.window_close_task", "games.tasks.window_pass_task",
                 "games.tasks.sweep_task", "tournaments.tasks.tournament_advance_task", "ratings.tasks.match_rate_task"):
        assert queue_of(task) == app.conf.task_default_queue != settings.BOTS_QUEUE, task


def test_serve_starts_one_worker_for_the_bots_queue_alone_and_one_with_beat_for_the_rest(settings, tmp_path):
    settings.BOT_WORKER_CONCURRENCY = 3
    default, bots = worker_commands(schedule=tmp_path / "schedule")

    def queues(command: list[str]) -> list[str]:
        return command[command.index("-Q") + 1].split(",")

    assert queues(default) == [app.conf.task_default_queue] and "-B" in default
    assert queues(bots) == ["bots"] and "-B" not in bots and "--concurrency=3" in bots
    assert default[0] == bots[0] == sys.executable
    # Two workers on one host need names of their own.
    assert default[default.index("-n") + 1] != bots[bots.index("-n") + 1]


@pytest.mark.parametrize("budget_ms", [1, 200, 750])
def test_a_search_bot_on_the_server_thinks_for_bot_move_budget_ms(settings, monkeypatch, budget_ms):
    settings.BOT_MOVE_BUDGET_MS = budget_ms
    alice = make_user("alice")
    match = match_start_seated(game="ten", seats=["search-easy", "search-easy"], created_by=alice, rated=False)
    asked: list[float | None] = []
    chosen = SearchBot.choose

    def choose(self, view, legal, rng, *, cap_seconds=None):
        asked.append(cap_seconds)
        return chosen(self, view, legal, rng, cap_seconds=cap_seconds)

    monkeypatch.setattr(SearchBot, "choose", choose)
    state = state_at_head(match.pk, match.game, match.last_seq)
    seat = ENGINES["ten"].to_act(state)[0]
    assert turns.bot_move(match_id=match.pk, seat=seat, expected_seq=match.last_seq)
    assert asked == [budget_ms / 1000]


def test_a_search_bot_s_budget_cuts_its_search_short():
    """With no time at all it plays after its first playout: its heuristic's move, which a single
    deal cannot show to be beaten clearly."""
    bot = BOTS["ten"]["search-hard"]
    assert isinstance(bot, SearchBot)
    engine = ENGINES["ten"]
    state = engine.replay(engine.start(3, 7))
    seat = engine.to_act(state)[0]
    view, legal = engine.view(state, seat), engine.legal_moves(state, seat)
    heuristic = bot.rollout.choose(view, legal, random.Random(1))
    assert bot.choose(view, legal, random.Random(1), cap_seconds=0.0) == heuristic
