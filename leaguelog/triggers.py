"""The triggers that put each fact in the league log's outbox (`LogPending`) in the fact's own
transaction, on PostgreSQL and SQLite, and the statement that queues the facts already stored
when the log is first installed.

A match is a fact once its hidden information is public (`Match.revealed`): when it finishes
unsealed, or when a duplicate round's sealed match is unsealed. Imported matches are not logged:
they were not played here.
"""
from __future__ import annotations

from django.db import migrations

_PENDING = "leaguelog_logpending"
_REVEALED = "NEW.status = 'finished' AND NOT NEW.sealed AND (OLD.status <> 'finished' OR OLD.sealed)"
# (trigger name, table, event, condition or None, kind)
_TRIGGERS = [
    ("leaguelog_pending_tournament_event", "tournaments_tournamentevent", "INSERT", None, "tournament_event"),
    ("leaguelog_pending_rating_entry", "ratings_ratingentry", "INSERT", None, "rating_entry"),
    ("leaguelog_pending_match", "games_match", "UPDATE OF status, sealed", _REVEALED, "match"),
]


def _postgresql(up: bool) -> list[str]:
    if not up:
        return [*(f"DROP TRIGGER IF EXISTS {name} ON {table};" for name, table, *_ in _TRIGGERS),
                "DROP FUNCTION IF EXISTS leaguelog_pending_add();"]
    statements = [
        f"""CREATE OR REPLACE FUNCTION leaguelog_pending_add() RETURNS trigger AS $$
        BEGIN
            INSERT INTO {_PENDING} (kind, source_id) VALUES (TG_ARGV[0], NEW.id);
            RETURN NULL;
        END;
        $$ LANGUAGE plpgsql;"""
    ]
    return statements + [_postgresql_trigger(*trigger) for trigger in _TRIGGERS]


def _postgresql_trigger(name: str, table: str, event: str, condition: str | None, kind: str) -> str:
    when = f"WHEN ({condition})" if condition else ""
    return (f"CREATE TRIGGER {name} AFTER {event} ON {table} FOR EACH ROW {when} "
            f"EXECUTE FUNCTION leaguelog_pending_add('{kind}');")


def _sqlite(up: bool) -> list[str]:
    if not up:
        return [f"DROP TRIGGER IF EXISTS {name};" for name, *_ in _TRIGGERS]
    return [_sqlite_trigger(*trigger) for trigger in _TRIGGERS]


def _sqlite_trigger(name: str, table: str, event: str, condition: str | None, kind: str) -> str:
    return f"""CREATE TRIGGER {name} AFTER {event} ON {table} FOR EACH ROW {f"WHEN {condition}" if condition else ""}
            BEGIN INSERT INTO {_PENDING} (kind, source_id) VALUES ('{kind}', NEW.id); END;"""


# What was stored before the log existed, in the order it happened (as far as the rows say).
_BACKFILL = [
    f"""INSERT INTO {_PENDING} (kind, source_id) SELECT 'match', id FROM games_match
        WHERE status = 'finished' AND NOT sealed AND origin <> 'imported' ORDER BY finished_at, id;""",
    f"INSERT INTO {_PENDING} (kind, source_id) SELECT 'tournament_event', id FROM tournaments_tournamentevent ORDER BY id;",
    f"INSERT INTO {_PENDING} (kind, source_id) SELECT 'rating_entry', id FROM ratings_ratingentry ORDER BY id;",
]


def pending_triggers() -> migrations.RunPython:
    """A migration operation that installs the outbox triggers and queues the facts already stored."""

    def forwards(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        for statement in [*(_postgresql if vendor == "postgresql" else _sqlite)(up=True), *_BACKFILL]:
            schema_editor.execute(statement)

    def backwards(apps, schema_editor):
        vendor = schema_editor.connection.vendor
        for statement in (_postgresql if vendor == "postgresql" else _sqlite)(up=False):
            schema_editor.execute(statement)

    return migrations.RunPython(forwards, backwards)


def pending_trigger_added(name: str, table: str, kind: str) -> migrations.RunPython:
    """A migration operation that adds one more kind of fact to the outbox (a trigger on every
    INSERT into `table`, with the function the first migration made) and queues its rows stored."""

    def forwards(apps, schema_editor):
        trigger = (name, table, "INSERT", None, kind)
        postgresql = schema_editor.connection.vendor == "postgresql"
        schema_editor.execute(_postgresql_trigger(*trigger) if postgresql else _sqlite_trigger(*trigger))
        schema_editor.execute(f"INSERT INTO {_PENDING} (kind, source_id) SELECT '{kind}', id FROM {table} ORDER BY id;")

    def backwards(apps, schema_editor):
        on_table = f" ON {table}" if schema_editor.connection.vendor == "postgresql" else ""
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {name}{on_table};")

    return migrations.RunPython(forwards, backwards)
