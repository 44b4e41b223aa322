"""The database itself refuses UPDATE and DELETE on tournaments_tournamentevent (PostgreSQL and SQLite triggers)."""
from django.db import migrations

from server.append_only import append_only


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]

    operations = [append_only("tournaments_tournamentevent")]
