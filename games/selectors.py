"""Reads of tables: what each viewer may see, never more."""
from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.bots import BOTS, STRONG_BOT
from games.chain import canonical_time
from games.engines import ENGINES
from games.models import Event, Invitation, Match, Seat, ShuffleContribution, SpectatorPolicy
from games.presence import presence
from games.shapes import ConcessionShown, MatchRating, MatchSummary, MatchView, ShuffleShown
from games.shuffle import DERIVATION
from games.state import state_at_head, state_behind
from games.verification import (
    CONCESSION_AGREED,
    CONCESSION_PROPOSED,
    CONCESSION_WITHDRAWN,
    ENGINE_KIND,
    Report,
    StoredEvent,
    leading_engine_events,
    verify_stream,
)
from server.errors import ApplicationError, forbidden, match_not_found
from server.limits import whole_number

_USER_ACTOR = "user:"  # a person's actor is `user:<id>` (games.services.user_actor_of)


def match_get(match_id: int) -> Match:
    match = Match.objects.filter(pk=match_id).first()
    if match is None:
        raise match_not_found(match_id)
    return match


def known_to(match: Match, user: User | AnonymousUser | None) -> bool:
    """Whether a person may know that the table exists (issue #39: what "private" promises).

    A private table is known only to its seats, its creator, staff and the invitee of a live
    invitation to it (as `games.services.seats._invitation_addressed_to` finds one: their notification
    links to the table). Whoever holds an invitation link's secret reaches it through the
    invitation's own route (`/api/invitations/<token>`), not by its number."""
    if not match.private:
        return True
    if user is None or not user.is_authenticated:
        return False
    return (
        user.is_staff
        or match.created_by_id == user.pk
        or Seat.objects.filter(match=match, user=user).exists()
        or Invitation.objects.filter(
            match=match, invitee=user, revoked_at__isnull=True, expires_at__gt=timezone.now()
        ).exists()
    )


def match_get_known(match_id: int, user: User | AnonymousUser | None) -> Match:
    """`match_get` for a person: a private table they may not know of (`known_to`) is no match to
    them, 404 `match_not_found` as for a number that names none, so that its number, a guessable
    one, tells a stranger nothing. Every route of a table by id fetches it so."""
    match = match_get(match_id)
    if not known_to(match, user):
        raise match_not_found(match_id)
    return match


def seats_present(match_id: int) -> set[int]:
    """The seats whose person has a socket at the table now, over every process (`games.presence`)."""
    return {entry["seat"] for entry in presence().summary(match_id)["seats"]}


def seat_of(match: Match, user: User | AnonymousUser | None) -> int | None:
    if user is None or not user.is_authenticated:
        return None
    return Seat.objects.filter(match=match, user=user).values_list("seat", flat=True).first()


class Watch(NamedTuple):
    """Whether a person may watch a table, and if not, when it opens to them (`opens_when`).

    `delay_moves`: a delayed table's (`SpectatorPolicy.DELAYED`) delay for this person, None to
    see it live. Every route applies it only while the person holds no seat at the head it shows
    (a seat sees its own table live), so a person who leaves an open table is behind once it runs."""

    allowed: bool
    opens_when: str | None = None  # DEAL_FINISHED or MATCH_FINISHED
    delay_moves: int | None = None


DEAL_FINISHED = "deal_finished"  # a duplicate deal's table: when every table of the deal has finished
MATCH_FINISHED = "match_finished"  # a closed table: when its match has finished


def can_watch(match: Match, user: User | AnonymousUser | None) -> Watch:
    """The one spectator decision every route that shows a table asks (REST, sockets, chat).

    A sealed match is a table of a duplicate deal: every table of the round is dealt the same
    deck, so what is played at one is the hidden hand of an opponent at another. It is closed to
    everyone but its own seats, its tournament's organiser and staff until every table of the deal
    has finished (`match_unseal`), finished or not itself.

    Otherwise its spectator policy decides while it runs (`SpectatorPolicy`; an open table, and a
    finished one, are anyone's to watch): a closed table shows itself to its seats, its tournament's
    organiser, its creator and staff only, until it has finished; a delayed table shows itself to
    everyone, to all but those `spectator_delay_moves` moves behind (`Watch.delay_moves`)."""
    if match.sealed:
        if _watches_live(match, user, seats_count=True):
            return Watch(True)
        return Watch(False, DEAL_FINISHED)
    policy = match.spectator_policy
    if policy == SpectatorPolicy.OPEN or match.status == Match.Status.FINISHED:
        return Watch(True)
    if policy == SpectatorPolicy.CLOSED:
        if match.status == Match.Status.OPEN or _watches_live(match, user, seats_count=True):
            return Watch(True)  # an open table shows only its seats: people must find it to sit down
        return Watch(False, MATCH_FINISHED)
    if _watches_live(match, user, seats_count=False):
        return Watch(True)
    return Watch(True, delay_moves=match.spectator_delay_moves)


def _watches_live(match: Match, user: User | AnonymousUser | None, *, seats_count: bool) -> bool:
    """Staff, the table's creator (a tournament table's is its organiser), the organiser of its
    tournament and, if `seats_count`, a person seated at it: who watches a closed table."""
    if user is None or not user.is_authenticated:
        return False
    return (
        user.is_staff
        or match.created_by_id == user.pk
        or (seats_count and Seat.objects.filter(match=match, user=user).exists())
        or Match.objects.filter(pk=match.pk, tournament_table__round__tournament__organiser=user).exists()
    )


def watch_required(match: Match, user: User | AnonymousUser | None) -> Watch:
    """Refuses (403 `table_closed_to_spectators`) a person `can_watch` keeps out, saying when it
    opens; else their `Watch` (a delayed table's delay with it)."""
    watch = can_watch(match, user)
    if not watch.allowed:
        if watch.opens_when == DEAL_FINISHED:
            message = _("This table is closed to spectators until every table of its deal has finished.")
        else:
            message = _("This table is closed to spectators until its match has finished.")
        raise ApplicationError("table_closed_to_spectators", message, extra={"opens_when": watch.opens_when})
    return watch


def moves_behind(match_id: int, head_seq: int, moves: int) -> int:
    """The seq a viewer `moves` moves behind is shown when the match's head is `head_seq`: the
    position before the `moves`-th last move (a MovePlayed fact, whoever played it: a person, a
    bot or the clock) up to the head, or before the first move if fewer have been played."""
    seqs = list(
        Event.objects.filter(match_id=match_id, kind=Event.Kind.TABLE, type="MovePlayed", seq__lte=head_seq)
        .order_by("-seq").values_list("seq", flat=True)[:moves]
    )
    return seqs[-1] - 1 if seqs else head_seq


def delay_for(match: Match, watch: Watch, seat: int | None) -> int | None:
    """The moves behind a viewer with `seat` (None: no seat) and `watch` is shown the match now."""
    if seat is not None or watch.delay_moves is None or match.status != Match.Status.RUNNING:
        return None
    return watch.delay_moves


def match_summary(match: Match, viewer: User | AnonymousUser | None = None) -> MatchSummary:
    """A table's public facts. The seed and a chosen deck stay hidden until the match ends; that
    the creator chose the deck does not (`deck_chosen`). A running delayed table's `seq` is the
    position `viewer` is shown (`can_watch`; None: anyone), and its `deadline` is left out behind."""
    return match_summaries([match], viewer)[0]


def match_summaries(matches: list[Match], viewer: User | AnonymousUser | None = None) -> list[MatchSummary]:
    """`match_summary` of each match, with what they need read once for all of them (a page of
    fifty tables was fifty reads of seats and a hundred of events more)."""
    ids = [match.pk for match in matches]
    seats_of: dict[int, list[Seat]] = {match_id: [] for match_id in ids}
    for seat in Seat.objects.filter(match_id__in=ids).select_related("user").order_by("seat"):
        seats_of[seat.match_id].append(seat)
    behind = _shown_behind(matches, seats_of, viewer)
    rated_finished = [m.pk for m in matches if m.status == Match.Status.FINISHED and m.rated]
    moved = people_who_moved(Event.objects.filter(match_id__in=rated_finished)) if rated_finished else set()
    started = [
        m.pk for m in matches if ("deck" in m.options or m.shuffle_id is not None) and m.status != Match.Status.OPEN
    ]
    firsts = {
        match_id: (actor, data)
        for match_id, actor, data in Event.objects.filter(match_id__in=started, seq=1).values_list("match_id", "actor", "data")
    } if started else {}
    shuffles = _shuffles([m for m in matches if m.shuffle_id is not None], seats_of, firsts)
    finished = [m.pk for m in matches if m.status == Match.Status.FINISHED]
    rematches = dict(Match.objects.filter(rematch_of_id__in=finished).values_list("rematch_of_id", "pk")) if finished else {}
    concessions = _concessions(matches, seats_of, behind)
    return [
        _summary(
            match, seats_of[match.pk], moved, firsts.get(match.pk, (None, None))[0], shuffles.get(match.pk),
            rematches.get(match.pk), behind.get(match.pk), concessions.get(match.pk),
        )
        for match in matches
    ]


CONCESSION_FACTS = (CONCESSION_PROPOSED, CONCESSION_AGREED, CONCESSION_WITHDRAWN)


def concession_agreed(facts: Iterable[tuple[str, int]]) -> set[int]:
    """The seats that agree to concede now, from a match's concession facts (type, seat) in order:
    a proposal and each agreement add their seat; a withdrawal, by anyone playing, ends the proposal."""
    agreed: set[int] = set()
    for kind, seat in facts:
        if kind == CONCESSION_WITHDRAWN:
            agreed.clear()
        else:
            agreed.add(seat)
    return agreed


def concession_facts(match_id: int) -> list[tuple[str, int]]:
    """A match's concession facts (type, seat) in order."""
    rows = Event.objects.filter(match_id=match_id, kind=Event.Kind.TABLE, type__in=CONCESSION_FACTS)
    return [(kind, data["seat"]) for kind, data in rows.order_by("seq").values_list("type", "data")]


def seats_playing(seat_rows: Iterable[Seat]) -> set[int]:
    """The seats a person still plays: the ones whose agreement a concession needs."""
    return {row.seat for row in seat_rows if row.user_id is not None and not row.abandoned}


def concession_shown(agreed: set[int], playing: set[int]) -> ConcessionShown | None:
    """A pending concession as a table shows it (None: none): who agrees, who is still to agree."""
    agreeing = agreed & playing
    if not agreeing:
        return None
    return {"agreed": sorted(agreeing), "waiting": sorted(playing - agreed)}


def _concessions(
    matches: list[Match], seats_of: dict[int, list[Seat]], behind: dict[int, int]
) -> dict[int, ConcessionShown | None]:
    """Each running cooperative match's pending concession, read in one go; a viewer kept behind
    (`behind`) sees it as it stood at the position shown."""
    running = [m.pk for m in matches if m.status == Match.Status.RUNNING and ENGINES[m.game].cooperative]
    if not running:
        return {}
    facts: dict[int, list[tuple[str, int]]] = {match_id: [] for match_id in running}
    rows = Event.objects.filter(match_id__in=running, kind=Event.Kind.TABLE, type__in=CONCESSION_FACTS)
    for match_id, seq, kind, data in rows.order_by("match_id", "seq").values_list("match_id", "seq", "type", "data"):
        if match_id not in behind or seq <= behind[match_id]:
            facts[match_id].append((kind, data["seat"]))
    return {
        match_id: concession_shown(concession_agreed(found), seats_playing(seats_of[match_id]))
        for match_id, found in facts.items()
    }


def _shown_behind(
    matches: list[Match], seats_of: dict[int, list[Seat]], viewer: User | AnonymousUser | None
) -> dict[int, int]:
    """Per running delayed match that `viewer` holds no seat at and sees behind: the seq shown."""
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    shown: dict[int, int] = {}
    for match in matches:
        if match.spectator_policy != SpectatorPolicy.DELAYED or match.status != Match.Status.RUNNING:
            continue
        if viewer_id is not None and any(seat.user_id == viewer_id for seat in seats_of[match.pk]):
            continue
        if _watches_live(match, viewer, seats_count=False):
            continue
        shown[match.pk] = moves_behind(match.pk, match.last_seq, match.spectator_delay_moves)
    return shown


def _shuffles(
    matches: list[Match], seats_of: dict[int, list[Seat]], firsts: dict[int, tuple[str, dict]]
) -> dict[int, ShuffleShown]:
    """Each contributed shuffle's public side: which seats have sent a contribution while the table
    is open, and every contribution once dealt (MatchStarted records them; the server's seed is the
    match's `seed`, revealed at the end)."""
    open_ids = [m.shuffle_id for m in matches if m.status == Match.Status.OPEN]
    sent: set[tuple[int, int]] = set(
        ShuffleContribution.objects.filter(shuffle_id__in=open_ids).values_list("shuffle_id", "user_id")
    ) if open_ids else set()
    found: dict[int, ShuffleShown] = {}
    for match in matches:
        if match.status == Match.Status.OPEN:
            seats = [s.seat for s in seats_of[match.pk] if (match.shuffle_id, s.user_id) in sent]
            found[match.pk] = {"derivation": DERIVATION, "contributed_seats": seats, "contributions": None}
        else:
            record = firsts.get(match.pk, (None, {}))[1].get("shuffle") or {}
            contributions = record.get("contributions", [])
            found[match.pk] = {
                "derivation": record.get("derivation", DERIVATION),
                "contributed_seats": [c["seat"] for c in contributions],
                "contributions": contributions,
            }
    return found


def _summary(
    match: Match,
    seat_rows: list[Seat],
    moved: set[tuple[int, int]],
    opened_by: str | None,
    shuffle: ShuffleShown | None,
    rematch: int | None,
    behind: int | None = None,
    concession: ConcessionShown | None = None,
) -> MatchSummary:
    finished = match.revealed
    options = match.options if finished else {k: v for k, v in match.options.items() if k != "deck"}
    seats = {s.seat: s for s in seat_rows}
    return {
        "id": match.pk,
        "game": match.game,
        "status": match.status,
        "players": match.players,
        "rated": match.rated,
        "private": match.private,
        # A duplicate deal's result tells the other tables how it plays: hidden until the deal is done.
        "rating": None if match.sealed else _rating(match, _never_moved(match.pk, seat_rows, moved)),
        "options": options,
        "deck_chosen": _deck_chosen(match, opened_by),
        "created_by": match.created_by_id,
        "created_at": match.created_at,
        "started_at": match.started_at,
        "finished_at": match.finished_at,
        "seats": [
            {
                "seat": s,
                "user": seats[s].user_id if s in seats else None,
                "name": seats[s].shown_name if s in seats else None,
                "bot": seats[s].bot if s in seats else "",
                "ready": seats[s].ready if s in seats else True,
                "abandoned": seats[s].abandoned if s in seats else False,
            }
            for s in range(match.players)
        ],
        "seq": match.last_seq if behind is None else behind,
        "seed_sha256": match.seed_sha256,
        "seed": match.seed if finished else None,
        "shuffle": shuffle,
        "outcome": None if match.sealed else match.outcome,
        "ranks": None if match.sealed else _counted_ranks(match, seat_rows),
        "clock_seconds": match.clock_seconds,
        "deadline": match.deadline if behind is None else None,
        "rematch_of": match.rematch_of_id,
        "rematch": rematch,
        "spectator_policy": match.spectator_policy,
        "spectator_delay_moves": match.spectator_delay_moves if match.spectator_policy == SpectatorPolicy.DELAYED else None,
        "concession": concession,
    }


def _counted_ranks(match: Match, seat_rows: list[Seat]) -> list[int] | None:
    """The ranks the finished match counts at (`result_ranks`): what its page shows as the result."""
    if not match.outcome or "ranks" not in match.outcome:
        return None
    return result_ranks(match.outcome["ranks"], [s.seat for s in seat_rows if s.abandoned])


def deck_chosen_by_creator(match: Match) -> bool:
    """Whether a person fixed the table's deck (`options["deck"]`), and so may know every hand.

    Only `match_create` lets a person fix a deck, on a casual table that stays open until its
    creator starts it. A deck in a match the server started itself (its MatchStarted actor:
    a tournament's duplicate deal) was dealt from the server's own secret seed: nobody chose it.
    """
    if "deck" not in match.options or match.status == Match.Status.OPEN:
        return _deck_chosen(match, None)
    return _deck_chosen(match, Event.objects.filter(match=match, seq=1).values_list("actor", flat=True).first())


def _deck_chosen(match: Match, opened_by: str | None) -> bool:
    """`deck_chosen_by_creator`, given the actor of the match's first event (its opener)."""
    return "deck" in match.options and (match.status == Match.Status.OPEN or opened_by != "server")


def people_who_moved(events: QuerySet[Event]) -> set[tuple[int, int]]:
    """(match id, user id) of each person who played a move of their own among `events`.

    A move of their own is a MovePlayed fact with the person as its actor; what the clock or the
    fallback bot played for them (actor `clock`) is not one.
    """
    rows = (
        events.filter(kind=Event.Kind.TABLE, type="MovePlayed", actor__startswith=_USER_ACTOR)
        .values_list("match_id", "actor")
        .distinct()
    )
    # An imported match keeps the actors of its file: one that is not an id here is nobody.
    ids = ((match_id, whole_number(actor[len(_USER_ACTOR):])) for match_id, actor in rows)
    return {(match_id, user_id) for match_id, user_id in ids if user_id is not None}


def seats_never_moved(match_id: int) -> list[int]:
    """The seats of people who have not played a move of their own at the match (so far).

    Bots' seats are not among them: a bot plays its own moves. A person whose seat never had a
    decision to make is: nothing in the log shows they were there.
    """
    moved = people_who_moved(Event.objects.filter(match_id=match_id))
    return _never_moved(match_id, Seat.objects.filter(match_id=match_id).order_by("seat"), moved)


def seats_no_show(match_id: int) -> list[int]:
    """The seats of people who let the clock play for them and never played a move of their own:
    they had a decision to make and were not there (a tournament's no-show rule).

    A person whose seat has not had a turn yet is not among them: nothing shows they are away.
    """
    never = seats_never_moved(match_id)
    if not never:
        return []
    clocked = set(
        Event.objects.filter(
            match_id=match_id, kind=Event.Kind.TABLE, type="MovePlayed", actor="clock", data__seat__in=never
        ).values_list("data__seat", flat=True)
    )
    return [seat for seat in never if seat in clocked]


def _never_moved(match_id: int, seats, moved: set[tuple[int, int]]) -> list[int]:
    return [s.seat for s in seats if s.user_id is not None and (match_id, s.user_id) not in moved]


def _rating(match: Match, never_moved: list[int]) -> MatchRating | None:
    """Whether a finished match counts for ratings, and if not why (None until it ends).

    Not rated: a casual match, and a match where a person never played a move of their own
    (`seat_never_moved`: the clock and the fallback bot played every move of their seat, or it
    never had one to play). Such a match shows nothing about that person, and rating it would
    let a second account that never moves hand rating points to the first, so it counts for
    nobody (lichess aborts a game in which a side never moved). `ratings.selectors.ratable_matches`
    applies the same rule to the event log; tournament results still count the match.
    """
    if match.status != Match.Status.FINISHED:
        return None
    if not match.rated:
        return {"rated": False, "reason": "casual", "seats": []}
    if never_moved:
        return {"rated": False, "reason": "seat_never_moved", "seats": never_moved}
    return {"rated": True, "reason": None, "seats": []}


def match_view_for_user(match: Match, user: User | None, watch: Watch | None = None) -> MatchView:
    """The caller's own seat's view and legal moves, or the spectator view for anyone not seated:
    `delay_for` moves behind the head at a delayed table (`watch`: `can_watch`'s answer, asked if
    not given)."""
    seat = seat_of(match, user)
    seq, view, legal = match.last_seq, None, []
    if match.status != Match.Status.OPEN:
        engine = ENGINES[match.game]
        delay = delay_for(match, watch or can_watch(match, user), seat)
        if delay is None:
            state = state_at_head(match.pk, match.game, match.last_seq)
        else:
            seq = moves_behind(match.pk, match.last_seq, delay)
            state = state_behind(match.pk, match.game, seq)
        view = engine.view(state, seat)
        if seat is not None:
            legal = engine.legal_moves(state, seat)
    return {"match": match.pk, "seq": seq, "seat": seat, "view": view, "legal_moves": legal}


def match_log_for_user(match: Match, user: User | None, watch: Watch, *, since: int = 0) -> list[dict[str, Any]]:
    """The log after `since` as the caller's seat may see it; a delayed table's spectator's stops
    `delay_for` moves behind the head."""
    seat = seat_of(match, user)
    delay = delay_for(match, watch, seat)
    upto = None if delay is None else moves_behind(match.pk, match.last_seq, delay)
    return match_log_for_seat(match, seat, since=since, upto=upto)


def match_log_for_seat(
    match: Match, seat: int | None, *, since: int = 0, upto: int | None = None
) -> list[dict[str, Any]]:
    """The engine's events with `since < seq <= upto` as `seat` may see them (`None`: a spectator)."""
    rows = Event.objects.filter(match=match, kind=Event.Kind.ENGINE, seq__gt=since).order_by("seq")
    if upto is not None:
        rows = rows.filter(seq__lte=upto)
    return redacted_events(ENGINES[match.game], rows.values_list("seq", "data"), seat)


def redacted_events(engine, rows, seat: int | None) -> list[dict[str, Any]]:
    """`(seq, data)` engine events as `seat` may see them, as log entries."""
    return [{"seq": seq, "event": red} for seq, data in rows if (red := engine.redact(data, seat)) is not None]


def match_head(match_id: int) -> int:
    """The seq of the match's last event (0 for an unknown match)."""
    return Match.objects.filter(pk=match_id).values_list("last_seq", flat=True).first() or 0


def match_raw_events(match: Match, user: User | None) -> QuerySet[Event]:
    """Every stored event: for staff at any time, for anyone once the match has ended."""
    if not match.revealed and not (user is not None and user.is_staff):
        raise forbidden("match_running", _("The raw events of a match are public once it has ended."))
    return Event.objects.filter(match=match).order_by("seq")


def match_list(
    *, game: str | None = None, status: str | None = None, player: str | None = None,
    viewer: User | AnonymousUser | None = None,
) -> QuerySet[Match]:
    """Tables, newest first. A private table is never in the lobby's list, and in a player's list
    (`player`, also their profile) only for a `viewer` seated at it, its creator or staff: anyone
    else would learn who plays privately with whom (issue #39)."""
    matches = Match.objects.all().order_by("-id")
    if not player or viewer is None or not viewer.is_authenticated:
        matches = matches.filter(private=False)
    elif not viewer.is_staff:
        matches = matches.filter(Q(private=False) | Q(created_by=viewer) | Q(seat_set__user=viewer))
    if game:
        matches = matches.filter(game=game)
    if status:
        matches = matches.filter(status=status)
    if player:
        who = Q(seat_set__user__username=player)
        if (user_id := whole_number(player)) is not None:
            who |= Q(seat_set__user_id=user_id)
        matches = matches.filter(who).distinct()
    return matches


# The most running tables `deserted_match_ids` asks presence about: far more than a lobby shows.
DESERTED_LOOKED_AT = 500


def deserted_match_ids(matches: QuerySet[Match], *, now: datetime | None = None) -> list[int]:
    """Among the running `matches` (the newest DESERTED_LOOKED_AT), the tables their people have
    all left: a person still plays a seat (not given up), none of them has a socket at the table,
    and nothing has happened there for CLAIM_SEAT_AFTER_SECONDS (a person playing over the API
    moves, so is there). The lobby leaves them out of "Playing now"; a person who comes back finds
    the table as it was, and it is listed again."""
    quiet_since = (now or timezone.now()) - timedelta(seconds=settings.CLAIM_SEAT_AFTER_SECONDS)
    quiet = matches.filter(status=Match.Status.RUNNING).filter(
        Exists(Seat.objects.filter(match=OuterRef("pk"), user__isnull=False, abandoned=False)),
        Exists(Event.objects.filter(match=OuterRef("pk"), seq=OuterRef("last_seq"), created__lt=quiet_since)),
    )
    return [pk for pk in quiet.values_list("pk", flat=True)[:DESERTED_LOOKED_AT] if not seats_present(pk)]


def match_invitations(*, match_id: int, user: User) -> list[Invitation]:
    """A table's invitations, for its creator only (their links are not kept: only when made)."""
    match = match_get(match_id)
    if match.created_by_id != user.pk:
        raise forbidden("not_table_owner", _("Only the table's creator sees its invitations."))
    return list(Invitation.objects.filter(match=match).select_related("invitee").order_by("id"))


def game_list() -> list[dict[str, Any]]:
    return [
        {
            "slug": slug,
            "min_players": engine.min_players,
            "max_players": engine.max_players,
            "bots": sorted(BOTS.get(slug, {})),
            "strong_bot": STRONG_BOT.get(slug),
        }
        for slug, engine in sorted(ENGINES.items())
    ]


def result_ranks(ranks: list[int], abandoned: Iterable[int] = (), forfeited: Iterable[int] = ()) -> list[int]:
    """The ranks a finished match counts at, for its table, its tournament and ratings alike.

    Seats that played on keep the outcome's order and come first; then the abandoned seats, in
    the order the fallback bot finished them (so a match every seat left still has the winner
    the table shows); then the `forfeited` ones (a tournament's absent players), tied last.
    Competition ranking ("1224") is kept.
    """
    left, gone = set(abandoned), set(forfeited)

    def key(seat: int) -> tuple[int, int]:
        if seat in gone:
            return (2, 0)
        return (1 if seat in left else 0, ranks[seat])

    keys = [key(seat) for seat in range(len(ranks))]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]


def match_result_ranks(match: Match) -> list[int]:
    """The ranks a finished match counts at (`result_ranks`)."""
    abandoned = Seat.objects.filter(match=match, abandoned=True).values_list("seat", flat=True)
    return result_ranks((match.outcome or {})["ranks"], abandoned)


def stored_events(match_id: int) -> list[StoredEvent]:
    """A match's rows as `StoredEvent`s, as `games.verification` checks them."""
    rows = Event.objects.filter(match_id=match_id).order_by("seq").values_list(
        "seq", "kind", "type", "actor", "data", "created", "hash"
    )
    return [
        StoredEvent(seq, kind, type_, actor, data, canonical_time(created), hash_)
        for seq, kind, type_, actor, data, created, hash_ in rows
    ]


def verify_match(match: Match) -> Report:
    """Verifies a stored match; a practice match's copied position is compared with its source."""
    events = stored_events(match.pk)
    report = verify_stream(match.game, events, chain_version=match.chain_version, head_hash=match.head_hash)
    if report.ok and match.outcome is not None and report.outcome != match.outcome:
        report.problems.append("the match's stored outcome is not the replayed one")
    source = events[0].data.get("practice_of") if events else None
    if report.ok and source is not None:
        copied = [e.data for e in leading_engine_events(events[1:])]
        original = [e.data for e in stored_events(source["match"])[: source["seq"]] if e.kind == ENGINE_KIND]
        if original and copied != original:
            report.problems.append(f"the position copied from match {source['match']} is not that match's")
    return report


def tables_awaiting_others(user: User) -> dict[str, list[int]]:
    """An account check (ACCOUNT_IN_PLAY_CHECKS): the open or running tables where `user` sits
    with another person, who would wait for someone who cannot come."""
    unfinished = [Match.Status.OPEN, Match.Status.RUNNING]
    mine = Seat.objects.filter(user=user, match__status__in=unfinished).values("match_id")
    others = Seat.objects.filter(match_id__in=mine, user__isnull=False).exclude(user=user)
    return {"matches": sorted(set(others.values_list("match_id", flat=True)))}


def played_together(user_id: int, other_id: int) -> bool:
    """Whether two people sat at one match that started here (an imported log proves nothing)."""
    started = Seat.objects.filter(
        user_id=user_id, match__origin=Match.Origin.PLAYED, match__started_at__isnull=False
    ).values("match_id")
    return Seat.objects.filter(user_id=other_id, match_id__in=started).exists()
