"""The database itself refuses UPDATE and DELETE on the rating ledger, on PostgreSQL and on SQLite."""
from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION ratings_ratingentry_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ratings_ratingentry is append-only: % refused', TG_OP USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER ratings_ratingentry_append_only
    BEFORE UPDATE OR DELETE ON ratings_ratingentry
    FOR EACH ROW EXECUTE FUNCTION ratings_ratingentry_refuse_change();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS ratings_ratingentry_append_only ON ratings_ratingentry;
DROP FUNCTION IF EXISTS ratings_ratingentry_refuse_change();
"""
SQLITE_UP = [
    """CREATE TRIGGER ratings_ratingentry_no_update BEFORE UPDATE ON ratings_ratingentry
       BEGIN SELECT RAISE(ABORT, 'ratings_ratingentry is append-only: UPDATE refused'); END;""",
    """CREATE TRIGGER ratings_ratingentry_no_delete BEFORE DELETE ON ratings_ratingentry
       BEGIN SELECT RAISE(ABORT, 'ratings_ratingentry is append-only: DELETE refused'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS ratings_ratingentry_no_update;",
    "DROP TRIGGER IF EXISTS ratings_ratingentry_no_delete;",
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
    dependencies = [("ratings", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": POSTGRES_UP, "sqlite": SQLITE_UP}),
            _run({"postgresql": POSTGRES_DOWN, "sqlite": SQLITE_DOWN}),
        )
    ]
