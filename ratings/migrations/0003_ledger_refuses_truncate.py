"""The database refuses TRUNCATE on ratings_ratingentry as well (a PostgreSQL statement trigger)."""
from django.db import migrations

from server.append_only import refuse_truncate


class Migration(migrations.Migration):
    dependencies = [("ratings", "0002_ledger_append_only")]

    operations = [refuse_truncate("ratings_ratingentry")]
