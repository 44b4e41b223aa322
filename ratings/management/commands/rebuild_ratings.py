"""Rebuilds every rating from the event log, in rating order; the result equals the incremental one."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engines import ENGINES
from ratings import services
from server.errors import ApplicationError


class Command(BaseCommand):
    help = "Rebuild the ratings of one game (--game SLUG) or of every game from the MatchFinished facts."

    def add_arguments(self, parser):
        parser.add_argument("--game", choices=sorted(ENGINES), help="one game's slug (default: every game)")

    def handle(self, *args, game=None, **options):
        show = options["verbosity"] > 0

        for slug in [game] if game else sorted(ENGINES):

            def progress(items, total, slug=slug):
                return tqdm(items, total=total, unit="match", desc=slug, disable=not show, leave=False)

            try:
                results = services.ratings_rebuild(game=slug, progress=progress)
            except ApplicationError as exc:
                raise CommandError(f"{slug}: {exc.message}") from exc
            for result in results:
                if not result.matches and not result.appended:
                    continue
                verdict = (
                    f"new epoch {result.epoch} (the ledger differed from the recomputed values)"
                    if result.new_epoch
                    else f"epoch {result.epoch} reproduced"
                )
                self.stdout.write(
                    f"{result.game} ({result.pool}): {result.matches} matches, {result.competitors} competitors, "
                    f"{verdict}, {result.appended} ledger rows appended"
                )
