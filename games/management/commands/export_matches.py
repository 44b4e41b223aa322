"""Writes finished matches as JSON Lines files, one per match, into a folder."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand
from tqdm import tqdm

from games.exchange import match_export_lines
from games.models import Match


class Command(BaseCommand):
    help = "Export finished matches (all, or --match ID / --game SLUG) to OUT/match-<id>.jsonl."

    def add_arguments(self, parser):
        parser.add_argument("out", help="a folder (created if missing)")
        parser.add_argument("--match", type=int, action="append", dest="matches")
        parser.add_argument("--game")

    def handle(self, *args, out, matches=None, game=None, **options):
        folder = Path(out)
        folder.mkdir(parents=True, exist_ok=True)
        queryset = Match.objects.filter(status=Match.Status.FINISHED).order_by("pk")
        if matches:
            queryset = queryset.filter(pk__in=matches)
        if game:
            queryset = queryset.filter(game=game)
        count = 0
        for match in tqdm(queryset.iterator(), total=queryset.count(), unit="match", disable=not options["verbosity"]):
            with open(folder / f"match-{match.pk}.jsonl", "w", encoding="utf-8") as file:
                for line in match_export_lines(match):
                    file.write(line + "\n")
            count += 1
        self.stdout.write(f"export_matches: {count} matches written to {folder}")
