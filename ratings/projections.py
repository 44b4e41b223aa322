"""Writing the ledger and its read models (current ratings, team results) for one ladder.

`LadderBook` holds a ladder's ratings in memory and rates matches one after the other; the
incremental task feeds it the few matches it rates, a rebuild the whole history. Both then write
the book's rows (`EntryRow`, `Standing`) through the functions below, the task in one statement
(`book_append`), a rebuild as a stream (`entries_writer`), so their rows can only differ if their
inputs do. The ladder row's (position, last_finished_at, last_match_id) track how far the
ledger has got.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import psycopg
from django.db import connection, models
from django.utils import timezone

from ratings import math as rmath
from ratings.models import Kind, Ladder, Rating, RatingEntry, TeamResult
from ratings.selectors import MatchKey, RatableMatch, RatingRow, raw_rows

# One ledger row before it is written: these fields of `RatingEntry`, in this order.
EntryRow = tuple[int, int, str, str, "int | None", "int | None", int, float, float, float, float, int, bool]
ENTRY_ROW_FIELDS = (
    "position", "match_id", "competitor", "kind", "user_id", "seat", "rank",
    "mu_before", "sigma_before", "mu_after", "sigma_after", "revision", "reversal",
)
# Where an EntryRow holds what: its competitor, rank, (mu, sigma) before (from _BEFORE) and after
# (from _AFTER), revision, reversal. `Final`, so that mypy reads each field's own type.
_COMPETITOR: Final = 2
_RANK: Final = 6
_BEFORE: Final = 7
_AFTER: Final = 9
REVISION: Final = 11
_REVERSAL: Final = 12

_ENTRY_COLUMNS = ("ladder_id", "epoch", *ENTRY_ROW_FIELDS, "created")
_RATING_COLUMNS = (
    "ladder_id", "competitor", "kind", "user_id", "mu", "sigma", "games", "wins", "last_position", "last_played_at",
)
_INSERT_BATCH = 5000


@dataclass(slots=True)
class Standing:
    """A competitor's current rating and counts, as the `Rating` projection row holds them."""

    mu: float
    sigma: float
    games: int = 0
    wins: int = 0
    last_position: int = 0
    last_played_at: datetime | None = None


class LadderBook:
    """A ladder's current ratings in memory, rating matches in the order they are given.

    Rating a match only computes its ledger rows and moves the competitors' (mu, sigma); games,
    wins and last match are counted from the rows when the standings are asked for, in one pass
    rather than competitor by competitor for every match of a rebuild. A match that rates
    nobody (a bot against itself) takes no position, in a rebuild as in the task.

    A revision of a match (its tournament changed the result) takes back each competitor's last
    rating of it and rates the new result, from the match's rows in `latest`: the rows of its
    last revision, kept for the matches in `revisable` as they are rated (the task adds those
    of matches rated before it, from the ledger).
    """

    def __init__(
        self, params: rmath.Params, standings: dict[str, Standing], position: int, revisable: Iterable[int] = ()
    ) -> None:
        self.env = rmath.environment(params)
        self.standings_before = standings
        # (mu, sigma) per competitor: what `table_updates` reads and the rows move.
        self.pairs: dict[str, rmath.Pair] = {c: (s.mu, s.sigma) for c, s in standings.items()}
        self.first_position = position + 1
        self.position = position
        self.rows: list[EntryRow] = []  # every ledger row rated, in rating order
        self.finished_at: list[datetime] = []  # per position rated, in rating order
        self.team_results: list[TeamResult] = []
        self.revisable = set(revisable)
        self.latest: dict[int, list[EntryRow]] = {}  # match id -> its last revision's rows (not reversals)
        self._identity: dict[str, tuple[str, int | None]] = {}  # competitor -> (kind, user id)

    def add_standings(self, standings: dict[str, Standing]) -> None:
        """Current ratings of competitors the book does not hold yet (those of a revised match)."""
        for competitor, standing in standings.items():
            if competitor not in self.pairs:
                self.standings_before[competitor] = standing
                self.pairs[competitor] = (standing.mu, standing.sigma)

    def rate(self, match: RatableMatch) -> list[EntryRow]:
        """Rates one match (or a revision of one) at the next position; returns its ledger rows."""
        position = self.position + 1
        match_id, revision = match.match_id, match.revision
        pairs, identities = self.pairs, self._identity
        rows: list[EntryRow] = []
        if revision:
            for row in self.latest.get(match_id, ()):
                competitor = row[_COMPETITOR]
                before = pairs[competitor]
                after = pairs[competitor] = rmath.reversed_pair(before, row[_BEFORE:_AFTER], row[_AFTER:REVISION])
                rows.append((position, match_id, competitor, *row[3:_BEFORE], *before, *after, revision, True))
        reversals = len(rows)
        for competitor, seat, rank, (mu_before, sigma_before), after in rmath.table_updates(
            self.env, match.table, pairs
        ):
            identity = identities.get(competitor)
            if identity is None:
                kind = rmath.competitor_kind(competitor)
                identity = identities[competitor] = (kind, _user_id(competitor, kind))
            kind, user_id = identity
            mu_after, sigma_after = pairs[competitor] = after
            rows.append(
                (position, match_id, competitor, kind, user_id, seat, rank, mu_before, sigma_before, mu_after,
                 sigma_after, revision, False)
            )
        if not rows:
            return rows
        self.position = position
        self.rows += rows
        self.finished_at.append(match.finished_at)
        if match_id in self.revisable:
            self.latest[match_id] = rows[reversals:]
        if match.cards_left is not None:
            self.team_results.append(
                TeamResult(
                    match_id=match.match_id, players=len(match.table.seats), cards_left=match.cards_left,
                    won=match.table.won, finished_at=match.finished_at,
                )
            )
        return rows

    def rated_standings(self) -> dict[str, Standing]:
        """The standing of every competitor the book's matches rated, after them.

        A reversal row counts back the game (and the win) of the rating it takes back.
        """
        games: Counter[str] = Counter()
        wins: Counter[str] = Counter()
        last_position = {}
        for row in self.rows:
            competitor, step = row[_COMPETITOR], -1 if row[_REVERSAL] else 1
            games[competitor] += step
            if row[_RANK] == 1:
                wins[competitor] += step
            last_position[competitor] = row[0]  # the last row of each competitor wins
        standings = {}
        for competitor, played in games.items():
            before = self.standings_before.get(competitor)
            games_before, wins_before = (before.games, before.wins) if before else (0, 0)
            position = last_position[competitor]
            standings[competitor] = Standing(
                *self.pairs[competitor], games_before + played, wins_before + wins[competitor], position,
                self.finished_at[position - self.first_position],
            )
        return standings


def ledger_last_rows(ladder: Ladder, match_ids: list[int]) -> dict[int, list[EntryRow]]:
    """Per match: the ledger's rows of the last revision it was rated at (not the reversals)."""
    if not match_ids:
        return {}
    rows = RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch, match_id__in=match_ids, reversal=False)
    by_revision: dict[int, dict[int, list[EntryRow]]] = {}
    for row in raw_rows(rows.order_by("position", "seat").values_list(*ENTRY_ROW_FIELDS)):
        by_revision.setdefault(row[1], {}).setdefault(row[REVISION], []).append(row)
    return {match_id: revisions[max(revisions)] for match_id, revisions in by_revision.items()}


def book_with(
    ladder: Ladder, params: rmath.Params, ratings: dict[str, RatingRow], revisable: Iterable[int] = ()
) -> LadderBook:
    """A book holding these current ratings (the competitors the next matches touch; `ladder_pending`)."""
    return LadderBook(
        params, {competitor: Standing(*row) for competitor, row in ratings.items()}, ladder.position, revisable
    )


@contextmanager
def entries_writer(ladder: Ladder, epoch: int) -> Iterator[Callable[[list[EntryRow]], None]]:
    """Appends ledger rows as they are handed to it, until the block ends.

    A rebuild hands over each match's rows as it rates them: on PostgreSQL each batch streams
    into one COPY, so the server stores and indexes them on its own core while the rating goes on.
    """
    created = connection.ops.adapt_datetimefield_value(timezone.now())
    ladder_id = ladder.pk
    with _inserter(RatingEntry, _ENTRY_COLUMNS) as insert:
        yield lambda rows: insert([(ladder_id, epoch, *row, created) for row in rows])


def entries_write(ladder: Ladder, epoch: int, rows: list[EntryRow]) -> None:
    """Appends ledger rows (see `entries_writer`)."""
    with entries_writer(ladder, epoch) as write:
        write(rows)


@contextmanager
def _inserter(model: type[models.Model], columns: tuple[str, ...]) -> Iterator[Callable[[Iterable[tuple]], None]]:
    """Inserts raw rows (datetimes already adapted with `connection.ops.adapt_datetimefield_value`),
    `_INSERT_BATCH` at a time: PostgreSQL's binary COPY, elsewhere `executemany`.

    Not `bulk_create`: a rebuild writes a row per player per match, and building and preparing
    a model instance for each would cost a good part of what the rating itself costs. Binary,
    not text: psycopg formats a text row several times slower than it packs a binary one. In
    batches, not as they come: handed to the COPY match by match while rating, the rows cost
    the rebuild about a twentieth more CPU (the rating loop and the server keep taking turns).
    """
    batch: list[tuple] = []
    with connection.cursor() as cursor, _sender(cursor, model, columns) as send:

        def insert(rows: Iterable[tuple]) -> None:
            batch.extend(rows)
            if len(batch) >= _INSERT_BATCH:
                send(batch)
                batch.clear()

        yield insert
        if batch:
            send(batch)


@contextmanager
def _sender(cursor, model: type[models.Model], columns: tuple[str, ...]) -> Iterator[Callable[[list[tuple]], None]]:
    """Sends lists of rows: into one binary COPY on PostgreSQL, with `executemany` elsewhere."""
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    if connection.vendor != "postgresql":
        sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        yield lambda rows: cursor.executemany(sql, rows)
        return
    with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN (FORMAT BINARY)") as copy:
        copy.set_types([_postgres_type(model, column) for column in columns])

        def copy_rows(rows: list[tuple]) -> None:
            for row in rows:
                copy.write_row(row)

        yield copy_rows


def _postgres_type(model: type[models.Model], column: str) -> str:
    """A column's type as psycopg names it for a binary COPY: `varchar(64)` is `varchar`."""
    field = next(f for f in model._meta.concrete_fields if f.column == column)
    db_type = field.db_type(connection)
    assert db_type is not None  # a concrete field's column has a type
    return db_type.split("(", 1)[0]


def book_append(ladder: Ladder, book: LadderBook, last: MatchKey | None) -> None:
    """Writes what the book rated (the incremental path): its ledger rows, the current ratings of
    the competitors it rated, its team results and the ladder's tracking (`ladder_track`).

    On PostgreSQL in one statement, whatever the number of matches: each row is an element of a
    few arrays, sent in binary, rather than a model instance or a statement of its own (a task
    that rates one match spent more on its writes' statements than on the rating).
    """
    if connection.vendor != "postgresql":
        entries_write(ladder, ladder.epoch, book.rows)
        ratings_upsert(ladder, book)
        ladder_track(ladder, book.position, last)
        return
    _tracked(ladder, book.position, last)
    entries = list(zip(*book.rows)) or [()] * len(ENTRY_ROW_FIELDS)
    standings = book.rated_standings()
    competitors = sorted(standings)
    kinds = [rmath.competitor_kind(competitor) for competitor in competitors]
    teams = book.team_results
    params = {
        "ladder": ladder.pk, "epoch": ladder.epoch, "created": timezone.now(),
        **{f"e_{name}": list(column) for name, column in zip(ENTRY_ROW_FIELDS, entries)},
        "r_competitor": competitors, "r_kind": kinds,
        "r_user_id": [_user_id(competitor, kind) for competitor, kind in zip(competitors, kinds)],
        **{f"r_{name}": [getattr(standings[c], name) for c in competitors] for name in _STANDING_FIELDS},
        **{f"t_{name}": [getattr(team, name) for team in teams] for name in _TEAM_FIELDS},
        "position": ladder.position, "last_finished_at": ladder.last_finished_at, "last_match_id": ladder.last_match_id,
    }
    with connection.cursor() as cursor, psycopg.Cursor(cursor.connection) as binary_cursor:
        binary_cursor.execute(_APPEND_SQL, params, binary=True)


_STANDING_FIELDS = ("mu", "sigma", "games", "wins", "last_position", "last_played_at")
_TEAM_FIELDS = ("match_id", "players", "cards_left", "won", "finished_at")


def _unnest(prefix: str, columns: dict[str, str]) -> str:
    """unnest(%(prefix_column)s::type[], ...) AS prefix(column, ...): rows from one array per column."""
    arrays = ", ".join(f"%({prefix}_{name})s::{kind}[]" for name, kind in columns.items())
    return f"unnest({arrays}) AS {prefix}({', '.join(columns)})"


_APPEND_SQL = f"""
WITH entries AS (
    INSERT INTO {RatingEntry._meta.db_table} (ladder_id, epoch, {", ".join(ENTRY_ROW_FIELDS)}, created)
    SELECT %(ladder)s, %(epoch)s, e.*, %(created)s FROM {_unnest("e", {
        "position": "integer", "match_id": "bigint", "competitor": "text", "kind": "text", "user_id": "bigint",
        "seat": "smallint", "rank": "smallint", "mu_before": "float8", "sigma_before": "float8",
        "mu_after": "float8", "sigma_after": "float8", "revision": "smallint", "reversal": "boolean",
    })}
), ratings AS (
    INSERT INTO {Rating._meta.db_table} (ladder_id, competitor, kind, user_id, {", ".join(_STANDING_FIELDS)})
    SELECT %(ladder)s, r.* FROM {_unnest("r", {
        "competitor": "text", "kind": "text", "user_id": "bigint", "mu": "float8", "sigma": "float8",
        "games": "integer", "wins": "integer", "last_position": "integer", "last_played_at": "timestamptz",
    })}
    ON CONFLICT (ladder_id, competitor) DO UPDATE SET
        {", ".join(f"{name} = EXCLUDED.{name}" for name in _STANDING_FIELDS)}
), teams AS (
    INSERT INTO {TeamResult._meta.db_table} (ladder_id, {", ".join(_TEAM_FIELDS)})
    SELECT %(ladder)s, t.* FROM {_unnest("t", {
        "match_id": "bigint", "players": "smallint", "cards_left": "integer", "won": "boolean",
        "finished_at": "timestamptz",
    })}
    ON CONFLICT DO NOTHING
)
UPDATE {Ladder._meta.db_table}
SET position = %(position)s, last_finished_at = %(last_finished_at)s, last_match_id = %(last_match_id)s
WHERE id = %(ladder)s
"""


def ratings_upsert(ladder: Ladder, book: LadderBook) -> None:
    """Writes the current ratings of the competitors the book rated (the incremental path)."""
    standings = book.rated_standings()
    rows = [_rating(ladder, competitor, standings[competitor]) for competitor in sorted(standings)]
    Rating.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["ladder", "competitor"],
        update_fields=["mu", "sigma", "games", "wins", "last_position", "last_played_at"],
    )
    TeamResult.objects.bulk_create([_team(ladder, r) for r in book.team_results], ignore_conflicts=True)


def ratings_replace(ladder: Ladder, book: LadderBook) -> None:
    """Replaces every current rating and team result of the ladder (the rebuild path).

    When the recomputed ratings are the stored ones (a rebuild that reproduces a ledger the
    incremental task kept up with), their rows are left as they are.
    """
    standings = book.standings_before | book.rated_standings()
    ratings = {
        competitor: (kind, _user_id(competitor, kind), s.mu, s.sigma, s.games, s.wins, s.last_position, s.last_played_at)
        for competitor, s in standings.items()
        for kind in (rmath.competitor_kind(competitor),)
    }
    stored = Rating.objects.filter(ladder=ladder).values_list(*_RATING_COLUMNS[1:])
    if {row[0]: row[1:] for row in stored} != ratings:
        Rating.objects.filter(ladder=ladder).delete()
        adapt = connection.ops.adapt_datetimefield_value
        with _inserter(Rating, _RATING_COLUMNS) as insert:
            insert((ladder.pk, competitor, *row[:-1], adapt(row[-1])) for competitor, row in sorted(ratings.items()))
    TeamResult.objects.filter(ladder=ladder).delete()
    TeamResult.objects.bulk_create([_team(ladder, r) for r in book.team_results], batch_size=2000)


def _user_id(competitor: str, kind: str) -> int | None:
    return int(competitor[len(rmath.USER_PREFIX):]) if kind == Kind.USER else None


def _rating(ladder: Ladder, competitor: str, standing: Standing) -> Rating:
    kind = rmath.competitor_kind(competitor)
    return Rating(
        ladder=ladder, competitor=competitor, kind=kind, user_id=_user_id(competitor, kind),
        mu=standing.mu, sigma=standing.sigma, games=standing.games, wins=standing.wins,
        last_position=standing.last_position, last_played_at=standing.last_played_at,
    )


def _team(ladder: Ladder, result: TeamResult) -> TeamResult:
    result.ladder = ladder
    return result


def ladder_track(ladder: Ladder, position: int, last: MatchKey | None) -> None:
    """Moves the ladder's tracking: the next position, and the latest match-end key rated."""
    _tracked(ladder, position, last)
    ladder.save(update_fields=["epoch", "position", "last_finished_at", "last_match_id"])


def _tracked(ladder: Ladder, position: int, last: MatchKey | None) -> None:
    ladder.position = position
    if last is not None and (ladder.last_finished_at is None or last > (ladder.last_finished_at, ladder.last_match_id)):
        ladder.last_finished_at, ladder.last_match_id = last


def statistics_refresh() -> None:
    """After a bulk write on PostgreSQL: fresh planner statistics, so the tasks' lookups that
    follow use the indexes (stale ones, taken when the table was small, make it scan)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {RatingEntry._meta.db_table}, {Rating._meta.db_table}")


def progress_none(items: list, total: int) -> Iterable:
    return items


Progress = Callable[[list, int], Iterable]
