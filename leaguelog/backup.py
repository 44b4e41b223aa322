"""Backups that restore without forking the league log (README, "Backups and restore").

`backup_make` dumps the tables' owner's database with pg_dump (custom format), then copies the log's
mirror beside it; `restore_from` restores a dump into an empty database with pg_restore;
`restore_check` then brings the log back up to the live mirror's mark (`services.log_recover`),
verifies every stored match (`verify_events`) and the whole league from the database
(`leaguelog.verify`), and names what the restore lost: the matches played, the tournament events
and rating rows written after the dump, which the log still holds.
"""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.db import connections
from django.utils import timezone

from games.engines import ENGINES
from games.exchange import match_export_lines
from games.models import Match
from leaguelog import selectors, services, tiles
from leaguelog.mirror import CHECKPOINT
from leaguelog.models import LogEntry, LogHead
from leaguelog.notes import parse_verifier_key, verifier_key_for
from leaguelog.verify import Disagreement, Fetch, FetchError, Summary, verify_league
from ratings.selectors import game_params
from server.errors import ApplicationError
from tournaments import selectors as tournament_selectors
from tournaments.models import Series, TournamentEvent

OWNER = "owner"  # the tables' owner (MIGRATE_DATABASE_URL): the runtime role owns nothing to dump
DUMP = "database.dump"
MIRROR_COPY = "log-mirror"
MANIFEST = "manifest.json"
_PG_TIMEOUT = 3600


class BackupError(Exception):
    """A backup or restore that cannot be made: nothing was changed."""


def backup_make(folder: Path) -> dict:
    """Dumps the owner's database into `folder` (new or empty), then copies the log's mirror there
    (after the dump, so the copy's mark is never below the dump's log); returns the manifest."""
    if folder.exists() and any(folder.iterdir()):
        raise BackupError(f"{folder} is not empty: a backup goes into a new folder")
    environment = _pg_environment()
    head = LogHead.objects.using(OWNER).first()
    folder.mkdir(parents=True, exist_ok=True)
    _run(["pg_dump", "--format=custom", f"--file={folder / DUMP}"], environment)
    mirror = selectors.log_mirror()
    marked = None
    if mirror is not None and mirror.root.is_dir():
        shutil.copytree(mirror.root, folder / MIRROR_COPY, ignore=shutil.ignore_patterns(".lock", ".*.tmp"))
        marked = selectors.mirror_mark(mirror)
    manifest = {
        "format": 1, "created": timezone.now().isoformat(), "database": environment["PGDATABASE"],
        "log_entries_before_dump": 0 if head is None else head.size,
        "mirror_checkpoint_size": None if marked is None else marked[0].size,
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def restore_from(folder: Path) -> None:
    """Restores `folder`'s dump into the owner's database, which must be empty (createdb it first)."""
    environment = _pg_environment()
    if not (folder / DUMP).is_file():
        raise BackupError(f"{folder / DUMP} is not there: not a backup folder")
    with connections[OWNER].cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")
        (tables,) = cursor.fetchone()
    if tables:
        raise BackupError(
            f"the database {environment['PGDATABASE']} holds {tables} tables: restore into an empty one "
            "(createdb), never over a live one"
        )
    connections.close_all()
    # No owners and no grants from the dump: the restoring role owns the tables, and
    # `manage.py db_runtime_role` grants the runtime role what it needs, as after a migration.
    _run(["pg_restore", "--no-owner", "--no-acl", "--exit-on-error", f"--dbname={environment['PGDATABASE']}",
          str(folder / DUMP)], environment)


@dataclass
class RestoreReport:
    """What the check found: entries recovered, the league's verification, what the restore lost."""

    recovered: int = 0
    mark: int | None = None  # the size of the mirror's mark; None: no mirror or no mark in it
    refusal: ApplicationError | None = None
    summary: Summary | None = None
    disagreement: str | None = None
    events_ok: bool = False
    matches_lost: list[int] = field(default_factory=list)  # logged, not stored
    matches_behind: list[int] = field(default_factory=list)  # logged finished, stored unfinished
    tournaments_behind: dict[int, tuple[int, int]] = field(default_factory=dict)  # id: (stored, logged)
    series_lost: list[int] = field(default_factory=list)  # logged, not stored

    @property
    def ok(self) -> bool:
        return self.refusal is None and self.disagreement is None and self.events_ok


def restore_check(*, stdout, stderr) -> RestoreReport:
    """The check after a restore (or at any time): the log recovered up to the mirror's mark, every
    match verified, the league verified from the database against that mark; what was lost named."""
    report = RestoreReport()
    try:
        report.recovered = services.log_recover()
    except ApplicationError as refusal:
        report.refusal = refusal
        return report
    try:
        call_command("verify_events", all=True, stdout=stdout, stderr=stderr, verbosity=0)
        report.events_ok = True
    except SystemExit:
        report.events_ok = False
    report.matches_lost, report.matches_behind = _matches_ahead_in_the_log()
    report.tournaments_behind = _tournaments_ahead_in_the_log()
    report.series_lost = _series_lost()
    mirror = selectors.log_mirror()
    marked = None if mirror is None else selectors.mirror_mark(mirror, CHECKPOINT)
    report.mark = None if marked is None else marked[0].size
    witnesses = [parse_verifier_key(key) for key in settings.LOG_WITNESSES]
    try:
        report.summary = verify_league(
            database_fetch(), log_key=parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY)),
            witnesses=witnesses, quorum=0, previous_note=None if marked is None else marked[1],
            matches_lost=report.matches_lost, series_lost=report.series_lost,
        )
    except Disagreement as disagreement:
        report.disagreement = str(disagreement)
    return report


def database_fetch() -> Fetch:
    """verify_league's fetch, read from this database as the server serves each path."""

    def fetch(path: str) -> bytes:
        if path == "checkpoint":
            latest = selectors.checkpoint_latest()
            if latest is None:
                raise FetchError("no checkpoint yet")
            return selectors.checkpoint_served(latest).encode()
        if path == "ratings-params.json":
            return json.dumps({game: dataclasses.asdict(game_params(game)) for game in sorted(ENGINES)}).encode()
        if path.startswith("series/") and path.endswith(".json"):
            series = Series.objects.filter(pk=int(path[len("series/"):-len(".json")])).first()
            if series is None:
                raise FetchError("no such series stored")
            # What `GET /api/series/<id>` serves, as far as the verifier reads it (dates as text).
            return json.dumps(tournament_selectors.series_with_standings(series), default=str).encode()
        if path.startswith("matches/") and path.endswith(".jsonl"):
            match = Match.objects.filter(pk=int(path[len("matches/"):-len(".jsonl")])).first()
            if match is None:
                raise FetchError("no such match stored")
            return "".join(line + "\n" for line in match_export_lines(match)).encode()
        try:
            wanted = tiles.parse_tile_path(path)
        except tiles.TileError as error:
            raise FetchError(str(error)) from error
        if isinstance(wanted, tiles.EntryBundle):
            return selectors.entry_bundle(wanted)
        return selectors.hash_tile(wanted)

    return fetch


def _matches_ahead_in_the_log() -> tuple[list[int], list[int]]:
    """Logged matches the database lost, and those it holds unfinished (their end was lost)."""
    logged = set(LogEntry.objects.filter(kind="match", part=0).values_list("source_id", flat=True))
    stored = dict(Match.objects.filter(pk__in=logged).values_list("pk", "status"))
    return sorted(logged - stored.keys()), sorted(pk for pk, status in stored.items() if status != "finished")


def _series_lost() -> list[int]:
    """Series whose decisions are logged but whose rows the database no longer holds."""
    logged = set()
    for body in LogEntry.objects.filter(kind="series_decision", part=0).values_list("body", flat=True).iterator():
        logged.add(json.loads(bytes(body))["series"])
    return sorted(logged - set(Series.objects.filter(pk__in=logged).values_list("pk", flat=True)))


def _tournaments_ahead_in_the_log() -> dict[int, tuple[int, int]]:
    """Tournaments whose logged events go past the ones the database holds: id: (stored, logged)."""
    logged: dict[int, int] = {}
    for body in LogEntry.objects.filter(kind="tournament_event", part=0).values_list("body", flat=True).iterator():
        entry = json.loads(bytes(body))
        if entry.get("type") == "tournament_event":
            logged[entry["tournament"]] = max(entry["seq"], logged.get(entry["tournament"], 0))
    stored: dict[int, int] = {}
    for tournament, seq in TournamentEvent.objects.filter(tournament_id__in=logged).values_list("tournament_id", "seq"):
        stored[tournament] = max(seq, stored.get(tournament, 0))
    return {t: (stored.get(t, 0), seq) for t, seq in sorted(logged.items()) if seq > stored.get(t, 0)}


def _pg_environment() -> dict[str, str]:
    owner = connections[OWNER] if OWNER in connections.databases else connections["default"]
    if owner.vendor != "postgresql":
        raise BackupError(
            "backup and restore wrap pg_dump and pg_restore (PostgreSQL); the embedded SQLite file is backed up "
            "by copying it with the server stopped (README, Backups and restore)"
        )
    db = owner.settings_dict
    environment = {**os.environ, "PGDATABASE": str(db["NAME"]), "PGUSER": str(db["USER"] or ""),
                   "PGHOST": str(db["HOST"] or ""), "PGPORT": str(db["PORT"] or "")}
    if db.get("PASSWORD"):
        environment["PGPASSWORD"] = str(db["PASSWORD"])
    return environment


def _run(command: list[str], environment: dict[str, str]) -> None:
    if shutil.which(command[0]) is None:
        raise BackupError(f"{command[0]} is not installed (PostgreSQL's client programs, the server's version or newer)")
    try:
        subprocess.run(command, env=environment, check=True, capture_output=True, text=True, timeout=_PG_TIMEOUT)
    except subprocess.CalledProcessError as error:
        raise BackupError(f"{command[0]} failed (exit {error.returncode}): {error.stderr.strip()[-2000:]}") from error
    except subprocess.TimeoutExpired as error:
        raise BackupError(f"{command[0]} still running after {_PG_TIMEOUT} s") from error
