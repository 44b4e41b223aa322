"""The scheduler's entry points: whatever is due now, a match that ended, and the periodic sweep.

`tournament_advance` is the scheduler's one entry point: it does whatever is due now (start
the tournament, start a round, record finished tables, finish a round at its deadline, pair
the next round, finish) and is safe to run at any time, twice, or late.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from games import services as game_services
from games import turns
from games.models import Match
from games.selectors import seats_never_moved, seats_no_show
from server.errors import ApplicationError
from tournaments import webhooks
from tournaments.field_rules import why
from tournaments.models import Entrant, Round, RoundTable, StandingRow, Tournament, TournamentEvent
from tournaments.services._stream import Step, _append, _latest_round, _locked, _rules
from tournaments.services.results import _forfeit_of, _result_changed, _table_result_append
from tournaments.services.rounds import _cancel, _pair_next, _round_start_batch
from tournaments.services.start import _start

_MAX_STEPS = 500


def tournament_advance(*, tournament_id: int, now: dt.datetime | None = None) -> list[str]:
    """Does everything that is due: returns the steps taken (empty when nothing was due).

    Each step is its own transaction under the tournament's lock; finishing unfinished tables
    at a deadline happens between steps, without the lock (it plays many moves).
    """
    done: list[str] = []
    for _step in range(_MAX_STEPS):
        step, play_out = _advance_step(tournament_id, now or timezone.now())
        ended = [turns.match_play_out(match_id=match_id) for match_id in play_out]
        if step is None:
            if not play_out or not all(ended):
                break
            step = Step.PLAYED_OUT  # tables left running past the deadline: record them next
        done.append(step)
    return done


def _advance_step(tournament_id: int, now: dt.datetime) -> tuple[Step | None, list[int]]:
    """Takes the first step that is due, in one transaction under the tournament's lock, and
    returns it (None: nothing was due, or the tournament is over) with the matches to play out
    once the lock is released:

    1. Registration, at `starts_at`: the tournament starts (`STARTED`, round 1 paired), or is
       cancelled when it cannot (`CANCELLED`: too few entrants, a field its format cannot pair).
    2. Running without a round: round 1 is paired (`_pair_next`'s step).
    3. The latest round paired, at its `starts_at`: its next batch of tables opens
       (`TABLES_STARTED`); the last batch starts the round (`ROUND_STARTED`).
    4. Tables whose match has finished: their results are recorded (`RESULTS`).
    5. No table left without a result: the round completes (`ROUND_COMPLETED`: its matches may
       show their decks, its held webhooks go); on the next call the next round is paired, or
       the tournament finishes (`_pair_next`: `PAIRED`, `ROUND_STARTED` or `FINISHED`).
    6. The no-show time up: absent people forfeit their tables (`NO_SHOWS`), played out after.
    7. The deadline passed: it is recorded with who was absent (`DEADLINE`) and the running
       tables are played out; on later calls they are only played out (None, with the matches).
    """
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None:
            return None, []
        if tournament.status == Tournament.Status.REGISTRATION:
            if tournament.starts_at is None or tournament.starts_at > now:
                return None, []
            try:
                with transaction.atomic():
                    _start(tournament, actor="server", now=now)
            except ApplicationError as exc:
                tournament.refresh_from_db(fields=["last_seq", "status"])
                _cancel(tournament, reason=str(exc.message))
                return Step.CANCELLED, []
            return Step.STARTED, []
        if tournament.status != Tournament.Status.RUNNING:
            return None, []
        rnd = _latest_round(tournament)
        if rnd is None:
            return _pair_next(tournament, actor="server", now=now), []
        if rnd.started_at is None:
            if rnd.starts_at > now:
                return None, []
            started = _round_start_batch(tournament, rnd, actor="server", now=now)
            return (Step.ROUND_STARTED if started else Step.TABLES_STARTED), []
        if _record_finished_tables(tournament, rnd):
            return Step.RESULTS, []
        if not _waiting_tables(rnd).exists():
            if rnd.completed_at is None:
                _append(
                    tournament,
                    "RoundCompleted",
                    {"round": rnd.number},
                    actor="server",
                    key=f"completed:{rnd.number}",
                )
                # Nobody plays this round's deals any more: its matches may show their decks.
                game_services.matches_unseal(
                    match_ids=list(rnd.tables.exclude(match=None).values_list("match_id", flat=True))
                )
                webhooks.deliveries_release(tournament)  # its results, held while its deals were played
                return Step.ROUND_COMPLETED, []
            return _pair_next(tournament, actor="server", now=now), []
        if _no_shows_due(tournament, rnd, now):
            # A forfeited table's match decides nothing more: it is played out, without the lock.
            return Step.NO_SHOWS, _no_shows_forfeit(tournament, rnd)
        if rnd.deadline is not None and rnd.deadline <= now:
            running = _time_up_matches(rnd, now)
            if rnd.deadline_passed_at is None:
                _append(
                    tournament,
                    "RoundDeadlinePassed",
                    {"round": rnd.number, "tables": _absent_at_deadline(rnd)},
                    actor="clock",
                    key=f"deadline:{rnd.number}",
                )
                return Step.DEADLINE, running
            return (None, running) if running else (None, [])
    return None, []


def _waiting_tables(rnd: Round) -> Any:
    """The round's tables without a result (the partial index `table_waiting`)."""
    return RoundTable.objects.filter(round=rnd, result__isnull=True)


def _time_up_matches(rnd: Round, now: dt.datetime) -> list[int]:
    """The round's matches still running past their table's deadline: the round's (passed), and
    the time its judges added (no more than has passed since)."""
    assert rnd.deadline is not None  # called once the round's deadline has passed
    return list(
        Match.objects.filter(
            tournament_table__round=rnd,
            tournament_table__extra_seconds__lte=(now - rnd.deadline).total_seconds(),
            status=Match.Status.RUNNING,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _absent_at_deadline(rnd: Round) -> list[dict[str, Any]]:
    """For each table still playing: the people seated who never made a move of their own."""
    found = []
    for table in _waiting_tables(rnd).exclude(match=None).order_by("number"):
        gone = [table.seats[seat] for seat in seats_never_moved(table.match_id)]
        if gone:
            found.append({"table": table.number, "absent": sorted(gone)})
    return found


def _record_finished_tables(tournament: Tournament, rnd: Round) -> int:
    """Records the result of every table whose match has ended and that has no result yet."""
    waiting = (
        _waiting_tables(rnd).filter(match__status=Match.Status.FINISHED).select_related("match").order_by("match_id")
    )
    return sum(_table_result_append(tournament, rnd, table, table.match) for table in waiting)


def tournament_match_finished(*, match_id: int) -> list[str]:
    """A match ended: if it is a tournament table, its result is recorded at once (whatever the
    tournament's size: one table, its players' standing rows), and when it was the round's last
    table the tournament advances (the round completed, the next paired and started, or the end)."""
    tournament_id = (
        RoundTable.objects.filter(match_id=match_id).values_list("round__tournament_id", flat=True).first()
    )
    if tournament_id is None:
        return []
    with transaction.atomic():
        tournament = _locked(tournament_id)
        table = RoundTable.objects.select_related("round", "match").get(match_id=match_id)
        rnd, match = table.round, table.match
        assert match is not None  # the table was found by its match
        if rnd.started_at is None:  # a match of a round still opening its tables: advancing records it
            recorded = None
        elif (
            tournament.status != Tournament.Status.RUNNING
            or table.result is not None
            or match.status != Match.Status.FINISHED
        ):
            return []
        else:
            recorded = _table_result_append(tournament, rnd, table, match)
            if recorded and _waiting_tables(rnd).exists():
                return [Step.RESULTS]
    return ([Step.RESULTS] if recorded else []) + tournament_advance(tournament_id=tournament_id)


def tournaments_due(*, now: dt.datetime | None = None) -> list[int]:
    """Tournaments with something due that a lost task may have left: for the periodic sweep."""
    now = now or timezone.now()
    due: set[int] = set(
        Tournament.objects.filter(status=Tournament.Status.REGISTRATION, starts_at__lte=now).values_list(
            "pk", flat=True
        )
    )
    running = Round.objects.filter(tournament__status=Tournament.Status.RUNNING)
    due |= set(
        running.filter(started_at__isnull=True, starts_at__lte=now).values_list("tournament_id", flat=True)
    )
    late = running.filter(started_at__isnull=False, completed_at__isnull=True, deadline__lte=now)
    due |= set(late.values_list("tournament_id", flat=True))
    open_tables = RoundTable.objects.filter(round=OuterRef("pk"), result__isnull=True)
    done = running.filter(started_at__isnull=False, completed_at__isnull=True).exclude(Exists(open_tables))
    due |= set(done.values_list("tournament_id", flat=True))
    unrecorded = RoundTable.objects.filter(
        round__tournament__status=Tournament.Status.RUNNING,
        result__isnull=True,
        match__status=Match.Status.FINISHED,
    )
    due |= set(unrecorded.values_list("round__tournament_id", flat=True))
    due |= _no_shows_pending(now)
    for tournament_id in Tournament.objects.filter(status=Tournament.Status.RUNNING).values_list(
        "pk", flat=True
    ):
        latest = Round.objects.filter(tournament_id=tournament_id).order_by("-number").first()
        if latest is None or latest.completed_at is not None:
            due.add(tournament_id)  # a complete round not followed by the next (or the end)
    return sorted(due)


def _no_shows_pending(now: dt.datetime) -> set[int]:
    """Running tournaments with a no-show rule whose current round's no-show time is up unchecked
    (for the sweep: a lost task must not leave an absent player's table waiting to the deadline)."""
    due = set()
    ruled = Tournament.objects.filter(
        status=Tournament.Status.RUNNING, field_rules__no_show_seconds__gte=1
    ).only("pk", "field_rules")
    for tournament in ruled:
        rnd = _latest_round(tournament)
        if rnd is not None and rnd.completed_at is None and _no_shows_due(tournament, rnd, now):
            due.add(tournament.pk)
    return due


def _no_shows_due(tournament: Tournament, rnd: Round, now: dt.datetime) -> bool:
    seconds = _rules(tournament).no_show_seconds
    if seconds is None or rnd.started_at is None or rnd.started_at + dt.timedelta(seconds=seconds) > now:
        return False
    return not TournamentEvent.objects.filter(tournament=tournament, key=f"no-shows:{rnd.number}").exists()


def _no_shows_forfeit(tournament: Tournament, rnd: Round) -> list[int]:
    """The round's no-show time is up: each person absent from a table still playing forfeits it
    (one event for the round, naming the rule even when nobody was absent), and a player with too
    many forfeits is dropped from the next round. Returns the forfeited tables' matches. Lock held."""
    rules = _rules(tournament)
    tables, matches = [], []
    running = _waiting_tables(rnd).filter(match__status=Match.Status.RUNNING).order_by("number")
    for table in running:
        gone = sorted(table.seats[seat] for seat in seats_no_show(table.match_id))
        if gone:
            tables.append({"table": table.number, **_forfeit_of(tournament, rnd.number, table.seats, gone)})
            matches.append(table.match_id)
    detail = (
        f"No move of their own in the {rules.no_show_seconds} seconds after their table opened, "
        "while the clock played for them."
    )
    _append(
        tournament,
        "NoShowsForfeited",
        {"round": rnd.number, "tables": tables, "rule": "no_show.forfeit", "why": why("no_show.forfeit", detail)},
        actor="clock",
        key=f"no-shows:{rnd.number}",
    )
    for match_id in matches:
        _result_changed(match_id)
    limit = rules.no_show_drop_after
    if limit is None:
        return matches
    gone = sorted({entrant for table in tables for entrant in table["forfeited"]})
    counts = dict(
        StandingRow.objects.filter(tournament=tournament, entrant_id__in=gone).values_list("entrant_id", "forfeits")
    )
    for entrant in Entrant.objects.filter(pk__in=gone, status=Entrant.Status.ACTIVE).order_by("pk"):
        if counts.get(entrant.pk, 0) < limit:
            continue
        _append(
            tournament,
            "PlayerDropped",
            {
                "entrant": entrant.pk, "from_round": rnd.number + 1, "rule": "no_show.dropped",
                "why": why("no_show.dropped", f"{counts[entrant.pk]} forfeits; the limit is {limit}."),
            },
            actor="clock",
        )
    return matches
