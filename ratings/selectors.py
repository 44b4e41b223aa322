"""Reads of ratings: the matches to rate (from the event log), leaderboards, histories, predictions."""
from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

import psycopg
from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, F, OuterRef, Q, QuerySet, Subquery, TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext as _

from accounts.models import User
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.selectors import people_who_moved, result_ranks
from ratings import math as rmath
from ratings.models import Kind, Ladder, Pool, Rating, RatingEntry, TeamResult
from ratings.shapes import HistoryRow, LeaderboardRow
from server.errors import bad_request, not_found
from server.limits import whole_number
from tournaments.selectors import TableResultChange

# A board lists every competitor with at least this many rated games unless asked for more
# (`min_games`): one, so a new player is on the board after their first rated match.
DEFAULT_MIN_GAMES = 1
# A rating is provisional, and marked so on every board, until this many rated games. A count
# of games rather than a bound on σ: players can see it and tell when the mark will go, it means
# the same in every game and at every table size (σ falls faster at a table of five than of
# two), and the uncertainty σ measures already pulls a new player down the μ − 3σ order.
PROVISIONAL_GAMES = 5

MatchKey = tuple[datetime, int]  # (finished_at, match id): match-end order
_ID_CHUNK = 900  # ids per IN (...) list: under SQLite's smallest limit on query parameters


def game_params(game: str) -> rmath.Params:
    """The game's TrueSkill parameters: the package's defaults, overridden by `RATINGS_TRUESKILL[game]`."""
    return rmath.Params.from_dict(getattr(settings, "RATINGS_TRUESKILL", {}).get(game, {}))


def game_check(game: str) -> None:
    if game not in ENGINES:
        raise bad_request("unknown_game", _("No game is called %(game)s.") % {"game": repr(game)}, games=sorted(ENGINES))


def is_cooperative(game: str) -> bool:
    """Whether the table plays against the game itself.

    Each outcome says so, but predictions and the best-results board must know before any match:
    an engine's `cooperative` attribute where it has one, else the one cooperative game (The Game).
    """
    return bool(getattr(ENGINES[game], "cooperative", game == "the-game"))


# --- the matches to rate, from the event log --------------------------------------------------


class RatableMatch(NamedTuple):
    """A finished, rated match as ratings need it: read from its `MatchFinished` fact and seats.

    A named tuple, like `rmath.Table`: a rebuild builds one per match of the history.
    """

    match_id: int
    finished_at: datetime
    pool: str
    table: rmath.Table
    cards_left: int | None  # cooperative games: the team's result (lower is better)
    revision: int = 0  # n: the match rated again with the n-th result its tournament gave it since

    @property
    def key(self) -> MatchKey:
        return (self.finished_at, self.match_id)


def match_revisions(match: RatableMatch, changes: Sequence[TableResultChange]) -> list[RatableMatch]:
    """The match's revisions 1, 2, ...: each change of its table's result by its tournament that
    rates differently from the result rated before it (a change to the same ranks is none).

    How a change is rated: `rmath.revised_table` (shared with `verify_league`). The best-results
    board keeps the cards the team left in play.
    """
    revisions: list[RatableMatch] = []
    table = match.table
    for change in changes:
        changed = rmath.revised_table(table, change.ranks, change.team_score, change.forfeited_seats)
        if changed is not None and changed != table:
            table = changed
            revisions.append(match._replace(table=table, cards_left=None, revision=len(revisions) + 1))
    return revisions


def revised_matches(matches: list[RatableMatch], changes: dict[int, list[TableResultChange]]) -> list[RatableMatch]:
    """Every revision of these matches (`match_revisions`), match by match in the order given."""
    return [revision for m in matches if m.match_id in changes for revision in match_revisions(m, changes[m.match_id])]


def ratable_matches(
    game: str, *, after: MatchKey | None = None, upto: MatchKey | None = None, match_ids: list[int] | None = None
) -> list[RatableMatch]:
    """Every finished, rated match of `game` (both pools), in match-end order, from its MatchFinished fact.

    Left out: a sealed match, until its duplicate deal is done (its rating change would tell the
    tables still playing the deal how it went: issue #39; `ratings.receivers` rates it when it is
    unsealed, at the ladder's next position); a match where a person never played a move of their
    own (`games.selectors.match_summary` says why), decided from its MovePlayed facts, so the task
    and a rebuild leave out the same ones.
    `after` / `upto` bound the match-end key (exclusive / inclusive); `match_ids` picks matches.
    """
    if after is None and upto is None and match_ids is None:
        # The whole history: one pass over each table, joined to its matches.
        scopes = [Q(match__game=game, match__rated=True, match__sealed=False, match__status=Match.Status.FINISHED)]
    else:
        # A task's few matches: ids first, so their facts and seats are found through the index
        # on each table's match column rather than by scanning every MatchFinished fact.
        matches = Match.objects.filter(game=game, rated=True, sealed=False, status=Match.Status.FINISHED)
        if after is not None:
            matches = matches.filter(Q(finished_at__gt=after[0]) | Q(finished_at=after[0], pk__gt=after[1]))
        if upto is not None:
            matches = matches.filter(Q(finished_at__lt=upto[0]) | Q(finished_at=upto[0], pk__lte=upto[1]))
        if match_ids is not None:
            matches = matches.filter(pk__in=match_ids)
        ids = list(matches.values_list("pk", flat=True))
        scopes = [Q(match__in=ids[i:i + _ID_CHUNK]) for i in range(0, len(ids), _ID_CHUNK)]
    to_datetime = _datetime_converter()
    facts: list[tuple[datetime, int, str]] = []
    for scope in scopes:
        rows = (
            Event.objects.filter(scope, kind=Event.Kind.TABLE, type="MatchFinished")
            .annotate(outcome=Cast("data__outcome", TextField()))  # JSON text: decoded below, all at once
            .order_by("match__finished_at", "match_id")
            .values_list("match_id", "match__finished_at", "outcome")
        )
        facts += [(to_datetime(finished_at), match_id, outcome) for match_id, finished_at, outcome in raw_rows(rows)]
    if len(scopes) > 1:
        facts.sort(key=lambda fact: fact[:2])  # match-end order, as each scope came
    # Seats and moves after the facts: a match committed in between brings rows that are not used,
    # never a fact without its seats and moves (they commit no later than its MatchFinished fact).
    moved: set[tuple[int, int]] = set()
    for scope in scopes:
        moved |= people_who_moved(Event.objects.filter(scope))
    never_moved: set[int] = set()
    competitors: dict[int, list[str]] = {}  # per match, in seat order
    abandoned_seats: dict[int, set[int]] = {}
    with_bot: set[int] = set()
    user_competitors: dict[int, str] = {}  # one key string per person, however often they played
    for scope in scopes:
        seat_rows = Seat.objects.filter(scope).values_list("match_id", "seat", "user_id", "bot", "abandoned")
        for match_id, seat, user_id, bot, abandoned in raw_rows(seat_rows.order_by("match_id", "seat")):
            if user_id is not None:
                competitor = user_competitors.get(user_id)
                if competitor is None:
                    competitor = user_competitors[user_id] = rmath.user_competitor(user_id)
                if (match_id, user_id) not in moved:
                    never_moved.add(match_id)
            else:
                competitor = rmath.bot_competitor(bot)
                with_bot.add(match_id)
            seated = competitors.get(match_id)
            if seated is None:
                competitors[match_id] = [competitor]
            else:
                seated.append(competitor)
            if abandoned:
                abandoned_seats.setdefault(match_id, set()).add(seat)
    outcomes = _json_values([outcome for _, _, outcome in facts])
    return [
        _ratable(
            match_id, finished_at, outcome, competitors[match_id], abandoned_seats.get(match_id), match_id in with_bot
        )
        for (finished_at, match_id, _), outcome in zip(facts, outcomes)
        if match_id not in never_moved
    ]


def raw_rows(queryset: QuerySet) -> list[tuple]:
    """A `values_list` query's rows straight from the database cursor, without per-row converters.

    The rebuild reads a row per match, per seat and per ledger row: Django's per-row conversions
    would cost a good part of what rating the match costs. Callers convert what they need (JSON
    texts, SQLite's datetimes). On PostgreSQL (with USE_TZ) the rows come in binary, through a
    cursor of psycopg's own on the same connection (Django's cursors bind parameters on the
    client, which gets text only): numbers and datetimes arrive as stored instead of as text to
    parse, and the datetimes in the session's time zone, which Django sets to its own.
    """
    sql, params = queryset.query.sql_with_params()
    return sql_rows(sql, params)


def sql_rows(sql: str, params: Sequence[Any]) -> list[tuple]:
    """A statement's rows as `raw_rows` gives them (binary on PostgreSQL, see there)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql" and settings.USE_TZ:
            with psycopg.Cursor(cursor.connection) as binary_cursor:
                binary_cursor.execute(sql, params, binary=True)
                return binary_cursor.fetchall()
        cursor.execute(sql, params)
        return cursor.fetchall()


def _json_values(texts: list[str]) -> list[dict]:
    """JSON texts decoded in one call (a call per text costs as much again as the decoding)."""
    return json.loads(f"[{','.join(texts)}]")


def _datetime_converter():
    """Raw datetimes as Django would return them (SQLite gives text; PostgreSQL a datetime)."""
    convert = getattr(connection.ops, "convert_datetimefield_value", None)
    if convert is None:
        return lambda value: value
    return lambda value: convert(value, None, connection)


def _ratable(
    match_id: int, finished_at: datetime, outcome: dict, competitors: list[str], abandoned: set[int] | None,
    has_bot: bool,
) -> RatableMatch:
    cooperative = bool(outcome.get("cooperative"))
    # Without an abandoned seat `result_ranks` gives back the outcome's own competition ranks
    # (shared/ENGINE.md), so only matches with one pay for the call.
    ranks = result_ranks(outcome["ranks"], abandoned) if abandoned else outcome["ranks"]
    table = rmath.Table(tuple(competitors), tuple(ranks), cooperative, bool(outcome.get("won")))
    pool = Pool.BOTS if has_bot else Pool.PEOPLE
    cards_left = int(outcome["scores"][0]) if cooperative else None
    return RatableMatch(match_id, finished_at, pool, table, cards_left)


# --- the incremental task's reads: one statement each, however many matches are pending -----------

_MATCH, _SEAT, _EVENT = Match._meta.db_table, Seat._meta.db_table, Event._meta.db_table
_LADDER, _ENTRY, _RATING = Ladder._meta.db_table, RatingEntry._meta.db_table, Rating._meta.db_table
_USER_ACTOR = "user:"  # a person's actor is `user:<id>` (games.services.user_actor_of)

# The statements below ask their questions of one match at a time as scalar subqueries, each
# through an index on the match: PostgreSQL may turn an EXISTS into a hash of every matching
# row of the table (every move ever played) or a join over it, a cost that grows with the
# history instead of with the matches at hand.

# Whether a seat has no person at it (a bot's): the match is then in the bots' pool, as in `ratable_matches`.
_WITH_BOT = f"(SELECT 1 FROM {_SEAT} b WHERE b.match_id = m.id AND b.user_id IS NULL LIMIT 1) IS NOT NULL"

# The seat's competitor key, as `rmath.user_competitor` / `rmath.bot_competitor` spell it.
_COMPETITOR = (
    f"CASE WHEN s.user_id IS NULL THEN '{rmath.BOT_PREFIX}' || s.bot "
    f"ELSE '{rmath.USER_PREFIX}' || CAST(s.user_id AS TEXT) END"
)

# `games.selectors.people_who_moved` for one seat: a MovePlayed fact whose actor is `user:<id>`,
# the id read as `whole_number` reads it (ASCII digits, leading zeros allowed). It stops at the
# person's first move, a few events in, rather than reading every move of the match (a match
# of ten has some two hundred). 1 for a bot's seat (a bot plays its own moves); NULL: never moved.
_MOVED = (
    f"CASE WHEN s.user_id IS NULL THEN 1 ELSE (SELECT 1 FROM {_EVENT} e WHERE e.match_id = m.id "
    f"AND e.kind = '{Event.Kind.TABLE}' AND e.type = 'MovePlayed' AND e.actor LIKE '{_USER_ACTOR}%%' "
    f"AND ltrim(substr(e.actor, {len(_USER_ACTOR) + 1}), '0') = CAST(s.user_id AS TEXT) LIMIT 1) END"
)

# The MatchFinished fact: the match's last event, looked up by its seq; should a fact have been
# appended after it, found among the match's events.
_FINISHED = f"f.match_id = m.id AND f.kind = '{Event.Kind.TABLE}' AND f.type = 'MatchFinished'"
_FINISHED_FACT = (
    f"COALESCE((SELECT CAST(f.data AS TEXT) FROM {_EVENT} f WHERE {_FINISHED} AND f.seq = m.last_seq), "
    f"(SELECT CAST(f.data AS TEXT) FROM {_EVENT} f WHERE {_FINISHED} LIMIT 1))"
)

_RATING_COLUMNS = "{0}.mu, {0}.sigma, {0}.games, {0}.wins, {0}.last_position, {0}.last_played_at"

# A cooperative game's pseudo-player at the match's player count (`rmath.game_competitor`).
_GAME_JOIN = (
    f"LEFT JOIN {_RATING} g ON g.ladder_id = %s AND g.competitor = "
    f"'{rmath.GAME_PREFIX}' || CAST((SELECT COUNT(*) FROM {_SEAT} c WHERE c.match_id = m.id) AS TEXT)"
)

# In the ledger: a row of the match in the current epoch of a ladder of its game. Its rows are
# all in its own ladder, so (epoch, match), the prefix of the ledger's unique key, finds them;
# with the ladder's id as well the planner may walk the ladder's history index instead.
_HEAD_SQL = f"""
SELECT m.game, m.status, m.rated AND NOT m.sealed, m.finished_at, {_WITH_BOT},
       (SELECT 1 FROM {_LADDER} l JOIN {_ENTRY} r ON r.epoch = l.epoch AND r.match_id = m.id
        WHERE l.game = m.game LIMIT 1) IS NOT NULL
FROM {_MATCH} m WHERE m.id = %s
"""

# A rating as `Standing` takes it: mu, sigma, games, wins, last position, last played at.
RatingRow = tuple[float, float, int, int, int, "datetime | None"]


class MatchHead(NamedTuple):
    """What the task needs of a match before it takes a lock."""

    game: str
    pool: str
    ratable: bool  # finished, rated and not sealed (the never-moved rule is applied with the others)
    finished_at: datetime | None
    in_ledger: bool  # rated already, in its ladder's current epoch


def match_head(match_id: int) -> MatchHead | None:
    """The match's game, pool and status, and whether its ladder has rated it: one statement."""
    rows = sql_rows(_HEAD_SQL, [match_id])
    if not rows:
        return None
    game, status, rated, finished_at, with_bot, in_ledger = rows[0]
    return MatchHead(
        game, Pool.BOTS if with_bot else Pool.PEOPLE, status == Match.Status.FINISHED and bool(rated),
        _datetime_converter()(finished_at) if finished_at is not None else None, bool(in_ledger),
    )


class LadderPending(NamedTuple):
    """The matches a ladder has to rate, and the current rating of the competitors they touch."""

    matches: list[RatableMatch]  # in match-end order
    ratings: dict[str, RatingRow]  # only the competitors that have one


def ladder_pending(
    ladder: Ladder, *, after: MatchKey | None = None, upto: MatchKey | None = None, match_id: int | None = None
) -> LadderPending:
    """The ladder's ratable matches with a match-end key after `after` and up to `upto` (either
    unbounded when None), or `match_id` alone; with their competitors' current ratings. One
    statement, through the index on match end.

    The rules are `ratable_matches`' (the same facts, seats, ranks and never-moved rule), so the
    task and a rebuild rate the same matches the same way; `ratable_matches` reads a whole
    history in passes over each table, this reads a few matches whole, one after the other.
    """
    cooperative = is_cooperative(ladder.game)
    scope: list[str] = []
    scope_params: list[Any] = []
    if match_id is not None:
        scope, scope_params = ["m.id = %s"], [match_id]
    adapt = connection.ops.adapt_datetimefield_value
    if after is not None:
        scope.append("m.finished_at >= %s AND (m.finished_at > %s OR m.id > %s)")
        scope_params += [adapt(after[0]), adapt(after[0]), after[1]]
    if upto is not None:
        scope.append("m.finished_at <= %s AND (m.finished_at < %s OR m.id <= %s)")
        scope_params += [adapt(upto[0]), adapt(upto[0]), upto[1]]
    sql = f"""
        SELECT m.id, m.finished_at, {_FINISHED_FACT}, s.seat, s.user_id, s.bot, s.abandoned,
               {_MOVED},
               {_RATING_COLUMNS.format("r")}{", " + _RATING_COLUMNS.format("g") if cooperative else ""}
        FROM {_MATCH} m
        JOIN {_SEAT} s ON s.match_id = m.id
        LEFT JOIN {_RATING} r ON r.ladder_id = %s AND r.competitor = {_COMPETITOR}
        {_GAME_JOIN if cooperative else ""}
        WHERE m.game = %s AND m.status = %s AND m.rated = %s AND m.sealed = %s
          AND {"" if ladder.pool == Pool.BOTS else "NOT "}({_WITH_BOT})
          {"".join(f" AND {condition}" for condition in scope)}
        ORDER BY m.finished_at, m.id, s.seat
    """
    params = [
        ladder.pk, *([ladder.pk] if cooperative else []), ladder.game, Match.Status.FINISHED, True, False, *scope_params
    ]
    return _pending(ladder, sql_rows(sql, params), cooperative)


def _pending(ladder: Ladder, rows: list[tuple], cooperative: bool) -> LadderPending:
    """`ladder_pending`'s rows (one per seat, in match-end and seat order) as matches and ratings."""
    to_datetime = _datetime_converter()
    ratings: dict[str, RatingRow] = {}
    looked_up: set[str] = set()  # competitors whose rating the statement looked for
    # Per match: id, end, MatchFinished fact, competitors in seat order, abandoned seats, and its
    # pseudo-player's rating columns (cooperative games: the same on every seat row).
    facts: list[tuple[int, datetime, str | None, list[str], set[int], Sequence[Any]]] = []
    never_moved: set[int] = set()
    competitors: list[str] = []
    abandoned_seats: set[int] = set()
    for match_id, finished_at, fact, seat, user_id, bot, abandoned, moved, *found in rows:
        if not facts or facts[-1][0] != match_id:
            competitors, abandoned_seats = [], set()
            facts.append((match_id, to_datetime(finished_at), fact, competitors, abandoned_seats, found[6:]))
        competitor = rmath.user_competitor(user_id) if user_id is not None else rmath.bot_competitor(bot)
        competitors.append(competitor)
        looked_up.add(competitor)
        if abandoned:
            abandoned_seats.add(seat)
        if moved is None:
            never_moved.add(match_id)
        _found(ratings, competitor, found[:6], to_datetime)
    if cooperative:
        for _, _, _, seated, _, game_columns in facts:
            game_competitor = rmath.game_competitor(len(seated))  # the statement counted the same seats
            looked_up.add(game_competitor)
            _found(ratings, game_competitor, game_columns, to_datetime)
    kept = [fact for fact in facts if fact[2] is not None and fact[0] not in never_moved]
    outcomes = _json_values([text for _, _, text, *_ in kept if text is not None])  # all of them (kept)
    matches = [
        _ratable(match_id, finished_at, data["outcome"], seated, abandoned_seats or None, ladder.pool == Pool.BOTS)
        for (match_id, finished_at, _, seated, abandoned_seats, _), data in zip(kept, outcomes)
    ]
    # A cooperative outcome in a game not known to be cooperative: its pseudo-player was not
    # looked for above (never so for the games there are; kept so no rating starts afresh).
    missing = {rmath.game_competitor(len(m.table.seats)) for m in matches if m.table.cooperative} - looked_up
    if missing:
        missing_rows = Rating.objects.filter(ladder=ladder, competitor__in=missing).values_list(
            "competitor", "mu", "sigma", "games", "wins", "last_position", "last_played_at"
        )
        ratings.update({
            competitor: (mu, sigma, games, wins, last_position, last_played_at)
            for competitor, mu, sigma, games, wins, last_position, last_played_at in missing_rows
        })
    return LadderPending(matches, ratings)


def _found(ratings: dict[str, RatingRow], competitor: str, columns: Sequence[Any], to_datetime) -> None:
    mu, sigma, games, wins, last_position, last_played_at = columns
    if mu is not None and competitor not in ratings:
        ratings[competitor] = (mu, sigma, games, wins, last_position, to_datetime(last_played_at) if last_played_at else None)


def ladder_get(game: str, pool: str) -> Ladder | None:
    return Ladder.objects.filter(game=game, pool=pool).first()


RatingStep = tuple[int, int]  # (match id, revision): one match rated, or rated again


def ledger_positions(ladder: Ladder) -> dict[RatingStep, int]:
    """(match id, revision) → position, for every rating in the ladder's current epoch."""
    rows = RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch).values_list("match_id", "revision", "position")
    return {(match_id, revision): position for match_id, revision, position in raw_rows(rows)}


def rating_order(matches: list[RatableMatch], positions: dict[RatingStep, int]) -> list[RatableMatch]:
    """The order ratings are computed in: the ledger's positions, then for the rest the matches
    in match-end order, then their revisions (first revisions first, and so on).

    `matches` come in match-end order, and a match enters the ledger in match-end order unless it
    arrived late (its transaction committed after a later-ending one was rated), and a revision
    when its tournament changed the result: the ledger keeps that order so a rebuild reproduces
    exactly what the incremental task wrote.
    """
    def key(match: RatableMatch) -> tuple[int, int]:
        position = positions.get((match.match_id, match.revision))
        return (0, position) if position is not None else (1, match.revision)

    return sorted(matches, key=key)


# --- competitors ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompetitorRef:
    competitor: str
    kind: str
    user: User | None
    name: str


def competitor_ref(game: str, ref: str) -> CompetitorRef:
    """A username (or user id), `bot:<name>`, or `game:<players>` for a cooperative game's pseudo-player."""
    if ref.startswith(rmath.BOT_PREFIX) and len(ref) > len(rmath.BOT_PREFIX):
        return CompetitorRef(ref, Kind.BOT, None, ref[len(rmath.BOT_PREFIX):])
    if ref.startswith(rmath.GAME_PREFIX):
        players = whole_number(ref[len(rmath.GAME_PREFIX):])
        if not is_cooperative(game) or players is None:
            raise not_found("player_not_found", _("%(game)s has no pseudo-player %(ref)s.") % {"game": game, "ref": repr(ref)})
        return CompetitorRef(ref, Kind.GAME, None, _game_name(game, players))
    user = User.objects.filter(username=ref).first()
    if user is None and (user_id := whole_number(ref)) is not None:
        user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise not_found("player_not_found", _("There is no player %(ref)s.") % {"ref": repr(ref)})
    return CompetitorRef(rmath.user_competitor(user.pk), Kind.USER, user, user.shown_name)


def rated_as(*, user_id: int | None, bot: str) -> tuple[str, Pool]:
    """The competitor a player is rated as, and the pool of the ladder it is looked up in: a person
    in the people's, a bot (`bot`, its name) in the bots'. Tournaments seed their fields with it."""
    if user_id is not None:
        return rmath.user_competitor(user_id), Pool.PEOPLE
    return rmath.bot_competitor(bot), Pool.BOTS


def user_refs(user_ids: list[int]) -> list[CompetitorRef]:
    """People by id, in that order, as `table_prediction` takes them."""
    users = User.objects.in_bulk(user_ids)
    return [CompetitorRef(rmath.user_competitor(uid), Kind.USER, users[uid], users[uid].shown_name) for uid in user_ids]


def _game_name(game: str, players: int) -> str:
    return f"{game} ({players} player{'s' if players != 1 else ''})"


def competitor_name(game: str, competitor: str, user: User | None) -> str:
    if user is not None:
        return user.shown_name
    kind, _, rest = competitor.partition(":")
    return _game_name(game, int(rest)) if kind == Kind.GAME else rest


def pool_for(ref: CompetitorRef, pool: str | None) -> str:
    """The pool asked for, else the one the competitor belongs on (bots on the bots' board)."""
    if pool is not None:
        return pool
    return Pool.BOTS if ref.kind == Kind.BOT else Pool.PEOPLE


# --- leaderboards -----------------------------------------------------------------------------

# Who each pool's board lists: the people's board, people (The Game's pseudo-players are not
# competitors to rank: their ratings are under best results); the bots' pool, the people who
# played there and the bots they played, side by side. Never an empty tuple.
_BOARD_KINDS: dict[str, tuple[str, ...]] = {Pool.PEOPLE: (Kind.USER,), Pool.BOTS: (Kind.USER, Kind.BOT)}


def board_kinds(pool: str, kind: str | None = None) -> tuple[str, ...]:
    """The kinds of competitor on the pool's board, or only `kind` (empty: the board has none of it)."""
    listed = _BOARD_KINDS[pool]
    return listed if kind is None else tuple(k for k in listed if k == kind)


def _board(ladder_id: int, kinds: tuple[str, ...], min_games: int) -> QuerySet[Rating]:
    """The board's rows, unordered: by the ladder's id and the kinds, so the planner can walk an
    index in the board's order (`rating_board` for one kind, `rating_board_people_and_bots` for both)."""
    if not kinds:
        return Rating.objects.none()
    board = Rating.objects.filter(ladder_id=ladder_id)
    board = board.filter(kind=kinds[0]) if len(kinds) == 1 else board.filter(kind__in=kinds)
    if min_games > 1:
        # Every rating has at least one game (a row is written by a rated match), so a minimum of
        # one filters nothing: leaving it out lets a place be counted from the index alone.
        board = board.filter(games__gte=min_games)
    return board


def leaderboard_ids(game: str, pool: str, *, min_games: int, kind: str | None = None) -> QuerySet:
    """A ladder's board as rating ids, best μ − 3σ first: people on the people's board; people
    and bots on the bots' pool's board (or one `kind` of them); provisional players included.

    Ids, to be paged and then read by `ratings_in_order`: a page is found by walking the board
    index alone (an index-only scan: no table row is read for the rows skipped to reach a deep
    page), where a page of whole rows joined to their users had the planner sort the ladder.
    """
    game_check(game)
    ladder = ladder_get(game, pool)
    if ladder is None:
        return Rating.objects.none().values_list("pk", flat=True)
    # By the ladder's id, not a join on game and pool: the planner then walks the board index in
    # order and stops after a page, instead of sorting the whole ladder.
    return _board(ladder.pk, board_kinds(pool, kind), min_games).order_by("-conservative", "id").values_list(
        "pk", flat=True
    )


def ratings_in_order(ids: list[int]) -> list[Rating]:
    """The ratings of a page of `leaderboard_ids`, in its order (a rating gone since is left out)."""
    found = Rating.objects.select_related("user").in_bulk(ids)
    return [found[rating_id] for rating_id in ids if rating_id in found]


def leaderboard_position(rating: Rating, pool: str, *, min_games: int, kind: str | None = None) -> int | None:
    """The rating's place on the board `leaderboard_ids` gives for the same arguments (1 is top), or
    None when that board does not list it (another kind, or below `min_games`).

    Provisional ratings are numbered like any other: the board is one ordering, and a place
    that skipped them would not be the row's place on the page.
    """
    kinds = board_kinds(pool, kind)
    if rating.kind not in kinds or rating.games < min_games:
        return None
    # Above: a better μ − 3σ, or the same and a smaller id. Written with `conservative >= ` on its
    # own, which the board index takes as the bound of its walk: only the rows above are read.
    above = _board(rating.ladder_id, kinds, min_games).filter(
        Q(conservative__gte=rating.conservative), Q(conservative__gt=rating.conservative) | Q(id__lt=rating.pk)
    )
    return above.count() + 1


def leaderboard_row(
    game: str, pool: str, competitor: str, *, min_games: int, kind: str | None = None
) -> LeaderboardRow | None:
    """A competitor's row with its place on the board (None: no rating in that pool)."""
    rating = (
        Rating.objects.filter(ladder__game=game, ladder__pool=pool, competitor=competitor).select_related("user").first()
    )
    if rating is None:
        return None
    return rating_row(game, rating, leaderboard_position(rating, pool, min_games=min_games, kind=kind))


def detail_pool(game: str, ref: CompetitorRef, pool: str | None) -> str:
    """The pool a player's rating is read from: the one asked for; else `pool_for`'s, except for a
    person who has only ever played at tables with a bot in this game, whose one rating is there."""
    chosen = pool_for(ref, pool)
    if pool is not None or ref.kind != Kind.USER:
        return chosen
    pools = set(Rating.objects.filter(ladder__game=game, competitor=ref.competitor).values_list("ladder__pool", flat=True))
    return Pool.BOTS if pools == {Pool.BOTS} else chosen


def rating_detail(game: str, ref: CompetitorRef, pool: str, *, min_games: int) -> dict[str, Any]:
    """A competitor's current rating and place on the pool's board; `not_rated` (404) before its
    first rated match there."""
    row = leaderboard_row(game, pool, ref.competitor, min_games=min_games)
    if row is None:
        raise not_found(
            "not_rated",
            _("%(name)s has no %(pool)s rating in %(game)s yet.") % {"name": ref.name, "pool": pool, "game": game},
        )
    return {**row, "pool": pool}


def user_ratings(user_id: int) -> list[dict[str, Any]]:
    """A person's rating in every game and pool they are rated in, each with its place on the
    pool's board (people first, then against bots): the profile's cards."""
    # By user id, which has an index of its own (the competitor key leads no index).
    ratings = Rating.objects.filter(user_id=user_id, kind=Kind.USER).select_related("ladder", "user")
    order = {slug: index for index, slug in enumerate(ENGINES)}
    pools = list(Pool.values)
    rows = [
        {
            "game": r.ladder.game,
            "pool": r.ladder.pool,
            **rating_row(r.ladder.game, r, leaderboard_position(r, r.ladder.pool, min_games=DEFAULT_MIN_GAMES)),
        }
        for r in ratings
        if r.ladder.game in order
    ]
    return sorted(rows, key=lambda row: (order[row["game"]], pools.index(row["pool"])))


def user_board_games(user_id: int, game: str, pool: str) -> int | None:
    """How many rated games a person has on one game's board of a pool (None: not rated there);
    the board page tells a player missing from one board that their games count on the other."""
    return (
        Rating.objects.filter(user_id=user_id, kind=Kind.USER, ladder__game=game, ladder__pool=pool)
        .values_list("games", flat=True)
        .first()
    )


def is_provisional(games: int) -> bool:
    """Whether a rating is still provisional (see `PROVISIONAL_GAMES`)."""
    return games < PROVISIONAL_GAMES


def games_to_settle(games: int) -> int:
    """How many more rated games until a rating is no longer provisional (0: settled)."""
    return max(PROVISIONAL_GAMES - games, 0)


def shown_rating(mu: float, conservative: float, games: int) -> float:
    """The rating a page shows for a competitor: the skill estimate μ while provisional (shown with
    a "?"), then μ − 3σ, never below 0.

    μ − 3σ starts at 0 (μ = 3σ) and a new player's first losses take it below zero: a number
    that reads as a verdict when it mostly measures how little is known yet. The board is still
    ordered by μ − 3σ; this is only what is written beside a name.
    """
    return mu if is_provisional(games) else max(conservative, 0.0)


def rating_row(game: str, rating: Rating, position: int | None) -> LeaderboardRow:
    return {
        "position": position,
        "competitor": rating.competitor,
        "kind": rating.kind,
        "user": rating.user_id,
        "name": competitor_name(game, rating.competitor, rating.user),
        "mu": rating.mu,
        "sigma": rating.sigma,
        "rating": rating.conservative,
        "games": rating.games,
        "wins": rating.wins,
        "provisional": is_provisional(rating.games),
        "games_to_settle": games_to_settle(rating.games),
        "shown_rating": shown_rating(rating.mu, rating.conservative, rating.games),
        "last_played_at": rating.last_played_at,
    }


# --- history and head-to-head -------------------------------------------------------------------


def rating_history(game: str, pool: str, competitor: str) -> QuerySet[RatingEntry]:
    """A competitor's ledger rows in the ladder's current epoch, oldest first (a revised match's
    reversal row, then its new rating, at the revision's position)."""
    ladder = ladder_get(game, pool)
    if ladder is None:
        return RatingEntry.objects.none()
    return (
        RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch, competitor=competitor)
        .select_related("match")
        .order_by("position", "-reversal")
    )


def history_row(entry: RatingEntry) -> HistoryRow:
    return {
        "match": entry.match_id,
        "position": entry.position,
        "finished_at": entry.match.finished_at,
        "players": entry.match.players,
        "seat": entry.seat,
        "rank": entry.rank,
        "mu_before": entry.mu_before,
        "sigma_before": entry.sigma_before,
        "mu_after": entry.mu_after,
        "sigma_after": entry.sigma_after,
        "rating_after": entry.mu_after - 3 * entry.sigma_after,
        "revision": entry.revision,
        "reversal": entry.reversal,
    }


def head_to_head(game: str, pool: str, competitor: str, *, opponent: str | None = None) -> QuerySet:
    """Per opponent: matches shared, and how often the competitor ranked above, below or level.

    In a cooperative game the others at the table are partners: `wins` counts matches won
    together, `losses` the rest, `draws` is 0.
    """
    ladder = ladder_get(game, pool)
    if ladder is None:
        return RatingEntry.objects.none().values("competitor")
    standing = _standing_entries(ladder)
    mine = standing.filter(competitor=competitor)
    my_rank = Subquery(mine.filter(match=OuterRef("match")).values("rank")[:1])
    others = (
        standing.filter(match__in=mine.values("match"))
        .exclude(competitor=competitor)
        .exclude(kind=Kind.GAME)
        .annotate(my_rank=my_rank)
    )
    if opponent is not None:
        others = others.filter(competitor=opponent)
    if is_cooperative(game):
        wins = Count("id", filter=Q(my_rank=1, rank=1))
        losses = Count("id", filter=~Q(my_rank=1, rank=1))
        draws = Count("id", filter=Q(pk__isnull=True))
    else:
        wins = Count("id", filter=Q(my_rank__lt=F("rank")))
        losses = Count("id", filter=Q(my_rank__gt=F("rank")))
        draws = Count("id", filter=Q(my_rank=F("rank")))
    return (
        others.values("competitor", "user_id", "user__username", "user__display_name")
        .annotate(matches=Count("id"), wins=wins, losses=losses, draws=draws)
        .order_by("-matches", "competitor")
    )


def _standing_entries(ladder: Ladder) -> QuerySet[RatingEntry]:
    """The ledger rows that stand: each competitor's rating of a match at its last revision (not
    the reversals, nor a rating a later revision took back)."""
    entries = RatingEntry.objects.filter(ladder=ladder, epoch=ladder.epoch)
    later = entries.filter(
        match=OuterRef("match"), competitor=OuterRef("competitor"), revision__gt=OuterRef("revision")
    )
    return entries.filter(reversal=False).exclude(Exists(later))


def head_to_head_row(game: str, row: dict) -> dict[str, Any]:
    name = row["user__display_name"] or row["user__username"] if row["user_id"] else None
    return {
        "opponent": row["competitor"],
        "user": row["user_id"],
        "name": name or competitor_name(game, row["competitor"], None),
        "matches": row["matches"],
        "wins": row["wins"],
        "losses": row["losses"],
        "draws": row["draws"],
    }


# --- predictions --------------------------------------------------------------------------------


def current_pairs(game: str, pool: str, competitors: list[str]) -> dict[str, tuple[rmath.Pair, int]]:
    """(μ, σ) and games played of the competitors that have a rating in the ladder."""
    rows = Rating.objects.filter(ladder__game=game, ladder__pool=pool, competitor__in=competitors)
    return {c: ((mu, sigma), games) for c, mu, sigma, games in rows.values_list("competitor", "mu", "sigma", "games")}


def table_prediction(game: str, refs: list[CompetitorRef], *, pool: str | None = None) -> dict[str, Any]:
    """A proposed table's quality (trueskill.quality) and each seat's chance to finish first.

    Cooperative: the team against the game's pseudo-player for that many players, and the
    team's chance to win. Tournaments seed with this (and with `users_by_rating`).
    """
    game_check(game)
    engine = ENGINES[game]
    cooperative = is_cooperative(game)
    low = engine.min_players if cooperative else max(2, engine.min_players)
    if not low <= len(refs) <= engine.max_players:
        raise bad_request(
            "bad_player_count",
            _("%(game)s takes %(low)s to %(max_players)s players, not %(count)s.")
            % {"game": game, "low": low, "max_players": engine.max_players, "count": len(refs)},
        )
    keys = [ref.competitor for ref in refs]
    if len(set(keys)) != len(keys):
        raise bad_request("duplicate_player", _("Each player sits once at a proposed table."))
    if pool is None:
        pool = Pool.BOTS if any(ref.kind == Kind.BOT for ref in refs) else Pool.PEOPLE
    params = game_params(game)
    env = rmath.environment(params)
    house = rmath.game_competitor(len(refs))
    known = current_pairs(game, pool, keys + ([house] if cooperative else []))
    default = ((params.mu, params.sigma), 0)
    pairs = [known.get(key, default)[0] for key in keys]
    if cooperative:
        groups, weights = rmath.table_groups(pairs, cooperative=True, house=known.get(house, default)[0])
    else:
        groups, weights = rmath.table_groups(pairs, cooperative=False)
    chances = rmath.win_probabilities(env, groups, weights)
    no_chances: list[float | None] = [None] * len(refs)
    players = [
        {
            "player": ref.user.username if ref.user else ref.competitor,
            "competitor": ref.competitor,
            "name": ref.name,
            "mu": pair[0],
            "sigma": pair[1],
            "rating": pair[0] - 3 * pair[1],
            "games": known.get(ref.competitor, default)[1],
            "win_probability": None if cooperative else chance,
        }
        for ref, pair, chance in zip(refs, pairs, chances if not cooperative else no_chances)
    ]
    return {
        "game": game,
        "pool": pool,
        "cooperative": cooperative,
        "quality": rmath.quality(env, groups, weights),
        "players": players,
        "team_win_probability": chances[0] if cooperative else None,
    }


def users_by_rating(game: str, user_ids: list[int]) -> list[int]:
    """`user_ids` strongest first by μ − 3σ in the people's ladder (unrated last, by id): for seeding."""
    params = game_params(game)
    unrated = params.mu - 3 * params.sigma
    rows = dict(
        Rating.objects.filter(
            ladder__game=game, ladder__pool=Pool.PEOPLE, user_id__in=user_ids
        ).values_list("user_id", "conservative")
    )
    return sorted(user_ids, key=lambda uid: (-rows.get(uid, unrated), uid))


# --- the cooperative game's best results ---------------------------------------------------------


def best_results(game: str, pool: str, *, players: int | None = None) -> QuerySet[TeamResult]:
    """Team results, fewest cards left first (then the earliest), per player count."""
    game_check(game)
    if not is_cooperative(game):
        raise not_found(
            "not_cooperative",
            _("%(game)s is not cooperative: it has a leaderboard, not best results.") % {"game": game},
        )
    ladder = ladder_get(game, pool)
    # The stubs refuse None here, which Django reads as IS NULL: no ladder yet, no results.
    results = TeamResult.objects.filter(ladder_id=ladder.pk if ladder else None)  # type: ignore[misc]
    if players is not None:
        results = results.filter(players=players)
    return results.order_by("players", "cards_left", "finished_at", "match_id")


def best_result_rows(results: list[TeamResult]) -> list[dict[str, Any]]:
    seats: dict[int, list[dict]] = {}
    rows = Seat.objects.filter(match_id__in=[r.match_id for r in results]).select_related("user").order_by("seat")
    for seat in rows:
        seats.setdefault(seat.match_id, []).append(
            {"user": seat.user_id, "name": seat.user.shown_name if seat.user else seat.bot, "bot": seat.bot}
        )
    return [
        {
            "match": r.match_id,
            "players": r.players,
            "cards_left": r.cards_left,
            "won": r.won,
            "finished_at": r.finished_at,
            "team": seats.get(r.match_id, []),
        }
        for r in results
    ]


def game_ratings(game: str, pool: str) -> list[dict[str, Any]]:
    """The cooperative game's own rating per player count (how hard it plays)."""
    rows = Rating.objects.filter(ladder__game=game, ladder__pool=pool, kind=Kind.GAME)
    return sorted(
        (
            {
                "players": int(r.competitor[len(rmath.GAME_PREFIX):]),
                "competitor": r.competitor,
                "mu": r.mu,
                "sigma": r.sigma,
                "rating": r.conservative,
                "games": r.games,
                "wins": r.wins,
            }
            for r in rows
        ),
        key=lambda row: row["players"],
    )
