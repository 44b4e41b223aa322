"""The arena benchmark: its baseline by hand, and a small arena end to end."""
from __future__ import annotations

from bench import arena
from tournaments.formats.arena import Waiting, form_tables


def test_the_baseline_seats_the_pool_in_arrival_order_by_fours():
    pool = [Waiting(player, since=10.0 - player) for player in range(9)]
    tables = arena.first_come_first_seated(pool, arena.RULES, 20.0)
    assert [t.seats for t in tables] == [(8, 7, 6, 5), (4, 3, 2, 1)]


def test_a_small_arena_beats_the_baseline_on_rematches_and_seats_and_keeps_the_wait_bound():
    ours = arena.simulate(form_tables, arena.RULES, 60, 20, 2.0, 3)
    theirs = arena.simulate(arena.first_come_first_seated, arena.RULES, 60, 20, 2.0, 3)
    row, measured = arena.summary("arena", *ours)
    baseline = arena.summary("baseline", *theirs)[1]
    # A table's four players come back together; with few others waiting, some of them are
    # overdue before anyone else is free, and then meeting again is the only table there is.
    assert measured["rematch_share"] < baseline["rematch_share"] / 3
    assert measured["in_balance_share"] > baseline["in_balance_share"]
    assert measured["overdue_left"] == 0  # nobody past the bound while the pool could fill a table
    assert baseline["overdue_left"] > 0
    assert measured["games_p50"] >= 1 and len(row) == 8
