"""Each user's `name_key` of the username and display name, unique for usernames."""
from django.db import migrations, models

from accounts.names import name_key


def fill_name_keys(apps, schema_editor):
    """Existing users get their keys; of older usernames that already share one, the first keeps
    it and the others get a key of their own (`<key>#<id>`) so the unique index can be built:
    they keep their names and logins, and new names are still checked against the first."""
    User = apps.get_model("accounts", "User")
    # The connection migrate was given (`--database owner`): the default one may be another role,
    # absent on a new database, or waiting on this migration's own locks.
    db = schema_editor.connection.alias
    taken = set()
    for user in User.objects.using(db).order_by("pk").only("pk", "username", "display_name").iterator():
        key = name_key(user.username)
        user.username_key = key if key not in taken else f"{key}#{user.pk}"
        user.display_key = name_key(user.display_name)
        taken.add(key)
        user.save(using=db, update_fields=["username_key", "display_key"])


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="display_key",
            field=models.TextField(blank=True, db_index=True, default="", editable=False),
        ),
        migrations.AddField(
            model_name="user",
            name="username_key",
            field=models.TextField(default="", editable=False),
        ),
        migrations.RunPython(fill_name_keys, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="user",
            constraint=models.UniqueConstraint(fields=("username_key",), name="user_username_key_unique"),
        ),
    ]
