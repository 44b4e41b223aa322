"""The append-only promise on PostgreSQL: TRUNCATE refused, and a server role that owns nothing.

The suite's session setup (tests/conftest.py) runs `db_runtime_role` for RUNTIME_ROLE on the test
database; these tests connect as that role, as the server processes the e2e tests start do.
"""
from __future__ import annotations

import os

import httpx
import psycopg
import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from server.append_only import append_only_tables
from tests.games.servers import uvicorn_servers
from tests.games.worker import RUNTIME_ROLE

pytestmark = pytest.mark.postgres

LOG_TABLES = [
    "games_event", "ratings_ratingentry", "tournaments_tournamentevent", "chat_chatevent", "tournaments_seriesdecision",
    "tournaments_judgecallevent",
]


@pytest.fixture
def as_runtime(db):
    """A connection to the test database as the runtime role."""
    db = connection.settings_dict
    with psycopg.connect(host=db["HOST"], port=db["PORT"], dbname=db["NAME"], user=RUNTIME_ROLE, autocommit=True) as runtime:
        yield runtime


def refused(runtime, statement: str) -> str:
    with pytest.raises(psycopg.errors.InsufficientPrivilege) as error:
        runtime.execute(statement)
    return str(error.value)


def test_the_log_tables_are_the_ones_the_migrations_made_append_only(db):
    with connection.cursor() as cursor:
        assert set(LOG_TABLES) <= set(append_only_tables(cursor))


def test_truncate_of_an_append_only_table_is_refused_even_for_its_owner(db):
    """Prevents TRUNCATE emptying a log: the row triggers never fire on it."""
    with connection.cursor() as cursor:
        tables = append_only_tables(cursor)
    for table in tables:
        with pytest.raises(DatabaseError, match=f"{table} is append-only: TRUNCATE refused"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(f"TRUNCATE {table} CASCADE")


@pytest.mark.parametrize("table", LOG_TABLES)
def test_the_runtime_role_cannot_rewrite_a_log(as_runtime, table):
    """Prevents the server's role rewriting history: no UPDATE, DELETE or TRUNCATE of a log row,
    whatever the triggers do."""
    assert "permission denied" in refused(as_runtime, f"UPDATE {table} SET id = id")
    assert "permission denied" in refused(as_runtime, f"DELETE FROM {table}")
    assert "permission denied" in refused(as_runtime, f"TRUNCATE {table}")


@pytest.mark.parametrize("table", LOG_TABLES)
def test_the_runtime_role_cannot_switch_off_the_triggers(as_runtime, table):
    """Prevents the server's role disabling or dropping a log's triggers: it owns no table."""
    for statement in (
        f"ALTER TABLE {table} DISABLE TRIGGER {table}_append_only",
        f"ALTER TABLE {table} DISABLE TRIGGER ALL",
        f"DROP TRIGGER {table}_no_truncate ON {table}",
        f"DROP TABLE {table}",
    ):
        assert "must be owner" in refused(as_runtime, statement)


def test_the_runtime_role_cannot_run_as_a_replica(as_runtime):
    """Prevents `session_replication_role = replica`, under which no trigger fires."""
    assert "permission denied to set parameter" in refused(as_runtime, "SET session_replication_role = replica")


def test_the_runtime_role_cannot_become_the_owner_or_plant_functions(as_runtime):
    """Prevents the server's role acting as the owner, or leaving functions in the schema that the
    owner's next migration would run (CVE-2018-1058's attack)."""
    owner = connection.settings_dict["USER"]
    assert "permission denied" in refused(as_runtime, f"SET ROLE {owner}")
    assert "permission denied" in refused(
        as_runtime, "CREATE FUNCTION public.lower(varchar) RETURNS text AS 'SELECT 1::text' LANGUAGE sql"
    )


def test_the_runtime_role_reads_and_appends_to_the_logs_and_writes_the_rest(as_runtime):
    privileges = dict(as_runtime.execute(
        "SELECT c.relname, array_to_string(ARRAY(SELECT p FROM unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE']) p"
        " WHERE has_table_privilege(c.oid, p)), ',') FROM pg_class c"
        " WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'"
    ).fetchall())
    for table in LOG_TABLES:
        assert privileges[table] == "SELECT,INSERT"
    assert privileges["games_match"] == privileges["django_session"] == "SELECT,INSERT,UPDATE,DELETE"
    assert privileges["django_content_type"] == privileges["auth_permission"] == "SELECT"
    assert privileges["django_migrations"] == ""


@pytest.mark.django_db(databases=["default", "owner"])
def test_db_runtime_role_refuses_the_owner_itself():
    """Prevents granting to the migrations' role, which owns the tables (MIGRATE_DATABASE_URL unset)."""
    with pytest.raises(CommandError, match="runs the migrations"):
        call_command("db_runtime_role", connection.settings_dict["USER"])


@pytest.mark.django_db(transaction=True, databases=["default", "owner"])
@pytest.mark.parametrize("attributes", ["SUPERUSER", "CREATEROLE", "IN ROLE pg_write_all_data", "IN ROLE {owner}"])
def test_db_runtime_role_refuses_a_role_that_could_get_round_the_triggers(attributes):
    """Prevents a runtime role that is, may become or writes as the owner: nothing is granted to it."""
    role = f"cl_dbrole_probe_{os.getpid()}"
    attributes = attributes.format(owner=connection.settings_dict["USER"])
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE ROLE {role} LOGIN {attributes}")
    try:
        with pytest.raises(CommandError, match="could get round"):
            call_command("db_runtime_role", role)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM information_schema.role_table_grants WHERE grantee = %s", [role])
            assert cursor.fetchone()[0] == 0
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP OWNED BY {role}")
            cursor.execute(f"DROP ROLE {role}")


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)")
@pytest.mark.processes
def test_the_servers_the_e2e_tests_start_connect_as_the_runtime_role():
    with uvicorn_servers(1) as (base,):
        assert httpx.get(f"{base}/readyz", timeout=10).json()["checks"]["database"] == "ok"
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
                " AND usename <> current_user"
            )
            assert [row[0] for row in cursor.fetchall()] == [RUNTIME_ROLE]
