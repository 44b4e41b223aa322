"""Backs up the database without putting the league log at risk: `manage.py backup FOLDER`."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaguelog.backup import BackupError, backup_make


class Command(BaseCommand):
    help = (
        "Dumps the tables' owner's database (MIGRATE_DATABASE_URL, else DATABASE_URL) with pg_dump in custom "
        "format into FOLDER/database.dump, then copies the league log's mirror (LOG_MIRROR_DIR) to "
        "FOLDER/log-mirror; FOLDER must be new or empty. Restore with `manage.py restore FOLDER`."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a new or empty folder")

    def handle(self, *args, folder: Path, **options):
        try:
            manifest = backup_make(folder)
        except BackupError as error:
            raise CommandError(str(error)) from error
        mirrored = manifest["mirror_checkpoint_size"]
        self.stdout.write(
            f"backup: {folder / 'database.dump'} ({manifest['log_entries_before_dump']} log entries or more); "
            + (f"the log's mirror at {mirrored} entries" if mirrored is not None else
               "no log mirror (LOG_MIRROR_DIR unset): nothing outside the database keeps the log's mark")
        )
