"""Rating operations: rate a finished match (incremental), rebuild a game's ratings from the log.

Order. A ladder rates its matches in match-end order, the key (finished_at, match id): the task
for a match rates every unrated match of its ladder up to and including it, so a late or lost
task changes nothing about the order. The one exception is a match whose transaction commits
after a later-ending match was already rated ("late"): it is rated on arrival, at the next
position. The ledger records every match's position, and a rebuild follows those positions, so
the rebuild reproduces the incremental result exactly in every case.

Cost. A task costs a few statements whatever the number of matches it rates (`ladder_pending`
reads them and their competitors' ratings in one, `projections.book_append` writes in one), so
a task that finds many matches pending rates them at little more than trueskill's own cost per
match; the tasks of those matches then find them rated with one read, without the lock. The
task goes on past its own match to the latest-ending one (`through_latest`, in match-end order
as ever): workers take tasks in the order the matches ended, and a task that stopped at its own
match would leave the next one pending for the next task, so that a round of a tournament
ending at once were rated a transaction per match, one after the other under the ladder's lock.
"""
from __future__ import annotations

import gc
import itertools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NamedTuple

from django.db import connection, transaction
from django.db.models import F, Max
from django.utils import timezone
from django.utils.translation import gettext as _

from games.engines import ENGINES
from games.models import Match
from ratings import math as rmath
from ratings import projections
from ratings.models import Ladder, Pool, Rating, RatingEntry
from ratings.selectors import (
    LadderPending,
    MatchKey,
    RatableMatch,
    game_params,
    ladder_pending,
    match_head,
    ratable_matches,
    rating_order,
    raw_rows,
    revised_matches,
)
from server import metrics
from server.errors import bad_request, match_not_found
from tournaments.selectors import table_result_changes

log = logging.getLogger(__name__)


def _ladder_locked(game: str, pool: str) -> Ladder:
    Ladder.objects.get_or_create(game=game, pool=pool)
    return Ladder.objects.select_for_update().get(game=game, pool=pool)


def _ladder_locked_for_task(game: str, pool: str) -> Ladder:
    """`_ladder_locked` in one statement while the ladder exists, which also turns PostgreSQL's
    JIT compilation off for the rest of the transaction.

    The task's statements walk indexes match by match; for a batch of a thousand matches their
    estimated cost passes `jit_above_cost`, and compiling the plan took longer than running it
    (measured: 60 ms against 35, a third of what trueskill itself costs for those matches).
    """
    jit_off = ", set_config('jit', 'off', true) AS jit" if connection.vendor == "postgresql" else ""
    lock = f" {connection.ops.for_update_sql()}" if connection.features.has_select_for_update else ""
    sql = f"SELECT *{jit_off} FROM {Ladder._meta.db_table} WHERE game = %s AND pool = %s{lock}"
    found = list(Ladder.objects.raw(sql, [game, pool]))
    if not found:  # the ladder's first match: the unique key settles a race to create it
        Ladder.objects.get_or_create(game=game, pool=pool)
        found = list(Ladder.objects.raw(sql, [game, pool]))
    return found[0]


def match_rate(*, match_id: int, through_latest: bool = False) -> int:
    """Rates a finished, rated match, with every unrated match of its ladder that ended before it
    and, `through_latest`, every one that ended after it too (what the task asks for); then the
    revisions due of those matches and of `match_id` (its tournament changed the result).

    Returns how many ratings it made (matches and revisions); 0 when there is nothing to do
    (casual, not finished, a person never moved (`ratable_matches`), or already rated: a
    replayed task, or the task of a match another task rated with its own, finds its ledger rows
    and no change of its result, and stops without the lock).
    Lock: the ladder's row (`select_for_update`) for the whole transaction, so one writer at a
    time appends to a ladder and positions follow a single order.
    """
    head = match_head(match_id)
    if head is None:
        raise match_not_found(match_id)
    if not head.ratable or head.in_ledger and not table_result_changes(match_ids=[match_id]):
        return 0
    assert head.finished_at is not None  # ratable: finished
    key = (head.finished_at, match_id)
    with transaction.atomic():
        ladder = _ladder_locked_for_task(head.game, head.pool)
        watermark: MatchKey | None = None
        if ladder.last_finished_at:
            assert ladder.last_match_id is not None  # set with last_finished_at (projections._tracked)
            watermark = (ladder.last_finished_at, ladder.last_match_id)
        # A match that ends after the latest rated one cannot be in the ledger: no need to look.
        if watermark is None or key > watermark:
            pending = ladder_pending(ladder, after=watermark, upto=None if through_latest else key)
        # (epoch, match) is the unique key's prefix: a match belongs to one ladder only.
        elif RatingEntry.objects.filter(epoch=ladder.epoch, match_id=match_id).exists():
            pending = LadderPending([], {})  # rated already (maybe while this task waited): revisions only
        else:
            log.info("match %s arrived after a later-ending match was rated: rated at the next position", match_id)
            pending = ladder_pending(ladder, match_id=match_id)
        rated_ids = {m.match_id for m in pending.matches}
        due = _revisions_due(ladder, pending.matches, [] if match_id in rated_ids else [match_id])
        if not pending.matches and not due.revisions:
            return 0
        book = projections.book_with(
            ladder, game_params(head.game), pending.ratings, revisable={r.match_id for r in due.revisions}
        )
        book.add_standings(due.standings)
        book.latest.update(due.latest)
        for match in [*pending.matches, *due.revisions]:
            book.rate(match)
        projections.book_append(ladder, book, max(m.key for m in pending.matches) if pending.matches else None)
        transaction.on_commit(lambda: _rating_lag_observed(head.game, pending.matches))
    return len(pending.matches) + len(due.revisions)


def _rating_lag_observed(game: str, rated: list[RatableMatch]) -> None:
    """How long each match rated waited from its end for its rating (`metrics.rating_lag_seconds`)."""
    now = timezone.now()
    for match in rated:
        metrics.rating_lag_seconds.labels(game).observe(max(0.0, (now - match.finished_at).total_seconds()))


class _RevisionsDue(NamedTuple):
    revisions: list[RatableMatch]  # in the order to rate them: match by match, each revision in turn
    latest: dict[int, list[projections.EntryRow]]  # the ledger's rows of the last revision rated, per match
    standings: dict[str, projections.Standing]  # current ratings of the competitors at those tables


def _revisions_due(ladder: Ladder, rating: list[RatableMatch], rated_ids: list[int]) -> _RevisionsDue:
    """The revisions not yet rated of the matches this task rates (`rating`) and of matches the
    ledger holds (`rated_ids`), with what rating them needs from the ledger. Lock held.

    One statement when no tournament changed any of their results (the common case).
    """
    changes = table_result_changes(match_ids=[m.match_id for m in rating] + rated_ids)
    if not changes:
        return _RevisionsDue([], {}, {})
    in_ledger = [match_id for match_id in rated_ids if match_id in changes]
    originals = [m for m in rating if m.match_id in changes]
    if in_ledger:
        originals += [m for m in ratable_matches(ladder.game, match_ids=in_ledger) if m.pool == ladder.pool]
    last = projections.ledger_last_rows(ladder, in_ledger)
    done = {match_id: rows[0][projections.REVISION] for match_id, rows in last.items()}
    revisions = [
        revision for revision in revised_matches(originals, changes) if revision.revision > done.get(revision.match_id, 0)
    ]
    revised = {r.match_id for r in revisions}
    competitors = {c for r in revisions if r.match_id in done for c in r.table.seats}
    competitors |= {rmath.game_competitor(len(r.table.seats)) for r in revisions if r.table.cooperative}
    rating_rows = Rating.objects.filter(ladder=ladder, competitor__in=competitors).values_list(
        "competitor", "mu", "sigma", "games", "wins", "last_position", "last_played_at"
    )
    standings = {
        competitor: projections.Standing(mu, sigma, games, wins, last_position, last_played_at)
        for competitor, mu, sigma, games, wins, last_position, last_played_at in rating_rows
    }
    return _RevisionsDue(revisions, {m: rows for m, rows in last.items() if m in revised}, standings)


def revisions_sweep() -> list[int]:
    """Rates the revisions a lost task left behind: every match whose tournament changed its
    result to one its ladder has not rated yet. Returns those matches (the periodic sweep)."""
    changes = table_result_changes()
    if not changes:
        return []
    rated = RatingEntry.objects.filter(match_id__in=list(changes), epoch=F("ladder__epoch"))
    done = dict(rated.values("match_id").annotate(last=Max("revision")).values_list("match_id", "last"))
    games = Match.objects.filter(pk__in=list(changes)).values_list("game", flat=True).distinct()
    due = [
        revision.match_id
        for game in games
        for revision in revised_matches(ratable_matches(game, match_ids=list(changes)), changes)
        if revision.revision > done.get(revision.match_id, 0)
    ]
    for match_id in sorted(set(due)):
        match_rate(match_id=match_id)
    return sorted(set(due))


@dataclass(frozen=True)
class LadderRebuild:
    """What a rebuild did to one ladder."""

    game: str
    pool: str
    matches: int
    competitors: int
    epoch: int
    new_epoch: bool  # the recomputed values differed from the ledger (new parameters)
    appended: int  # ledger rows appended (matches the incremental task had not rated, or a new epoch)


def ratings_rebuild(*, game: str, progress: projections.Progress = projections.progress_none) -> list[LadderRebuild]:
    """Recomputes every rating of a game from the event log and rewrites its current ratings.

    Rating order is the ledger's (see the module docstring), then match-end order for matches the
    ledger lacks. Where the recomputed values equal the current epoch's ledger, the missing rows
    are appended to it; where they differ (the TrueSkill parameters changed) the whole history is
    appended as a new epoch, since the ledger is never rewritten.
    Lock: both ladder rows of the game, people's then bots', for the whole transaction.
    """
    if game not in ENGINES:
        raise bad_request("unknown_game", _("No game is called %(game)s.") % {"game": repr(game)}, games=sorted(ENGINES))
    return _game_rebuild(game, game_params(game), progress)


def _game_rebuild(game: str, params: rmath.Params, progress: projections.Progress) -> list[LadderRebuild]:
    results = []
    with transaction.atomic():
        ladders = {pool: _ladder_locked(game, pool) for pool in (Pool.PEOPLE, Pool.BOTS)}
        try:
            with _kept_from_collector():
                matches = ratable_matches(game)
                changes = table_result_changes(game=game)
                by_pool = {pool: [m for m in matches if m.pool == pool] for pool in ladders}
                by_pool = {pool: [*ms, *revised_matches(ms, changes)] for pool, ms in by_pool.items()}
            for pool, ladder in ladders.items():
                results.append(_ladder_rebuild(ladder, by_pool[pool], params, progress, revisable=set(changes)))
        finally:
            gc.unfreeze()
    return results


@contextmanager
def _kept_from_collector() -> Iterator[None]:
    """Pauses the cyclic collector while the block builds what the rebuild keeps, then freezes
    everything alive out of its sight (until `gc.unfreeze()` when the rebuild ends).

    The rebuild keeps a few objects per match (the history, the ledger read, the lists the rows
    go in) that live through it and hold no cycles. Trueskill's factor graphs are cycles, so
    the collector keeps running while rating, and each full collection would walk all of them
    again; so would each collection while building them. Measured on 100,000 matches: a second
    of collector time for the history, half a second more for the rest.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def _ladder_rebuild(
    ladder: Ladder, matches: list[RatableMatch], params: rmath.Params, progress: projections.Progress,
    revisable: set[int],
) -> LadderRebuild:
    """`matches`: the ladder's matches in match-end order, then their revisions."""
    with _kept_from_collector():
        ledger = raw_rows(
            RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch)
            .order_by("position", "id")
            .values_list(*projections.ENTRY_ROW_FIELDS)
        )
        positions = {(row[1], row[projections.REVISION]): row[0] for row in ledger}
        ordered = rating_order(matches, positions)
        book = projections.LadderBook(params, {}, position=0, revisable=revisable)
    in_rating_order = iter(progress(ordered, len(ordered)))
    # The ledger's ratings come first in rating order: recompute them and compare before writing.
    in_ledger = sum(1 for m in matches if (m.match_id, m.revision) in positions)
    for match in itertools.islice(in_rating_order, in_ledger):
        book.rate(match)
    reproduced = _same_rows(book.rows, ledger)
    if not reproduced:
        ladder.epoch += 1
        log.warning(
            "%s (%s): the ledger differs from a fresh computation; epoch %s starts", ladder.game, ladder.pool, ladder.epoch
        )
    # The rest are written as they are rated, so the database stores them meanwhile.
    with projections.entries_writer(ladder, ladder.epoch) as write:
        if not reproduced:
            write(book.rows)
        for match in in_rating_order:
            write(book.rate(match))
    appended = len(book.rows) - (len(ledger) if reproduced else 0)
    projections.ratings_replace(ladder, book)
    if appended > 10_000:
        projections.statistics_refresh()
    ladder.last_finished_at = ladder.last_match_id = None
    projections.ladder_track(ladder, book.position, max((m.key for m in matches), default=None))
    return LadderRebuild(
        game=ladder.game, pool=ladder.pool, matches=len(ordered), competitors=len(book.pairs),
        epoch=ladder.epoch, new_epoch=not reproduced, appended=appended,
    )


def _same_rows(recomputed: list[projections.EntryRow], ledger: list[tuple]) -> bool:
    """Whether the recomputed rows are exactly the ledger's, bit for bit.

    First in the ledger's order, which is the order the rows were computed in; then regardless of
    the order within a match, which nothing promises. (position, match, competitor, revision,
    reversal) is unique on both sides, so sorting never compares floats in vain.
    """
    return recomputed == ledger or sorted(recomputed) == sorted(ledger)
