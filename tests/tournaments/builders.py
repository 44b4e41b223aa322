"""Builders for tournament tests: create and fill a tournament, play its rounds without a worker.

Fast tests use Sequence Stacks with a short turn limit (a table is four moves; every table is a
draw, so brackets go to the higher seed) and play each table out synchronously with the same
fallback bot a round's deadline uses.
"""

from __future__ import annotations

from typing import Any

from games import turns
from games.models import Match
from tournaments import projections, selectors, services
from tournaments.models import Tournament, TournamentEvent

SHORT = {"turn_limit": 2}


def make_tournament(
    organiser,
    *,
    game: str = "sequence-stacks",
    format: str = "swiss",
    options: dict | None = None,
    bots: int = 0,
    bot: str = "random",
    people: tuple = (),
    match_options: dict | None = None,
    **settings: Any,
) -> Tournament:
    """A tournament open for registration with `people` registered, then `bots` bots added."""
    if match_options is None:
        match_options = dict(SHORT) if game == "sequence-stacks" else {}
    tournament = services.tournament_create(
        organiser=organiser,
        name=f"{format} of {game}",
        game=game,
        format=format,
        options=options or {},
        match_options=match_options,
        **{"rated": False, **settings},
    )
    for person in people:
        services.entrant_register(tournament_id=tournament.pk, user=person)
    for _ in range(bots):
        services.entrant_bot_add(tournament_id=tournament.pk, user=organiser, bot=bot)
    return reloaded(tournament)


def reloaded(tournament: Tournament) -> Tournament:
    return Tournament.objects.get(pk=tournament.pk)


def running_matches(tournament: Tournament) -> list[int]:
    return list(
        Match.objects.filter(status=Match.Status.RUNNING, tournament_table__round__tournament=tournament)
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def finish_round(tournament: Tournament) -> list[int]:
    """Plays every running table of the tournament to its end and tells the tournament, as the
    match-finished task would."""
    ids = running_matches(tournament)
    for match_id in ids:
        turns.match_play_out(match_id=match_id)
    for match_id in ids:
        services.tournament_match_finished(match_id=match_id)
    return ids


def play_to_end(tournament: Tournament, *, max_rounds: int = 60) -> Tournament:
    for _ in range(max_rounds):
        tournament = reloaded(tournament)
        if tournament.status != Tournament.Status.RUNNING:
            return tournament
        if not finish_round(tournament):
            services.tournament_advance(tournament_id=tournament.pk)
    raise AssertionError("the tournament did not end")


def event_types(tournament: Tournament) -> list[str]:
    return list(
        TournamentEvent.objects.filter(tournament=tournament).order_by("seq").values_list("type", flat=True)
    )


def events_of(tournament: Tournament, kind: str) -> list[dict]:
    return [e.data for e in TournamentEvent.objects.filter(tournament=tournament, type=kind).order_by("seq")]


def assert_rebuild_equals_incremental(tournament: Tournament) -> None:
    """The standings and state the projection kept as events came equal those rebuilt from the log."""
    tournament = reloaded(tournament)
    incremental_rows = selectors.standings_snapshot(tournament)
    incremental_state = projections.state_of(tournament)
    incremental_rounds = selectors.rounds(tournament)
    rebuilt_state = projections.rebuild(tournament)
    assert rebuilt_state == incremental_state
    assert selectors.standings_snapshot(tournament) == incremental_rows
    assert selectors.rounds(tournament) == incremental_rounds
