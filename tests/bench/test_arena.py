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


def test_a_small_team_battle_keeps_teammates_apart_better_than_the_baseline():
    ours = arena.simulate(form_tables, arena.RULES, 60, 20, 2.0, 3, teams=5)
    theirs = arena.simulate(arena.first_come_first_seated, arena.RULES, 60, 20, 2.0, 3, teams=5)
    row, measured = arena.team_summary("arena", 5, *ours)
    baseline = arena.team_summary("baseline", 5, *theirs)[1]
    assert measured["teammate_pairs_mean"] < baseline["teammate_pairs_mean"] / 2
    assert measured["fewest_teammate_pairs_mean"] == 0  # five teams: every table of 3-5 can avoid them
    assert measured["overdue_left"] == 0 and measured["best_team"].startswith("team ")


def test_the_fewest_pairs_of_teammates_spread_the_table_over_the_teams():
    assert [arena._fewest_pairs(4, teams) for teams in (1, 2, 3, 4, 10)] == [6, 2, 1, 0, 0]
    assert arena._fewest_pairs(5, 2) == 4 and arena._fewest_pairs(3, 2) == 1
