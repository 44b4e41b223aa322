"""Restores a backup into an empty database, then checks it: `manage.py restore FOLDER`."""
from __future__ import annotations

from pathlib import Path

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from leaguelog.backup import OWNER, BackupError, restore_from


class Command(BaseCommand):
    help = (
        "Restores FOLDER/database.dump (made by `manage.py backup`) with pg_restore into the tables' owner's "
        "database, which must be empty, then runs `manage.py restore_check`: the league log is brought back up "
        "to its mirror (LOG_MIRROR_DIR, the live one, never the backup's copy) or refuses to publish. With a "
        "runtime role apart from the owner, `manage.py db_runtime_role` grants it its rights first, as after a "
        "migration. Exit 1 when the check fails."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", type=Path, help="a folder `manage.py backup` made")

    def handle(self, *args, folder: Path, **options):
        try:
            restore_from(folder)
        except BackupError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(f"restore: {folder / 'database.dump'} restored")
        owner = connections.databases.get(OWNER, connections.databases["default"])
        if owner["USER"] != connections.databases["default"]["USER"]:
            call_command("db_runtime_role", stdout=self.stdout, stderr=self.stderr)
        call_command("restore_check", stdout=self.stdout, stderr=self.stderr)
