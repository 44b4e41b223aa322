"""`manage.py serve`'s two workers, as real processes: while every process of the bots' worker is
busy with a bot's move, a person's clock still runs out on time in the other worker (issue #44
item 3: a search never delays a person's move, a clock or a tournament)."""
from __future__ import annotations

import os
import subprocess

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from games.management.commands.serve import worker_commands
from games.models import Event, Match
from games.services import match_start_seated
from server.celery import app
from tests.conftest import make_user
from tests.games.worker import ROOT, wait_for
from tests.games.worker import test_database_url as runtime_database_url

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"),
    pytest.mark.processes,
]

BOT_PROCESSES = 2


def test_a_clock_runs_out_on_time_while_every_bots_process_is_busy_with_a_move(tmp_path):
    alice, bob = make_user("alice"), make_user("bob")
    # Two tables of search bots, started before the workers are up: their first moves wait in
    # the bots' queue.
    bot_tables = [
        match_start_seated(game="ten", seats=["search-hard", "search-hard"], created_by=alice, rated=False)
        for _ in range(BOT_PROCESSES)
    ]
    heads = {match.pk: match.last_seq for match in bot_tables}
    db = connection.settings_dict
    # Another connection holds the bot tables' rows, so each bot move, its search done, waits at
    # its write with its worker process held, as a search running to its budget holds it.
    holder = psycopg.connect(host=db["HOST"], port=db["PORT"], dbname=db["NAME"], user=db["USER"],
                             password=db["PASSWORD"] or None)
    holder.execute(f"SELECT 1 FROM {Match._meta.db_table} WHERE id = ANY(%s) FOR UPDATE", [list(heads)])
    env = {"DATABASE_URL": runtime_database_url(), "REDIS_URL": settings.REDIS_URL, "BOT_MOVE_DELAY": "0", "DEMO": "0",
           "BOT_WORKER_CONCURRENCY": str(BOT_PROCESSES), "LOG_LEVEL": "WARNING"}
    workers = [
        subprocess.Popen(command, cwd=ROOT, env={**os.environ, **env}, stdout=subprocess.DEVNULL,
                         stderr=open(tmp_path / f"worker{i}.log", "w"))  # noqa: SIM115
        for i, command in enumerate(worker_commands(schedule=tmp_path / "beat-schedule"))
    ]
    try:
        wait_for(lambda: len(app.control.ping(timeout=0.5)) == 2, timeout=90, what="both workers to answer")

        def waiting_writes() -> int:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND wait_event_type = 'Lock'",
                    [db["NAME"]],
                )
                return cursor.fetchone()[0]

        wait_for(lambda: waiting_writes() == BOT_PROCESSES, what="a bot move in each of the bots' processes")

        # A person's turn with a one-second clock, started now: the clock's task goes to the
        # other worker, which plays for them when it runs out.
        people = match_start_seated(game="ten", seats=[alice, bob], created_by=alice, rated=False, clock_seconds=1)
        try:
            wait_for(lambda: Event.objects.filter(match_id=people.pk, actor="clock").exists(),
                     what="the clock to run out and play for the person")
        except AssertionError:  # what the table and the workers say, for whoever reads the failure
            print(list(Event.objects.filter(match_id=people.pk).values_list("seq", "type", "actor")))
            for i in range(2):
                print((tmp_path / f"worker{i}.log").read_text()[-3000:])
            raise
        # Both bot moves are still under way: the clock did not wait for either.
        assert waiting_writes() == BOT_PROCESSES
        assert dict(Match.objects.filter(pk__in=heads).values_list("pk", "last_seq")) == heads
        holder.rollback()
        wait_for(lambda: all(Match.objects.get(pk=pk).last_seq > seq for pk, seq in heads.items()),
                 what="the bots' moves to be played once their tables are free")
    finally:
        holder.close()
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=30)
