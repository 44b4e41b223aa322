"""The check after a restore: `manage.py restore_check` (README, Backups and restore)."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from leaguelog.backup import RestoreReport, restore_check


class Command(BaseCommand):
    help = (
        "Brings the league log back up to its mirror's mark (LOG_MIRROR_DIR) from the mirrored tiles, runs "
        "verify_events --all, verifies the whole league from the database against the mark, and names what a "
        "restore lost (matches, tournament events, rating rows written after the dump). Exit 0 when it all holds, "
        "1 otherwise (and the log publishes nothing while it is behind its mark: 503 log_behind_mirror)."
    )

    def handle(self, *args, **options):
        report = restore_check(stdout=self.stdout, stderr=self.stderr)
        for line in _lines(report):
            (self.stderr if line.startswith(("FAILED", "REFUSED")) else self.stdout).write(line)
        if not report.ok:
            raise SystemExit(1)


def _lines(report: RestoreReport) -> list[str]:
    if report.refusal is not None:
        return [f"REFUSED: {report.refusal.code}: {report.refusal.message} ({report.refusal.extra.get('detail', '')})"]
    lines = [f"restore_check: {report.recovered} log entries recovered from the mirror"]
    if report.mark is None:
        lines.append("restore_check: WARNING: no mark in a log mirror (LOG_MIRROR_DIR unset or empty): nothing here "
                     "shows the log was not rolled back below what witnesses cosigned; ask them")
    if report.matches_lost:
        lines.append(f"restore_check: {len(report.matches_lost)} logged matches lost from the event store "
                     f"(played after the backup; their log entries stay): {report.matches_lost}")
    if report.matches_behind:
        lines.append(f"restore_check: {len(report.matches_behind)} matches the log holds finished are stored unfinished "
                     f"(their last events were lost; verify_events names them): {report.matches_behind}")
    for tournament, (stored, logged) in report.tournaments_behind.items():
        lines.append(f"restore_check: tournament {tournament}: events 1-{stored} stored, the log holds up to {logged}: "
                     "do not resume it (its next events would contradict the log)")
    if report.series_lost:
        lines.append(f"restore_check: {len(report.series_lost)} logged series lost from the database "
                     f"(made after the backup; their decisions stay in the log): {report.series_lost}")
    if not report.events_ok:
        lines.append("FAILED: verify_events --all found mismatches (above)")
    if report.disagreement is not None:
        lines.append(f"FAILED: verify_league: {report.disagreement}")
    elif report.summary is not None:
        lines.extend([*(f"verify_league: note: {note}" for note in report.summary.notes), report.summary.line()])
    return lines
