"""Single elimination (tournaments/formats/single_elimination.py): seeding, byes, bracket, places."""
from __future__ import annotations

from collections import Counter
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import BYE, FORMATS, Entrant, History, result
from tournaments.formats.base import play
from tournaments.formats.single_elimination import FORMAT, standard_order


def favourite_wins(number, table):
    """The lower id (the better seed when ids are seed numbers) wins."""
    ranks = [1, 2] if table.seats[0] < table.seats[1] else [2, 1]
    return result(number, *table.seats, ranks=ranks, match=table.match)


def random_wins(seed):
    rng = Random(seed)

    def outcome(number, table):
        return result(number, *table.seats, ranks=rng.choice([[1, 2], [2, 1], [1, 1]]), match=table.match)
    return outcome


def test_it_is_registered_under_its_slug():
    assert FORMATS["single-elimination"] is FORMAT


def test_standard_seeding_nests_the_lines_so_seed_one_meets_the_last_seed_first():
    assert standard_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert standard_order(16)[:4] == [1, 16, 8, 9]


def test_when_favourites_win_the_top_two_seeds_meet_only_in_the_final():
    rounds, history = play(FORMAT, list(range(1, 9)), None, favourite_wins)
    assert [sorted(tuple(sorted(t.seats)) for t in p.tables) for p in rounds] == [
        [(1, 8), (2, 7), (3, 6), (4, 5)],
        [(1, 4), (2, 3)],
        [(1, 2)],
    ]
    assert FORMAT.champion(list(range(1, 9)), None, history) == 1


def test_byes_go_to_the_top_seeds():
    pairing = FORMAT.next_round([1, 2, 3, 4, 5, 6])
    assert sorted(pairing.byes) == [1, 2]
    assert sorted(tuple(sorted(t.seats)) for t in pairing.tables) == [(3, 6), (4, 5)]


def test_players_with_a_bye_wait_for_round_two():
    rounds, _ = play(FORMAT, [1, 2, 3, 4, 5], None, favourite_wins)
    assert [t.seats for t in rounds[0].tables] == [(4, 5)]
    assert sorted(rounds[0].byes) == [1, 2, 3]
    assert sorted(tuple(sorted(t.seats)) for t in rounds[1].tables) == [(1, 4), (2, 3)]


def test_the_third_place_match_pairs_the_semi_final_losers():
    rounds, history = play(FORMAT, list(range(1, 9)), {"third_place": True}, favourite_wins)
    last = {t.match: tuple(sorted(t.seats)) for t in rounds[-1].tables}
    assert last == {"W3.1": (1, 2), "3P": (3, 4)}
    places = FORMAT.placements(list(range(1, 9)), {"third_place": True}, history)
    assert places == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 7: 5, 8: 5}


def test_without_a_third_place_match_the_semi_final_losers_share_third():
    _, history = play(FORMAT, list(range(1, 9)), None, favourite_wins)
    places = FORMAT.placements(list(range(1, 9)), None, history)
    assert places == {1: 1, 2: 2, 3: 3, 4: 3, 5: 5, 6: 5, 7: 5, 8: 5}


def test_the_bracket_says_where_winners_go_and_what_feeds_each_match():
    bracket = FORMAT.bracket(list(range(1, 5)), {"third_place": True})
    by_id = {state.id: state.match for state in bracket.matches}
    assert by_id["W1.1"].winner_to == ("W2.1", 0) and by_id["W1.2"].winner_to == ("W2.1", 1)
    assert by_id["W1.1"].loser_to == ("3P", 0)
    assert [s.ref for s in by_id["W2.1"].sources] == ["W1.1", "W1.2"]
    assert by_id["W2.1"].side == "final" and by_id["3P"].side == "third-place"
    assert [state.status for state in bracket.matches] == ["ready", "ready", "waiting", "waiting"]


def test_a_withdrawn_player_gives_the_opponent_a_walkover():
    _, history = play(FORMAT, [1, 2, 3, 4], None, favourite_wins)
    round_one = History(tuple(res for res in history.results if res.round == 1), withdrawn=frozenset({2}))
    assert FORMAT.next_round([1, 2, 3, 4], None, round_one) is None
    bracket = FORMAT.bracket([1, 2, 3, 4], None, round_one)
    assert bracket.match("W2.1").status == "bye"
    assert bracket.champion == 1 and bracket.placements[2] == 2


def test_a_tied_result_goes_to_the_higher_seed():
    history = History(results=(result(1, 2, 1, ranks=[1, 1], match="W1.1"),))
    assert FORMAT.bracket([1, 2], None, history).champion == 1


def test_a_result_without_its_match_id_is_refused():
    with pytest.raises(ValueError, match="name a match"):
        FORMAT.next_round([1, 2], None, History(results=(result(1, 1, 2),)))


def test_seeding_by_rating_puts_the_highest_rated_on_line_one():
    entrants = [Entrant("low", 1000), Entrant("top", 2000), Entrant("mid", 1500)]
    pairing = FORMAT.next_round(entrants, {"seeding": "rating"})
    assert pairing.byes == ("top",)


def test_a_bye_is_drawn_as_the_bye_sentinel():
    bracket = FORMAT.bracket([1, 2, 3])
    assert bracket.match("W1.1").players == (1, BYE)


@given(st.integers(2, 40), st.booleans(), st.integers(0, 10**6))
def test_random_results_lead_to_exactly_one_champion_and_a_place_for_everyone(players, third, seed):
    ids = list(range(1, players + 1))
    options = {"third_place": third}
    rounds, history = play(FORMAT, ids, options, random_wins(seed))
    bracket = FORMAT.bracket(ids, options, history)
    assert bracket.finished and bracket.champion in ids
    places = bracket.placements
    assert sorted(places) == ids and Counter(places.values())[1] == 1
    third_played = third and players >= 4
    assert len(history.results) == players - 1 + third_played
    for pairing in rounds:
        seated = list(pairing.players())
        assert len(seated) == len(set(seated)) and not set(seated) & set(pairing.byes)
        assert all(len(t.seats) == 2 for t in pairing.tables)
    losses = Counter(res.seats[res.ranks.index(2)] if 2 in res.ranks else None for res in history.results)
    assert losses[bracket.champion] == 0


@given(st.integers(2, 40), st.integers(0, 10**6))
def test_losers_of_the_same_round_share_a_place_and_a_later_round_places_higher(players, seed):
    ids = list(range(1, players + 1))
    _, history = play(FORMAT, ids, None, random_wins(seed))
    bracket = FORMAT.bracket(ids, None, history)
    out_in = {state.loser: state.match.round for state in bracket.matches if state.status == "played"}
    for a in out_in:
        for b in out_in:
            assert (out_in[a] > out_in[b]) == (bracket.placements[a] < bracket.placements[b])


def test_a_walkover_stands_when_its_winner_leaves_later():
    """Regression: a later withdrawal must not undo a walkover the bracket already built on."""
    ids = list(range(1, 9))
    rounds, history = play(FORMAT, ids, None, favourite_wins, max_rounds=1)
    history = History(history.results, withdrawn={2: 2})  # 2 misses round two: 3 goes through
    rounds, history = play(FORMAT, ids, None, favourite_wins, history=history)
    assert [t.match for t in rounds[-1].tables] == ["W3.1"] and set(rounds[-1].tables[0].seats) == {1, 3}
    history = History(history.results, withdrawn={2: 2, 3: 4})  # the finalist leaves afterwards
    bracket = FORMAT.bracket(ids, None, history)
    assert bracket.match("W2.2").winner == 3 and bracket.champion == 1


def test_a_set_of_withdrawn_players_means_from_the_next_round_on():
    history = History(results=(result(1, 1, 2, match="W1.1"),), withdrawn={3})
    assert history.withdrawn == {3: 2} and history.absent_in(1) == frozenset()
