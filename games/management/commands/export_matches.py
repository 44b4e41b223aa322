"""Writes finished matches as JSON Lines files, one per match, into a folder."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.engines import ENGINES
from games.exchange import export_section_lines, match_export_lines
from games.models import Match


class Command(BaseCommand):
    help = (
        "Export finished matches (all, or those --match and --game choose) to OUT/match-<id>.jsonl: a "
        "header, then every event with its hash. Anyone can check a file with `python -m games.verify_file "
        "OUT` (no server needed); another server loads them with `manage.py import_matches OUT --as USERNAME`, "
        "where they are stored finished and unrated, their people as guests name@server "
        "(EXPORT_SERVER_NAME names this server in the files)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "out", metavar="OUT", help="the folder to write into (created if missing; a match's file is overwritten)"
        )
        parser.add_argument(
            "--match", type=int, action="append", dest="matches", metavar="ID",
            help="export only this finished match; repeat for several (an ID that is not a finished match here is an error)",
        )
        parser.add_argument("--game", choices=sorted(ENGINES), help="export only this game's matches")
        parser.add_argument(
            "--chat", action="store_true",
            help="add each match's table chat after its events (hidden messages without their text); "
            "sealed matches, whose round is not over, are then left out",
        )

    def handle(self, *args, out, matches=None, game=None, chat=False, **options):
        queryset = Match.objects.filter(status=Match.Status.FINISHED).order_by("pk")
        if chat:
            queryset = queryset.filter(sealed=False)
        if matches:
            queryset = queryset.filter(pk__in=matches)
            missing = sorted(set(matches) - set(queryset.values_list("pk", flat=True)))
            if missing:
                raise CommandError(
                    f"match {', '.join(map(str, missing))}: not a finished match here"
                    f"{' whose round is over (--chat)' if chat else ''} (nothing was written)"
                )
        if game:
            queryset = queryset.filter(game=game)
        folder = Path(out)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CommandError(f"{folder}: cannot create the folder: {exc.strerror or exc}") from None
        count = 0
        for match in tqdm(queryset.iterator(), total=queryset.count(), unit="match", disable=not options["verbosity"]):
            path = folder / f"match-{match.pk}.jsonl"
            try:
                with open(path, "w", encoding="utf-8") as file:
                    for line in match_export_lines(match, chat=export_section_lines(match, "chat") if chat else None):
                        file.write(line + "\n")
            except OSError as exc:
                raise CommandError(f"{path}: cannot be written: {exc.strerror or exc} ({count} written before it)") from None
            count += 1
        self.stdout.write(
            f"export_matches: {count} matches written to {folder}; check them with: python -m games.verify_file {folder}"
        )
