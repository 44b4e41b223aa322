"""Operations on tables: create, join, leave, seat a bot, start, and play a move.

Every write happens in one transaction; everything that leaves it (broadcasts, tasks) is
sent from `transaction.on_commit` and carries ids only.
"""
from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Exists, F, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from accounts.tokens import key_hash
from games import frames, notify, schedule, store
from games.bots import BOTS, STRONG_BOT
from games.chain import canonical_json, canonical_time, event_hash, seed_sha256
from games.engines import ENGINES, Engine, IllegalMove
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    Event,
    Invitation,
    Match,
    MoveReceipt,
    Seat,
    Shuffle,
    ShuffleContribution,
    SpectatorPolicy,
)
from games.move_messages import move_message
from games.selectors import deck_chosen_by_creator
from games.shuffle import DERIVATION, contribution_valid, contributions_canonical, deck_seed
from games.signals import invitation_addressed, matches_unsealed
from games.state import state_at_head, state_cache
from server import metrics
from server.errors import ApplicationError, bad_request, conflict, english_or, forbidden, match_not_found, not_found

# Engine codes that mean the request itself is malformed (400); every other refusal is a 409.
_MAX_MOVE_BYTES = 4096
MAX_APPEND_ATTEMPTS = 50


@dataclass(frozen=True)
class NewEvent:
    kind: str
    data: dict
    actor: str


def user_actor(user: User) -> str:
    return user_actor_of(user.pk)


def user_actor_of(user_id: int) -> str:
    return f"user:{user_id}"


# --- tables -----------------------------------------------------------------------------


def match_create(
    *,
    user: User,
    game: str,
    players: int,
    options: dict | None = None,
    rated: bool = True,
    clock_seconds: int | None = None,
    contributed_shuffle: bool = False,
    private: bool = False,
    spectator_policy: str = SpectatorPolicy.OPEN,
    spectator_delay_moves: int = SPECTATOR_DELAY_MOVES_DEFAULT,
) -> Match:
    """Opens a table and seats its creator in seat 0; `clock_seconds` limits each decision.
    `spectator_policy` (`spectator_policy_checked`) says who watches it while it runs.

    A `private` table stays out of the lobby; people sit down through its invitation links.
    With `contributed_shuffle` the server commits to its seed now (its SHA-256 is public from
    here) and the deal follows from it and what the seated players send before the start.
    Locks the creator's user row, so that two requests at once cannot both pass the cap on
    open tables.
    """
    engine = ENGINES.get(game)
    if engine is None:
        raise bad_request("unknown_game", _("No game is called %(game)s.") % {"game": repr(game)}, games=sorted(ENGINES))
    if not engine.min_players <= players <= engine.max_players:
        raise bad_request(
            "bad_player_count",
            _("%(game)s takes %(min_players)s to %(max_players)s players, not %(players)s.")
            % {"game": game, "min_players": engine.min_players, "max_players": engine.max_players, "players": players},
        )
    options = options or {}
    if rated and private:
        raise ApplicationError(
            "private_table_rated",
            _("A private table is casual: open it unrated (rated: false). Its result stays out of ratings and the league log."),
        )
    if rated and "deck" in options:
        raise bad_request("deck_in_rated_match", _("A chosen deck is only allowed in a casual (unrated) match."))
    if contributed_shuffle and "deck" in options:
        raise bad_request("deck_with_contributed_shuffle", _("A chosen deck is not shuffled, so nobody can add to its shuffle."))
    try:
        engine.start(players, 0, options)  # checks the options now rather than at the start
    except ValueError as exc:
        raise bad_request("bad_options", english_or(str(exc), _("The game does not take those options."))) from None
    spectator_policy, spectator_delay_moves = spectator_policy_checked(spectator_policy, spectator_delay_moves)
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        _check_open_tables(user)
        shuffle = shuffles_commit(1)[0] if contributed_shuffle else None
        match = Match.objects.create(
            game=game, players=players, options=options, rated=rated, created_by=user, clock_seconds=clock_seconds,
            shuffle=shuffle, seed_sha256=shuffle.seed_sha256 if shuffle else "", private=private,
            spectator_policy=spectator_policy, spectator_delay_moves=spectator_delay_moves,
        )
        Seat.objects.create(match=match, seat=0, user=user)
    return match


def spectator_policy_checked(policy: Any, delay_moves: Any) -> tuple[str, int]:
    """A table's (or a tournament's) spectator policy and delay as given, checked: one of
    `SpectatorPolicy` (400 `bad_spectator_policy`) and, for a delayed one, a whole number of moves
    from `SPECTATOR_DELAY_MOVES_MIN` to `SPECTATOR_DELAY_MOVES_MAX` (400 `bad_spectator_delay`;
    another policy keeps the default, which nothing reads)."""
    if policy not in SpectatorPolicy.values:
        raise bad_request(
            "bad_spectator_policy",
            _("The spectator policy is one of %(policies)s.") % {"policies": ", ".join(SpectatorPolicy.values)},
            policies=SpectatorPolicy.values,
        )
    if policy != SpectatorPolicy.DELAYED:
        return policy, SPECTATOR_DELAY_MOVES_DEFAULT
    if isinstance(delay_moves, bool) or not isinstance(delay_moves, int) or not (
        SPECTATOR_DELAY_MOVES_MIN <= delay_moves <= SPECTATOR_DELAY_MOVES_MAX
    ):
        raise bad_request(
            "bad_spectator_delay",
            _("Spectators of a delayed table are %(least)s to %(most)s moves behind.")
            % {"least": SPECTATOR_DELAY_MOVES_MIN, "most": SPECTATOR_DELAY_MOVES_MAX},
            least=SPECTATOR_DELAY_MOVES_MIN, most=SPECTATOR_DELAY_MOVES_MAX,
        )
    return policy, delay_moves


def _check_open_tables(user: User) -> None:
    """Refuses a table past `MAX_OPEN_TABLES_PER_USER` of the user's own still open.

    Counted by creator, not by seat: leaving one's own table does not close it, so counting
    seats would let a user open and leave tables without end. Tables others opened are theirs
    to count; the server's own (`match_start_seated`) start at once and are never open.
    """
    cap = settings.MAX_OPEN_TABLES_PER_USER
    if Match.objects.filter(created_by=user, status=Match.Status.OPEN).count() >= cap:
        raise conflict(
            "too_many_open_tables",
            _("You have %(cap)s open tables, the most one may have; start one or wait for it to fill first.") % {"cap": cap},
            max=cap,
        )


def _check_running_bot_tables(user: User) -> None:
    """Refuses to start a table of bots and no other person past `MAX_RUNNING_BOT_TABLES_PER_USER`
    of the user's own such tables still running (409 `too_many_bot_tables`).

    Every bot move is a task on the worker that also moves tournament bots and runs the clocks:
    open, leave, seat bots and start, repeated, would queue them without end (issue #39). A table
    with another person is theirs too, and a table with no bot (a game of solitaire) queues no bot
    move: neither is counted. The user's row is locked, so starts sent at once wait for each
    other's count.
    """
    User.objects.select_for_update().filter(pk=user.pk).first()
    cap = settings.MAX_RUNNING_BOT_TABLES_PER_USER
    other_person = Seat.objects.filter(match=OuterRef("pk"), user__isnull=False).exclude(user=user)
    bot = Seat.objects.filter(match=OuterRef("pk")).exclude(bot="")
    # Tournament tables are the organiser's by `created_by` but the server's to start: not counted.
    running = Match.objects.filter(created_by=user, status=Match.Status.RUNNING, tournament_table__isnull=True)
    if running.filter(Exists(bot)).exclude(Exists(other_person)).count() >= cap:
        raise conflict(
            "too_many_bot_tables",
            _("You have %(cap)s tables running with no other person, the most one may have; finish one first.")
            % {"cap": cap},
            max=cap,
        )


def shuffles_commit(count: int) -> list[Shuffle]:
    """The server draws and commits to the seeds of contributed shuffles, before anyone sends one."""
    seeds = [secrets.randbits(62) for _ in range(count)]
    return Shuffle.objects.bulk_create([Shuffle(seed=seed, seed_sha256=seed_sha256(seed)) for seed in seeds])


def shuffle_contribution_save(*, shuffle_id: int, user: User, value: str) -> None:
    """Keeps a person's contribution (the last one sent counts); the caller checked they may send it.

    The shuffle's row is locked, as the deal locks it before reading the contributions: one sent
    while its table starts is either dealt with or refused, never taken and then left out.
    """
    if not contribution_valid(value):
        raise bad_request("bad_contribution", _("A contribution is 64 lowercase hex digits (32 random bytes)."))
    with transaction.atomic():
        Shuffle.objects.select_for_update().filter(pk=shuffle_id).first()
        if Match.objects.filter(shuffle_id=shuffle_id).exclude(status=Match.Status.OPEN).exists():
            raise conflict("shuffle_dealt", _("The cards have been dealt: the shuffle takes no more contributions."))
        ShuffleContribution.objects.update_or_create(shuffle_id=shuffle_id, user=user, defaults={"value": value})


def match_shuffle_contribute(*, match_id: int, user: User, value: str) -> None:
    """A seated person adds to an open table's shuffle."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.shuffle_id is None:
            raise conflict("shuffle_not_contributed", _("This table's deal is the server's alone: it takes no contributions."))
        if not Seat.objects.filter(match=match, user=user).exists():
            raise forbidden("not_seated", _("You do not sit at this table."))
        shuffle_contribution_save(shuffle_id=match.shuffle_id, user=user, value=value)


@dataclass(frozen=True)
class _Deal:
    """How a match is dealt: the match's seed (its SHA-256 published, revealed at the end), the seed
    the engine shuffles with, and MatchStarted's record of a contributed shuffle."""

    seed: int
    deck_seed: int
    shuffle: dict | None = None


def _deal(shuffle: Shuffle | None, seat_users: list[int | None], given: dict[int, str]) -> _Deal:
    """A new seed from `secrets`, or `shuffle`'s committed one mixed with the contributions `given`
    (user id to value) of the people seated now: one who left the table does not count."""
    if shuffle is None:
        seed = secrets.randbits(62)
        return _Deal(seed, seed)
    by_seat = {seat: given[user] for seat, user in enumerate(seat_users) if user in given}
    contributions = contributions_canonical(by_seat)
    record = {"derivation": DERIVATION, "contributions": contributions}
    return _Deal(shuffle.seed, deck_seed(shuffle.seed, contributions), record)


def _contributions(shuffle_ids: list[int]) -> dict[int, dict[int, str]]:
    """Each shuffle's contributions, user id to value, in one read, the shuffles locked (see
    `shuffle_contribution_save`) until the caller's transaction that deals ends: `match_start`'s,
    or the one a tournament opens a round's tables in."""
    found: dict[int, dict[int, str]] = {shuffle_id: {} for shuffle_id in shuffle_ids}
    with transaction.atomic():
        list(Shuffle.objects.select_for_update().filter(pk__in=shuffle_ids).order_by("pk").values_list("pk", flat=True))
        rows = ShuffleContribution.objects.filter(shuffle_id__in=shuffle_ids).values_list("shuffle_id", "user_id", "value")
        for shuffle_id, user_id, value in rows:
            found[shuffle_id][user_id] = value
    return found


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
            start.match.deadline = schedule.after_change(
                start.match, start.state, start.match.last_seq, seats=seats, followups=followups
            )
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


def _open_match_for_update(match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    if match.status != Match.Status.OPEN:
        raise conflict("match_not_open", _("The match has already started."))
    return match


def _free_seat(match: Match, seat: int | None) -> int:
    taken = set(Seat.objects.filter(match=match).values_list("seat", flat=True))
    if seat is None:
        free = [s for s in range(match.players) if s not in taken]
        if not free:
            raise conflict("table_full", _("Every seat is taken."))
        return free[0]
    if not 0 <= seat < match.players:
        raise bad_request("bad_seat", _("Seats run from 0 to %(last)s.") % {"last": match.players - 1})
    if seat in taken:
        raise conflict("seat_taken", _("Seat %(seat)s is taken.") % {"seat": seat})
    return seat


def match_join(
    *, match_id: int, user: User, seat: int | None = None, confirm_chosen_deck: bool = False, invited: bool = False
) -> Seat:
    """Sits a person at an open table, in the given seat or the first free one.

    At a table whose creator chose the deck (and so may know every hand) only with
    `confirm_chosen_deck`: the joiner says they know. At a private table only through an
    invitation: its link (`invitation_accept`), or one addressed to this person, in its seat.
    """
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.private and not invited and match.created_by_id != user.pk:
            addressed = _invitation_addressed_to(match, user)
            if addressed is None or (addressed.seat is not None and seat not in (None, addressed.seat)):
                raise forbidden("private_table", _("This table is private: sit down through an invitation link."))
            seat = addressed.seat if addressed.seat is not None else seat
        if deck_chosen_by_creator(match) and match.created_by_id != user.pk and not confirm_chosen_deck:
            raise conflict(
                "chosen_deck_not_confirmed",
                _(
                    "The table's creator chose the deck, so they may know every hand. "
                    'Send "confirm_chosen_deck": true to sit down anyway.'
                ),
            )
        if Seat.objects.filter(match=match, user=user).exists():
            raise conflict("already_seated", _("You already sit at this table."))
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
        return Seat.objects.create(match=match, seat=_free_seat(match, seat), user=user)


def _invitation_addressed_to(match: Match, user: User) -> Invitation | None:
    """A live invitation of this table addressed to this person (its seat first), if any."""
    live = Invitation.objects.filter(match=match, invitee=user, revoked_at__isnull=True, expires_at__gt=timezone.now())
    return live.order_by(F("seat").asc(nulls_last=True), "pk").first()


INVITATION_SECONDS_MAX = 30 * 24 * 3600


def invitation_create(
    *, match_id: int, user: User, seat: int | None = None, expires_in: int = 7 * 24 * 3600, username: str | None = None
) -> tuple[Invitation, str]:
    """The table's creator makes an invitation link (for a seat, or any free one); returns it and
    its token, which is shown this once: only its SHA-256 is kept. With `username`, the link is
    that person's alone and is sent to them (`games.signals.invitation_addressed`)."""
    if not 60 <= expires_in <= INVITATION_SECONDS_MAX:
        raise bad_request(
            "bad_expiry",
            _("An invitation lasts from 60 to %(invitation_seconds_max)s seconds.")
            % {"invitation_seconds_max": INVITATION_SECONDS_MAX},
        )
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.created_by_id != user.pk:
            raise forbidden("not_table_owner", _("Only the table's creator invites."))
        if seat is not None:
            _free_seat(match, seat)  # a seat that exists and is free now
        invitee = _invitee(match, username) if username is not None else None
        if invitee is not None:
            _within_invitation_limits(user, invitee)
        token = secrets.token_urlsafe(24)
        invitation = Invitation.objects.create(
            match=match, token_sha256=key_hash(token), seat=seat, created_by=user, invitee=invitee,
            expires_at=timezone.now() + timedelta(seconds=expires_in),
        )
        if invitee is not None:
            invitation_addressed.send(sender=Invitation, invitation=invitation)
    return invitation, token


def _invitee(match: Match, username: str) -> User:
    """The active person a table's creator invites by name, who does not sit there yet."""
    invitee = User.objects.filter(username=username, is_active=True).first()
    if invitee is None:
        raise not_found("user_not_found", _("There is no player %(username)s.") % {"username": repr(username)})
    if Seat.objects.filter(match=match, user=invitee).exists():
        raise conflict("already_seated", _("%(username)s already sits at this table.") % {"username": username})
    return invitee


def _within_invitation_limits(sender: User, invitee: User) -> None:
    """Invitations by name tell their invitee, titled with the sender's name (issue #39: 30 in
    2 s flooded a person's notifications): at most `INVITATIONS_PER_HOUR_PER_SENDER` a sender
    sends and `INVITATIONS_PER_HOUR_PER_INVITEE` a person receives, over the last hour (429).
    Both rows are locked (in id order: no deadlock) so that invitations sent at once are counted
    one after another."""
    list(User.objects.select_for_update().filter(pk__in=[sender.pk, invitee.pk]).order_by("pk").values_list("pk"))
    recent = Invitation.objects.filter(invitee__isnull=False, created_at__gte=timezone.now() - timedelta(hours=1))
    limit = settings.INVITATIONS_PER_HOUR_PER_SENDER
    if recent.filter(created_by=sender).count() >= limit:
        raise ApplicationError(
            "invitations_rate_limited",
            _("You may invite people by name at most %(limit)s times an hour: wait a little.") % {"limit": limit},
            extra={"per_hour": limit},
        )
    limit = settings.INVITATIONS_PER_HOUR_PER_INVITEE
    if recent.filter(invitee=invitee).count() >= limit:
        raise ApplicationError(
            "invitee_rate_limited",
            _("This person was invited %(limit)s times in the last hour, the most allowed: try later.") % {"limit": limit},
            extra={"per_hour": limit},
        )


def invitation_revoke(*, match_id: int, invitation_id: int, user: User) -> Invitation:
    """The table's creator revokes an invitation: its link sits nobody from now on."""
    invitation = Invitation.objects.filter(pk=invitation_id, match_id=match_id).select_related("match").first()
    if invitation is None:
        raise not_found(
            "invitation_not_found",
            _("Table %(match_id)s has no invitation %(invitation_id)s.")
            % {"match_id": match_id, "invitation_id": invitation_id},
        )
    if invitation.match.created_by_id != user.pk:
        raise forbidden("not_table_owner", _("Only the table's creator revokes its invitations."))
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def invitation_valid(token: str) -> Invitation:
    """The invitation a link names, if it may still sit someone: else 404, or 409 with why not."""
    invitation = Invitation.objects.filter(token_sha256=key_hash(token)).select_related("match").first()
    if invitation is None:
        raise not_found("invitation_not_found", _("No invitation has this link."))
    if invitation.revoked_at is not None:
        raise conflict("invitation_revoked", _("The table's creator revoked this invitation."))
    if invitation.expires_at <= timezone.now():
        raise conflict("invitation_expired", _("This invitation has expired: ask for a new link."))
    if invitation.match.status != Match.Status.OPEN:
        raise conflict("match_not_open", _("The match has already started."))
    return invitation


def invitation_accept(*, token: str, user: User, confirm_chosen_deck: bool = False) -> Seat:
    """Sits the link's holder at its table: in its seat, or the first free one."""
    invitation = invitation_valid(token)
    if invitation.invitee_id is not None and invitation.invitee_id != user.pk:
        raise forbidden("invitation_for_someone_else", _("This invitation was sent to another player."))
    return match_join(
        match_id=invitation.match_id, user=user, seat=invitation.seat, confirm_chosen_deck=confirm_chosen_deck,
        invited=True,
    )


def rematch_offer(*, match_id: int, user: User) -> Match:
    """A player of a finished match offers a rematch: a new table of the same people, bots and
    options (the server shuffles: a chosen deck is not dealt again), seats rotated so that the
    source's seat 1 moves first. It starts once every person has accepted; the offerer has, and
    bots need not. One rematch a match: a second offer answers 409 with the first one's id."""
    with transaction.atomic():
        User.objects.select_for_update().filter(pk=user.pk).first()
        source = Match.objects.select_for_update().filter(pk=match_id).first()
        if source is None:
            raise match_not_found(match_id)
        if source.status != Match.Status.FINISHED or source.origin != Match.Origin.PLAYED:
            raise conflict("rematch_not_possible", _("A rematch follows a match played here, once it has ended."))
        seats = list(Seat.objects.filter(match=source).order_by("seat"))
        if not any(seat.user_id == user.pk for seat in seats):
            raise forbidden("not_seated", _("Only the match's players offer a rematch."))
        existing = Match.objects.filter(rematch_of=source).values_list("pk", flat=True).first()
        if existing is not None:
            raise conflict(
                "rematch_exists",
                _("Table %(existing)s is this match's rematch.") % {"existing": existing},
                rematch=existing,
            )
        _check_open_tables(user)
        shuffle = shuffles_commit(1)[0] if source.shuffle_id else None
        match = Match.objects.create(
            game=source.game, players=source.players, options={k: v for k, v in source.options.items() if k != "deck"},
            rated=source.rated, created_by=user, clock_seconds=source.clock_seconds, private=source.private,
            shuffle=shuffle, seed_sha256=shuffle.seed_sha256 if shuffle else "", rematch_of=source,
            spectator_policy=source.spectator_policy, spectator_delay_moves=source.spectator_delay_moves,
        )
        rotated = seats[1:] + seats[:1]
        Seat.objects.bulk_create([
            Seat(match=match, seat=i, user_id=old.user_id, bot=old.bot, ready=old.user_id in (None, user.pk))
            for i, old in enumerate(rotated)
        ])
        everyone_ready = all(old.user_id in (None, user.pk) for old in rotated)
    if everyone_ready:  # a rematch against bots only
        return match_start(match_id=match.pk, user=None)
    return match


def rematch_accept(*, match_id: int, user: User) -> Match:
    """A person seated at a rematch accepts it; the last acceptance starts it."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.rematch_of_id is None:
            raise conflict("not_a_rematch", _("This table is not a rematch: its creator starts it."))
        if not Seat.objects.filter(match=match, user=user).update(ready=True):
            raise forbidden("not_seated", _("You do not sit at this table."))
        seats = Seat.objects.filter(match=match)
        everyone_ready = seats.count() == match.players and not seats.filter(ready=False).exists()
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
    if everyone_ready:
        return match_start(match_id=match_id, user=None)
    return match


def match_leave(*, match_id: int, user: User) -> None:
    """Leaves an open table."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        deleted, _by_model = Seat.objects.filter(match=match, user=user).delete()
        if not deleted:
            raise forbidden("not_seated", _("You do not sit at this table."))
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))


def match_seat_bot(*, match_id: int, user: User, bot: str, seat: int | None = None) -> Seat:
    """The table's creator seats a bot, by name, from the game's bots."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.created_by_id != user.pk:
            raise forbidden("not_table_owner", _("Only the table's creator seats bots."))
        if bot not in BOTS.get(match.game, {}):
            raise bad_request(
                "unknown_bot",
                _("%(game)s has no bot %(bot)s.") % {"game": match.game, "bot": repr(bot)},
                bots=sorted(BOTS.get(match.game, {})),
            )
        transaction.on_commit(lambda: notify.match_seats_changed(match_id))
        return Seat.objects.create(match=match, seat=_free_seat(match, seat), bot=bot)


def seat_resign(*, match_id: int, user: User) -> int:
    """A seated person gives up a running match: from then on the game's fallback bot plays their
    seat to the end (as an abandoned seat's, `games.turns.bot_move`) and it ranks after every seat
    that played on (`selectors.result_ranks`). Recorded as a table fact, `SeatResigned`, by its
    person. In a cooperative game the team plays on with the bot. Returns the seat."""
    with transaction.atomic():
        match, row = _running_seat_for_update(match_id, user)
        _seat_give_up(match, row, fact="SeatResigned", actor=user_actor(user))
    return row.seat


def seat_claim(*, match_id: int, user: User, seat: int, present: set[int]) -> int:
    """A seated person claims a seat whose person has left the table: once the match has waited on
    that seat for `CLAIM_SEAT_AFTER_SECONDS` since its last event while its person has no socket at
    the table (`present`: the seats with one, `games.presence`), the fallback bot plays it as if
    it had resigned (`SeatClaimed`, by the claimer). With or without a clock: without one, a table
    someone walked away from waited for ever."""
    with transaction.atomic():
        match, mine = _running_seat_for_update(match_id, user)
        row = Seat.objects.filter(match=match, seat=seat).first()
        if row is None or row.user_id is None or row.abandoned or row.pk == mine.pk:
            raise conflict("seat_not_claimable", _("Only another person's seat that they still play can be claimed."))
        state = state_at_head(match.pk, match.game, match.last_seq)
        waited = (timezone.now() - Event.objects.get(match=match, seq=match.last_seq).created).total_seconds()
        needed = settings.CLAIM_SEAT_AFTER_SECONDS
        if seat not in ENGINES[match.game].to_act(state) or seat in present or waited < needed:
            raise conflict(
                "seat_not_claimable",
                _("A seat can be claimed once the table has waited %(seconds)s seconds on it with its player away.")
                % {"seconds": needed},
                seconds_left=max(0, round(needed - waited)) if seat not in present else None,
            )
        _seat_give_up(match, row, fact="SeatClaimed", actor=user_actor(user))
    return seat


def _running_seat_for_update(match_id: int, user: User) -> tuple[Match, Seat]:
    """The running match, locked, and the caller's seat at it, which they still play."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    row = Seat.objects.filter(match=match, user=user).first()
    if row is None:
        raise forbidden("not_seated", _("You do not sit at this table."))
    if match.status != Match.Status.RUNNING:
        raise conflict("match_not_running", _("The match is not running."))
    if row.abandoned:
        raise conflict("seat_given_up", _("Your seat is played by the bot already."))
    return match, row


def _seat_give_up(match: Match, row: Seat, *, fact: str, actor: str) -> None:
    """The fallback bot plays the seat from now on; the fact's append schedules its turn if due."""
    Seat.objects.filter(pk=row.pk).update(abandoned=True)
    table_fact_append(match_id=match.pk, fact={"type": fact, "seat": row.seat}, actor=actor)
    transaction.on_commit(lambda: notify.match_seats_changed(match.pk))


def seat_auto_pass_set(*, match_id: int, user: User, enabled: bool) -> bool:
    """A seated person chooses to pass at once in interrupt windows; takes effect from the next window."""
    updated = Seat.objects.filter(match_id=match_id, user=user).update(auto_pass=enabled)
    if not updated:
        if not Match.objects.filter(pk=match_id).exists():
            raise match_not_found(match_id)
        raise forbidden("not_seated", _("You do not sit at this table."))
    return enabled


def match_start(*, match_id: int, user: User | None) -> Match:
    """Starts a full table: deals (`_deal`) and appends the opening events.

    `user` must be the table's creator; `None` is the server itself (tournaments, demo).
    """
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if user is not None and match.created_by_id != user.pk:
            raise forbidden("not_table_owner", _("Only the table's creator starts it."))
        seats = list(Seat.objects.filter(match=match).select_related("user").order_by("seat"))
        if len(seats) != match.players:
            raise conflict(
                "table_not_full",
                _("%(count)s of %(players)s seats are taken.") % {"count": len(seats), "players": match.players},
            )
        waiting = [seat.seat for seat in seats if not seat.ready]
        if waiting:
            raise conflict("rematch_not_accepted", _("Every player must accept the rematch first."), seats=waiting)
        if (user is not None and any(seat.bot for seat in seats)
                and not any(seat.user_id not in (None, user.pk) for seat in seats)):
            _check_running_bot_tables(user)
        engine = ENGINES[match.game]
        given = _contributions([match.shuffle_id])[match.shuffle_id] if match.shuffle_id else {}
        deal = _deal(match.shuffle, [seat.user_id for seat in seats], given)
        started = _match_started_fact(match, seats, deal)
        actor = user_actor(user) if user else "server"
        new = [NewEvent(Event.Kind.TABLE, started, actor)]
        opening = engine.start(match.players, deal.deck_seed, match.options)
        new += [NewEvent(Event.Kind.ENGINE, e, actor) for e in opening]
        match.status = Match.Status.RUNNING
        match.started_at = timezone.now()
        match.seed = deal.seed
        match.seed_sha256 = started["seed_sha256"]
        rows = _events_create(match, new)
        state = engine.replay(opening)
        match.deadline = schedule.after_change(match, state, match.last_seq)
        match.save(update_fields=["status", "started_at", "seed", "seed_sha256", "last_seq", "head_hash", "deadline"])
        _after_commit(match.pk, 0, rows, state)
    return match


def _match_started_fact(match: Match, seats: list[Seat], deal: _Deal) -> dict:
    """The table's opening fact: who sits where, the public commitment to the seed and, for a
    contributed shuffle, what the deck's seed was derived from.

    A person sits by account id (`user`) and a bot by its name (`bot`); no person's name is
    written: the log never changes, and a deleted account's name must not outlive it there
    (issue #39). Readers take the name from the account (`Seat.shown_name`). Matches started
    before carry a `name` per seat too, the name shown then."""
    fact = {
        "type": "MatchStarted",
        "game": match.game,
        "engine_version": getattr(ENGINES[match.game], "version", 1),
        "players": match.players,
        "rated": match.rated,
        "seats": [
            {"seat": s.seat, "user": s.user_id, "bot": s.bot}
            for s in seats
        ],
        "seed_sha256": seed_sha256(deal.seed),
    }
    if deal.shuffle is not None:
        fact["shuffle"] = deal.shuffle
    return fact


def match_record(
    *,
    game: str,
    seats: list[User | str],
    created_by: User,
    seed: int,
    moves: list[tuple[int, dict]],
    rated: bool = True,
    options: dict | None = None,
) -> Match:
    """Stores a whole finished match played elsewhere (simulations, physical games, imports).

    `seats` holds a user or a bot's name per seat; every move is decided again by the engine,
    so a recorded match is held to the same rules as one played here.
    """
    engine = ENGINES[game]
    options = options or {}
    with transaction.atomic():
        match = Match.objects.create(
            game=game, players=len(seats), options=options, rated=rated, created_by=created_by,
            status=Match.Status.RUNNING, started_at=timezone.now(), seed=seed, seed_sha256=seed_sha256(seed),
        )
        seat_rows = Seat.objects.bulk_create(
            [
                Seat(match=match, seat=i, user=who if isinstance(who, User) else None, bot=who if isinstance(who, str) else "")
                for i, who in enumerate(seats)
            ]
        )
        opening = engine.start(len(seats), seed, options)
        new = [NewEvent(Event.Kind.TABLE, _match_started_fact(match, seat_rows, _Deal(seed, seed)), "server")]
        new += [NewEvent(Event.Kind.ENGINE, e, "server") for e in opening]
        state = engine.replay(opening)
        for seat, move in moves:
            who = seats[seat]
            actor = user_actor(who) if isinstance(who, User) else f"bot:{who}"
            try:
                produced = engine.decide(state, seat, move)
            except IllegalMove as exc:
                raise ApplicationError(
                    exc.code, _("move %(number)s: %(message)s") % {"number": len(new), "message": move_message(exc)}
                ) from None
            new.append(NewEvent(Event.Kind.TABLE, {"type": "MovePlayed", "seat": seat, "move": move}, actor))
            new += [NewEvent(Event.Kind.ENGINE, e, actor) for e in produced]
            for event in produced:
                state = engine.evolve(state, event)
        outcome = engine.outcome(state)
        if outcome is None:
            raise bad_request("match_unfinished", _("The moves do not finish the match."))
        new.append(NewEvent(Event.Kind.TABLE, {"type": "MatchFinished", "outcome": outcome, "seed": seed}, "server"))
        _events_create(match, new)
        match.status, match.outcome, match.finished_at = Match.Status.FINISHED, outcome, timezone.now()
        match.save(update_fields=["status", "outcome", "finished_at", "last_seq", "head_hash"])
        transaction.on_commit(lambda: notify.match_finished(match.pk))
    return match


def match_practice(*, match_id: int, user: User, seq: int, seat: int = 0, bot: str | None = None) -> Match:
    """A new unrated match from a position of a finished one, to try another line.

    The position's engine events are copied (everything is known once a match has ended);
    the caller sits at `seat` and bots (the game's stronger one by default) take the others.
    """
    source = Match.objects.filter(pk=match_id).first()
    if source is None:
        raise match_not_found(match_id)
    if not source.revealed:
        raise forbidden("match_running", _("Practice starts from a match that has ended."))
    if source.seed is None:  # an imported file that never revealed its seed: no commitment to deal under
        raise conflict("position_not_playable", _("This match's seed is not known here, so no practice deal can follow it."))
    if not 0 < seq <= source.last_seq:
        raise bad_request("bad_seq", _("seq runs from 1 to %(last_seq)s.") % {"last_seq": source.last_seq})
    if not 0 <= seat < source.players:
        raise bad_request("bad_seat", _("Seats run from 0 to %(last)s.") % {"last": source.players - 1})
    bot = bot or STRONG_BOT[source.game]
    if bot not in BOTS[source.game]:
        raise bad_request("unknown_bot", _("%(game)s has no bot %(bot)s.") % {"game": source.game, "bot": repr(bot)})
    engine = ENGINES[source.game]
    rows = list(Event.objects.filter(match=source, seq__lte=seq).order_by("seq"))
    prefix = [row.data for row in rows if row.kind == Event.Kind.ENGINE]
    state = engine.replay(prefix)
    if state is None or engine.outcome(state) is not None:
        raise conflict("position_not_playable", _("Choose a position after the deal and before the end."))
    with transaction.atomic():
        match = Match.objects.create(
            game=source.game, origin=Match.Origin.PRACTICE, players=source.players, rated=False, created_by=user,
            status=Match.Status.RUNNING, started_at=timezone.now(), seed=source.seed, seed_sha256=source.seed_sha256,
            private=source.private,  # its first event copies the private table's play
        )
        seats = Seat.objects.bulk_create(
            [
                Seat(match=match, seat=s, user=user if s == seat else None, bot="" if s == seat else bot)
                for s in range(source.players)
            ]
        )
        started = _match_started_fact(match, seats, _Deal(source.seed, source.seed))
        started["practice_of"] = {"match": source.pk, "seq": seq, "hash": rows[-1].hash}
        new = [NewEvent(Event.Kind.TABLE, started, user_actor(user))]
        new += [NewEvent(Event.Kind.ENGINE, data, "server") for data in prefix]
        new_rows = _events_create(match, new)
        match.deadline = schedule.after_change(match, state, match.last_seq)
        match.save(update_fields=["last_seq", "head_hash", "deadline"])
        _after_commit(match.pk, 0, new_rows, state)
    return match


# --- moves ------------------------------------------------------------------------------


class _LostRace(Exception):
    """Another writer extended the stream first."""


def move_submit(
    *,
    match_id: int,
    user: User,
    move: Any,
    expected_seq: int | None = None,
    idempotency_key: str | None = None,
) -> dict:
    """A seated person plays a move; returns `{match, seq, events, view, legal_moves}` for their seat.

    With `expected_seq`, a match that has moved on refuses the move (`stale_seq`); without
    it the move is decided on the latest state, and decided again if it loses a race.
    With `idempotency_key`, a retry returns the first answer instead of playing twice; the same
    key with another move at this table is refused (422 `idempotency_key_reused`).
    """
    receipt = move_receipt(user.pk, idempotency_key, move, expected_seq)
    try:
        return _move_append(match_id, None, move, user_actor(user), expected_seq, receipt, user_id=user.pk)
    except IntegrityError:
        # The same key won a race in another request: give its answer.
        if receipt is not None and (stored := _receipt(match_id, receipt)) is not None:
            return receipt_answer(receipt, *stored)
        raise


def move_receipt(user_id: int, key: str | None, move: Any, expected_seq: int | None) -> store.Receipt | None:
    """The receipt a move request with idempotency key `key` is answered under (None: no key)."""
    if not key:
        return None
    request = canonical_json({"move": move, "expected_seq": expected_seq})
    return store.Receipt(user_id, key, hashlib.sha256(request.encode()).hexdigest())


def receipt_answer(receipt: store.Receipt, request_sha256: str, response: dict) -> dict:
    """A stored receipt's answer to a retry of its request; another request under its key is refused."""
    if request_sha256 != receipt.request_sha256:
        raise ApplicationError(
            "idempotency_key_reused",
            _("This Idempotency-Key already answered another move at this table: send a new key for a new move."),
        )
    return response


def _receipt(match_id: int, receipt: store.Receipt) -> tuple[str, dict] | None:
    return (
        MoveReceipt.objects.filter(user_id=receipt.user_id, match_id=match_id, key=receipt.key)
        .values_list("request_sha256", "response").first()
    )


def move_play(*, match_id: int, seat: int, move: Any, actor: str, expected_seq: int | None = None) -> dict:
    """Plays a move for a seat (a bot's, or the clock's for a person) and appends its events."""
    return _move_append(match_id, seat, move, actor, expected_seq, None)


def stale_seq(seq: int | None) -> ApplicationError:
    return conflict("stale_seq", _("The match has moved on since the state you saw."), seq=seq)


def table_busy() -> ApplicationError:
    return conflict("busy", _("The table is too busy; try again."))


def _move_append(
    match_id: int,
    seat: int | None,
    move: Any,
    actor: str,
    expected_seq: int | None,
    receipt: store.Receipt | None,
    *,
    user_id: int | None = None,
) -> dict:
    # A person's move (through Django: a view, or a socket without the fast lane), or one the
    # server plays for a seat (a bot, the clock, an automatic pass).
    with metrics.MoveMeasure("django" if user_id is not None else "server") as measure:
        for _attempt in range(MAX_APPEND_ATTEMPTS):
            try:
                return _try_move(match_id, seat, move, actor, expected_seq, receipt, user_id, measure)
            except _LostRace:
                if expected_seq is not None:
                    raise stale_seq(None) from None
        raise table_busy()


def _try_move(
    match_id: int,
    seat: int | None,
    move: Any,
    actor: str,
    expected_seq: int | None,
    receipt: store.Receipt | None,
    user_id: int | None,
    measure: metrics.MoveMeasure,
) -> dict:
    """One attempt: decide on the committed head, then claim it (`_LostRace` if another writer did).

    Outside a transaction this is two statements, each atomic on its own: the read, and the
    claim that appends the events (and the receipt) only if the head is still the one decided
    on. Inside a caller's transaction both join it, and what follows waits for its commit.
    """
    head = store.head_read(match_id, receipt=receipt)
    if head is not None:
        measure.game = head.match.game
    if head is not None and head.receipt_request is not None:
        assert receipt is not None  # the head reads a receipt only under one
        stored = _receipt(match_id, receipt)
        assert stored is not None  # the head found it
        measure.outcome = "repeated"
        return receipt_answer(receipt, *stored)
    seat = move_seat(head, match_id, seat, move, user_id=user_id, expected_seq=expected_seq)
    assert head is not None  # move_seat refuses a missing match
    state = state_at_head(match_id, head.match.game, head.match.last_seq)
    decided = move_decide(head, state, seat, move, actor)
    claimed = store.head_claim(
        match_id, decided.base_seq, decided.changes, decided.rows, receipt=receipt and (receipt, decided.response)
    )
    if not claimed:
        raise _LostRace
    transaction.on_commit(lambda: match_committed(match_id, decided))
    transaction.on_commit(lambda: move_tasks_send(match_id, decided))
    return decided.response


def move_seat(
    head: store.Head | None, match_id: int, seat: int | None, move: Any, *, user_id: int | None, expected_seq: int | None
) -> int:
    """The seat a move is for, once the move and the table may take it (else ApplicationError)."""
    if head is None:
        raise match_not_found(match_id)
    if seat is None:
        if user_id is None or (seat := head.seat_of(user_id)) is None:
            raise forbidden("not_seated", _("You do not sit at this table."))
        if head.seats[seat].abandoned:  # resigned, claimed or timed out: the bot plays it now
            raise conflict("seat_given_up", _("Your seat is played by the bot already."))
    if not isinstance(move, dict):
        raise bad_request("malformed_move", _("A move is a JSON object with an \"action\"."))
    if len(json.dumps(move)) > _MAX_MOVE_BYTES:
        raise bad_request(
            "move_too_large",
            _("A move is at most %(max_bytes)s bytes of JSON.") % {"max_bytes": _MAX_MOVE_BYTES},
        )
    if head.match.status == Match.Status.OPEN:
        raise conflict("match_not_started", _("The match has not started."))
    if expected_seq is not None and expected_seq != head.match.last_seq:
        raise stale_seq(head.match.last_seq)
    return seat


@dataclass
class MoveDecided:
    """What a legal move appends (`rows` after `base_seq`) and answers, not yet written."""

    base_seq: int
    rows: list[store.NewRow]
    changes: dict[str, Any]
    response: dict
    state: Any  # the engine state after the move
    game: str
    status: str  # the match's, after the move
    deadline: Any  # the decision's deadline after the move (datetime, ISO text from SQLite, None)
    finished: bool
    followups: list  # tasks for `move_tasks_send` once the move is committed
    seat_users: tuple[int | None, ...]  # who sits where, as the move was decided


def move_decide(head: store.Head, state: Any, seat: int, move: dict, actor: str) -> MoveDecided:
    """Decides a move on the head's `state`: its events, the head's changes and the mover's answer.

    Reads and writes nothing, so the event loop's own path (`games.fastlane`) decides moves
    exactly as this module does.
    """
    match = head.match
    engine = ENGINES[match.game]
    previous_to_act = engine.to_act(state)
    try:
        produced = engine.decide(state, seat, move)
    except IllegalMove as exc:
        raise ApplicationError(exc.code, move_message(exc)) from None
    for event in produced:
        state = engine.evolve(state, event)
    new = [NewEvent(Event.Kind.TABLE, {"type": "MovePlayed", "seat": seat, "move": move}, actor)]
    new += [NewEvent(Event.Kind.ENGINE, e, actor) for e in produced]
    outcome = engine.outcome(state)
    if outcome is not None:
        new.append(NewEvent(Event.Kind.TABLE, {"type": "MatchFinished", "outcome": outcome, "seed": match.seed}, "server"))
    base_seq = match.last_seq
    rows = _chain(match, new)
    changes: dict[str, Any] = {"last_seq": match.last_seq, "head_hash": match.head_hash}
    followups: list = []
    if outcome is not None:
        changes.update(status=Match.Status.FINISHED, outcome=outcome, finished_at=timezone.now(), deadline=None)
    else:
        deadline = schedule.after_change(
            match, state, match.last_seq, previous_to_act=previous_to_act, seats=head.seats, followups=followups
        )
        if deadline is not schedule.KEEP_DEADLINE:
            changes["deadline"] = deadline
    response = {
        "match": match.pk,
        "seq": match.last_seq,
        "events": [
            {"seq": row.seq, "event": red}
            for row in rows
            if row.kind == Event.Kind.ENGINE and (red := engine.redact(row.data, seat)) is not None
        ],
        "view": engine.view(state, seat),
        "legal_moves": engine.legal_moves(state, seat),
    }
    return MoveDecided(
        base_seq, rows, changes, response, state, match.game,
        changes.get("status", match.status), changes.get("deadline", match.deadline), outcome is not None, followups,
        head.seat_users(),
    )


def match_committed(match_id: int, decided: MoveDecided) -> None:
    """A committed move reaches this process's caches (state, and the head for live frames)
    and the table's sockets, so the sockets of this process need no read to follow it."""
    head = frames.MatchHead(
        match_id, decided.game, decided.status, decided.rows[-1].seq, store.iso(decided.deadline), decided.seat_users
    )
    _changed(match_id, decided.base_seq, decided.rows, decided.state, head=head)


def move_tasks_send(match_id: int, decided: MoveDecided) -> None:
    """A committed move's tasks: the next bot turn, clock or window, and the result's if it ended."""
    schedule.followups_send(decided.followups)
    if decided.finished:
        notify.match_finished(match_id)


def _after_commit(match_id: int, base_seq: int, rows: list[store.NewRow], state: Any) -> None:
    """What a change to a table (`rows` after `base_seq`) sends on once it commits."""
    transaction.on_commit(lambda: _changed(match_id, base_seq, rows, state))


def _changed(match_id: int, base_seq: int, rows: list[store.NewRow], state: Any, *, head: frames.MatchHead | None = None) -> None:
    """A committed change: its state to this process's cache and a hint to the table's sockets;
    with the new `head`, the hint carries the change (`frames.change_of`)."""
    engine_rows = _state_cached(match_id, base_seq, rows, state)
    if head is None:
        notify.match_changed(match_id, rows[-1].seq)
        return
    frames.head_known(head)
    notify.match_changed(match_id, head.seq, frames.change_of(head, base_seq, engine_rows))


def _state_cached(
    match_id: int, base_seq: int, rows: list[store.NewRow], state: Any
) -> list[tuple[int, dict]]:
    """Puts a committed change's state in this process's cache; returns its engine rows as (seq, data)."""
    engine_rows = [(row.seq, row.data) for row in rows if row.kind == Event.Kind.ENGINE]
    state_cache.put(match_id, rows[-1].seq, state, after=base_seq, events=engine_rows)
    return engine_rows


def table_fact_append(*, match_id: int, fact: dict, actor: str) -> int:
    """Appends a table fact (not an engine event) at the head, e.g. `SeatAbandoned`; returns its seq."""
    for _attempt in range(MAX_APPEND_ATTEMPTS):
        try:
            return _try_fact(match_id, fact, actor)
        except _LostRace:
            continue  # a move got there first: chain after it
    raise table_busy()


def _try_fact(match_id: int, fact: dict, actor: str) -> int:
    with transaction.atomic():
        match = Match.objects.get(pk=match_id)
        base_seq = match.last_seq
        rows = _chain(match, [NewEvent(Event.Kind.TABLE, fact, actor)])
        state = state_at_head(match.pk, match.game, base_seq)
        deadline = schedule.after_change(match, state, match.last_seq) if match.status == Match.Status.RUNNING else None
        changes = {"last_seq": match.last_seq, "head_hash": match.head_hash, "deadline": deadline}
        if not store.head_claim(match_id, base_seq, changes, rows):
            raise _LostRace
        _after_commit(match_id, base_seq, rows, state)
    return match.last_seq


def _chain(match: Match | store.MatchRow, new: list[NewEvent]) -> list[store.NewRow]:
    """Event rows after the match's head, hash-chained under its chain version; moves
    `match.last_seq`/`head_hash` in memory."""
    rows = []
    seq, previous, created = match.last_seq, match.head_hash, timezone.now()
    # The time is fixed here, hashed in this spelling and stored as this very value (both
    # databases keep its microseconds), so the stored row hashes as it did when written.
    created_text = canonical_time(created)
    for item in new:
        seq += 1
        type_ = item.data["type"]
        previous = event_hash(
            previous, version=match.chain_version, seq=seq, kind=item.kind, type=type_, actor=item.actor,
            data=item.data, created=created_text,
        )
        rows.append(store.NewRow(match.pk, seq, item.kind, type_, item.data, item.actor, created, previous))
    match.last_seq, match.head_hash = seq, previous
    return rows


def _events_create(match: Match, new: list[NewEvent]) -> list[store.NewRow]:
    """Appends a new stream's first events (nobody else can write to it yet)."""
    rows = _chain(match, new)
    Event.objects.bulk_create([Event(**row._asdict()) for row in rows])
    return rows
