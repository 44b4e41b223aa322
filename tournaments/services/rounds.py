"""Rounds: pairing the next one (or finishing), opening its tables in batches, and their decks."""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games import services as game_services
from games.engines import ENGINES
from games.engines._common import seeded_shuffle
from games.models import Shuffle
from server.errors import conflict, forbidden, not_found
from tournaments import fold, pairing_check
from tournaments.formats import Pairing
from tournaments.models import Entrant, Round, RoundTable, Tournament
from tournaments.services._stream import Step, _append, _latest_round, _round_begun, _rules, _schedule, _state


def _pair_next(tournament: Tournament, *, actor: str, now: dt.datetime) -> Step:
    """Pairs the next round (and starts it when due) or finishes the tournament. Lock held."""
    state = _state(tournament)
    fmt = fold.format_of(state)
    options = fold.format_options(state, seed=tournament.seed)
    field, past = fold.entrants(state), fold.history(state)
    pairing = fmt.next_round(field, options, past)
    if pairing is None:
        _finish(tournament, actor=actor)
        return Step.FINISHED
    # Judged on the very inputs the format paired from, and kept with the round as it was paired.
    quality = pairing_check.round_report(fmt.slug, field, options, past, pairing)
    starts_at = _round_starts_at(tournament, pairing, now)
    tables = [
        {"table": index, "seats": list(table.seats), "bracket": table.match, "deal": table.deal}
        for index, table in enumerate(pairing.tables, start=1)
    ]
    if tournament.contributed_shuffle:
        # Committed before anyone can contribute; the round waits for the contributions.
        for table, shuffle in zip(tables, game_services.shuffles_commit(len(tables))):
            table["seed_sha256"] = shuffle.seed_sha256
        starts_at = max(starts_at, now + dt.timedelta(seconds=settings.TOURNAMENT_SHUFFLE_SECONDS))
    attempt = state["unpaired"].get(str(pairing.round), 0)
    _append(
        tournament,
        "RoundPaired",
        {
            "round": pairing.round,
            "tables": tables,
            "byes": list(pairing.byes),
            "starts_at": starts_at.isoformat(),
            "date": pairing.date.isoformat() if pairing.date else None,
            "quality": quality,
        },
        actor=actor,
        key=f"paired:{pairing.round}:{attempt}",
        state=state,  # read at the head above: the re-ranking need not read every row again
    )
    if starts_at <= now and len(pairing.tables) <= settings.TOURNAMENT_TABLES_PER_BATCH:
        rnd = Round.objects.get(tournament=tournament, number=pairing.round)
        _round_start_batch(tournament, rnd, actor=actor, now=now)
        return Step.ROUND_STARTED
    _schedule(tournament.pk, starts_at)  # a big round opens in batches, each its own transaction
    return Step.PAIRED


def _round_starts_at(tournament: Tournament, pairing: Pairing, now: dt.datetime) -> dt.datetime:
    """A league matchday starts on its date at the tournament's time of day; other rounds at once."""
    if pairing.date is None:
        return now
    clock = (
        tournament.starts_at.astimezone(dt.UTC).timetz()
        if tournament.starts_at
        else dt.time(tzinfo=dt.UTC)
    )
    return max(now, dt.datetime.combine(pairing.date, clock))


def _seated_as(entrant: Entrant) -> User | str:
    """Who sits for an entrant: its user, or its bot by name."""
    if entrant.user_id:
        assert entrant.user is not None  # its user_id is set
        return entrant.user
    return entrant.bot


def _round_start_batch(tournament: Tournament, rnd: Round, *, actor: str, now: dt.datetime) -> bool:
    """Opens the round's next batch of tables (people and bots seated, turn clocks on) and records
    them; the last batch starts the round. True when the round has started. Lock held.

    Each batch is one transaction with its matches, so a worker killed mid-way leaves whole
    batches only: every table is opened once, the next call goes on from the first without a match.
    """
    size = settings.TOURNAMENT_TABLES_PER_BATCH
    waiting = list(RoundTable.objects.filter(round=rnd, match__isnull=True).order_by("number")[: size + 1])
    batch, last = waiting[:size], len(waiting) <= size
    people = {s for table in batch for s in table.seats}
    entrants = {e.pk: e for e in Entrant.objects.filter(pk__in=people).select_related("user")}
    committed = [table.seed_sha256 for table in batch if table.seed_sha256]
    shuffles = Shuffle.objects.in_bulk(committed, field_name="seed_sha256") if committed else {}
    seated = []
    for table in batch:
        seats = [_seated_as(entrants[e]) for e in table.seats]
        options = dict(tournament.match_options)
        if table.deal is not None:
            options["deck"] = duplicate_deck(tournament.game, len(seats), table.deal)
        # A duplicate deal stays sealed: other tables play the same deck until the round ends.
        seated.append(
            game_services.SeatedTable(
                seats=seats, options=options, sealed=table.deal is not None, shuffle=shuffles.get(table.seed_sha256)
            )
        )
    matches = game_services.matches_start_seated(
        game=tournament.game,
        tables=seated,
        created_by=tournament.organiser,
        rated=tournament.rated,
        clock_seconds=tournament.clock_seconds,
        spectator_policy=tournament.spectator_policy,
        spectator_delay_moves=tournament.spectator_delay_moves,
    )
    tables = [{"table": table.number, "match": match.pk} for table, match in zip(batch, matches)]
    if not last:
        _append(
            tournament,
            "TablesStarted",
            {"round": rnd.number, "tables": tables},
            actor=actor,
            key=f"tables:{rnd.number}:{batch[0].number}",
        )
        _schedule(tournament.pk, now)
        return False
    deadline = now + dt.timedelta(seconds=tournament.round_seconds) if tournament.round_seconds else None
    _append(
        tournament,
        "RoundStarted",
        {"round": rnd.number, "tables": tables, "deadline": deadline.isoformat() if deadline else None},
        actor=actor,
        key=f"started:{rnd.number}",
    )
    if deadline is not None:
        _schedule(tournament.pk, deadline)
    _no_show_schedule(tournament, now)
    if not RoundTable.objects.filter(round=rnd).exists():  # a round of byes only is complete at once
        _schedule(tournament.pk, now)
    return True


def _no_show_schedule(tournament: Tournament, started: dt.datetime) -> None:
    """A round just started: advance again when its no-show time is up (if the rules set one)."""
    seconds = _rules(tournament).no_show_seconds
    if seconds is not None:
        _schedule(tournament.pk, started + dt.timedelta(seconds=seconds))


def duplicate_deck(game: str, players: int, deal: int) -> list[str]:
    """The shared deck of a duplicate deal: the game's seeded shuffle of its canonical deck."""
    return seeded_shuffle(canonical_deck(game, players), deal, 0)


def canonical_deck(game: str, players: int) -> list[str]:
    """The game's deck for a player count in canonical order, as its engine gives it (ENGINE.md)."""
    return ENGINES[game].canonical_deck(players)


def _repair_unstarted(tournament: Tournament, *, actor: str, reason: str) -> bool:
    """A paired round nobody sits at yet is paired again, so it follows a change (a correction,
    a withdrawal, a disqualification). Rounds begun stand. Lock held."""
    latest = _latest_round(tournament)
    if latest is None or _round_begun(latest) or tournament.status != Tournament.Status.RUNNING:
        return False
    _append(tournament, "RoundUnpaired", {"round": latest.number, "reason": reason}, actor=actor)
    _pair_next(tournament, actor=actor, now=timezone.now())
    return True


def _finish(tournament: Tournament, *, actor: str) -> None:
    state = _state(tournament)
    rows = fold.standings(state)
    champion = None
    options = fold.format_options(state)
    placing = fold.bracket_format(state, options)
    if hasattr(placing, "champion") and len(fold.entrants(state)) >= 2:
        champion = placing.champion(fold.entrants(state), options, fold.history(state))
    if champion is None and rows:
        champion = rows[0]["entrant"]
    _append(
        tournament,
        "TournamentFinished",
        {
            "standings": [
                {
                    "entrant": row["entrant"],
                    "rank": row["rank"],
                    "place": row["place"],
                    "points": row["points"],
                }
                for row in rows
            ],
            "champion": champion,
        },
        actor=actor,
        key="finished",
    )


def _cancel(tournament: Tournament, *, reason: str) -> None:
    _append(tournament, "TournamentCancelled", {"reason": reason}, actor="server", key="cancelled")


def table_shuffle_contribute(
    *, tournament_id: int, user: User, round_number: int, table_number: int, value: str
) -> None:
    """A person seated at a paired table adds to its shuffle, until the round deals its tables.

    No tournament lock: a round's people all send theirs in the same seconds. The shuffle's own
    lock orders each contribution against the deal (`games.services.shuffle_contribution_save`).
    """
    table = RoundTable.objects.filter(
        round__tournament_id=tournament_id, round__number=round_number, number=table_number
    ).first()
    if table is None:
        if not Tournament.objects.filter(pk=tournament_id).exists():
            raise not_found(
                "tournament_not_found",
                _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id},
            )
        raise not_found(
            "table_not_found",
            _("Round %(round_number)s has no table %(table_number)s.")
            % {"round_number": round_number, "table_number": table_number},
        )
    if not table.seed_sha256:
        raise conflict("shuffle_not_contributed", _("This table's deal is the server's alone: it takes no contributions."))
    if not Entrant.objects.filter(pk__in=table.seats, user=user).exists():
        raise forbidden("not_seated", _("You do not sit at this table."))
    shuffle_id = Shuffle.objects.filter(seed_sha256=table.seed_sha256).values_list("pk", flat=True).get()
    game_services.shuffle_contribution_save(shuffle_id=shuffle_id, user=user, value=value)
