"""Leagues (tournaments/formats/league.py): matchdays on a calendar, each a round of an inner format."""
from __future__ import annotations

import datetime as dt

import pytest

from tournaments.formats import FORMATS, History, result
from tournaments.formats.base import play
from tournaments.formats.league import FORMAT, matchday_date, matchday_dates

MONDAY = dt.date(2025, 1, 6)


def seat_zero_wins(number, table):
    return result(number, *table.seats, match=table.match)


def test_it_is_registered_under_its_slug():
    assert FORMATS["league"] is FORMAT


def test_matchdays_fall_every_seven_days_by_default():
    assert matchday_dates(MONDAY, 3) == [MONDAY, dt.date(2025, 1, 13), dt.date(2025, 1, 20)]


def test_matchdays_can_fall_on_chosen_weekdays():
    tuesdays_and_fridays = matchday_dates(MONDAY, 4, weekdays=[1, 4])
    assert tuesdays_and_fridays == [dt.date(2025, 1, 7), dt.date(2025, 1, 10), dt.date(2025, 1, 14),
                                    dt.date(2025, 1, 17)]


def test_a_skipped_date_moves_the_rest_of_the_season_back_a_slot():
    assert matchday_dates(MONDAY, 3, every_days=14, skip=[dt.date(2025, 1, 20)]) == [
        MONDAY, dt.date(2025, 2, 3), dt.date(2025, 2, 17)]


def test_matchday_date_is_the_nth_slot():
    assert matchday_date(MONDAY, 3, every_days=2) == dt.date(2025, 1, 10)


def test_a_round_robin_league_dates_each_matchday():
    options = {"format": "round-robin", "start": "2025-01-06", "every_days": 7}
    rounds, history = play(FORMAT, [1, 2, 3, 4], options, seat_zero_wins)
    assert [p.date for p in rounds] == [MONDAY, dt.date(2025, 1, 13), dt.date(2025, 1, 20)]
    assert [t.seats for t in rounds[0].tables] == [(1, 4), (2, 3)]
    standings = FORMAT.standings([1, 2, 3, 4], options, history)
    assert standings[0].played == 3 and sum(row.points for row in standings) == 6


def test_the_season_calendar_lists_every_matchday_when_its_length_is_known():
    options = {"format": "round-robin", "double": True, "start": MONDAY, "weekdays": [2]}
    calendar = FORMAT.calendar(4, options)
    assert len(calendar) == 6 and all(day.weekday() == 2 for day in calendar)


def test_a_league_can_play_swiss_tables_matchdays():
    options = {"format": "swiss-tables", "table_size": 4, "min_players": 2, "max_players": 5, "rounds": 3,
               "start": "2025-03-01"}
    rounds, _ = play(FORMAT, list(range(12)), options, seat_zero_wins)
    assert len(rounds) == 3 and rounds[2].date == dt.date(2025, 3, 15)


def test_without_a_start_date_matchdays_carry_no_date():
    assert FORMAT.next_round([1, 2]).date is None


def test_the_inner_format_checks_its_own_options():
    with pytest.raises(ValueError, match="unknown options"):
        FORMAT.next_round([1, 2], {"format": "round-robin", "table_size": 4})
    with pytest.raises(ValueError, match="a league plays one of"):
        FORMAT.next_round([1, 2], {"format": "marathon"})


def test_a_bad_date_is_refused():
    with pytest.raises(ValueError, match="date"):
        FORMAT.next_round([1, 2], {"start": "next tuesday"})


def test_the_league_standings_use_the_inner_formats_bye_points():
    options = {"format": "swiss-tables", "table_size": 3, "min_players": 3, "max_players": 3}
    first = FORMAT.next_round([1, 2, 3, 4], options)
    history = History().with_round(first, [seat_zero_wins(1, t) for t in first.tables])
    rows = {row.player: row for row in FORMAT.standings([1, 2, 3, 4], options, history)}
    (bye,) = first.byes
    assert rows[bye].points == rows[first.tables[0].seats[0]].points / 2
