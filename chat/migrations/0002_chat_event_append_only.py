"""The database itself refuses UPDATE, DELETE and TRUNCATE on chat_chatevent, as on games_event."""
from django.db import migrations

from server.append_only import append_only


class Migration(migrations.Migration):
    dependencies = [("chat", "0001_chat_events_and_mutes")]

    operations = [append_only("chat_chatevent")]
