"""Operations on tables: create, join, leave, seat a bot, start, and play a move; by topic, one room
each, from the stream's append up:

    _append       the stream's hash-chained append, table facts, what a committed change sends on
    moves         moves, decided and claimed (shared with the fast lane, `games.fastlane`)
    deals         committed shuffles, their contributions, the seed, the opening fact
    tables        a table opened, started, recorded whole, practised from
    concessions   a cooperative team conceding together: proposals, agreements, withdrawals
    seats         joining, leaving, bots; resigning, claiming, automatic passes
    seated        the server's own tables, started in batches
    invitations   invitation links and rematches

A room imports only rooms below it:
_append < moves | deals < tables < concessions < seats | seated < invitations.
Callers import this package (`from games import services`); it re-exports each room's public names.

Every write happens in one transaction; everything that leaves it (broadcasts, tasks) is
sent from `transaction.on_commit` and carries ids only.
"""
from __future__ import annotations

from games.services._append import (
    MAX_APPEND_ATTEMPTS,
    NewEvent,
    stale_seq,
    table_busy,
    table_fact_append,
    user_actor,
    user_actor_of,
)
from games.services.concessions import concession_agree, concession_settle, concession_withdraw
from games.services.deals import shuffle_contribution_save, shuffles_commit
from games.services.invitations import (
    INVITATION_SECONDS_MAX,
    invitation_accept,
    invitation_create,
    invitation_revoke,
    invitation_valid,
    rematch_accept,
    rematch_offer,
)
from games.services.moves import (
    MoveDecided,
    match_committed,
    move_decide,
    move_play,
    move_receipt,
    move_seat,
    move_submit,
    move_tasks_send,
    receipt_answer,
)
from games.services.seated import SeatedTable, match_start_seated, matches_start_seated, matches_unseal
from games.services.seats import match_join, match_leave, match_seat_bot, seat_auto_pass_set, seat_claim, seat_resign
from games.services.tables import (
    match_create,
    match_practice,
    match_record,
    match_shuffle_contribute,
    match_start,
    spectator_policy_checked,
)

__all__ = [
    "concession_agree",
    "concession_settle",
    "concession_withdraw",
    "invitation_accept",
    "invitation_create",
    "invitation_revoke",
    "INVITATION_SECONDS_MAX",
    "invitation_valid",
    "match_committed",
    "match_create",
    "match_join",
    "match_leave",
    "match_practice",
    "match_record",
    "match_seat_bot",
    "match_shuffle_contribute",
    "match_start",
    "match_start_seated",
    "matches_start_seated",
    "matches_unseal",
    "MAX_APPEND_ATTEMPTS",
    "move_decide",
    "move_play",
    "move_receipt",
    "move_seat",
    "move_submit",
    "move_tasks_send",
    "MoveDecided",
    "NewEvent",
    "receipt_answer",
    "rematch_accept",
    "rematch_offer",
    "seat_auto_pass_set",
    "seat_claim",
    "seat_resign",
    "SeatedTable",
    "shuffle_contribution_save",
    "shuffles_commit",
    "spectator_policy_checked",
    "stale_seq",
    "table_busy",
    "table_fact_append",
    "user_actor",
    "user_actor_of",
]
