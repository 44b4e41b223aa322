"""Swiss at multi-player tables (tournaments/formats/swiss_tables.py)."""
from __future__ import annotations

from collections import Counter
from functools import cache
from itertools import combinations, permutations
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import FORMATS, Bye, History, result, table_sizes
from tournaments.formats._common import seat_records, split_with_byes
from tournaments.formats.swiss_tables import FORMAT, group_tables, meetings, repeat_cost


def options(size, low, high, **extra):
    return {"table_size": size, "min_players": low, "max_players": high, **extra}


def random_ranks(seed):
    rng = Random(seed)

    def outcome(number, table):
        return result(number, *table.seats, ranks=[rng.randint(1, len(table.seats)) for _ in table.seats])
    return outcome


def repeats(groups, met):
    """Pairs seated together again, counted once for each earlier meeting."""
    return sum(met.get(a, Counter())[b] for group in groups for a, b in combinations(group, 2))


def seat_order_wins(number, table):
    return result(number, *table.seats)


def simulate(players, opts, seed):
    """Yields (history before the round, pairing) through a random event."""
    outcome = random_ranks(seed)
    history = History()
    while (pairing := FORMAT.next_round(list(range(players)), opts, history)) is not None:
        yield history, pairing
        history = history.with_round(pairing, [outcome(pairing.round, t) for t in pairing.tables])


games = st.sampled_from([(3, 3, 4), (4, 2, 5), (4, 3, 4), (5, 3, 6), (6, 3, 6), (3, 3, 3), (4, 4, 4)])


def test_it_is_registered_under_its_slug():
    assert FORMATS["swiss-tables"] is FORMAT


def test_seventeen_players_at_tables_of_four_for_a_two_to_five_game_sit_five_four_four_four():
    assert table_sizes(17, 4, 2, 5) == [5, 4, 4, 4]


def test_table_sizes_are_balanced_and_stay_in_the_game_range():
    assert table_sizes(12, 4, 3, 5) == [4, 4, 4]
    assert table_sizes(18, 4, 2, 5) == [5, 5, 4, 4]
    assert table_sizes(7, 4, 3, 4) == [4, 3]
    assert table_sizes(5, 4, 3, 4) is None


def test_the_fewest_byes_are_given_when_no_split_is_legal():
    assert split_with_byes(5, 4, 3, 4) == ([4], 1)
    assert split_with_byes(7, 3, 3, 3) == ([3, 3], 1)
    assert split_with_byes(2, 3, 3, 4) == ([], 2)


def test_round_one_cuts_the_seed_order_into_tables():
    pairing = FORMAT.next_round(list(range(1, 13)), options(4, 3, 5))
    assert [sorted(t.seats) for t in pairing.tables] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]


def test_players_are_grouped_by_score_and_meet_new_opponents():
    ids = list(range(1, 17))
    first = FORMAT.next_round(ids, options(4, 4, 4))
    # table i's winner sat in seat i, so the four winners can share a table in balance
    outcome = [result(1, *t.seats, ranks=[1 + (seat - i) % 4 for seat in range(4)])
               for i, t in enumerate(first.tables)]
    history = History().with_round(first, outcome)
    second = FORMAT.next_round(ids, options(4, 4, 4), history)
    winners = {t.seats[i] for i, t in enumerate(first.tables)}
    assert set(second.tables[0].seats) == winners
    assert repeats([t.seats for t in second.tables], meetings(history)) == 0


def test_seat_balance_outranks_score_groups_four_winners_all_from_seat_zero_do_not_share_a_table():
    ids = list(range(1, 17))
    first = FORMAT.next_round(ids, options(4, 4, 4))
    history = History().with_round(first, [seat_order_wins(1, t) for t in first.tables])
    second = FORMAT.next_round(ids, options(4, 4, 4), history)
    winners = {t.seats[0] for t in first.tables}
    assert len(set(second.tables[0].seats) & winners) == 3  # one of them would sit first again
    after = seat_records(history.with_round(second, [seat_order_wins(2, t) for t in second.tables]))
    assert all(record.deviation() < 1 for record in after.values())


def test_the_byes_go_to_the_lowest_ranked():
    pairing = FORMAT.next_round([1, 2, 3, 4, 5], options(4, 3, 4))
    assert pairing.byes == (5,)


def test_nobody_gets_a_second_bye_while_others_have_none():
    history = History(results=(result(1, 1, 2, 3, 4),), byes=(Bye(1, 5),))
    pairing = FORMAT.next_round([1, 2, 3, 4, 5], options(4, 3, 4, rounds=3), history)
    assert pairing.byes == (4,)


def test_the_grouping_with_fewest_repeats_is_found_for_small_fields():
    history = History(results=(result(1, 1, 2, 3), result(1, 4, 5, 6), result(1, 7, 8, 9)))
    groups = group_tables([1, 2, 3, 4, 5, 6, 7, 8, 9], [3, 3, 3], meetings(history))
    assert repeats(groups, meetings(history)) == 0


def test_at_table_size_two_it_pairs_like_the_two_player_swiss():
    history = History(results=(result(1, 1, 2), result(1, 3, 4)))
    pairing = FORMAT.next_round([1, 2, 3, 4], {"table_size": 2, "rounds": 3}, history)
    assert {frozenset(t.seats) for t in pairing.tables} == {frozenset({1, 3}), frozenset({2, 4})}


def test_a_cooperative_game_groups_players_by_mean_team_score():
    history = History(results=(result(1, 1, 2, 3, team_score=40), result(1, 4, 5, 6, team_score=0),
                               result(1, 7, 8, 9, team_score=12)))
    pairing = FORMAT.next_round(list(range(1, 10)), options(3, 1, 5, cooperative=True, rounds=3), history)
    # ranking 4 5 6 | 7 8 9 | 1 2 3: last round's teammates are split up, and 1, 4 and 7, who
    # all sat first, do not share a table (one of them would sit first again)
    teams = [{1, 2, 3}, {4, 5, 6}, {7, 8, 9}]
    assert all(len(set(t.seats) & team) == 1 for t in pairing.tables for team in teams)
    assert 4 in pairing.tables[0].seats
    assert all(not {1, 4, 7} <= set(t.seats) for t in pairing.tables)
    after = seat_records(History(results=history.results + tuple(
        result(2, *t.seats, team_score=0) for t in pairing.tables)))
    assert all(record.deviation() < 1 for record in after.values())


def test_cooperative_standings_rank_by_mean_team_score():
    history = History(results=(result(1, 1, 2, team_score=30), result(1, 3, 4, team_score=5)))
    rows = FORMAT.standings([1, 2, 3, 4], {"cooperative": True, "min_players": 1, "max_players": 5}, history)
    assert [row.player for row in rows][:2] == [3, 4]


def test_a_bye_scores_half_a_point_by_default():
    history = History(results=(result(1, 1, 2, 3, 4),), byes=(Bye(1, 5),))
    rows = {row.player: row for row in FORMAT.standings([1, 2, 3, 4, 5], options(4, 3, 4), history)}
    assert rows[5].points == rows[1].points / 2


def test_a_table_size_outside_the_game_range_is_refused():
    with pytest.raises(ValueError, match="table_size"):
        FORMAT.next_round([1, 2, 3], options(6, 2, 5))


@given(games, st.integers(2, 30), st.integers(1, 6), st.integers(0, 10**6))
def test_every_table_has_a_legal_size_and_nobody_sits_twice(game, players, rounds, seed):
    size, low, high = game
    if players < low:
        return
    for _history, pairing in simulate(players, options(size, low, high, rounds=rounds), seed):
        sizes = [len(t.seats) for t in pairing.tables]
        assert all(low <= s <= high for s in sizes) and max(sizes) - min(sizes) <= 1
        seated = list(pairing.players()) + list(pairing.byes)
        assert sorted(seated) == list(range(players))
        fewest = next(b for b in range(players + 1) if table_sizes(players - b, size, low, high))
        assert len(pairing.byes) == fewest


@given(games, st.integers(3, 30), st.integers(1, 6), st.integers(0, 10**6))
def test_byes_go_to_the_lowest_ranked_of_those_with_the_fewest_byes(game, players, rounds, seed):
    size, low, high = game
    if players < low:
        return
    for history, pairing in simulate(players, options(size, low, high, rounds=rounds), seed):
        had = Counter(bye.player for bye in history.byes)
        if pairing.byes:
            seated = set(pairing.players())
            assert max(had[p] for p in pairing.byes) <= min(had[p] for p in seated)


@given(st.sampled_from([(3, 3, 3), (3, 2, 4), (4, 3, 4), (4, 4, 4), (5, 3, 5)]), st.integers(3, 16),
       st.integers(1, 6), st.integers(0, 10**6))
def test_rematches_are_as_few_and_as_light_as_any_grouping_allows_in_fields_up_to_sixteen(
        game, players, rounds, seed):
    size, low, high = game
    if players < low:
        return
    for history, pairing in simulate(players, options(size, low, high, rounds=rounds), seed):
        met = meetings(history)
        seated = list(pairing.players())
        base = len(seated) * (len(seated) - 1) // 2 + 1
        sizes = tuple(sorted((len(t.seats) for t in pairing.tables), reverse=True))
        assert repeat_cost([t.seats for t in pairing.tables], met, base) == fewest_repeat_cost(
            seated, sizes, met, base)


def fewest_repeat_cost(players, sizes, met, base):
    """Exhaustive: the least repeat cost over every split of `players` into tables of `sizes`."""
    @cache
    def best(remaining: frozenset, left: tuple) -> int:
        if not left:
            return 0
        head = min(remaining, key=players.index)
        rest = sorted(remaining - {head}, key=players.index)
        found = None
        for size in set(left):
            after = list(left)
            after.remove(size)
            for others in combinations(rest, size - 1):
                cost = repeat_cost([(head, *others)], met, base) + best(remaining - {head, *others}, tuple(after))
                found = cost if found is None else min(found, cost)
        return found

    return best(frozenset(players), sizes)


def test_a_third_meeting_weighs_more_than_any_number_of_second_meetings():
    met = {1: Counter({2: 2}), 2: Counter({1: 2}), 3: Counter({4: 1, 5: 1}), 4: Counter({3: 1}),
           5: Counter({3: 1})}
    base = 100
    assert repeat_cost([(1, 2)], met, base) > repeat_cost([(3, 4, 5)], met, base)


@given(st.sampled_from([(3, 3, 3), (4, 4, 4), (5, 5, 5), (6, 6, 6)]), st.integers(2, 20), st.integers(1, 7),
       st.integers(0, 10**6))
def test_every_player_stays_within_one_of_a_fair_share_of_every_seat_in_a_comfortable_field(
        game, tables, rounds, seed):
    size, low, high = game
    rounds = min(rounds, size + 1)
    # Comfortable: tables of one size, no byes, and more tables than anyone has opponents
    # (Hajnal–Szemerédi: a rematch-free round exists), so seats never have to give way.
    tables = max(tables, (rounds - 1) * (size - 1) + 1)
    players = size * tables
    final = History()
    for final, pairing in simulate(players, options(size, low, high, rounds=rounds), seed):  # noqa: B007 - the last round's
        pass
    final = final.with_round(pairing, [seat_order_wins(pairing.round, t) for t in pairing.tables])
    records = seat_records(final)
    assert all(record.deviation() < 1 for record in records.values())
    firsts = [records[p].first for p in range(players)]
    assert max(firsts) - min(firsts) <= 1
    for record in records.values():
        assert max(record.counts) - min(record.counts) <= 1


@given(games, st.integers(3, 30), st.integers(1, 8), st.integers(0, 10**6))
def test_a_table_seats_as_many_players_in_balance_as_any_order_of_it_would(game, players, rounds, seed):
    size, low, high = game
    if players < low:
        return
    for history, pairing in simulate(players, options(size, low, high, rounds=rounds), seed):
        for table in pairing.tables:
            after = seat_records(History(results=history.results + (result(pairing.round, *table.seats),)))
            kept = sum(after[p].deviation() < 1 for p in table.seats)
            best = max(sum(_after(history, order, pairing.round)) for order in permutations(table.seats))
            assert kept == best


def _after(history, order, number):
    records = seat_records(History(results=history.results + (result(number, *order),)))
    return [records[p].deviation() < 1 for p in order]


def test_fewer_entrants_than_the_game_needs_is_refused():
    with pytest.raises(ValueError, match="needs 3 players"):
        FORMAT.next_round([1, 2], options(3, 3, 4))
