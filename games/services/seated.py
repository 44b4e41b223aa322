"""The server's own tables (tournament rounds, demos): every seat given, started at once, many in
one batch; a sealed one keeps its hidden information until `matches_unseal`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import notify, schedule, store
from games.bots import BOTS
from games.chain import seed_sha256
from games.engines import ENGINES, Engine
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    Event,
    Match,
    Seat,
    Shuffle,
    SpectatorPolicy,
)
from games.services._append import NewEvent, _chain, _state_cached
from games.services.deals import _contributions, _deal, _match_started_fact
from games.signals import matches_unsealed
from server.errors import bad_request


@dataclass(frozen=True)
class SeatedTable:
    """A table of the server's own (`matches_start_seated`): who sits where (a user, or a bot's
    name), its options (a duplicate deal's deck among them), whether it stays sealed, and the
    committed shuffle its seated people added to, if any."""

    seats: list[User | str]
    options: dict = field(default_factory=dict)
    sealed: bool = False
    shuffle: Shuffle | None = None


def match_start_seated(
    *,
    game: str,
    seats: list[User | str],
    created_by: User,
    options: dict | None = None,
    rated: bool = True,
    clock_seconds: int | None = None,
    sealed: bool = False,
    spectator_policy: str = SpectatorPolicy.OPEN,
    spectator_delay_moves: int = SPECTATOR_DELAY_MOVES_DEFAULT,
) -> Match:
    """Opens a table with every seat given (a user, or a bot's name) and starts it at once.

    For the server's own tables (tournament rounds, demos): nobody joins or leaves. A `sealed`
    match keeps its hidden information after it ends, until `matches_unseal`. A batch of one
    (`matches_start_seated`), so a table started alone and one of a round start the same way.
    """
    table = SeatedTable(seats=seats, options=options or {}, sealed=sealed)
    started = matches_start_seated(
        game=game, tables=[table], created_by=created_by, rated=rated, clock_seconds=clock_seconds,
        spectator_policy=spectator_policy, spectator_delay_moves=spectator_delay_moves,
    )
    return started[0]


@dataclass
class _SeatedStart:
    """A seated table worked out before anything is written: its match (running, with its
    head), seats, first event rows (`match_id` filled in once the match has its id) and state."""

    match: Match
    seats: list[Seat]
    rows: list[store.NewRow]
    state: Any


def matches_start_seated(
    *,
    game: str,
    tables: list[SeatedTable],
    created_by: User,
    rated: bool = True,
    clock_seconds: int | None = None,
    spectator_policy: str = SpectatorPolicy.OPEN,
    spectator_delay_moves: int = SPECTATOR_DELAY_MOVES_DEFAULT,
) -> list[Match]:
    """Opens and starts many tables of the server's own at once (a tournament round); returns
    their matches in the order of `tables`.

    Each table ends as `match_start_seated` alone would leave it (fields, seats, events, deadline,
    tasks), but the batch is one transaction of a few statements whatever its size: the matches,
    their seats and their events are each one insert, and what follows the commit (states cached,
    sockets told, the first bot moves and clocks queued) is sent once for the batch. Every table
    is checked before anything is written: one refused table refuses the batch. A few hundred
    tables a call keep each transaction short (a round of 5,000 is a few calls).
    """
    engine = ENGINES.get(game)
    started_at = timezone.now()
    shuffle_ids = [table.shuffle.pk for table in tables if table.shuffle is not None]
    given = _contributions(shuffle_ids) if shuffle_ids else {}
    starts = [
        _seated_start(engine, game, table, created_by=created_by, rated=rated, clock_seconds=clock_seconds,
                      started_at=started_at, given=given[table.shuffle.pk] if table.shuffle else {})
        for table in tables
    ]
    for start in starts:  # every table of the batch watched alike (a tournament's policy)
        start.match.spectator_policy, start.match.spectator_delay_moves = spectator_policy, spectator_delay_moves
    if not starts:
        return []
    with transaction.atomic():
        matches = Match.objects.bulk_create([start.match for start in starts])
        Seat.objects.bulk_create([seat for start in starts for seat in start.seats])
        for start in starts:
            start.rows = [row._replace(match_id=start.match.pk) for row in start.rows]
        store.events_insert([row for start in starts for row in start.rows])
        followups: list = []
        for start in starts:
            # The deadline names the decision after the opening; its tasks carry the match's id, so
            # it is worked out now that the match has one, and written in one update for the batch.
            seats = {seat.seat: seat for seat in start.seats}
            start.match.deadline, due = schedule.after_change(start.match, start.state, start.match.last_seq, seats=seats)
            followups += due
        store.deadlines_set([(match.pk, match.deadline) for match in matches if match.deadline is not None])
        transaction.on_commit(lambda: _seated_started(starts, followups))
    return matches


def _seated_start(
    engine: Engine | None,
    game: str,
    table: SeatedTable,
    *,
    created_by: User,
    rated: bool,
    clock_seconds: int | None,
    started_at: datetime,
    given: dict[int, str],
) -> _SeatedStart:
    """One table of `matches_start_seated`, checked (ApplicationError, or the engine's ValueError for
    bad options) and worked out in memory: its deal (`_deal`) and its opening events."""
    seats = table.seats
    if engine is None or not engine.min_players <= len(seats) <= engine.max_players:
        raise bad_request("bad_player_count", _("%(game)s cannot seat %(count)s players.") % {"game": game, "count": len(seats)})
    unknown = [who for who in seats if isinstance(who, str) and who not in BOTS.get(game, {})]
    if unknown:
        raise bad_request("unknown_bot", _("%(game)s has no bot %(bot)s.") % {"game": game, "bot": repr(unknown[0])})
    deal = _deal(table.shuffle, [who.pk if isinstance(who, User) else None for who in seats], given)
    match = Match(
        game=game, players=len(seats), options=table.options, rated=rated, created_by=created_by,
        clock_seconds=clock_seconds, sealed=table.sealed, status=Match.Status.RUNNING, started_at=started_at,
        seed=deal.seed, seed_sha256=seed_sha256(deal.seed), shuffle=table.shuffle,
    )
    seat_rows = [
        Seat(match=match, seat=i, user=who, bot="") if isinstance(who, User) else Seat(match=match, seat=i, bot=who)
        for i, who in enumerate(seats)
    ]
    opening = engine.start(len(seats), deal.deck_seed, table.options)
    new = [NewEvent(Event.Kind.TABLE, _match_started_fact(match, seat_rows, deal), "server")]
    new += [NewEvent(Event.Kind.ENGINE, event, "server") for event in opening]
    rows = _chain(match, new)  # sets the match's head: last_seq, head_hash
    return _SeatedStart(match, seat_rows, rows, engine.replay(opening))


def _seated_started(starts: list[_SeatedStart], followups: list) -> None:
    """A committed batch of new tables: each state to this process's cache, a hint to each table's
    sockets (handed to the publisher at once), then every first bot move and clock."""
    for start in starts:
        _state_cached(start.match.pk, 0, start.rows, start.state)
    notify.matches_changed([(start.match.pk, start.match.last_seq) for start in starts])
    schedule.followups_send(followups)


def matches_unseal(*, match_ids: list[int]) -> None:
    """Makes sealed matches' hidden information public once they end (a duplicate round is over)."""
    Match.objects.filter(pk__in=match_ids, sealed=True).update(sealed=False)
    matches_unsealed.send(sender=Match, match_ids=match_ids)
