"""The seat-advantage benchmark: each row's shares sum to 1 and sit inside their intervals; ties split."""
from __future__ import annotations

import pytest

from bench import seats
from bench._common import wilson
from games.bots import STRONG_BOT


@pytest.mark.parametrize(("game", "players"), [("ten", 2), ("split", 3), ("sequence-stacks", 4)])
def test_each_rows_shares_sum_to_one_and_sit_inside_their_intervals(game, players):
    for bot in (STRONG_BOT[game], "random"):
        measured = seats.seat_shares(game, players, 12, bot)
        assert 0 < measured.decided <= 12
        assert sum(measured.shares) == pytest.approx(1)
        assert len(measured.intervals) == players
        for share, (low, high) in zip(measured.shares, measured.intervals):
            assert 0 <= low <= share <= high <= 1


def test_a_tie_for_first_splits_the_win_between_the_tied_seats():
    assert seats.win_credit([0, 2], 3) == [0.5, 0.0, 0.5]
    assert seats.win_credit([1], 3) == [0.0, 1.0, 0.0]


def test_shared_wins_give_fractional_shares_that_still_sum_to_one():
    """Random bots at Ten's 2-player table tie for first now and then (35 of 400 seeds)."""
    measured = seats.seat_shares("ten", 2, 40, "random")
    assert measured.shared > 0
    assert sum(measured.shares) == pytest.approx(1)


def test_the_largest_deviation_and_the_seats_whose_interval_misses_the_fair_share():
    measured = seats.SeatShares("bot", 3, 30, 30, 0, [0.6, 0.3, 0.1], [wilson(18, 30), wilson(9, 30), wilson(3, 30)])
    assert measured.largest_deviation == (0, pytest.approx(0.6 - 1 / 3))
    assert measured.seats_excluding_fair == [0, 2]


def test_the_cooperative_game_is_left_out_and_the_output_says_why(capsys):
    with pytest.raises(ValueError, match="cooperative"):
        seats.seat_shares("the-game", 2, 1, STRONG_BOT["the-game"])
    assert seats.main(["--games", "1", "--game", "the-game"]) == []
    assert "the-game is left out: it is cooperative" in capsys.readouterr().out


def test_main_returns_the_strong_and_the_random_figures_of_each_row():
    figures = seats.main(["--games", "3", "--game", "ten", "--players", "3"])
    assert [(row["game"], row["players"], row["games"]) for row in figures] == [("ten", 3, 3)]
    assert figures[0]["strong"]["bot"] == STRONG_BOT["ten"]
    assert figures[0]["random"]["bot"] == "random"
    assert sum(figures[0]["strong"]["shares"]) == pytest.approx(1)
