"""Double elimination (tournaments/formats/double_elimination.py): brackets, drop-downs, grand final."""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from random import Random

from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats import FORMATS, History, result
from tournaments.formats.base import play
from tournaments.formats.double_elimination import FORMAT, double_elimination_bracket


def favourite_wins(number, table):
    ranks = [1, 2] if table.seats[0] < table.seats[1] else [2, 1]
    return result(number, *table.seats, ranks=ranks, match=table.match)


def random_wins(seed):
    rng = Random(seed)

    def outcome(number, table):
        return result(number, *table.seats, ranks=rng.choice([[1, 2], [2, 1]]), match=table.match)
    return outcome


def loser(res):
    return res.seats[res.ranks.index(max(res.ranks))]


def test_it_is_registered_under_its_slug():
    assert FORMATS["double-elimination"] is FORMAT


def test_an_eight_player_bracket_has_seven_winners_six_losers_and_two_final_matches():
    sides = Counter(match.side for match in double_elimination_bracket(8))
    assert sides == {"winners": 7, "losers": 6, "final": 2}
    losers_rounds = Counter(m.round for m in double_elimination_bracket(8) if m.side == "losers")
    assert losers_rounds == {1: 2, 2: 2, 3: 1, 4: 1}


def test_winners_round_one_losers_meet_each_other_in_losers_round_one():
    by_id = {m.id: m for m in double_elimination_bracket(8)}
    assert by_id["W1.1"].loser_to == ("L1.1", 0) and by_id["W1.2"].loser_to == ("L1.1", 1)
    assert by_id["W1.3"].loser_to == ("L1.2", 0)


def test_drop_downs_cross_to_the_neighbouring_section():
    by_id = {m.id: m for m in double_elimination_bracket(16)}
    assert [by_id[f"W2.{i}"].loser_to for i in (1, 2, 3, 4)] == [("L2.2", 1), ("L2.1", 1), ("L2.4", 1),
                                                                  ("L2.3", 1)]
    assert [by_id[f"W3.{i}"].loser_to for i in (1, 2)] == [("L4.2", 1), ("L4.1", 1)]
    assert by_id["W4.1"].loser_to == ("L6.1", 1) and by_id["L6.1"].winner_to == ("GF", 1)


def test_losers_bracket_rounds_run_beside_the_winners_rounds_that_feed_them():
    rounds, _ = play(FORMAT, list(range(1, 9)), None, favourite_wins)
    assert [sorted(t.match for t in p.tables) for p in rounds] == [
        ["W1.1", "W1.2", "W1.3", "W1.4"],
        ["L1.1", "L1.2", "W2.1", "W2.2"],
        ["L2.1", "L2.2", "W3.1"],
        ["L3.1"],
        ["L4.1"],
        ["GF"],
    ]


def test_no_reset_when_the_winners_champion_takes_the_grand_final():
    rounds, history = play(FORMAT, list(range(1, 9)), None, favourite_wins)
    assert rounds[-1].tables[0].match == "GF"
    bracket = FORMAT.bracket(list(range(1, 9)), None, history)
    assert bracket.champion == 1 and bracket.match("GF2").status == "void"
    assert bracket.placements == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 5, 7: 7, 8: 7}


def test_the_grand_final_is_replayed_when_the_losers_champion_wins_it():
    def underdog_takes_the_final(number, table):
        res = favourite_wins(number, table)
        return result(number, *table.seats, ranks=list(reversed(res.ranks)), match=table.match) \
            if table.match == "GF" else res
    rounds, history = play(FORMAT, [1, 2, 3, 4], None, underdog_takes_the_final)
    assert [t.match for t in rounds[-1].tables] == ["GF2"]
    assert FORMAT.champion([1, 2, 3, 4], None, history) == 1


def test_without_the_reset_option_the_grand_final_decides():
    def underdog_takes_the_final(number, table):
        res = favourite_wins(number, table)
        return result(number, *table.seats, ranks=list(reversed(res.ranks)), match=table.match) \
            if table.match == "GF" else res
    rounds, history = play(FORMAT, [1, 2, 3, 4], {"grand_final_reset": False}, underdog_takes_the_final)
    assert rounds[-1].tables[0].match == "GF"
    assert FORMAT.champion([1, 2, 3, 4], {"grand_final_reset": False}, history) == 2


def test_two_players_play_a_final_and_the_grand_final():
    rounds, history = play(FORMAT, [1, 2], None, favourite_wins)
    assert [t.match for p in rounds for t in p.tables] == ["W1.1", "GF"]
    assert FORMAT.champion([1, 2], None, history) == 1


def test_a_bracket_for_1024_players_has_2046_matches_and_the_reset():
    structure = double_elimination_bracket(1024)
    assert len(structure) == 2 * 1024 - 1
    assert {m.id for m in structure if m.side == "final"} == {"GF", "GF2"}


def test_a_withdrawn_losers_bracket_player_gives_a_walkover():
    rounds, history = play(FORMAT, list(range(1, 9)), None, favourite_wins, max_rounds=1)
    history = History(history.results, withdrawn=frozenset({8}))
    pairing = FORMAT.next_round(list(range(1, 9)), None, history)
    assert "L1.1" not in {t.match for t in pairing.tables}  # 8 would have met 5 there
    assert FORMAT.bracket(list(range(1, 9)), None, history).match("L1.1").status == "bye"


@given(st.integers(2, 40), st.booleans(), st.integers(0, 10**6))
def test_random_results_lead_to_one_champion_and_everyone_else_out_after_two_losses(players, reset, seed):
    ids = list(range(1, players + 1))
    options = {"grand_final_reset": reset}
    rounds, history = play(FORMAT, ids, options, random_wins(seed))
    bracket = FORMAT.bracket(ids, options, history)
    assert bracket.finished and bracket.champion in ids
    losses = Counter(loser(res) for res in history.results)
    assert losses[bracket.champion] <= 1
    runner_up = loser(next(res for res in history.results if res.match == "GF"))
    for player in ids:
        if player != bracket.champion:  # without the reset, the grand final can be a first loss
            assert losses[player] == 2 or (not reset and player == runner_up and losses[player] == 1)
    assert len(history.results) in (2 * players - 2, 2 * players - 1)
    assert sorted(bracket.placements) == ids and Counter(bracket.placements.values())[1] == 1
    for pairing in rounds:
        seated = list(pairing.players())
        assert len(seated) == len(set(seated)) and not set(seated) & set(pairing.byes)


@given(st.integers(4, 64), st.integers(0, 10**6))
def test_a_dropped_player_never_meets_a_past_opponent_in_its_drop_down_round(players, seed):
    """Drop-down placement (pair flip): only the winners' final drops onto a possible rematch."""
    ids = list(range(1, players + 1))
    _, history = play(FORMAT, ids, None, random_wins(seed))
    depth = (players - 1).bit_length()
    met: set[frozenset] = set()
    for res in sorted(history.results, key=lambda r: r.round):
        side, rnd = res.match[0], res.match[1:].split(".")[0]
        drop_down = side == "L" and rnd.isdigit() and int(rnd) % 2 == 0 and int(rnd) < 2 * (depth - 1)
        if drop_down:
            assert frozenset(res.seats) not in met
        met.add(frozenset(res.seats))


def test_the_bracket_serialises_for_a_front_end_with_byes_marked():
    data = FORMAT.bracket([1, 2, 3]).as_dict()
    first = data["matches"][0]
    assert first["players"] == [1, {"bye": True}] and first["status"] == "bye"
    assert first["loser_to"] == ("L1.1", 0)
    json.dumps(data)


@given(st.integers(3, 32), st.integers(0, 10**6), st.lists(st.integers(1, 32), max_size=6))
def test_withdrawals_at_any_time_never_stall_the_bracket_or_seat_an_absent_player(players, seed, leavers):
    ids = list(range(1, players + 1))
    outcome = random_wins(seed)
    history = History()
    for _ in range(4 * players):
        pairing = FORMAT.next_round(ids, None, history)
        if pairing is None:
            break
        assert not set(pairing.players()) & history.absent_in(pairing.round)
        history = history.with_round(pairing, [outcome(pairing.round, t) for t in pairing.tables])
        leaver = leavers.pop(0) if leavers else None
        # A player leaves once: a second withdrawal would move the first one later, rewriting history.
        if leaver is not None and leaver <= players and leaver not in history.withdrawn:
            history = replace(history, withdrawn={**history.withdrawn, leaver: pairing.round + 1})
    else:
        raise AssertionError("the bracket did not finish")
    bracket = FORMAT.bracket(ids, None, history)
    assert bracket.finished
    if bracket.champion is not None:
        assert sorted(bracket.placements) == ids and bracket.placements[bracket.champion] == 1
