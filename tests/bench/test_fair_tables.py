"""The fair-tables benchmark: its measures on a hand-made tournament, and a small row end to end."""
from __future__ import annotations

from bench import fair_tables
from tournaments.formats import History, Pairing, Table, result


def test_measures_count_rematches_seat_spreads_and_score_spread_by_hand():
    first = Pairing(1, (Table((1, 2, 3)), Table((4, 5, 6))))
    second = Pairing(2, (Table((1, 2, 4)), Table((3, 5, 6))))
    after_first = History().with_round(first, [result(1, 1, 2, 3), result(1, 4, 5, 6)])
    final = after_first.with_round(second, [result(2, 1, 2, 4), result(2, 3, 5, 6)])
    measured = fair_tables.measures([(History(), first), (after_first, second)], final, 3)
    assert measured["rematches"] == 2                  # 1–2 and 5–6 meet again
    assert measured["seat_spread"] == 2                # 1 sat first twice, never second or third
    assert measured["first_seat_spread"] == 2          # 1: twice; 2, 5, 6: never
    # round 2: {1, 2, 4} hold 1, 1/2, 1 points, {3, 5, 6} 0, 1/2, 0; round 1 all 0
    assert measured["score_spread"] == (0 + 0 + 0.5 + 0.5) / 4


def test_a_small_row_has_no_rematch_no_finding_and_balanced_seats():
    figures = fair_tables.row(24, 3, 3, 2)[2]  # 8 tables, at most 4 opponents each: comfortable
    assert figures["ours"]["rematches_max"] == 0
    assert figures["findings"] == 0
    assert figures["ours"]["seat_spread"] <= 1 and figures["ours"]["first_seat_spread"] <= 1
    assert set(figures["baseline"]) == set(figures["ours"])
