"""A cooperative game's team concedes together (issue #43): a person who still plays their seat
proposes (`concession_agree`), the others who still play theirs agree, and once every one of them
has, the match ends at once as the team's loss; anyone still playing withdraws the proposal
(`concession_withdraw`). Bots and seats given up to the fallback bot have no say.

Each step is a table fact (`ConcessionProposed`, `ConcessionAgreed`, `ConcessionWithdrawn`, by
its person); the one that completes the agreement is followed by the engine's own end of the
game (`concede`) and `MatchFinished`, as a move that ends a game is (`moves.team_concede`), so
the replay and the verifiers reach the loss from the stream alone.

A proposal stays until it is withdrawn or carried, through the moves played meanwhile: the
game does not pause for it (the turn's player, or a bot, plays on while the others decide), so
a proposal that lapsed on each move could never gather a table of slow readers. Whoever no
longer wants it withdraws it in one click, and a person who gives up their seat drops out of
it: if everyone left has agreed, that carries it (`concession_settle`).
"""
from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.engines import ENGINES
from games.models import Match, Seat
from games.selectors import concession_agreed, concession_facts, seats_playing
from games.services._append import table_fact_append, user_actor
from games.services.moves import team_concede
from games.verification import CONCESSION_AGREED, CONCESSION_PROPOSED, CONCESSION_WITHDRAWN
from server.errors import conflict, forbidden, match_not_found


def concession_agree(*, match_id: int, user: User) -> bool:
    """A person who still plays their seat proposes to concede, or agrees to the proposal; the
    match ends as the team's loss once every person still playing has. Returns whether it ended."""
    with transaction.atomic():
        match, seats, mine = _playing_seat_for_update(match_id, user)
        playing = seats_playing(seats)
        agreed = concession_agreed(concession_facts(match.pk)) & playing
        if mine.seat in agreed:
            raise conflict("concession_already_agreed", _("You have already agreed to concede."))
        fact = {"type": CONCESSION_AGREED if agreed else CONCESSION_PROPOSED, "seat": mine.seat}
        if playing <= agreed | {mine.seat}:
            team_concede(match_id=match.pk, fact=fact, actor=user_actor(user))
            return True
        table_fact_append(match_id=match.pk, fact=fact, actor=user_actor(user))
    return False


def concession_withdraw(*, match_id: int, user: User) -> None:
    """A person who still plays their seat withdraws the proposal to concede (theirs, or declines
    another's): it ends for everyone, since a concession needs every one of them."""
    with transaction.atomic():
        match, seats, mine = _playing_seat_for_update(match_id, user)
        if not concession_agreed(concession_facts(match.pk)) & seats_playing(seats):
            raise conflict("no_concession", _("Nobody has proposed to concede."))
        table_fact_append(match_id=match.pk, fact={"type": CONCESSION_WITHDRAWN, "seat": mine.seat}, actor=user_actor(user))


def concession_settle(match_id: int) -> bool:
    """After a seat is given up to the bot: a proposal that every person still playing has now
    agreed to is carried (its last agreement completes it again, by the server). Returns whether
    the match ended. Runs inside the caller's transaction, after its fact."""
    match = Match.objects.select_for_update().get(pk=match_id)
    if match.status != Match.Status.RUNNING or not ENGINES[match.game].cooperative:
        return False
    playing = seats_playing(Seat.objects.filter(match=match))
    facts = concession_facts(match.pk)
    agreed = concession_agreed(facts) & playing
    if not agreed or not playing <= agreed:
        return False
    last = next(seat for kind, seat in reversed(facts) if seat in agreed and kind != CONCESSION_WITHDRAWN)
    team_concede(match_id=match.pk, fact={"type": CONCESSION_AGREED, "seat": last}, actor="server")
    return True


def _playing_seat_for_update(match_id: int, user: User) -> tuple[Match, list[Seat], Seat]:
    """The running cooperative match, locked, its seats, and the caller's, which they still play."""
    match = Match.objects.select_for_update().filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    seats = list(Seat.objects.filter(match=match))
    mine = next((row for row in seats if row.user_id == user.pk), None)
    if mine is None:
        raise forbidden("not_seated", _("You do not sit at this table."))
    if not ENGINES[match.game].cooperative:
        raise conflict(
            "game_not_cooperative",
            _("Only the team of a cooperative game can concede; in this game you can resign your own seat."),
        )
    if match.status != Match.Status.RUNNING:
        raise conflict("match_not_running", _("The match is not running."))
    if mine.abandoned:
        raise conflict("seat_given_up", _("Your seat is played by the bot already."))
    return match, seats, mine
