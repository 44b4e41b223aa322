"""Round robin by the Berger tables (tournaments/formats/round_robin.py)."""
from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import FORMATS, History, result
from tournaments.formats.round_robin import FORMAT, berger_table

# The published Berger tables (FIDE Handbook C.05, Annex 1), white (seat 0) first.
PUBLISHED = {
    4: [
        "1-4 2-3",
        "4-3 1-2",
        "2-4 3-1",
    ],
    6: [
        "1-6 2-5 3-4",
        "6-4 5-3 1-2",
        "2-6 3-1 4-5",
        "6-5 1-4 2-3",
        "3-6 4-2 5-1",
    ],
    8: [
        "1-8 2-7 3-6 4-5",
        "8-5 6-4 7-3 1-2",
        "2-8 3-1 4-7 5-6",
        "8-6 7-5 1-4 2-3",
        "3-8 4-2 5-1 6-7",
        "8-7 1-6 2-5 3-4",
        "4-8 5-3 6-2 7-1",
    ],
    10: [
        "1-10 2-9 3-8 4-7 5-6",
        "10-6 7-5 8-4 9-3 1-2",
        "2-10 3-1 4-9 5-8 6-7",
        "10-7 8-6 9-5 1-4 2-3",
        "3-10 4-2 5-1 6-9 7-8",
        "10-8 9-7 1-6 2-5 3-4",
        "4-10 5-3 6-2 7-1 8-9",
        "10-9 1-8 2-7 3-6 4-5",
        "5-10 6-4 7-3 8-2 9-1",
    ],
}


def parse(rounds):
    return [[tuple(int(n) for n in pair.split("-")) for pair in line.split()] for line in rounds]


def play_all(n, options=None, history=None):
    """Every pairing of a round robin of entrants 1..n, results: seat 0 wins."""
    history = history or History()
    rounds = []
    while (pairing := FORMAT.next_round(list(range(1, n + 1)), options, history)) is not None:
        rounds.append(pairing)
        history = history.with_round(pairing, [result(pairing.round, *t.seats) for t in pairing.tables])
    return rounds


def test_it_is_registered_under_its_slug():
    assert FORMATS["round-robin"] is FORMAT


@pytest.mark.parametrize("players", [4, 6, 8, 10])
def test_the_schedule_equals_the_published_berger_table(players):
    assert berger_table(players) == parse(PUBLISHED[players])


@pytest.mark.parametrize("players", [4, 6, 8, 10])
def test_next_round_pairs_the_entrants_by_the_published_berger_table(players):
    rounds = play_all(players)
    assert [[t.seats for t in pairing.tables] for pairing in rounds] == parse(PUBLISHED[players])


@pytest.mark.parametrize("players", [3, 5, 7, 9])
def test_with_an_odd_count_the_highest_number_is_the_bye(players):
    rounds = play_all(players)
    table = parse(PUBLISHED[players + 1])
    for pairing, published in zip(rounds, table):
        real = [pair for pair in published if players + 1 not in pair]
        (bye_pair,) = [pair for pair in published if players + 1 in pair]
        assert [t.seats for t in pairing.tables] == real
        assert pairing.byes == tuple(n for n in bye_pair if n != players + 1)


def test_a_double_round_robin_repeats_the_cycle_with_seats_swapped():
    rounds = play_all(6, {"double": True})
    assert len(rounds) == 10
    first = [[t.seats for t in p.tables] for p in rounds[:5]]
    second = [[t.seats for t in p.tables] for p in rounds[5:]]
    published = parse(PUBLISHED[6])
    assert second == [[(b, a) for a, b in line] for line in published]
    # FIDE: the first cycle's last two rounds are exchanged
    assert first == published[:3] + [published[4], published[3]]


def test_a_withdrawn_player_leaves_a_bye_to_each_scheduled_opponent():
    history = History(withdrawn=frozenset({4}))
    pairing = FORMAT.next_round([1, 2, 3, 4], None, history)
    assert [t.seats for t in pairing.tables] == [(2, 3)]
    assert pairing.byes == (1,)


def test_total_rounds_counts_the_bye_round_for_odd_fields():
    assert FORMAT.total_rounds(4) == 3 and FORMAT.total_rounds(5) == 5
    assert FORMAT.total_rounds(6, {"double": True}) == 10


def test_two_players_play_one_game():
    assert [[t.seats for t in p.tables] for p in play_all(2)] == [[(1, 2)]]


@given(st.integers(2, 16), st.booleans())
def test_everybody_meets_everybody_once_per_cycle_and_nobody_plays_twice_a_round(players, double):
    rounds = play_all(players, {"double": double})
    meetings = Counter()
    byes = Counter()
    for pairing in rounds:
        seated = list(pairing.players()) + list(pairing.byes)
        assert sorted(seated) == list(range(1, players + 1))
        meetings.update(frozenset(t.seats) for t in pairing.tables)
        byes.update(pairing.byes)
    cycles = 2 if double else 1
    assert meetings == Counter({frozenset(pair): cycles for pair in combinations(range(1, players + 1), 2)})
    assert byes == (Counter({n: cycles for n in range(1, players + 1)}) if players % 2 else Counter())


@given(st.integers(2, 16))
def test_seat_zero_is_shared_fairly_everyone_has_half_their_games_rounded_either_way(players):
    rounds = play_all(players)
    first, games = Counter(), Counter()
    for pairing in rounds:
        for table in pairing.tables:
            first[table.seats[0]] += 1
            games.update(table.seats)
    for player in range(1, players + 1):
        assert abs(2 * first[player] - games[player]) <= 1


@given(st.integers(2, 16))
def test_a_double_round_robin_gives_every_pair_each_seat_once(players):
    seats = Counter(t.seats for p in play_all(players, {"double": True}) for t in p.tables)
    assert all(count == 1 for count in seats.values())
    assert len(seats) == players * (players - 1)
