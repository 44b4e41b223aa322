"""Imports exported match files after verifying each one completely."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from accounts.models import User
from games.exchange import match_import_bytes
from server.errors import ApplicationError

# Said in --help and after every import; the reasoning is games.exchange's (its module docstring).
NOT_RATED = (
    "Imported matches are stored finished and unrated: they were played on another server, and "
    "their people sit here as guests name@server, never as this server's accounts (a file proves "
    "the moves follow the rules, not who made them), so no rating here moves."
)


class Command(BaseCommand):
    help = (
        "Import match files written by export_matches (or GET /api/matches/<id>/export) on any server. "
        "Each file is verified completely first (hash chain, shuffle, every move replayed) and refused "
        "with its line and reason if anything fails; a refused file writes nothing. " + NOT_RATED
        + " Exit status 1 if any file is refused."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "paths", nargs="+", metavar="PATH", help="a match file (.jsonl), or a folder: every .jsonl file in it"
        )
        parser.add_argument(
            "--as", dest="username", metavar="USERNAME",
            help="an existing account here, recorded as the one who imported the matches (it does not "
            "become a player in them). Default: the first superuser; needed when there is none, as in "
            "the embedded default (e.g. --as alice).",
        )

    def handle(self, *args, paths, username=None, **options):
        files = _files(paths)
        importer = _importer(username)
        imported, refused = 0, 0
        for path in files:
            try:
                match = match_import_bytes(path.read_bytes(), imported_by=importer)
            except OSError as exc:
                refused += 1
                self.stderr.write(f"{path}: refused: cannot be read: {exc.strerror or exc}")
                continue
            except ApplicationError as exc:
                refused += 1
                self.stderr.write(f"{path}: refused: {exc.message}")
                continue
            imported += 1
            seats = ", ".join(s.shown_name for s in match.seat_set.order_by("seat"))
            self.stdout.write(f"{path}: imported as match {match.pk}, unrated, seats {seats}")
        self.stdout.write(f"import_matches: {imported} imported, {refused} refused")
        if imported:
            self.stdout.write(NOT_RATED)
        if refused:
            raise SystemExit(1)


def _importer(username: str | None) -> User:
    """The account `--as` names, else the first superuser; a CommandError (one line, exit 1) otherwise."""
    if username:
        importer = User.objects.filter(username=username).first()
        if importer is None:
            raise CommandError(f"--as {username}: no such user here; name an existing account (nothing was imported)")
        return importer
    importer = User.objects.filter(is_superuser=True).order_by("pk").first()
    if importer is None:
        raise CommandError("no superuser exists here: name the importing account with --as USERNAME (nothing was imported)")
    return importer


def _files(paths: list[str]) -> list[Path]:
    """The files to import; a missing path or an empty folder stops the command before anything is written."""
    files = []
    for path in map(Path, paths):
        if not path.exists():
            raise CommandError(f"{path}: no such file or folder (nothing was imported)")
        in_folder = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
        if not in_folder:
            raise CommandError(f"{path}: a folder with no .jsonl files in it (nothing was imported)")
        files += in_folder
    return files
