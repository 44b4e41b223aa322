"""Every user's name keys again, now that `name_key` folds by UTS #39's skeleton (issue #39)."""
from django.db import migrations

from accounts.names import name_key


def refill_name_keys(apps, schema_editor):
    """As in 0002: of usernames that now share a key, the earliest keeps it and the others get a
    key of their own (`<key>#<id>`). Nobody is renamed: a pair that only the new skeleton tells
    apart keeps both names and logins, and new names are checked against the earliest."""
    User = apps.get_model("accounts", "User")
    db = schema_editor.connection.alias
    users = User.objects.using(db)
    # First a key nobody's new key can equal, so no row meets another's old key on the way.
    for pk in users.values_list("pk", flat=True).iterator():
        users.filter(pk=pk).update(username_key=f"#{pk}")
    taken = set()
    for user in users.order_by("pk").only("pk", "username", "display_name").iterator():
        key = name_key(user.username)
        users.filter(pk=user.pk).update(
            username_key=key if key not in taken else f"{key}#{user.pk}", display_key=name_key(user.display_name)
        )
        taken.add(key)


class Migration(migrations.Migration):

    dependencies = [
        ("accounts", "0005_user_language"),
    ]

    operations = [
        migrations.RunPython(refill_name_keys, migrations.RunPython.noop),
    ]
