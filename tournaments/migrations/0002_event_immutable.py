"""The database itself refuses UPDATE and DELETE on tournament events (as games/0002 does for matches)."""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION tournaments_event_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'tournaments_tournamentevent is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER tournaments_event_append_only
    BEFORE UPDATE OR DELETE ON tournaments_tournamentevent
    FOR EACH ROW EXECUTE FUNCTION tournaments_event_refuse_change();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS tournaments_event_append_only ON tournaments_tournamentevent;
DROP FUNCTION IF EXISTS tournaments_event_refuse_change();
"""
SQLITE_UP = [
    """CREATE TRIGGER tournaments_event_no_update BEFORE UPDATE ON tournaments_tournamentevent
       BEGIN SELECT RAISE(ABORT, 'tournaments_tournamentevent is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER tournaments_event_no_delete BEFORE DELETE ON tournaments_tournamentevent
       BEGIN SELECT RAISE(ABORT, 'tournaments_tournamentevent is append-only: DELETE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS tournaments_event_no_update;",
    "DROP TRIGGER IF EXISTS tournaments_event_no_delete;",
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor)
        if statements is None:
            raise RuntimeError(f"no append-only trigger for {schema_editor.connection.vendor}")
        for statement in [statements] if isinstance(statements, str) else statements:
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP, "sqlite": SQLITE_UP}),
            _run({"postgresql": POSTGRES_DOWN, "sqlite": SQLITE_DOWN}),
        )
    ]
