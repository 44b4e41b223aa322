"""The database refuses TRUNCATE on tournaments_tournamentevent as well (a PostgreSQL statement trigger)."""
from django.db import migrations

from server.append_only import refuse_truncate


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0002_event_immutable")]

    operations = [refuse_truncate("tournaments_tournamentevent")]
