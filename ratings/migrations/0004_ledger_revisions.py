"""The ledger's revisions: a match rated again when its tournament changes its result.

PostgreSQL adds the columns in place (no row is updated, so the append-only trigger stays
quiet); SQLite rebuilds the table, which drops its triggers, so they are made again there.
"""
from django.conf import settings
from django.db import migrations, models

from server.append_only import append_only_again_on_sqlite


class Migration(migrations.Migration):

    dependencies = [
        ('games', '0009_receipt_per_user_match_key'),
        ('ratings', '0003_ledger_refuses_truncate'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='ratingentry',
            options={'ordering': ['ladder_id', 'epoch', 'position', 'reversal', 'seat']},
        ),
        migrations.RemoveConstraint(
            model_name='ratingentry',
            name='rating_entry_unique',
        ),
        migrations.AddField(
            model_name='ratingentry',
            name='reversal',
            field=models.BooleanField(default=False, help_text="takes back the competitor's rating of revision − 1 (its rank is that one's)"),
        ),
        migrations.AddField(
            model_name='ratingentry',
            name='revision',
            field=models.PositiveSmallIntegerField(default=0, help_text='0: the match as played; n: the n-th result its tournament gave it since'),
        ),
        migrations.AddConstraint(
            model_name='ratingentry',
            constraint=models.UniqueConstraint(fields=('epoch', 'match', 'competitor', 'revision', 'reversal'), name='rating_entry_unique'),
        ),
        append_only_again_on_sqlite("ratings_ratingentry"),
    ]
