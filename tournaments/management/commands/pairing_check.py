"""`python manage.py pairing_check FILE [--json]`: `python -m tournaments.pairing_check` as a command."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments import pairing_check


class Command(BaseCommand):
    help = "Checks the pairings of a tournament export (version 1): exit 0 clean, 1 findings, 2 unreadable."

    def add_arguments(self, parser):
        pairing_check.add_arguments(parser)

    def handle(self, *args, file: str, as_json: bool, **options):
        try:
            status = pairing_check.run(file, as_json=as_json, stdout=self.stdout)
        except pairing_check.ExportError as error:
            raise CommandError(str(error), returncode=2) from None
        if status:
            raise CommandError("the pairings break rules (see the findings above)", returncode=status)

