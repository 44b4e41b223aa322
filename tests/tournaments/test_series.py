"""Standings across a series of events (tournaments/series.py): every rule by a worked scenario,
then properties over generated series."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.series import (
    CIRCUIT_POINTS,
    EventPlacings,
    Placing,
    SeriesRules,
    SeriesStanding,
    field_scale,
    place_points,
    placings,
    series_standings,
    standings_json,
)

# Tiers 1 and 2 of the circuit table: 1000/600/400/200 and 500/300/200/100.
CIRCUIT = SeriesRules(points=CIRCUIT_POINTS)


def rows(standings: list[SeriesStanding]) -> dict[object, SeriesStanding]:
    """{player: row} for easy lookups."""
    return {row.player: row for row in standings}


def marks(row: SeriesStanding) -> dict[object, tuple[Fraction, str]]:
    """{event: (points, mark)} of one player's row."""
    return {res.event: (res.points, res.mark) for res in row.results}


# --- the case ----------------------------------------------------------------------


def test_three_tiered_events_with_the_best_two_of_three_counting():
    """Issue #46's "Done when": three events in two tiers, each player's best two results count."""
    rules = SeriesRules(points=CIRCUIT_POINTS, best=2)
    events = [
        placings(1, 2, 5, {"alice": 1, "bob": 2, "carol": 3, "dave": 4, "erin": 5}),
        placings(2, 1, 5, {"bob": 1, "carol": 2, "dave": 2, "alice": 4, "erin": 5}),
        placings(3, 2, 4, {"carol": 1, "alice": 2, "erin": 3, "dave": 4}),  # bob did not come
    ]
    table = series_standings(rules, events)
    # Event 1 (tier 2): alice 500, bob 300, carol 200, dave 100, erin 0 (past the table).
    # Event 2 (tier 1): bob 1000; carol and dave share 2nd, covering 2nd and 3rd: (600 + 400) / 2 = 500
    #   each; alice 4th 200; erin 0.
    # Event 3 (tier 2): carol 500, alice 300, erin 200, dave 100.
    # Best two: bob 1000 + 300 = 1300 (two events, both count); carol 500 + 500 = 1000 (drops 200);
    # alice 500 + 300 = 800 (drops 200); dave 500 + 100 = 600 (two 100s: event 1's counts, the lower
    # id); erin 200 + 0 = 200 (two 0s: event 1's counts).
    assert [(row.rank, row.player, row.total) for row in table] == [
        (1, "bob", 1300), (2, "carol", 1000), (3, "alice", 800), (4, "dave", 600), (5, "erin", 200),
    ]
    by_player = rows(table)
    assert marks(by_player["alice"]) == {1: (500, "counting"), 3: (300, "counting"), 2: (200, "dropped")}
    assert marks(by_player["bob"]) == {2: (1000, "counting"), 1: (300, "counting")}
    assert marks(by_player["carol"]) == {2: (500, "counting"), 3: (500, "counting"), 1: (200, "dropped")}
    assert marks(by_player["dave"]) == {2: (500, "counting"), 1: (100, "counting"), 3: (100, "dropped")}
    assert marks(by_player["erin"]) == {3: (200, "counting"), 1: (0, "counting"), 2: (0, "dropped")}
    assert [(row.played, row.counting) for row in table] == [(2, 2), (3, 2), (3, 2), (3, 2), (3, 2)]
    # Each row lists its results best first.
    assert [res.event for res in by_player["alice"].results] == [1, 3, 2]


# --- points by place -----------------------------------------------------------------------


def test_places_past_the_end_of_the_table_score_nothing():
    table = rows(series_standings(CIRCUIT, [placings(1, 1, 6, {"a": 4, "b": 5, "c": 6})]))
    assert (table["a"].total, table["b"].total, table["c"].total) == (200, 0, 0)


def test_players_sharing_a_place_split_the_points_of_the_places_they_cover():
    assert place_points(CIRCUIT, 1, 8, 2, shared=2) == 500  # (600 + 400) / 2
    # Three sharing 3rd cover 3rd to 5th: (400 + 200 + 0) / 3.
    assert place_points(CIRCUIT, 1, 8, 3, shared=3) == 200
    assert place_points(CIRCUIT, 1, 8, 1, shared=4) == Fraction(2200, 4)
    table = rows(series_standings(CIRCUIT, [placings(1, 2, 4, {"a": 1, "b": 1, "c": 3, "d": 3})]))
    assert [table[player].total for player in "abcd"] == [400, 400, 150, 150]  # (500 + 300) / 2, (200 + 100) / 2
    assert (table["a"].results[0].shared, table["c"].results[0].shared) == (2, 2)


def test_a_tie_that_splits_into_thirds_is_kept_exact():
    table = rows(series_standings(CIRCUIT, [placings(1, 1, 3, {"a": 1, "b": 1, "c": 1})]))
    assert table["a"].total == Fraction(1000 + 600 + 400, 3)
    assert standings_json(series_standings(CIRCUIT, [placings(1, 1, 3, {"a": 1, "b": 1, "c": 1})]))[0]["total"] == "2000/3"


# --- field size ----------------------------------------------------------------------------


def test_scaling_is_off_unless_asked_for():
    assert field_scale(CIRCUIT, 2) == 1
    assert place_points(CIRCUIT, 1, 2, 1) == 1000


def test_field_scaling_goes_by_the_rounds_it_takes_to_win_and_never_above_full_points():
    rules = SeriesRules(points=CIRCUIT_POINTS, field_scaling=32)  # 32 players: 5 won rounds
    assert field_scale(rules, 1) == 0  # nobody to beat
    assert field_scale(rules, 2) == Fraction(1, 5)
    assert field_scale(rules, 3) == field_scale(rules, 4) == Fraction(2, 5)
    assert field_scale(rules, 16) == Fraction(4, 5)
    assert field_scale(rules, 17) == field_scale(rules, 32) == field_scale(rules, 500) == 1
    table = rows(series_standings(rules, [
        placings(1, 1, 16, {"a": 1, "b": 2}),
        placings(2, 1, 64, {"b": 1, "a": 2}),
    ]))
    assert table["a"].total == 800 + 600
    assert table["b"].total == 480 + 1000
    assert [res.points for res in table["a"].results] == [800, 600]


# --- withdrawals and forfeits -------------------------------------------------------------


def test_a_withdrawn_player_keeps_the_place_the_event_gave_them_and_scores_it():
    table = rows(series_standings(CIRCUIT, [
        placings(1, 1, 4, {"a": 1, "b": 2, "c": 3, "d": 4}, status={"b": "withdrawn"}),
    ]))
    assert table["b"].total == 600
    assert (table["b"].results[0].status, table["b"].results[0].mark) == ("withdrawn", "counting")
    assert table["b"].played == 1


@pytest.mark.parametrize("status", ["forfeited", "disqualified"])
def test_a_no_show_or_a_disqualified_player_scores_nothing_and_their_result_never_counts(status):
    rules = SeriesRules(points=CIRCUIT_POINTS, best=2)
    table = rows(series_standings(rules, [
        placings(1, 1, 4, {"a": 1, "b": 2, "c": 3, "d": 4}, status={"a": status}),
        placings(2, 2, 4, {"a": 1, "b": 2}),
    ]))
    assert table["a"].total == 500
    assert marks(table["a"]) == {2: (500, "counting"), 1: (0, "void")}
    assert (table["a"].played, table["a"].counting) == (1, 1)
    assert table["a"].results[-1].status == status
    # The event's places stand: b stays 2nd and scores 600, nobody moves up.
    assert table["b"].total == 600 + 300


def test_a_player_with_only_void_results_is_listed_with_nothing():
    table = series_standings(CIRCUIT, [placings(1, 1, 2, {"a": 1, "b": 2}, status={"b": "forfeited"})])
    assert [(row.player, row.total, row.played, row.counting) for row in table] == [("a", 1000, 1, 1), ("b", 0, 0, 0)]


# --- corrections ---------------------------------------------------------------------------


def test_a_correction_replaces_the_event_whatever_order_it_comes_in():
    first = placings(1, 2, 4, {"a": 1, "b": 2, "c": 3})
    corrected = placings(1, 1, 4, {"b": 1, "a": 2, "c": 3}, revision=7)  # places and tier corrected
    other = placings(2, 2, 4, {"a": 1, "c": 2})
    expected = series_standings(CIRCUIT, [corrected, other])
    assert series_standings(CIRCUIT, [first, corrected, other]) == expected
    assert series_standings(CIRCUIT, [corrected, other, first]) == expected
    table = rows(expected)
    assert (table["a"].total, table["b"].total, table["c"].total) == (600 + 500, 1000, 400 + 300)


def test_a_correction_may_take_a_player_out_of_an_event():
    table = rows(series_standings(CIRCUIT, [
        placings(1, 1, 3, {"a": 1, "b": 2, "c": 3}),
        placings(1, 1, 3, {"a": 1, "c": 2}, revision=1),
    ]))
    assert set(table) == {"a", "c"}
    assert table["c"].total == 600


def test_two_versions_of_an_event_with_the_same_revision_are_refused():
    with pytest.raises(ValueError, match="event 1 comes twice as revision 0"):
        series_standings(CIRCUIT, [placings(1, 1, 2, {"a": 1}), placings(1, 1, 2, {"b": 1})])


# --- best N --------------------------------------------------------------------------------


def test_best_n_counts_the_highest_results_and_drops_the_rest():
    rules = SeriesRules(points=CIRCUIT_POINTS, best=3)
    events = [placings(number, 2, 4, {"a": place}) for number, place in zip(range(1, 6), [4, 1, 3, 2, 1])]
    (row,) = series_standings(rules, events)
    assert row.total == 500 + 500 + 300
    assert marks(row) == {2: (500, "counting"), 5: (500, "counting"), 4: (300, "counting"),
                          3: (200, "dropped"), 1: (100, "dropped")}
    assert (row.played, row.counting) == (5, 3)


def test_without_best_n_every_played_result_counts():
    (row,) = series_standings(CIRCUIT, [placings(number, 2, 4, {"a": 2}) for number in (1, 2, 3)])
    assert (row.total, row.counting) == (900, 3)


def test_of_equal_results_the_lower_event_id_counts():
    rules = SeriesRules(points=CIRCUIT_POINTS, best=1)
    (row,) = series_standings(rules, [placings(9, 2, 4, {"a": 1}), placings(4, 2, 4, {"a": 1})])
    assert marks(row) == {4: (500, "counting"), 9: (500, "dropped")}


# --- ties ----------------------------------------------------------------------------------


def test_equal_totals_go_by_countback_so_a_better_dropped_result_breaks_the_tie():
    rules = SeriesRules(points=CIRCUIT_POINTS, best=1)
    table = series_standings(rules, [
        placings(1, 1, 4, {"a": 1, "b": 1}),  # 800 each
        placings(2, 2, 4, {"c": 1, "b": 2}),
        placings(3, 2, 4, {"c": 1, "a": 3}),
    ])
    # a and b: 800 each counting; dropped a 200, b 300: b is ahead. c: 500.
    assert [(row.rank, row.player, row.total) for row in table] == [(1, "b", 800), (2, "a", 800), (3, "c", 500)]


def test_countback_compares_results_best_first_one_by_one():
    table = series_standings(CIRCUIT, [
        placings(1, 1, 4, {"a": 1, "b": 2}),  # a 1000, b 600
        placings(2, 2, 4, {"b": 1}),  # b 500: 1100
        placings(3, 2, 4, {"a": 4}),  # a 100: 1100
    ])
    # Both 1100: a's best (1000) beats b's (600).
    assert [(row.rank, row.player) for row in table] == [(1, "a"), (2, "b")]


def test_a_scoreless_result_adds_nothing_to_countback():
    table = series_standings(CIRCUIT, [
        placings(1, 1, 8, {"a": 2, "b": 2, "c": 6}),
        placings(2, 1, 8, {"a": 8}),
    ])
    # a and b share 2nd (500 each); a's extra 0 changes nothing, so they share 1st.
    assert [(row.rank, row.player, row.played) for row in table[:2]] == [(1, "a", 2), (1, "b", 1)]


def test_players_still_tied_go_by_head_to_head_in_the_events_they_both_played():
    table = series_standings(CIRCUIT, [
        placings(1, 2, 4, {"a": 1, "b": 2}),  # a 500, b 300
        placings(2, 2, 4, {"b": 1}),  # b 500
        placings(3, 2, 4, {"a": 2}),  # a 300
    ])
    # 800 each, countback 500 then 300 each; a finished ahead of b in event 1.
    assert [(row.rank, row.player, row.head_to_head) for row in table] == [(1, "a", 1), (2, "b", -1)]


def test_head_to_head_scores_against_every_other_player_still_tied():
    table = series_standings(CIRCUIT, [
        placings(1, 1, 4, {"a": 1, "b": 4}),  # a 1000, b 200: a ahead of b
        placings(2, 1, 4, {"b": 1, "c": 4}),  # b 1000, c 200: b ahead of c
        placings(3, 2, 4, {"a": 3}),  # a 200
        placings(4, 1, 4, {"c": 1}),  # c 1000
    ])
    # 1200 each, countback 1000 then 200 each; head to head a +1, b −1 + 1, c −1.
    assert [(row.rank, row.player, row.head_to_head) for row in table] == [(1, "a", 1), (2, "b", 0), (3, "c", -1)]


def test_a_head_to_head_cycle_is_a_full_tie():
    table = series_standings(CIRCUIT, [
        placings(1, 2, 4, {"a": 1, "b": 1}),  # 400 each
        placings(2, 2, 4, {"a": 1, "b": 2}),  # a 500, b 300
        placings(3, 2, 4, {"b": 1, "a": 2}),  # b 500, a 300
    ])
    # 1200 each with the same results; a ahead once, b ahead once, equal once: shared 1st, by id.
    assert [(row.rank, row.player, row.head_to_head) for row in table] == [(1, "a", 0), (1, "b", 0)]


def test_full_ties_share_a_rank_and_the_next_rank_skips():
    table = series_standings(CIRCUIT, [placings(1, 1, 5, {"d": 1, "c": 2, "b": 2, "a": 4, "e": 5})])
    assert [(row.rank, row.player) for row in table] == [(1, "d"), (2, "b"), (2, "c"), (4, "a"), (5, "e")]


# --- the JSON shape ------------------------------------------------------------------------


def test_the_json_rows_carry_exact_points_as_strings():
    data = standings_json(series_standings(SeriesRules(points=CIRCUIT_POINTS, best=1), [
        placings(1, 1, 4, {"a": 1, "b": 2}),
        placings(2, 2, 4, {"a": 2}, status={"a": "withdrawn"}),
    ]))
    assert data[0] == {
        "rank": 1, "player": "a", "total": "1000", "played": 2, "counting": 1, "head_to_head": 0,
        "results": [
            {"event": 1, "tier": 1, "field_size": 4, "place": 1, "shared": 1, "status": "finished",
             "points": "1000", "mark": "counting"},
            {"event": 2, "tier": 2, "field_size": 4, "place": 2, "shared": 1, "status": "withdrawn",
             "points": "300", "mark": "dropped"},
        ],
    }


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "message"), [
    ({"points": {}}, "at least one tier"),
    ({"points": {0: (10,)}}, "a tier is a positive integer, not 0"),
    ({"points": {1: ()}}, "tier 1's points must be one or more whole numbers"),
    ({"points": {1: (10, -1)}}, "none negative"),
    ({"points": {1: (10, 2.5)}}, "whole numbers"),
    ({"points": {1: (100, 200)}}, "tier 1's points rise with a worse place"),
    ({"best": 0}, "best N must be a positive integer"),
    ({"best": True}, "best N must be a positive integer"),
    ({"field_scaling": 1}, "field_scaling is the field size of full points, at least 2, not 1"),
])
def test_bad_rules_are_refused(options, message):
    with pytest.raises(ValueError, match=message):
        SeriesRules(**options)


def test_an_unknown_tier_is_refused():
    with pytest.raises(ValueError, match=r"unknown tier 4 \(the series' points table has tiers 1, 2, 3\)"):
        series_standings(CIRCUIT, [placings(1, 4, 2, {"a": 1})])
    with pytest.raises(ValueError, match="unknown tier 4"):
        series_standings(CIRCUIT, [placings(1, 4, 2, {})])


@pytest.mark.parametrize(("build", "message"), [
    (lambda: placings(1, 1, 2, {"a": 3}), "event 1: place 3 for 'a' is not within the field of 2"),
    (lambda: placings(1, 1, 2, {"a": 0}), "place 0 for 'a' is not within the field"),
    (lambda: placings(1, 1, 0, {}), "the field size must be a positive integer, not 0"),
    (lambda: placings(1, 1, 2, {"a": 1, "b": 2, "c": 2}), "places 3 players in a field of 2"),
    (lambda: placings(1, 1, 3, {"a": 2, "b": 2, "c": 2}), "3 players sharing place 2 run past the field of 3"),
    (lambda: placings(1, 1, 4, {"a": 1, "b": 1, "c": 2}), "2 players share place 1, so place 2 is theirs"),
    (lambda: placings(1, 1, 4, {"a": 1}, status={"b": "withdrawn"}), "a status for players not placed"),
    (lambda: placings(1, 1, 4, {"a": 1}, status={"a": "resigned"}), "unknown status 'resigned' for 'a'"),
    (lambda: placings(1, 1, 4, {"a": 1}, revision=-1), "a revision is a whole number"),
    (lambda: EventPlacings(1, 1, 4, (Placing("a", 1), Placing("a", 2))), "event 1 places a player twice"),
])
def test_bad_placings_are_refused(build, message):
    with pytest.raises(ValueError, match=message):
        build()


def test_ids_of_mixed_kinds_are_refused():
    with pytest.raises(ValueError, match="player ids must be of one kind"):
        series_standings(CIRCUIT, [placings(1, 1, 2, {"a": 1, 2: 2})])
    with pytest.raises(ValueError, match="event ids must be of one kind"):
        series_standings(CIRCUIT, [placings(1, 1, 2, {"a": 1}), placings("two", 1, 2, {"a": 1})])


# --- properties ----------------------------------------------------------------------------

_PLAYERS = range(6)
_TIERS = (1, 2, 3)


@st.composite
def series_rules(draw: st.DrawFn) -> SeriesRules:
    points = {
        tier: tuple(sorted(draw(st.lists(st.integers(0, 1000), min_size=1, max_size=6)), reverse=True))
        for tier in _TIERS
    }
    best = draw(st.none() | st.integers(1, 4))
    return SeriesRules(points=points, best=best, field_scaling=draw(st.none() | st.integers(2, 40)))


@st.composite
def event_placings(draw: st.DrawFn, event: int, revision: int = 0) -> EventPlacings:
    """One event: some of the players in a finishing order with ties, some of them not finished."""
    players = draw(st.permutations(list(_PLAYERS)))[: draw(st.integers(0, len(_PLAYERS)))]
    places: dict[int, int] = {}
    for position, player in enumerate(players, start=1):
        tied = position > 1 and draw(st.booleans())
        places[player] = places[players[position - 2]] if tied else position
    status = {player: draw(st.sampled_from(["withdrawn", "forfeited", "disqualified"]))
              for player in players if draw(st.integers(0, 4)) == 0}
    field = len(players) + draw(st.integers(0 if players else 1, 3))
    return placings(event, draw(st.sampled_from(_TIERS)), field, places, status=status, revision=revision)


@st.composite
def seasons(draw: st.DrawFn) -> list[EventPlacings]:
    """Up to five events, some corrected once or twice (the corrections mixed in anywhere)."""
    events = []
    for number in range(1, draw(st.integers(0, 5)) + 1):
        for revision in range(draw(st.integers(1, 3))):
            events.append(draw(event_placings(number, revision)))
    return draw(st.permutations(events))


def _merit(row: SeriesStanding) -> tuple[object, ...]:
    points = [res.points for res in row.results if res.mark != "void"]
    while points and points[-1] == 0:
        points.pop()
    return row.total, tuple(points), row.head_to_head


@given(rules=series_rules(), events=seasons(), extra=st.data())
def test_adding_a_result_never_lowers_anyones_total(rules, events, extra):
    before = {row.player: row.total for row in series_standings(rules, events)}
    added = extra.draw(event_placings(100))
    after = {row.player: row.total for row in series_standings(rules, [*events, added])}
    assert all(after[player] >= total for player, total in before.items())


@given(rules=series_rules(), events=seasons(), shuffled=st.data())
def test_the_order_events_come_in_changes_nothing(rules, events, shuffled):
    assert series_standings(rules, shuffled.draw(st.permutations(events))) == series_standings(rules, events)


@given(rules=series_rules(), events=seasons())
def test_a_correction_counts_as_if_its_event_had_come_only_so(rules, events):
    newest: dict[object, EventPlacings] = {}
    for placed in events:
        if placed.event not in newest or placed.revision > newest[placed.event].revision:
            newest[placed.event] = placed
    assert series_standings(rules, events) == series_standings(rules, list(newest.values()))


@given(rules=series_rules(), events=seasons())
def test_best_n_counts_exactly_n_of_the_played_results_and_the_total_is_their_sum(rules, events):
    for row in series_standings(rules, events):
        played = [res for res in row.results if res.mark != "void"]
        counting = [res for res in row.results if res.mark == "counting"]
        assert len(played) == row.played
        assert len(counting) == row.counting == (row.played if rules.best is None else min(rules.best, row.played))
        assert row.total == sum(res.points for res in counting)
        # What counts is the best: no dropped result scores more than a counting one.
        assert all(dropped.points <= kept.points for dropped in played if dropped.mark == "dropped"
                   for kept in counting)
        assert all(res.points == 0 for res in row.results if res.mark == "void")


@given(rules=series_rules(), events=seasons())
def test_ties_are_broken_the_same_way_each_time_and_ranks_are_shared_only_on_full_ties(rules, events):
    table = series_standings(rules, events)
    assert table == series_standings(rules, events)
    for position, (above, below) in enumerate(zip(table, table[1:]), start=2):
        assert _merit(above) >= _merit(below)
        if _merit(above) == _merit(below):
            assert below.rank == above.rank and above.player < below.player
        else:
            assert below.rank == position
    if table:
        assert table[0].rank == 1
