"""Imports exported match files after verifying each one completely."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from games.exchange import match_import_bytes
from server.errors import ApplicationError


class Command(BaseCommand):
    help = "Import match files (.jsonl files or folders of them); each is verified before it is stored."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+")
        parser.add_argument("--as", dest="username", help="the user recorded as importing them (default: first superuser)")

    def handle(self, *args, paths, username=None, **options):
        importer = User.objects.filter(username=username).first() if username else User.objects.filter(is_superuser=True).first()
        if importer is None:
            raise CommandError("name an existing user with --as (no superuser exists)")
        files = [f for p in map(Path, paths) for f in (sorted(p.glob("*.jsonl")) if p.is_dir() else [p])]
        imported, refused = 0, 0
        for path in files:
            try:
                match = match_import_bytes(path.read_bytes(), imported_by=importer)
            except ApplicationError as exc:
                refused += 1
                self.stderr.write(f"{path}: refused: {exc.message}")
                continue
            imported += 1
            self.stdout.write(f"{path}: imported as match {match.pk}")
        self.stdout.write(f"import_matches: {imported} imported, {refused} refused")
        if refused:
            raise SystemExit(1)
