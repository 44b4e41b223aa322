"""Two-player Swiss (tournaments/formats/swiss.py): score groups, rematches, byes, seats."""
from __future__ import annotations

from collections import Counter
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import FORMATS, Bye, Entrant, History, forfeit_result, result
from tournaments.formats._common import augment_matching, due_seat, seat_records
from tournaments.formats.swiss import FORMAT
from tournaments.standings import points


def played_pairs(history):
    return {frozenset(res.seats) for res in history.results}


def random_result(rng, number, table):
    return result(number, *table.seats, ranks=rng.choice([[1, 2], [2, 1], [1, 1]]))


def simulate(n, rounds, seed, withdraw_after=None):
    """Yields (history before the round, pairing) for each round of a random Swiss."""
    rng = Random(seed)
    history = History()
    ids = list(range(n))
    while True:
        pairing = FORMAT.next_round(ids, {"rounds": rounds}, history)
        if pairing is None:
            return
        yield history, pairing
        history = history.with_round(pairing, [random_result(rng, pairing.round, t) for t in pairing.tables])
        if withdraw_after is not None and pairing.round == withdraw_after[0]:
            history = History(history.results, history.byes, withdrawn=frozenset({withdraw_after[1]}))


def perfect_pairing_exists(players, allowed):
    """Brute force: can `players` (a list) be split into allowed pairs?"""
    if not players:
        return True
    first, rest = players[0], players[1:]
    return any(
        allowed(first, other) and perfect_pairing_exists(rest[:i] + rest[i + 1:], allowed)
        for i, other in enumerate(rest)
    )


def ranking(history, players):
    """Rank order the pairer uses: points, then seed (players are their own seeds)."""
    scores = points(history)
    return sorted(players, key=lambda p: (-scores.get(p, 0), p))


def bye_counts(history, players):
    counts = Counter(bye.player for bye in history.byes)
    return {player: counts[player] for player in players}


def lowest_eligible(history, players):
    counts = bye_counts(history, players)
    fewest = min(counts.values())
    return [p for p in ranking(history, players) if counts[p] == fewest][-1]


def no_rematch(history):
    met = played_pairs(history)
    return lambda a, b: frozenset((a, b)) not in met


def no_rematch_no_seat_clash(history):
    met = played_pairs(history)
    records = seat_records(history)

    def allowed(a, b):
        due_a, due_b = due_seat(records.get(a)), due_seat(records.get(b))
        clash = abs(due_a) == 2 and due_a == due_b
        return frozenset((a, b)) not in met and not clash
    return allowed


swiss_runs = st.tuples(st.integers(2, 10), st.integers(1, 12), st.integers(0, 10**6))


# --- examples -------------------------------------------------------------------------------


def test_it_is_registered_under_its_slug():
    assert FORMATS["swiss"] is FORMAT


def test_round_one_pairs_the_top_half_against_the_bottom_half_alternating_seats():
    pairing = FORMAT.next_round(list(range(1, 9)))
    assert [t.seats for t in pairing.tables] == [(1, 5), (6, 2), (3, 7), (8, 4)]
    assert pairing.byes == ()


def test_round_two_pairs_players_within_their_score_group():
    history = History(results=tuple(result(1, a, b) for a, b in [(1, 5), (2, 6), (3, 7), (4, 8)]))
    pairing = FORMAT.next_round(list(range(1, 9)), {"rounds": 3}, history)
    expected = {frozenset(p) for p in [(1, 3), (2, 4), (5, 7), (6, 8)]}
    assert {frozenset(t.seats) for t in pairing.tables} == expected


def test_an_odd_score_group_floats_its_lowest_player_down_to_meet_the_top_of_the_next_group():
    history = History(results=(result(1, 1, 4), result(1, 2, 5), result(1, 3, 6)))
    # winners {1, 2, 3} on 1 point: 1 meets 2, 3 floats down to meet 4, the top of {4, 5, 6}
    pairing = FORMAT.next_round(list(range(1, 7)), {"rounds": 3}, history)
    assert {frozenset(t.seats) for t in pairing.tables} == {frozenset(p) for p in [(1, 2), (3, 4), (5, 6)]}


def test_the_bye_goes_to_the_lowest_ranked_player():
    pairing = FORMAT.next_round(list(range(1, 6)))
    assert pairing.byes == (5,)


def test_a_player_never_gets_a_second_bye_while_someone_has_none():
    history = History(results=(result(1, 1, 3, ranks=[1, 2]), result(1, 2, 4, ranks=[1, 2])),
                      byes=(Bye(1, 5),))
    pairing = FORMAT.next_round(list(range(1, 6)), {"rounds": 2}, history)
    assert pairing.byes != (5,) and len(pairing.byes) == 1


def test_a_rematch_is_paired_only_when_nothing_else_is_possible():
    history = History()
    ids = [1, 2, 3, 4]
    for number in range(1, 5):
        pairing = FORMAT.next_round(ids, {"rounds": 4}, history)
        assert len(pairing.tables) == 2
        history = history.with_round(pairing, [result(number, *t.seats) for t in pairing.tables])
    counts = Counter(frozenset(res.seats) for res in history.results)
    assert len(counts) == 6  # every pair met in the first three rounds
    assert sum(counts.values()) == 8


def test_withdrawn_players_are_not_paired_again():
    history = History(results=(result(1, 1, 3, ranks=[1, 2]), result(1, 2, 4, ranks=[1, 2])),
                      withdrawn=frozenset({4}))
    pairing = FORMAT.next_round([1, 2, 3, 4], {"rounds": 3}, history)
    assert 4 not in set(pairing.players()) and 4 not in pairing.byes
    assert len(pairing.byes) == 1


def test_it_plays_ceil_log2_rounds_by_default_and_then_stops():
    runs = list(simulate(9, None, 3))
    assert len(runs) == 4
    assert FORMAT.total_rounds(9) == 4 and FORMAT.total_rounds(9, {"rounds": 7}) == 7


def test_the_same_inputs_give_the_same_pairing():
    history, _ = list(simulate(11, 5, 42))[-1]
    first = FORMAT.next_round(list(range(11)), {"rounds": 5}, history)
    assert FORMAT.next_round(list(range(11)), {"rounds": 5}, history) == first


def test_seeding_by_rating_reorders_the_entrants():
    entrants = [Entrant("a", 1000), Entrant("b", 2000), Entrant("c", 1500), Entrant("d", 1200)]
    pairing = FORMAT.next_round(entrants, {"seeding": "rating"})
    assert {frozenset(t.seats) for t in pairing.tables} == {frozenset({"b", "d"}), frozenset({"c", "a"})}


def test_unknown_options_are_refused():
    with pytest.raises(ValueError, match="unknown options"):
        FORMAT.next_round([1, 2], {"table_size": 4})


def test_a_game_that_cannot_seat_two_is_refused():
    with pytest.raises(ValueError, match="two players"):
        FORMAT.next_round([1, 2, 3], {"min_players": 3, "max_players": 5})


def test_ties_after_the_greedy_pass_are_repaired_without_a_rematch():
    """Regression: a bottom group whose only partners were met must borrow from the group above."""
    # 1 beat 2 and 3 beat 4 in round 1; in round 2, 1 beat 3 and 2 beat 4.
    history = History(results=(result(1, 1, 2), result(1, 3, 4), result(2, 1, 3), result(2, 2, 4)))
    pairing = FORMAT.next_round([1, 2, 3, 4], {"rounds": 3}, history)
    assert {frozenset(t.seats) for t in pairing.tables} == {frozenset({1, 4}), frozenset({2, 3})}


# --- properties -----------------------------------------------------------------------------


@given(swiss_runs)
def test_nobody_sits_at_two_tables_or_both_plays_and_has_a_bye(run):
    n, rounds, seed = run
    for _, pairing in simulate(n, rounds, seed):
        seated = list(pairing.players()) + list(pairing.byes)
        assert sorted(seated) == list(range(n))
        assert all(len(t.seats) == 2 for t in pairing.tables)
        assert len(pairing.byes) == n % 2


@given(swiss_runs)
def test_no_rematch_whenever_a_rematch_free_pairing_exists(run):
    n, rounds, seed = run
    for history, pairing in simulate(n, rounds, seed):
        players = list(range(n))
        counts = bye_counts(history, players)
        fewest = min(counts.values())
        allowed = no_rematch(history)
        if n % 2:
            exists = any(perfect_pairing_exists([p for p in players if p != bye], allowed)
                         for bye in players if counts[bye] == fewest)
        else:
            exists = perfect_pairing_exists(players, allowed)
        if exists:
            assert not {frozenset(t.seats) for t in pairing.tables} & played_pairs(history)


@given(swiss_runs)
def test_byes_go_one_per_player_to_the_lowest_ranked_unless_that_forces_a_rematch(run):
    n, rounds, seed = run
    for history, pairing in simulate(n, rounds, seed):
        if not pairing.byes:
            continue
        players = list(range(n))
        counts = bye_counts(history, players)
        (bye,) = pairing.byes
        assert counts[bye] == min(counts.values())
        lowest = lowest_eligible(history, players)
        if perfect_pairing_exists([p for p in players if p != lowest], no_rematch(history)):
            assert bye == lowest


@given(swiss_runs)
def test_seat_zero_alternates_so_nobody_is_more_than_two_games_ahead_when_avoidable(run):
    """Three in a row is no longer absolute: keeping both players in balance comes first."""
    n, rounds, seed = run
    fair_so_far = True
    for history, pairing in simulate(n, rounds, seed):
        players = list(range(n))
        lowest = lowest_eligible(history, players) if n % 2 else None
        fair_so_far &= perfect_pairing_exists([p for p in players if p != lowest],
                                              no_rematch_no_seat_clash(history))
        after = history.with_round(pairing, [result(pairing.round, *t.seats) for t in pairing.tables])
        if fair_so_far:
            for record in seat_records(after).values():
                assert abs(record.balance) <= 2


@given(st.integers(4, 12), st.integers(0, 10**6))
def test_a_withdrawal_mid_event_keeps_everyone_else_paired(n, seed):
    for _history, pairing in simulate(n, 5, seed, withdraw_after=(2, 0)):
        if pairing.round > 2:
            assert 0 not in set(pairing.players()) and 0 not in pairing.byes
            assert len(list(pairing.players())) + len(pairing.byes) == n - 1


def test_a_forfeited_game_counts_as_a_meeting():
    history = History(results=(forfeit_result(1, [1, 2], [2]), result(1, 3, 4)))
    pairing = FORMAT.next_round([1, 2, 3, 4], {"rounds": 2}, history)
    assert frozenset({1, 2}) not in {frozenset(t.seats) for t in pairing.tables}


def test_bad_option_values_are_refused():
    for options in ({"rounds": 0}, {"rounds": "3"}, {"seeding": "random"}, {"bye_points": -1},
                    {"min_players": 3, "max_players": 2}):
        with pytest.raises(ValueError):
            FORMAT.next_round([1, 2], options)


@given(st.integers(1, 9), st.sets(st.tuples(st.integers(0, 8), st.integers(0, 8))))
def test_the_blossom_matching_is_maximum(count, edges):
    """The repair's matching finds as many pairs as a brute force does, odd cycles included."""
    graph = {frozenset(e) for e in edges if len(set(e)) == 2 and max(e) < count}
    allowed = lambda a, b: frozenset((a, b)) in graph  # noqa: E731
    start = [-1] * count
    mate = augment_matching(count, allowed, start)
    assert all(mate[mate[v]] == v and allowed(v, mate[v]) for v in range(count) if mate[v] != -1)

    def most(vertices):
        if len(vertices) < 2:
            return 0
        first, rest = vertices[0], vertices[1:]
        best = most(rest)
        for i, other in enumerate(rest):
            if allowed(first, other):
                best = max(best, 1 + most(rest[:i] + rest[i + 1:]))
        return best
    assert sum(1 for v in range(count) if mate[v] != -1) // 2 == most(list(range(count)))


@given(st.integers(8, 20), st.integers(2, 6), st.integers(0, 10**6))
def test_in_a_field_without_byes_seat_zero_counts_end_within_one_of_each_other(half, rounds, seed):
    """A balance of ±1 is absolute in the final round, so seat-0 and seat-1 games end within one."""
    n = 2 * half  # even, and large enough that the last round has a pairing without rematches
    final = History()
    for final, pairing in simulate(n, rounds, seed):  # noqa: B007 - the last round's, used below
        pass
    final = final.with_round(pairing, [result(pairing.round, *t.seats) for t in pairing.tables])
    records = seat_records(final)
    assert all(abs(records[p].balance) <= 1 for p in range(n))
    firsts = [records[p].first for p in range(n)]
    assert max(firsts) - min(firsts) <= 1
