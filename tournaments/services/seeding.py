"""Seeding: each entrant's rating at the start, read through `ratings.selectors` (tournaments' one
door into the ratings app)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import DatabaseError, transaction

from ratings.selectors import current_pairs, rated_as
from tournaments.models import Entrant, Tournament

log = logging.getLogger(__name__)


def entrant_ratings(tournament: Tournament, field: Sequence[int]) -> dict[str, float | None]:
    """Each entrant's conservative rating (μ − 3σ) in the game, frozen at the start for seeding
    and tie-breaks; None where the ratings app has no entry (seeded by registration order then).

    People are looked up in the people's ladder, bots in the bots' (ratings.selectors.rated_as,
    current_pairs).
    """
    rows = {e.pk: e for e in Entrant.objects.filter(pk__in=field)}
    wanted = {
        entrant_id: rated_as(user_id=rows[entrant_id].user_id, bot=rows[entrant_id].bot) for entrant_id in field
    }
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
