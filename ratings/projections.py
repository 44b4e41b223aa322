"""Writing the ledger and its read models (current ratings, team results) for one ladder.

`LadderBook` holds a ladder's ratings in memory and rates matches one after the other; the
incremental task feeds it the few matches it rates, a rebuild the whole history. Both then write
through the functions below, so their rows can only differ if their inputs do. The ladder row's
(position, last_finished_at, last_match_id) track how far the ledger has got.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from django.db import connection, models
from django.utils import timezone

from ratings import math as rmath
from ratings.models import Kind, Ladder, Rating, RatingEntry, TeamResult
from ratings.selectors import MatchKey, RatableMatch

# One ledger row before it is written:
# (position, match_id, competitor, kind, user_id, seat, rank, mu_before, sigma_before, mu_after, sigma_after)
EntryRow = tuple[int, int, str, str, "int | None", "int | None", int, float, float, float, float]

_ENTRY_COLUMNS = (
    "ladder_id", "epoch", "position", "match_id", "competitor", "kind", "user_id", "seat", "rank",
    "mu_before", "sigma_before", "mu_after", "sigma_after", "created",
)
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
    """A ladder's current ratings in memory, rating matches in the order they are given."""

    def __init__(self, params: rmath.Params, standings: dict[str, Standing], position: int) -> None:
        self.env = rmath.environment(params)
        self.standings = standings
        # (mu, sigma) per competitor: what `rate_table` reads, kept beside `standings` so rating a
        # match builds nothing per competitor it does not touch.
        self.pairs: dict[str, rmath.Pair] = {c: (s.mu, s.sigma) for c, s in standings.items()}
        self.position = position
        self.team_results: list[TeamResult] = []
        self.touched: set[str] = set()
        self._identity: dict[str, tuple[str, int | None]] = {}  # competitor -> (kind, user id)

    def rate(self, match: RatableMatch) -> list[EntryRow]:
        """Rates one match at the next position; returns its ledger rows."""
        position = self.position = self.position + 1
        match_id, finished_at = match.match_id, match.finished_at
        pairs, standings, identities = self.pairs, self.standings, self._identity
        rows: list[EntryRow] = []
        for competitor, seat, rank, before, after in rmath.rate_table(self.env, match.table, pairs):
            identity = identities.get(competitor)
            if identity is None:
                kind = rmath.competitor_kind(competitor)
                identity = identities[competitor] = (kind, _user_id(competitor, kind))
            rows.append((position, match_id, competitor, *identity, seat, rank, *before, *after))
            pairs[competitor] = after
            standing = standings.get(competitor)
            if standing is None:
                standing = standings[competitor] = Standing(*after)
            standing.mu, standing.sigma = after
            standing.games += 1
            standing.wins += rank == 1
            standing.last_position = position
            standing.last_played_at = finished_at
            self.touched.add(competitor)
        if match.cards_left is not None:
            self.team_results.append(
                TeamResult(
                    match_id=match.match_id, players=len(match.table.seats), cards_left=match.cards_left,
                    won=match.table.won, finished_at=match.finished_at,
                )
            )
        return rows


def book_for(ladder: Ladder, params: rmath.Params, competitors: Iterable[str]) -> LadderBook:
    """A book holding the current ratings of `competitors` (the ones the next matches touch)."""
    rows = Rating.objects.filter(ladder=ladder, competitor__in=list(set(competitors)))
    standings = {
        r.competitor: Standing(r.mu, r.sigma, r.games, r.wins, r.last_position, r.last_played_at) for r in rows
    }
    return LadderBook(params, standings, ladder.position)


def competitors_of(matches: Iterable[RatableMatch]) -> set[str]:
    found: set[str] = set()
    for match in matches:
        found.update(match.table.seats)
        if match.table.cooperative:
            found.add(rmath.game_competitor(len(match.table.seats)))
    return found


def entries_write(ladder: Ladder, epoch: int, rows: list[EntryRow]) -> None:
    """Appends ledger rows: PostgreSQL's COPY, elsewhere `executemany` in batches.

    Not `bulk_create`: a rebuild writes a row per player per match, and building and preparing
    a model instance for each would cost a good part of what the rating itself costs.
    """
    created = connection.ops.adapt_datetimefield_value(timezone.now())
    _insert(RatingEntry, _ENTRY_COLUMNS, ((ladder.pk, epoch, *row, created) for row in rows))


def _insert(model: type[models.Model], columns: tuple[str, ...], rows: Iterable[tuple]) -> None:
    """Inserts raw rows (datetimes already adapted with `connection.ops.adapt_datetimefield_value`)."""
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
            return
        sql = f"INSERT INTO {table} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"
        batch: list[tuple] = []
        for row in rows:
            batch.append(row)
            if len(batch) == _INSERT_BATCH:
                cursor.executemany(sql, batch)
                batch = []
        if batch:
            cursor.executemany(sql, batch)


def ratings_upsert(ladder: Ladder, book: LadderBook) -> None:
    """Writes the touched competitors' current ratings (the incremental path)."""
    rows = [_rating(ladder, competitor, book.standings[competitor]) for competitor in sorted(book.touched)]
    Rating.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["ladder", "competitor"],
        update_fields=["mu", "sigma", "games", "wins", "last_position", "last_played_at"],
    )
    TeamResult.objects.bulk_create([_team(ladder, r) for r in book.team_results], ignore_conflicts=True)


def ratings_replace(ladder: Ladder, book: LadderBook) -> None:
    """Replaces every current rating and team result of the ladder (the rebuild path)."""
    Rating.objects.filter(ladder=ladder).delete()
    TeamResult.objects.filter(ladder=ladder).delete()
    _insert(
        Rating,
        _RATING_COLUMNS,
        (
            (ladder.pk, competitor, kind, _user_id(competitor, kind), s.mu, s.sigma, s.games, s.wins,
             s.last_position, connection.ops.adapt_datetimefield_value(s.last_played_at))
            for competitor, s in sorted(book.standings.items())
            for kind in (rmath.competitor_kind(competitor),)
        ),
    )
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
    ladder.position = position
    if last is not None and (ladder.last_finished_at is None or last > (ladder.last_finished_at, ladder.last_match_id)):
        ladder.last_finished_at, ladder.last_match_id = last
    ladder.save(update_fields=["epoch", "position", "last_finished_at", "last_match_id"])


def statistics_refresh() -> None:
    """After a bulk write on PostgreSQL: fresh planner statistics, so the tasks' lookups that
    follow use the indexes (stale ones, taken when the table was small, make it scan)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {RatingEntry._meta.db_table}, {Rating._meta.db_table}")


def progress_none(items: list, total: int) -> Iterable:
    return items


Progress = Callable[[list, int], Iterable]
