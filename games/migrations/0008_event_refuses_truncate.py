"""The database refuses TRUNCATE on games_event as well (a PostgreSQL statement trigger)."""
from django.db import migrations

from server.append_only import refuse_truncate


class Migration(migrations.Migration):
    dependencies = [("games", "0007_seat_guest_and_imported_unrated")]

    operations = [refuse_truncate("games_event")]
