"""Seeding: each entrant's rating at the start, read from the ratings app."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import DatabaseError, transaction

from ratings import math as rmath
from ratings.models import Pool
from ratings.selectors import current_pairs
from tournaments.models import Entrant, Tournament

log = logging.getLogger(__name__)


def _rated_as(entrant: Entrant) -> tuple[str, Pool]:
    """The competitor an entrant is rated as, and the pool of the ladder it is looked up in."""
    if entrant.user_id is not None:
        return rmath.user_competitor(entrant.user_id), Pool.PEOPLE
    return rmath.bot_competitor(entrant.bot), Pool.BOTS


def entrant_ratings(tournament: Tournament, field: Sequence[int]) -> dict[str, float | None]:
    """Each entrant's conservative rating (μ − 3σ) in the game, frozen at the start for seeding
    and tie-breaks; None where the ratings app has no entry (seeded by registration order then).

    People are looked up in the people's ladder, bots in the bots' (ratings.selectors.current_pairs).
    """
    rows = {e.pk: e for e in Entrant.objects.filter(pk__in=field)}
    wanted = {entrant_id: _rated_as(rows[entrant_id]) for entrant_id in field}
    found: dict[tuple[str, str], float] = {}
    for pool in {pool for _game, pool in wanted.values()}:
        competitors = sorted({competitor for competitor, p in wanted.values() if p == pool})
        try:
            with transaction.atomic():  # a savepoint: ratings' tables missing must not spoil the start
                pairs = current_pairs(tournament.game, pool, competitors)
        except DatabaseError:
            log.warning("ratings unavailable for seeding tournament %s", tournament.pk, exc_info=True)
            continue
        for competitor, ((mu, sigma), _games) in pairs.items():
            found[(competitor, pool)] = float(mu - 3 * sigma)
    return {str(entrant_id): found.get(wanted[entrant_id]) for entrant_id in field}
