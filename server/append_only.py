"""Append-only tables: the database itself refuses UPDATE and DELETE (PostgreSQL and SQLite).

Used by the migrations of the event store, the tournament streams and the rating ledger.
Triggers are named `<table>_append_only` (PostgreSQL) and `<table>_no_update`/`_no_delete`
(SQLite). A table rebuilt by a later SQLite migration loses its triggers: such a migration
must run `append_only(table)` again.
"""
from __future__ import annotations

from django.db import migrations


def _statements(table: str, vendor: str, up: bool) -> list[str]:
    if vendor == "postgresql":
        if not up:
            return [f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};", f"DROP FUNCTION IF EXISTS {table}_refuse_change();"]
        return [
            f"""CREATE OR REPLACE FUNCTION {table}_refuse_change() RETURNS trigger AS $$
            BEGIN
                RAISE EXCEPTION '{table} is append-only: %% refused', TG_OP USING ERRCODE = 'restrict_violation';
            END;
            $$ LANGUAGE plpgsql;""",
            f"""CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                FOR EACH ROW EXECUTE FUNCTION {table}_refuse_change();""",
        ]
    if vendor == "sqlite":
        if not up:
            return [f"DROP TRIGGER IF EXISTS {table}_no_update;", f"DROP TRIGGER IF EXISTS {table}_no_delete;"]
        return [
            f"""CREATE TRIGGER {table}_no_{op.lower()} BEFORE {op} ON {table}
                BEGIN SELECT RAISE(ABORT, '{table} is append-only: {op} refused'); END;"""
            for op in ("UPDATE", "DELETE")
        ]
    raise RuntimeError(f"no append-only trigger for {vendor}")


def append_only(table: str) -> migrations.RunPython:
    """A migration operation that makes `table` append-only (and undoes it when reversed)."""

    def forwards(apps, schema_editor):
        for statement in _statements(table, schema_editor.connection.vendor, up=True):
            schema_editor.execute(statement)

    def backwards(apps, schema_editor):
        for statement in _statements(table, schema_editor.connection.vendor, up=False):
            schema_editor.execute(statement)

    return migrations.RunPython(forwards, backwards)
