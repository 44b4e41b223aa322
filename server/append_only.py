"""Append-only tables: the database itself refuses UPDATE and DELETE (PostgreSQL and SQLite), and
TRUNCATE (PostgreSQL; SQLite has none, and its DELETE without WHERE is refused).

Used by the migrations of the event store, the tournament streams and the rating ledger.
Triggers are named `<table>_append_only` and `<table>_no_truncate` (PostgreSQL) and
`<table>_no_update`/`_no_delete` (SQLite). A table rebuilt by a later SQLite migration loses its
triggers: such a migration must run `append_only(table)` again.

The triggers stop the server's own mistakes, not its role: a table's owner may disable them. On
PostgreSQL the server therefore runs as a role that owns nothing (`manage.py db_runtime_role`).
"""
from __future__ import annotations

from django.db import migrations


def _truncate_statements(table: str, up: bool) -> list[str]:
    if not up:
        return [f"DROP TRIGGER IF EXISTS {table}_no_truncate ON {table};"]
    # OR REPLACE: append_only() makes it too, so a fresh database that ran both has one trigger.
    return [
        f"""CREATE OR REPLACE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
            FOR EACH STATEMENT EXECUTE FUNCTION {table}_refuse_change();"""
    ]


def _statements(table: str, vendor: str, up: bool) -> list[str]:
    if vendor == "postgresql":
        if not up:
            return [
                *_truncate_statements(table, up=False),
                f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};",
                f"DROP FUNCTION IF EXISTS {table}_refuse_change();",
            ]
        return [
            f"""CREATE OR REPLACE FUNCTION {table}_refuse_change() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION '{table} is append-only: %% refused', TG_OP USING ERRCODE = 'restrict_violation';
            END;
            $$ LANGUAGE plpgsql;""",
            f"""CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                FOR EACH ROW EXECUTE FUNCTION {table}_refuse_change();""",
            *_truncate_statements(table, up=True),
        ]
    if vendor == "sqlite":
        if not up:
            return [f"DROP TRIGGER IF EXISTS {table}_no_update;", f"DROP TRIGGER IF EXISTS {table}_no_delete;"]
        return [
            f"""CREATE TRIGGER IF NOT EXISTS {table}_no_{op.lower()} BEFORE {op} ON {table}
                BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END;"""
            for op in ("UPDATE", "DELETE")
        ]
    raise RuntimeError(f"no append-only trigger for {vendor}")


def _operation(statements) -> migrations.RunPython:
    def forwards(apps, schema_editor):
        for statement in statements(schema_editor.connection.vendor, up=True):
            schema_editor.execute(statement)

    def backwards(apps, schema_editor):
        for statement in statements(schema_editor.connection.vendor, up=False):
            schema_editor.execute(statement)

    return migrations.RunPython(forwards, backwards)


def append_only(table: str) -> migrations.RunPython:
    """A migration operation that makes `table` append-only (and undoes it when reversed)."""
    return _operation(lambda vendor, up: _statements(table, vendor, up))


def refuse_truncate(table: str) -> migrations.RunPython:
    """A migration operation that adds TRUNCATE to what a table made append-only before it refuses."""
    return _operation(lambda vendor, up: _truncate_statements(table, up) if vendor == "postgresql" else [])


def append_only_again_on_sqlite(table: str) -> migrations.RunPython:
    """After a migration that SQLite carries out by rebuilding `table` (which drops its
    triggers): the triggers again there; nothing on PostgreSQL, which altered it in place."""
    return _operation(lambda vendor, up: _statements(table, vendor, up) if vendor == "sqlite" else [])


def append_only_tables(cursor) -> list[str]:
    """The tables of the current schema that PostgreSQL keeps append-only (by their row trigger)."""
    cursor.execute(
        "SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
        " WHERE c.relnamespace = current_schema()::regnamespace AND t.tgname = c.relname || '_append_only'"
        " ORDER BY c.relname"
    )
    return [row[0] for row in cursor.fetchall()]
