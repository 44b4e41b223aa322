"""The bots' pool's board lists people and bots together: an index that walks both in board order."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("ratings", "0004_ledger_revisions"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="rating",
            index=models.Index(
                condition=models.Q(("kind__in", ["user", "bot"])),
                fields=["ladder", "-conservative", "id"],
                name="rating_board_people_and_bots",
            ),
        ),
    ]
