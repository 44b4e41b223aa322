"""Builders for series tests: finished tournaments whose final order is chosen, not played out.

A round robin is played to its end (every table played out by the fallback bot, whose results
vary), then each table's result is corrected so that the players finish in the order given:
each beats everyone after them. The corrections are the organiser's own events, so the final
standings, the league log and a series that reads them all agree on the order.
"""

from __future__ import annotations

from tests.tournaments.builders import make_tournament, play_to_end, reloaded
from tournaments import services
from tournaments.models import Entrant, RoundTable, Tournament


def finished_in_order(organiser, people=(), *, bots: int = 0, order: list[str] | None = None) -> Tournament:
    """A finished round robin of `people` (then `bots` bots): the players finish in the order
    they are given (or in `order`, by entrant name), each beating everyone after them."""
    tournament = make_tournament(organiser, format="round-robin", people=tuple(people), bots=bots)
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    tournament = play_to_end(reloaded(tournament))
    entrants = list(Entrant.objects.filter(tournament=tournament).order_by("pk"))
    names = order or [entrant.name for entrant in entrants]
    position = {entrant.pk: names.index(entrant.name) for entrant in entrants}
    for table in RoundTable.objects.filter(round__tournament=tournament).select_related("round"):
        places = sorted(position[seat] for seat in table.seats)
        ranks = [places.index(position[seat]) + 1 for seat in table.seats]
        services.result_correct(tournament_id=tournament.pk, user=organiser, round_number=table.round.number,
                                table_number=table.number, ranks=ranks, reason="as the sheet says")
    return reloaded(tournament)
