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

from django.db import connection, transaction

from games.engines import ENGINES
from ratings import math as rmath
from ratings import projections
from ratings.models import Ladder, Pool, RatingEntry
from ratings.selectors import (
    RatableMatch, game_params, ladder_pending, match_head, ratable_matches, rating_order, raw_rows,
)
from server.errors import not_found

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
    and, `through_latest`, every one that ended after it too (what the task asks for).

    Returns how many matches it rated; 0 when there is nothing to do (casual, not finished, a
    person never moved (`ratable_matches`), or already rated: a replayed task, or the task of a
    match another task rated with its own, finds its ledger rows and stops, without the lock).
    Lock: the ladder's row (`select_for_update`) for the whole transaction, so one writer at a
    time appends to a ladder and positions follow a single order.
    """
    head = match_head(match_id)
    if head is None:
        raise not_found("match_not_found", f"There is no match {match_id}.")
    if not head.ratable or head.in_ledger:
        return 0
    key = (head.finished_at, match_id)
    with transaction.atomic():
        ladder = _ladder_locked_for_task(head.game, head.pool)
        watermark = (ladder.last_finished_at, ladder.last_match_id) if ladder.last_finished_at else None
        # A match that ends after the latest rated one cannot be in the ledger: no need to look.
        if watermark is None or key > watermark:
            pending = ladder_pending(ladder, after=watermark, upto=None if through_latest else key)
        # (epoch, match) is the unique key's prefix: a match belongs to one ladder only.
        elif RatingEntry.objects.filter(epoch=ladder.epoch, match_id=match_id).exists():
            return 0  # rated while this task waited for the lock
        else:
            log.info("match %s arrived after a later-ending match was rated: rated at the next position", match_id)
            pending = ladder_pending(ladder, match_id=match_id)
        if not pending.matches:
            return 0
        book = projections.book_with(ladder, game_params(head.game), pending.ratings)
        for match in pending.matches:
            book.rate(match)
        projections.book_append(ladder, book, max(m.key for m in pending.matches))
    return len(pending.matches)


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
        raise not_found("unknown_game", f"No game is called {game!r}.")
    return _game_rebuild(game, game_params(game), progress)


def _game_rebuild(game: str, params: rmath.Params, progress: projections.Progress) -> list[LadderRebuild]:
    results = []
    with transaction.atomic():
        ladders = {pool: _ladder_locked(game, pool) for pool in (Pool.PEOPLE, Pool.BOTS)}
        try:
            with _kept_from_collector():
                matches = ratable_matches(game)
                by_pool = {pool: [m for m in matches if m.pool == pool] for pool in ladders}
            for pool, ladder in ladders.items():
                results.append(_ladder_rebuild(ladder, by_pool[pool], params, progress))
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
    ladder: Ladder, matches: list[RatableMatch], params: rmath.Params, progress: projections.Progress
) -> LadderRebuild:
    with _kept_from_collector():
        ledger = raw_rows(
            RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch)
            .order_by("position", "id")
            .values_list(*projections.ENTRY_ROW_FIELDS)
        )
        positions = {row[1]: row[0] for row in ledger}
        ordered = rating_order(matches, positions)
        book = projections.LadderBook(params, {}, position=0)
    in_rating_order = iter(progress(ordered, len(ordered)))
    # The ledger's matches come first in rating order: recompute them and compare before writing.
    for match in itertools.islice(in_rating_order, sum(1 for m in matches if m.match_id in positions)):
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
    # `matches` come in match-end order: the last one ended last.
    projections.ladder_track(ladder, book.position, matches[-1].key if matches else None)
    return LadderRebuild(
        game=ladder.game, pool=ladder.pool, matches=len(ordered), competitors=len(book.pairs),
        epoch=ladder.epoch, new_epoch=not reproduced, appended=appended,
    )


def _same_rows(recomputed: list[projections.EntryRow], ledger: list[tuple]) -> bool:
    """Whether the recomputed rows are exactly the ledger's, bit for bit.

    First in the ledger's order, which is the order the rows were computed in; then regardless of
    the order within a match, which nothing promises. (position, match, competitor) is unique on
    both sides, so sorting never compares the rest.
    """
    return recomputed == ledger or sorted(recomputed) == sorted(ledger)
