"""Invitation notifications made before this release kept the invitation link's secret in their
`url`; each now links to its table instead (the invitee sits down there by their account)."""
from django.db import migrations


def links_to_tables(apps, schema_editor):
    Notification = apps.get_model("notifications", "Notification")
    Invitation = apps.get_model("games", "Invitation")
    db = schema_editor.connection.alias  # migrate's own connection (`--database owner`)
    for notification in Notification.objects.using(db).filter(kind="invited", data__url__startswith="/invite/"):
        match_id = Invitation.objects.using(db).filter(pk=notification.key).values_list("match_id", flat=True).first()
        notification.data = {**notification.data, "url": f"/tables/{match_id}" if match_id else "/"}
        notification.save(using=db, update_fields=["data"])


class Migration(migrations.Migration):

    dependencies = [
        ("notifications", "0001_initial"),
        ("games", "0014_invitation_invitee"),
    ]

    operations = [
        migrations.RunPython(links_to_tables, migrations.RunPython.noop),
    ]
