"""Writes a tournament's pairings export (version 1, `selectors.tournament_export`) as JSON."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from tournaments import selectors
from tournaments.models import Tournament


class Command(BaseCommand):
    help = (
        "Writes a tournament's pairings (format, options, field, withdrawals, rounds with their "
        "tables, results and pairing reports) as the JSON file `pairing_check` reads."
    )

    def add_arguments(self, parser):
        parser.add_argument("tournament", type=int, help="The tournament's id.")
        parser.add_argument("--output", "-o", type=Path, help="The file to write (default: standard output).")

    def handle(self, *args, tournament: int, output: Path | None, **options):
        found = Tournament.objects.filter(pk=tournament).first()
        if found is None:
            raise CommandError(f"no tournament {tournament}")
        text = json.dumps(selectors.tournament_export(found), indent=2) + "\n"
        if output is None:
            self.stdout.write(text, ending="")
            return
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise CommandError(f"cannot write {output}: {exc.strerror or exc}") from None
        self.stdout.write(f"tournament {found.pk}: {len(text)} bytes written to {output}")
