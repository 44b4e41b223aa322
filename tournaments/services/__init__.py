"""Operations on tournaments: create, register, start, advance, correct.

One module per topic, each importing only the floors below it:

    _stream   the event stream (`_locked`, `_append`) and the reads and guards every topic shares
    creation  tournament_create                           seeding  entrant_ratings (the ratings app)
    rounds    pairing, opening tables in batches, decks, finishing
    field     registration, bots, withdrawal, waitlist, check-in, late entry, re-entry, disqualification
    results   a match's result for its table, corrections, forfeits
    start     tournament_start
    scheduler tournament_advance, tournament_match_finished, tournaments_due
    series    series of tournaments: creating one, its rules, the tournaments it counts
    judging   judges, calls for a judge from a table, time extensions

    floors: _stream < creation | seeding | rounds | series < field | results < judging | start < scheduler

Callers use the names below (`from tournaments import services`, `services.entrant_register`).
"""

from tournaments.services._stream import actor_of
from tournaments.services.creation import DEFAULT_CLOCK_SECONDS, DEFAULT_ROUND_SECONDS, tournament_create
from tournaments.services.field import (
    entrant_bot_add,
    entrant_check_in,
    entrant_disqualify,
    entrant_reenter,
    entrant_register,
    entrant_withdraw,
)
from tournaments.services.judging import (
    judge_call,
    judge_call_claim,
    judge_call_resolve,
    judge_name,
    judge_remove,
    table_time_extend,
)
from tournaments.services.results import forfeit_award, result_correct
from tournaments.services.rounds import canonical_deck, duplicate_deck, table_shuffle_contribute
from tournaments.services.scheduler import tournament_advance, tournament_match_finished, tournaments_due
from tournaments.services.seeding import entrant_ratings
from tournaments.services.series import (
    series_create,
    series_event_add,
    series_event_remove,
    series_event_tier_change,
    series_rules_set,
)
from tournaments.services.start import tournament_start

__all__ = [
    "DEFAULT_CLOCK_SECONDS",
    "DEFAULT_ROUND_SECONDS",
    "actor_of",
    "canonical_deck",
    "duplicate_deck",
    "entrant_bot_add",
    "entrant_check_in",
    "entrant_disqualify",
    "entrant_ratings",
    "entrant_reenter",
    "entrant_register",
    "entrant_withdraw",
    "forfeit_award",
    "judge_call",
    "judge_call_claim",
    "judge_call_resolve",
    "judge_name",
    "judge_remove",
    "result_correct",
    "series_create",
    "series_event_add",
    "series_event_remove",
    "series_event_tier_change",
    "series_rules_set",
    "table_shuffle_contribute",
    "table_time_extend",
    "tournament_advance",
    "tournament_create",
    "tournament_match_finished",
    "tournament_start",
    "tournaments_due",
]
