"""The database itself refuses UPDATE and DELETE on ratings_ratingentry (PostgreSQL and SQLite triggers)."""
from django.db import migrations

from server.append_only import append_only


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial")]

    operations = [append_only("ratings_ratingentry")]
