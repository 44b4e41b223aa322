"""Standings and tie-breaks (tournaments/standings.py), with small builders as in lila's SwissScoringTest."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import Bye, Entrant, History, forfeit_result
from tournaments.formats import result as pairing
from tournaments.standings import standings, table_points


def table(rows):
    """{player: row} for easy lookups."""
    return {row.player: row for row in rows}


def test_a_two_player_win_scores_one_a_draw_half_a_loss_nothing():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 2]), pairing(1, "c", "d", ranks=[1, 1])))
    rows = table(standings(["a", "b", "c", "d"], history))
    assert (rows["a"].points, rows["b"].points, rows["c"].points, rows["d"].points) == (1, 0, Fraction(1, 2),
                                                                                          Fraction(1, 2))
    assert (rows["a"].wins, rows["b"].losses, rows["c"].draws, rows["d"].draws) == (1, 1, 1, 1)


def test_points_at_a_table_of_four_go_by_finishing_position():
    assert table_points([1, 2, 3, 4]) == (1, Fraction(2, 3), Fraction(1, 3), 0)


def test_tied_seats_share_the_points_of_the_places_they_cover():
    assert table_points([1, 2, 2, 4]) == (1, Fraction(1, 2), Fraction(1, 2), 0)


def test_a_table_of_five_weighs_the_same_as_a_table_of_four():
    assert table_points([1, 2, 3, 4, 5])[0] == table_points([1, 2, 3, 4])[0] == 1
    assert sum(table_points([1, 2, 3, 4, 5])) == Fraction(5, 2)


def test_a_bye_scores_the_bye_points_and_counts_as_a_bye():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 2]),), byes=(Bye(1, "c"),))
    rows = table(standings(["a", "b", "c"], history, bye_points=Fraction(1, 2)))
    assert rows["c"].points == Fraction(1, 2)
    assert rows["c"].byes == 1 and rows["c"].played == 0


def test_buchholz_sums_the_opponents_final_points():
    history = History(results=(
        pairing(1, "a", "b", ranks=[1, 2]), pairing(1, "c", "d", ranks=[1, 2]),
        pairing(2, "a", "c", ranks=[1, 2]), pairing(2, "b", "d", ranks=[1, 2]),
    ))
    rows = table(standings(["a", "b", "c", "d"], history))
    # a: 2, b: 1, c: 1, d: 0
    assert rows["a"].buchholz == 2  # b 1 + c 1
    assert rows["b"].buchholz == 2  # a 2 + d 0
    assert rows["d"].buchholz == 2  # c 1 + b 1


def test_sonneborn_berger_weighs_each_opponent_by_the_result_against_them():
    history = History(results=(
        pairing(1, "a", "b", ranks=[1, 2]), pairing(1, "c", "d", ranks=[1, 1]),
        pairing(2, "a", "c", ranks=[1, 1]), pairing(2, "b", "d", ranks=[1, 2]),
    ))
    rows = table(standings(["a", "b", "c", "d"], history))
    # points: a 1.5, b 1, c 1, d 0.5
    assert rows["a"].sonneborn_berger == 1 + Fraction(1, 2)  # beat b (1), drew c (1/2 x 1)
    assert rows["c"].sonneborn_berger == Fraction(1, 4) + Fraction(3, 4)  # drew d and a


def test_buchholz_at_multi_player_tables_weighs_each_opponent_by_one_over_table_size_minus_one():
    history = History(results=(pairing(1, "a", "b", "c", "d", ranks=[1, 2, 3, 4]),))
    rows = table(standings(["a", "b", "c", "d"], history))
    assert rows["a"].buchholz == (Fraction(2, 3) + Fraction(1, 3) + 0) / 3


def test_ties_on_points_are_broken_by_buchholz_then_sonneborn_berger_then_rating():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 2]), pairing(1, "c", "d", ranks=[1, 2])))
    entrants = [Entrant("a", 1500), Entrant("b", 1400), Entrant("c", 1600), Entrant("d", 1300)]
    rows = standings(entrants, history)
    assert [row.player for row in rows] == ["c", "a", "b", "d"]
    assert [row.rank for row in rows] == [1, 2, 3, 4]


def test_equal_rows_share_a_rank_and_the_next_rank_skips():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 1]), pairing(1, "c", "d", ranks=[1, 2])))
    rows = standings(["a", "b", "c", "d"], history)
    assert [(row.player, row.rank) for row in rows] == [("c", 1), ("a", 2), ("b", 2), ("d", 4)]


def test_unrated_players_come_after_rated_ones_on_a_full_tie():
    rows = standings([Entrant("a"), Entrant("b", 1200)], History())
    assert [row.player for row in rows] == ["b", "a"]


def test_a_forfeit_is_a_loss_for_the_no_show_and_is_counted():
    history = History(results=(forfeit_result(1, ["a", "b"], ["b"]),))
    rows = table(standings(["a", "b"], history))
    assert rows["a"].points == 1 and rows["b"].points == 0
    assert rows["b"].forfeits == 1 and rows["a"].forfeits == 0


def test_disqualified_players_are_listed_last_whatever_their_points():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 2]),), disqualified=frozenset({"a"}))
    rows = standings(["a", "b"], history)
    assert [row.player for row in rows] == ["b", "a"]
    assert rows[1].disqualified and rows[1].rank == 2


def test_withdrawn_players_keep_their_place_and_are_flagged():
    history = History(results=(pairing(1, "a", "b", ranks=[1, 2]),), withdrawn=frozenset({"a"}))
    rows = standings(["a", "b"], history)
    assert rows[0].player == "a" and rows[0].withdrawn


def test_cooperative_standings_rank_by_the_mean_team_score_lower_first():
    history = History(results=(
        pairing(1, "a", "b", team_score=10), pairing(1, "c", "d", team_score=0),
        pairing(2, "a", "c", team_score=4), pairing(2, "b", "d", team_score=20),
    ))
    rows = standings(["a", "b", "c", "d"], history, cooperative=True)
    assert [row.player for row in rows] == ["c", "a", "d", "b"]
    assert table(rows)["a"].mean_team_score == pytest.approx(7.0)
    assert table(rows)["c"].played == 2


def test_a_player_without_a_cooperative_result_ranks_below_those_with_one():
    history = History(results=(pairing(1, "a", "b", team_score=30),))
    rows = standings(["c", "a", "b"], history, cooperative=True)
    assert rows[-1].player == "c" and rows[-1].mean_team_score is None


def test_seeding_by_rating_orders_full_ties_by_rating():
    rows = standings([Entrant("a", 1000), Entrant("b", 2000)], History(), seeding="rating")
    assert [row.player for row in rows] == ["b", "a"]


def test_a_result_for_someone_who_is_not_an_entrant_is_refused():
    with pytest.raises(ValueError, match="not an entrant"):
        standings(["a"], History(results=(pairing(1, "a", "z", ranks=[1, 2]),)))


def test_the_builder_reads_seat_order_as_finishing_order_without_ranks():
    assert pairing(3, "x", "y", "z").ranks == (1, 2, 3)


def _reference(entrants, history, bye_points, cooperative):
    """The module docstring's definitions summed in Fractions, one pairwise game at a time."""
    points = {e: Fraction(0) for e in entrants}
    faced = {e: [] for e in entrants}
    team = {e: [] for e in entrants}
    for res in history.results:
        if res.team_score is not None:
            for player in res.seats:
                team[player].append(res.team_score)
            continue
        size = len(res.seats)
        for i, player in enumerate(res.seats):
            for j, other in enumerate(res.seats):
                if i != j:
                    if res.ranks[i] < res.ranks[j]:
                        score = Fraction(1)
                    else:
                        score = Fraction(1, 2) if res.ranks[i] == res.ranks[j] else Fraction(0)
                    points[player] += score / (size - 1)
                    faced[player].append((other, Fraction(1, size - 1), score))
    for bye in history.byes:
        points[bye.player] += bye_points
    rows = {}
    for e in entrants:
        buchholz = sum((w * points[o] for o, w, _ in faced[e]), Fraction(0))
        berger = sum((w * s * points[o] for o, w, s in faced[e]), Fraction(0))
        mean = sum(team[e]) / len(team[e]) if team[e] else None
        rows[e] = (points[e], buchholz, berger, mean)
    if cooperative:
        key = lambda e: (float("inf") if rows[e][3] is None else rows[e][3],)  # noqa: E731
    else:
        key = lambda e: (-rows[e][0], -rows[e][1], -rows[e][2])  # noqa: E731
    return rows, sorted(entrants, key=lambda e: (key(e), entrants.index(e)))


@given(data=st.data(), cooperative=st.booleans(), bye_points=st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(0)]))
def test_integer_tallies_give_the_exact_fractions_of_the_definitions(data, cooperative, bye_points):
    players = [f"p{n}" for n in range(data.draw(st.integers(2, 9)))]
    results, byes = [], []
    for number in range(1, data.draw(st.integers(1, 4)) + 1):
        pool = list(data.draw(st.permutations(players)))
        while len(pool) >= 2:
            size = data.draw(st.integers(2, min(5, len(pool))))
            seats, pool = pool[:size], pool[size:]
            if cooperative:
                results.append(pairing(number, *seats, team_score=data.draw(st.integers(0, 30))))
            else:
                ranks = data.draw(st.lists(st.integers(1, size), min_size=size, max_size=size))
                results.append(pairing(number, *seats, ranks=ranks))
        byes += [Bye(number, player) for player in pool]
    history = History(results=tuple(results), byes=tuple(byes))
    rows = standings(players, history, bye_points=bye_points, cooperative=cooperative)
    expected, order = _reference(players, history, bye_points, cooperative)
    assert [row.player for row in rows] == order
    assert {row.player: (row.points, row.buchholz, row.sonneborn_berger, row.mean_team_score) for row in rows} == expected
