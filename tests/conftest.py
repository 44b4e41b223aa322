"""Personas and helpers shared by every test, the tiers, and what each test starts with.

The tiers (markers registered in pyproject.toml): a test marked `browser`, `e2e`, `processes`
or `slow` runs in `make test-all` only; every other test is marked `fast` here and runs in
`make test` as well, and may start no process (it fails if it does).

CI (CI=true) runs the tiers past the fast one on PostgreSQL and Redis: a run that silently fell
back to SQLite would skip the concurrency tests and prove less than it claims.
"""
from __future__ import annotations

import _posixsubprocess
import inspect
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.core.management.commands import flush as flush_command
from django.db import connections
from django.db.backends.postgresql.operations import DatabaseOperations
from django.db.backends.sqlite3.base import DatabaseOperations as SQLiteOperations
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from kombu.transport.redis import Channel
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import user_token
from games import fastlane
from games.frames import forget_all
from games.state import state_cache
from server.celery import app
from server.redis_clients import redis_client
from tests.games.worker import RUNTIME_ROLE
from tests.untraced import untraced

# The order in which a parallel run deals the tests to its workers.
pytest_plugins = ["tests.worksteal_order"]

# The tiers past the fast one: `make test-all` runs them, `make test` (`-m fast`) does not.
LATER_TIERS = ("browser", "e2e", "processes", "slow")
# Tiers whose tests may start processes (servers, workers, command lines, Chromium).
PROCESS_TIERS = ("browser", "e2e", "processes")

# Hypothesis's example counts, by profile (HYPOTHESIS_PROFILE): `fast` for `make test`, `ci` for
# `make test-all`, `thorough` for a long hunt by hand. No test names a count of its own. CI runs
# each property test in both (on SQLite, then on PostgreSQL), 30 random examples in all; `ci` had
# 30 alone, and property tests were a sixth of the fast tier's time on PostgreSQL under coverage.
# Deadlines are off: a test's speed is the benchmarks' business, and a busy machine is no bug.
for _name, _examples in (("fast", 10), ("ci", 20), ("thorough", 1000)):
    hypothesis_settings.register_profile(
        _name, max_examples=_examples, deadline=None, suppress_health_check=[HealthCheck.too_slow],
        print_blob=True,
    )
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))


def pytest_configure(config):
    every_tier = config.option.markexpr != "fast"
    if os.environ.get("CI") and every_tier and not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise pytest.UsageError("CI runs the tiers past `make test` on PostgreSQL and Redis: set DATABASE_URL "
                                "and REDIS_URL")
    _catalogues_compiled()


def pytest_sessionstart(session):
    """The browser tests' screenshots and server logs of an earlier run are removed once, by the
    run's controller (never by an xdist worker, whose siblings are writing theirs)."""
    if not hasattr(session.config, "workerinput"):
        shutil.rmtree(Path(settings.BASE_DIR, "test-artifacts", "frontend"), ignore_errors=True)


def _catalogues_compiled() -> None:
    """The translations as `make` compiles them (a .mo older than its .po is made again), so a
    bare `pytest` after `make messages` tests the Welsh just written."""
    for po in Path(settings.BASE_DIR, "locale").glob("*/LC_MESSAGES/*.po"):
        mo = po.with_suffix(".mo")
        if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
            subprocess.run(["msgfmt", "--check", "-o", str(mo), str(po)], check=True)


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(config, items):
    for item in items:
        if not any(item.get_closest_marker(tier) for tier in LATER_TIERS):
            item.add_marker(pytest.mark.fast)
        if hasattr(getattr(item, "obj", None), "hypothesis"):  # a property test: untraced (below)
            item.add_marker(pytest.mark.no_cover)
        if inspect.iscoroutinefunction(getattr(item, "obj", None)):
            item.fixturenames.append("_fastlane_closed_on_its_loop")
    if settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return
    skip = pytest.mark.skip(reason="needs PostgreSQL (set DATABASE_URL)")
    for item in items:
        if "postgres" in item.keywords:
            item.add_marker(skip)


# `no_cover` tests run with no tracer at all (tests/untraced.py says why).
@pytest.hookimpl(hookwrapper=True, trylast=True)  # inside pytest-cov's own pause and resume
def pytest_runtest_call(item):
    if item.get_closest_marker("no_cover") and sys.gettrace() is not None:
        with untraced():
            yield
    else:
        yield


@pytest.fixture(autouse=True)
def _no_process_in_the_fast_tier(request, monkeypatch):
    """A test of the fast tier that starts a process (a server, a worker, a command line,
    Chromium through Playwright, a process pool) fails, naming the tier it belongs to."""

    if any(request.node.get_closest_marker(tier) for tier in PROCESS_TIERS):
        return

    def refused(*args, **kwargs):
        pytest.fail("a test of the fast tier started a process: mark it `processes` (or `browser`, `e2e`)",
                    pytrace=False)

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refused)
    monkeypatch.setattr(_posixsubprocess, "fork_exec", refused)
    monkeypatch.setattr(os, "fork", refused)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    _pools_without_lost_connections()


def _pools_without_lost_connections() -> None:
    """After each test, a pool whose connections were taken by threads that have gone is replaced.

    Channels' test communicator makes `close_old_connections` a no-op while it runs a consumer,
    so a connection that a consumer's `database_sync_to_async` opens on one of the test loop's
    executor threads is never given back; the thread dies with the loop and its slot stays taken.
    Once `DB_POOL_MAX` slots were lost, every later test that needed a second connection waited
    30 s and failed (CI, 47 tests). A closed pool closes each connection still lent as it returns.
    """

    for connection in connections.all():
        pools = getattr(type(connection), "_connection_pools", {})
        pool = pools.get(connection.alias)
        if pool is None:
            continue
        stats = pool.get_stats()
        lent = stats["pool_size"] - stats["pool_available"]
        if lent > (connection.connection is not None):
            connection.close_pool()


@pytest.fixture
def _fastlane_closed_on_its_loop(_function_scoped_runner):  # pytest-asyncio's loop of an async test
    """An async test's fast-lane pool is closed on its loop before the loop closes. Closed after,
    a connection still being made when the loop cancels its tasks turned the cancellation into a
    failed attempt and retried, and the test run hung in the loop's teardown."""

    yield
    fastlane.pools_discard()


@pytest.fixture(autouse=True, scope="session")
def _task_queue():
    """A queue of tasks for this run only.

    On Redis, tasks left by an earlier run would name matches of a database that is gone:
    purge them. Without Redis, keep tasks in memory rather than in the embedded default's
    filesystem queue, where `make run`'s worker would later find them.
    """
    if settings.REDIS_URL:
        broker_emptied()
        # Throttle counts and table presence of an earlier run name users and matches of a
        # database that is gone, too.
        client = redis_client()
        for pattern in ("*throttle_*", "presence:match:*"):
            for key in client.scan_iter(match=pattern):
                client.delete(key)
    else:
        app.conf.broker_url = "memory://"
        app.conf.broker_transport_options = {}


def broker_emptied() -> None:
    """Empties the broker's queue, and on Redis the messages a killed worker held unacknowledged.

    `purge()` empties the queue only. kombu puts a message a worker took and never acknowledged
    (one killed on purpose, or one holding an ETA task when it stopped) back in the queue an hour
    later, when any consumer polls: a test reading the queue would find another run's tasks.
    """
    app.control.purge()
    with app.connection_for_write() as connection:
        connection.SimpleQueue(settings.BOTS_QUEUE).clear()  # purge() empties the default queue only
    if settings.REDIS_URL:
        redis_client().delete(
            Channel.unacked_key, Channel.unacked_index_key, Channel.unacked_mutex_key
        )


@pytest.fixture(autouse=True)
def _fresh_state_cache():
    """Each test starts with empty per-process caches of states and frames (database ids are reused)."""

    state_cache.clear()
    forget_all()
    yield
    state_cache.clear()
    forget_all()


@pytest.fixture(autouse=True)
def _fastlane_closed():
    """Each test's event loop ends with it: so do the fast lane's connections made on it."""

    yield
    fastlane.pools_discard()


def make_user(username: str, *, staff: bool = False):
    user = User.objects.create_user(username=username, password="correct horse battery", display_name=username.title())
    if staff:
        user.is_staff = True
        user.save(update_fields=["is_staff"])
    return user


def client_for(user=None):
    client = APIClient()
    if user is not None:
        client.credentials(HTTP_AUTHORIZATION=f"Token {user_token(user=user)}")
    return client


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def carol(db):
    return make_user("carol")


@pytest.fixture
def staff(db):
    return make_user("sam", staff=True)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """Grants the runtime role its privileges on the test database, so the server processes the
    tests start run as production's do (tests/games/worker.py); before pytest-django drops the
    test database, closes the connection pool and ends the sessions other threads left open (the
    socket tests' executor threads keep theirs), which would make the DROP fail and leave the
    database behind, after the pool had waited 5 s for them."""

    postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    if postgres:
        with django_db_blocker.unblock():
            call_command("db_runtime_role", RUNTIME_ROLE, stdout=io.StringIO())
    yield

    connections.close_all()
    for connection in connections.all():
        if getattr(connection, "pool", None) is not None:
            connection.pool.close(timeout=0)
            connection.close_pool()
    if postgres:
        database = settings.DATABASES["default"]
        with psycopg.connect(host=database["HOST"], port=database["PORT"], user=database["USER"],
                             password=database.get("PASSWORD") or None, dbname="postgres", autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                          [database["NAME"]])


@pytest.fixture(autouse=True, scope="session")
def _flush_past_append_only():
    """Transactional tests end by emptying every table, which the append-only tables refuse.
    On PostgreSQL the suite, a superuser, empties them as a replica would (their triggers off,
    foreign keys' too), which no server role can do. On SQLite (a DELETE a table) the same flush
    drops the tables' DELETE guards, empties the tables and makes the guards again, in one
    transaction. Both live in the test suite alone: no setting turns a trigger off.

    Two costs of Django's flush are left out, after each of about 500 transactional tests in the
    fast tier: its one TRUNCATE of every table on PostgreSQL, which makes each table's files
    anew (210 ms for the 47 tables, against 15 ms for a DELETE a table), and the post_migrate
    signal after it, which makes the content types and permissions again (140 ms). Those two
    tables keep the rows `migrate` wrote, which no test changes."""

    sql_flush = DatabaseOperations.sql_flush
    sqlite_flush = SQLiteOperations.sql_flush
    catalogue = {ContentType._meta.db_table, Permission._meta.db_table}

    def flush_as_replica(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        tables = [table for table in tables if table not in catalogue]
        if reset_sequences:  # no test asks for it: Django's TRUNCATE ... RESTART IDENTITY then
            statements = sql_flush(self, style, tables, reset_sequences=True, allow_cascade=allow_cascade)
        else:
            statements = [f"DELETE FROM {self.quote_name(table)};" for table in tables]
        return ["SET LOCAL session_replication_role = replica;", *statements] if statements else statements

    def flush_past_sqlite_triggers(self, style, tables, **kwargs):
        tables = [table for table in tables if table not in catalogue]
        statements = sqlite_flush(self, style, tables, **kwargs)
        if not statements:
            return statements
        with self.connection.cursor() as cursor:
            cursor.execute("SELECT name, sql FROM sqlite_master WHERE type = 'trigger'")
            guards = [(name, sql) for name, sql in cursor.fetchall()
                      if name.endswith("_no_delete") and name.removesuffix("_no_delete") in tables]
        # One transaction (SQLite's DDL is transactional): the guards are gone for this flush only.
        return [*(f"DROP TRIGGER {name};" for name, _ in guards), *statements, *(sql + ";" for _, sql in guards)]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", flush_as_replica)
        patch.setattr(SQLiteOperations, "sql_flush", flush_past_sqlite_triggers)
        patch.setattr(flush_command, "emit_post_migrate_signal", lambda *args, **kwargs: None)
        yield


@pytest.fixture
def eager_tasks():
    """Tasks run where they are sent (retries too), as a worker would run them right after the commit."""

    previous = app.conf.task_always_eager
    app.conf.CELERY_TASK_ALWAYS_EAGER = True  # the namespaced key: the plain one is shadowed by settings
    assert app.conf.task_always_eager
    yield
    app.conf.CELERY_TASK_ALWAYS_EAGER = previous
