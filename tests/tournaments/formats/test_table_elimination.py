"""Elimination by tables (tournaments/formats/table_elimination.py)."""
from __future__ import annotations

from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import FORMATS, History, result
from tournaments.formats.base import play
from tournaments.formats.table_elimination import FORMAT


def options(size, low, high, **extra):
    return {"table_size": size, "min_players": low, "max_players": high, **extra}


def seed_order_wins(number, table):
    """The better seed (lower id) finishes higher."""
    ranking = sorted(table.seats)
    return result(number, *table.seats, ranks=[ranking.index(p) + 1 for p in table.seats])


def random_ranks(seed):
    rng = Random(seed)

    def outcome(number, table):
        return result(number, *table.seats, ranks=[rng.randint(1, len(table.seats)) for _ in table.seats])
    return outcome


def test_it_is_registered_under_its_slug():
    assert FORMATS["table-elimination"] is FORMAT


def test_round_one_spreads_the_top_seeds_over_the_tables_in_a_snake():
    pairing = FORMAT.next_round(list(range(1, 17)), options(4, 2, 5))
    assert [sorted(t.seats) for t in pairing.tables] == [[1, 8, 9, 16], [2, 7, 10, 15], [3, 6, 11, 14],
                                                         [4, 5, 12, 13]]


def test_the_table_winners_meet_at_the_final_table():
    rounds, history = play(FORMAT, list(range(1, 17)), options(4, 2, 5), seed_order_wins)
    assert len(rounds) == 2 and sorted(rounds[1].tables[0].seats) == [1, 2, 3, 4]
    assert FORMAT.champion(list(range(1, 17)), options(4, 2, 5), history) == 1
    places = FORMAT.placements(list(range(1, 17)), options(4, 2, 5), history)
    assert [places[p] for p in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert {places[p] for p in (5, 6, 7, 8)} == {5} and {places[p] for p in (13, 14, 15, 16)} == {13}


def test_the_top_m_of_each_table_go_through():
    rounds, _ = play(FORMAT, list(range(1, 17)), options(4, 2, 5, advance=2), seed_order_wins)
    assert sorted(rounds[1].players()) == [1, 2, 3, 4, 5, 6, 7, 8]
    assert len(rounds) == 3 and sorted(rounds[2].tables[0].seats) == [1, 2, 3, 4]


def test_seventeen_players_sit_five_four_four_four():
    pairing = FORMAT.next_round(list(range(1, 18)), options(4, 2, 5))
    assert [len(t.seats) for t in pairing.tables] == [5, 4, 4, 4]


def test_a_field_that_fits_one_table_plays_the_final_at_once():
    rounds, history = play(FORMAT, [1, 2, 3, 4, 5], options(4, 2, 5), seed_order_wins)
    assert len(rounds) == 1 and FORMAT.champion([1, 2, 3, 4, 5], options(4, 2, 5), history) == 1


def test_when_no_split_is_legal_the_top_seeds_get_byes_and_go_through():
    pairing = FORMAT.next_round([1, 2, 3, 4, 5], options(3, 3, 4))  # 5 players cannot sit 3-4 a table
    assert pairing.byes == (1,) and sorted(pairing.tables[0].seats) == [2, 3, 4, 5]


def test_too_few_winners_for_a_final_are_topped_up_by_the_best_runners_up():
    rounds, _ = play(FORMAT, list(range(1, 7)), options(3, 3, 3), seed_order_wins)
    # two tables of three, one winner each, so the best second place joins the final
    assert sorted(rounds[1].tables[0].seats) == [1, 2, 3]


def test_a_cooperative_game_cuts_across_tables_by_team_score():
    opts = options(4, 1, 4, cooperative=True, advance=2)  # two tables of four: four go through
    first = FORMAT.next_round(list(range(1, 9)), opts)
    scores = [17, 3]
    history = History().with_round(first, [result(1, *t.seats, team_score=scores[i])
                                           for i, t in enumerate(first.tables)])
    final = FORMAT.next_round(list(range(1, 9)), opts, history)
    assert set(final.tables[0].seats) == set(first.tables[1].seats)


def test_a_withdrawn_player_is_not_seated_again():
    first = FORMAT.next_round(list(range(1, 9)), options(4, 2, 4, advance=2))
    history = History().with_round(first, [seed_order_wins(1, t) for t in first.tables])
    history = History(history.results, withdrawn=frozenset({1}))
    final = FORMAT.next_round(list(range(1, 9)), options(4, 2, 4, advance=2), history)
    assert 1 not in final.tables[0].seats and len(final.tables[0].seats) == 3


games = st.sampled_from([(4, 2, 5), (3, 3, 4), (4, 3, 4), (3, 3, 3), (5, 3, 6), (6, 4, 6), (4, 4, 4)])


@given(games, st.integers(2, 60), st.integers(1, 3), st.integers(0, 10**6))
def test_random_results_lead_to_one_champion_at_a_legal_final_table(game, players, advance, seed):
    size, low, high = game
    if players < low:
        return
    ids = list(range(1, players + 1))
    opts = options(size, low, high, advance=advance)
    rounds, history = play(FORMAT, ids, opts, random_ranks(seed))
    for pairing in rounds:
        seated = list(pairing.players()) + list(pairing.byes)
        assert len(seated) == len(set(seated))
        sizes = [len(t.seats) for t in pairing.tables]
        assert all(low <= s <= high for s in sizes) and max(sizes) - min(sizes) <= 1
    assert len(rounds[-1].tables) == 1 and not rounds[-1].byes
    champion = FORMAT.champion(ids, opts, history)
    places = FORMAT.placements(ids, opts, history)
    assert champion in ids and places[champion] == 1
    assert sorted(places) == ids


@given(games, st.integers(2, 60), st.integers(1, 3), st.integers(0, 10**6))
def test_every_round_knocks_somebody_out(game, players, advance, seed):
    size, low, high = game
    if players < low:
        return
    rounds, _ = play(FORMAT, list(range(1, players + 1)), options(size, low, high, advance=advance),
                     random_ranks(seed))
    fields = [len(list(p.players())) + len(p.byes) for p in rounds]
    assert all(later < earlier for earlier, later in zip(fields, fields[1:]))
    assert fields[-1] <= high


def test_fewer_entrants_than_the_game_needs_is_refused():
    with pytest.raises(ValueError, match="needs 3 players"):
        FORMAT.next_round([1, 2], options(3, 3, 4))
