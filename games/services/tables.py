"""A table's life as a whole: opened (`match_create`, within the caps on open tables and on
running tables of bots), its shuffle added to, started (`match_start`); and the matches made at
once from moves: one played elsewhere (`match_record`), practice from a finished one's position.
"""
from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import notify, schedule
from games.bots import BOTS, STRONG_BOT
from games.chain import seed_sha256
from games.engines import ENGINES, IllegalMove
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    Event,
    Match,
    Seat,
    SpectatorPolicy,
)
from games.move_messages import move_message
from games.services._append import NewEvent, _after_commit, _events_create, user_actor
from games.services.deals import (
    _contributions,
    _Deal,
    _deal,
    _match_started_fact,
    shuffle_contribution_save,
    shuffles_commit,
)
from server.errors import ApplicationError, bad_request, conflict, english_or, forbidden, match_not_found


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


def match_shuffle_contribute(*, match_id: int, user: User, value: str) -> None:
    """A seated person adds to an open table's shuffle."""
    with transaction.atomic():
        match = _open_match_for_update(match_id)
        if match.shuffle_id is None:
            raise conflict("shuffle_not_contributed", _("This table's deal is the server's alone: it takes no contributions."))
        if not Seat.objects.filter(match=match, user=user).exists():
            raise forbidden("not_seated", _("You do not sit at this table."))
        shuffle_contribution_save(shuffle_id=match.shuffle_id, user=user, value=value)


def _open_match_for_update(match_id: int) -> Match:
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    if match.status != Match.Status.OPEN:
        raise conflict("match_not_open", _("The match has already started."))
    return match


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
        match.deadline, followups = schedule.after_change(match, state, match.last_seq)
        match.save(update_fields=["status", "started_at", "seed", "seed_sha256", "last_seq", "head_hash", "deadline"])
        schedule.followups_on_commit(followups)
        _after_commit(match.pk, 0, rows, state)
    return match


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
        match.deadline, followups = schedule.after_change(match, state, match.last_seq)
        match.save(update_fields=["last_seq", "head_hash", "deadline"])
        schedule.followups_on_commit(followups)
        _after_commit(match.pk, 0, new_rows, state)
    return match
