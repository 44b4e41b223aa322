"""The database itself refuses UPDATE and DELETE on games_event (PostgreSQL and SQLite triggers)."""
from django.db import migrations

from server.append_only import append_only


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]

    operations = [append_only("games_event")]
