"""Re-checks stored matches: gapless sequence, hash chain, seed, every move under the rules, and
for a match in the league log, that its head is the one the log holds (a rewrite that recomputed
every hash in the database still disagrees with the log, which witnesses and verifiers hold)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from games.models import Match
from games.selectors import verify_match
from leaguelog.selectors import logged_fact


class Command(BaseCommand):
    help = "Verify the event log of one match (--match ID, repeatable) or of every match (--all, the default)."

    def add_arguments(self, parser):
        parser.add_argument("--match", type=int, action="append", dest="matches", help="a match id")
        parser.add_argument("--all", action="store_true", help="every stored match (the default)")

    def handle(self, *args, matches=None, **options):
        queryset = Match.objects.exclude(last_seq=0).order_by("pk")
        if matches:
            queryset = queryset.filter(pk__in=matches)
            missing = set(matches) - set(queryset.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"no stored events for match(es) {sorted(missing)}")
        checked = events = 0
        bad: list[tuple[int, list[str]]] = []
        for match in tqdm(queryset.iterator(), total=queryset.count(), unit="match", disable=not options["verbosity"]):
            report = verify_match(match)
            logged = logged_fact("match", match.pk)
            if logged is not None and (logged["final_hash"], logged["events"]) != (match.head_hash, match.last_seq):
                report.problems.append(
                    f"the league log holds head {logged['final_hash'][:12]}… at seq {logged['events']}, "
                    f"the database {match.head_hash[:12]}… at seq {match.last_seq}"
                )
            checked += 1
            events += report.events
            if not report.ok:
                bad.append((match.pk, report.problems))
        for match_id, problems in bad:
            for problem in problems:
                self.stderr.write(f"match {match_id}: {problem}")
        self.stdout.write(f"verify_events: {checked} matches checked, {events} events, {len(bad)} mismatches")
        if bad:
            raise SystemExit(1)
