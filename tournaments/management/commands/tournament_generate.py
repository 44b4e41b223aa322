"""`python manage.py tournament_generate --seed N [--count K] [--output DIR]`: random tournament exports."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments import pairing_generate


class Command(BaseCommand):
    help = "Random tournaments played with the Swiss formats, as pairing exports (version 1)."

    def add_arguments(self, parser):
        pairing_generate.add_arguments(parser)

    def handle(self, *args, seed: int, count: int, output: str | None, **options):
        try:
            pairing_generate.run(seed, count, output, stdout=self.stdout)
        except (ValueError, OSError) as error:
            raise CommandError(str(error), returncode=2) from None
