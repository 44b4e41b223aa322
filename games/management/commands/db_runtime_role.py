"""Grants the role the web and worker processes run as what they need, and nothing more (PostgreSQL).

    python manage.py migrate --database owner
    python manage.py db_runtime_role [ROLE]

Run by the tables' owner (the `owner` alias: MIGRATE_DATABASE_URL) after every migration. ROLE
defaults to DATABASE_URL's user; it is made if absent, and given DATABASE_URL's password when
the URL names it. The append-only tables (`server/append_only.py`) get SELECT and INSERT, the
catalogue `migrate` fills SELECT, every other table of the project SELECT, INSERT, UPDATE and
DELETE, the sequences USAGE and SELECT; what the role held before on the schema's tables and
sequences is revoked first, so a table that leaves the log list loses nothing and gains
nothing by accident.

The triggers of the append-only tables bind the server only if it cannot act as the owner: a
role that is a superuser, may make roles, belongs to the owner of a table, the schema or the
database, may create objects in the schema (functions planted there would run in the owner's
migrations) or may set `session_replication_role` is refused, and nothing is granted.
"""
from __future__ import annotations

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management.base import BaseCommand, CommandError
from django.db import DatabaseError, connections, transaction
from django.db.migrations.executor import MigrationExecutor
from psycopg import sql

from server.append_only import append_only_tables

OWNER = "owner"
_LOG_PRIVILEGES = "SELECT, INSERT"
_TABLE_PRIVILEGES = "SELECT, INSERT, UPDATE, DELETE"
# Rows `migrate` writes (post_migrate) and the server only reads.
_CATALOGUE = {ContentType._meta.db_table, Permission._meta.db_table}


class Command(BaseCommand):
    help = "Grants the web and worker processes' database role exactly what it needs (run as the owner)."

    def add_arguments(self, parser):
        parser.add_argument("role", nargs="?", help="the runtime role (default: DATABASE_URL's user)")

    def handle(self, *args, role: str | None, **options):
        connection = connections[OWNER if OWNER in connections.settings else "default"]
        if connection.vendor != "postgresql":
            raise CommandError("db_runtime_role is for PostgreSQL (the embedded SQLite default has no roles)")
        runtime = connections["default"].settings_dict
        role = role or runtime["USER"]
        executor = MigrationExecutor(connection)
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError(f"migrations are unapplied: run `manage.py migrate --database {connection.alias}`")
        tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
        with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
            cursor.execute("SELECT current_user, current_schema(), current_database()")
            owner, schema, database = cursor.fetchone()
            if role == owner:
                raise CommandError(
                    f"{role} runs the migrations: the runtime role must be another (set MIGRATE_DATABASE_URL)"
                )
            _role_ensure(cursor, role, password=runtime["PASSWORD"] if role == runtime["USER"] else "")
            log_tables = append_only_tables(cursor)
            for statement in _grants(role, schema, database, tables, log_tables):
                cursor.execute(statement.as_string(cursor.connection))
            problems = _problems(cursor, role, schema, log_tables)
            if problems:
                raise CommandError(f"{role} could get round the append-only tables' triggers (nothing granted): "
                                   + "; ".join(problems))
        self.stdout.write(
            f"{role}: {_LOG_PRIVILEGES} on {', '.join(log_tables)}; {_TABLE_PRIVILEGES} on the other tables"
        )


def _role_ensure(cursor, role: str, *, password: str) -> None:
    """Makes the role if it is absent (another process may make it at the same moment)."""
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone() is None:
        try:
            with transaction.atomic(using=cursor.db.alias):
                statement = sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role))
                cursor.execute(statement.as_string(cursor.connection))
        except DatabaseError:
            cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
            if cursor.fetchone() is None:
                raise
    if password:
        # Hashed here, so the password itself is never in a statement the server might log.
        hashed = cursor.connection.pgconn.encrypt_password(password.encode(), role.encode()).decode()
        statement = sql.SQL("ALTER ROLE {} PASSWORD {}").format(sql.Identifier(role), sql.Literal(hashed))
        cursor.execute(statement.as_string(cursor.connection))


def _grants(role: str, schema: str, database: str, tables: list[str], log_tables: list[str]) -> list:
    who, where = sql.Identifier(role), sql.Identifier(schema)
    statements = [
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA {} FROM {}").format(where, who),
        sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA {} FROM {}").format(where, who),
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), who),
        sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(where, who),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {} TO {}").format(where, who),
    ]
    for table in sorted(tables):
        privileges = sql.SQL(
            _LOG_PRIVILEGES if table in log_tables else "SELECT" if table in _CATALOGUE else _TABLE_PRIVILEGES
        )
        statements.append(sql.SQL("GRANT {} ON {}.{} TO {}").format(privileges, where, sql.Identifier(table), who))
    return statements


def _problems(cursor, role: str, schema: str, log_tables: list[str]) -> list[str]:
    """What would let `role` alter the logs after all: checked on the privileges it ends up with."""
    # From PostgreSQL 15 a superuser may grant the right to set a parameter.
    may_replicate = "has_parameter_privilege(r.oid, 'session_replication_role', 'SET')"
    cursor.execute(
        f"""SELECT r.rolsuper, r.rolcreaterole, pg_has_role(r.oid, n.nspowner, 'MEMBER'),
                  has_schema_privilege(r.oid, n.oid, 'CREATE'), pg_has_role(r.oid, d.datdba, 'MEMBER'),
                  {may_replicate if cursor.db.pg_version >= 150000 else "false"}
           FROM pg_roles r, pg_namespace n, pg_database d
           WHERE r.rolname = %s AND n.nspname = %s AND d.datname = current_database()""",
        [role, schema],
    )
    flags = cursor.fetchone()
    messages = (
        "it is a superuser",
        "it may create roles",
        f"it owns schema {schema} (or belongs to its owner)",
        f"it may create objects in schema {schema} (REVOKE CREATE ON SCHEMA {schema} FROM PUBLIC)",
        "it owns the database (or belongs to its owner)",
        "it may set session_replication_role",
    )
    problems = [message for flag, message in zip(flags, messages) if flag]
    cursor.execute(
        """SELECT count(*) FILTER (WHERE pg_has_role(%s, c.relowner, 'MEMBER')),
                  array_agg(c.relname ORDER BY c.relname) FILTER (WHERE c.relname = ANY(%s)
                      AND has_table_privilege(%s, c.oid, 'UPDATE, DELETE, TRUNCATE, TRIGGER'))
           FROM pg_class c WHERE c.relnamespace = %s::regnamespace AND c.relkind IN ('r', 'p')""",
        [role, log_tables, role, schema],
    )
    owned, rewritable = cursor.fetchone()
    if owned:
        problems.append(f"it owns (or belongs to the owner of) {owned} tables")
    if rewritable:
        problems.append(f"it may update, delete, truncate or add triggers to {', '.join(rewritable)}")
    return problems
