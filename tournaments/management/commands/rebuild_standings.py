"""Rebuilds tournaments' read models (state, rounds, tables, standings) from their event streams."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from tournaments import fold, projections, selectors
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Rebuilds the standings (and every other read model) of tournaments from their events."

    def add_arguments(self, parser):
        parser.add_argument("tournaments", nargs="*", type=int, help="Tournament ids (default: all).")
        parser.add_argument(
            "--check",
            action="store_true",
            help="Only report tournaments whose stored standings differ from the rebuilt ones.",
        )

    def handle(self, *args, tournaments: list[int], check: bool, **options):
        rows = Tournament.objects.order_by("pk")
        if tournaments:
            rows = rows.filter(pk__in=tournaments)
            missing = set(tournaments) - set(rows.values_list("pk", flat=True))
            if missing:
                raise CommandError(f"no tournament {', '.join(map(str, sorted(missing)))}")
        differing = 0
        for tournament in rows:
            before = selectors.standings_snapshot(tournament)
            if check:
                events = (projections.event_dict(e) for e in tournament.events.order_by("seq"))
                state, folded = fold.fold_with_standings(events)
                same = state == projections.state_of(tournament) and before == selectors.rows_snapshot(folded)
            else:
                projections.rebuild(tournament)
                same = before == selectors.standings_snapshot(tournament)
            differing += not same
            verdict = "unchanged" if same else ("differs" if check else "changed")
            self.stdout.write(
                f"tournament {tournament.pk}: {tournament.last_seq} events, standings {verdict}"
            )
        if check and differing:
            raise CommandError(f"{differing} tournament(s) differ from their rebuilt projection")
