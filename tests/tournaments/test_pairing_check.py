"""The pairing checker (tournaments/pairing_check/): exports, the five rules, the round report, the CLI.

No database: the checker is pure; the management command is called without touching one.
"""
from __future__ import annotations

import io
import itertools
import json
import os
import subprocess
import sys
from fractions import Fraction
from random import Random

import pytest
from django.core.management import CommandError, call_command

from tournaments import pairing_check
from tournaments.formats import FORMATS, Bye, History, Pairing, Table, result
from tournaments.pairing_check import (
    ExportError,
    Finding,
    SearchBudgetExceeded,
    check_export,
    fewest_repeats,
    load_export,
    main,
    round_report,
)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# --- builders -------------------------------------------------------------------------------


def table(*seats, ranks=None, team_score=None, forfeited=()):
    """A played table; without ranks or a team score, seat order is finishing order."""
    if ranks is None and team_score is None:
        ranks = range(1, len(seats) + 1)
    return {"seats": list(seats), "ranks": None if ranks is None else list(ranks), "team_score": team_score,
            "forfeited": list(forfeited)}


def rnd(number, *tables, byes=()):
    return {"round": number, "byes": list(byes), "tables": list(tables)}


def export(*rounds, fmt="swiss-tables", options=None, players=9, late=None, withdrawn=None,
           disqualified=None):
    """An export of `players` entrants 1..n (late: {id: round entered})."""
    late = late or {}
    entrants = [{"id": player, "rating": None, "entered": late.get(player, 1)}
                for player in range(1, players + 1)]
    return {
        "export": "tournament-pairings", "version": 1,
        "tournament": {"id": 1, "name": "Hand-made", "game": "ten"},
        "format": fmt,
        "options": options if options is not None else {"table_size": 3, "min_players": 3, "max_players": 4,
                                                        "rounds": 3},
        "entrants": entrants,
        "withdrawn": {str(k): v for k, v in (withdrawn or {}).items()},
        "disqualified": {str(k): v for k, v in (disqualified or {}).items()},
        "rounds": list(rounds),
    }


def clean_rounds():
    """Nine players at tables of three, three rounds: the parallel classes of the affine plane
    of order 3 (rows, then two diagonals), so nobody meets twice; each player sits in each seat once."""
    return [
        rnd(1, table(1, 2, 3), table(4, 5, 6), table(7, 8, 9)),
        rnd(2, table(9, 1, 5), table(6, 7, 2), table(3, 4, 8)),
        rnd(3, table(8, 6, 1), table(2, 9, 4), table(5, 3, 7)),
    ]


def findings_of(data):
    return check_export(load_export(data))


def real(findings):
    return [finding for finding in findings if not finding.note]


# --- a clean export, and each rule broken once ----------------------------------------------


def test_a_clean_export_has_no_findings_and_no_notes():
    assert findings_of(export(*clean_rounds())) == []


def test_seating_finds_a_player_who_is_not_an_entrant():
    rounds = clean_rounds()
    rounds[2]["tables"][0]["seats"].append(99)  # 10 seated, 9 eligible: tables 4+3+3 are still right
    rounds[2]["tables"][0]["ranks"].append(4)
    assert findings_of(export(*rounds)) == [
        Finding(3, "seating", (99,), "player 99 is paired but is not an entrant")]


def test_table_sizes_finds_sizes_other_than_table_sizes_gives():
    data = export(rnd(1, table(1, 2, 3, 4, 5), table(6, 7, 8, 9)),
                  options={"table_size": 3, "min_players": 2, "max_players": 5})
    assert findings_of(data) == [
        Finding(1, "table-sizes", (),
                "9 seated players sit at tables of [5, 4]; table_sizes gives [3, 3, 3]")]


def test_byes_finds_a_second_bye_while_a_seated_player_has_none():
    data = export(rnd(1, table(1, 2), table(3, 4), byes=[5]),
                  rnd(2, table(4, 1), table(2, 3), byes=[5]), fmt="swiss", options={"rounds": 2}, players=5)
    assert findings_of(data) == [
        Finding(2, "byes", (5,),
                "player 5 gets a 2nd bye while 4 seated players had fewer (4, 1, 2, 3)")]


def test_rematch_finds_an_avoidable_rematch():
    data = export(rnd(1, table(1, 2), table(3, 4), table(5, 6)),
                  rnd(2, table(2, 1), table(4, 5), table(6, 3)),
                  fmt="swiss", options={"rounds": 2}, players=6)
    [finding] = findings_of(data)
    assert (finding.round, finding.rule, finding.players) == (2, "rematch", (2, 1))
    assert finding.message.startswith("players 2 and 1 meet for the 2nd time, yet a grouping of round 2 "
                                      "without rematches exists")


def test_seat_balance_finds_a_table_that_could_be_seated_better():
    data = export(rnd(1, table(1, 2), table(3, 4)), rnd(2, table(1, 4), table(2, 3)),
                  fmt="swiss", options={"rounds": 2}, players=4)
    assert findings_of(data) == [
        Finding(2, "seat-balance", (1, 4),
                "table 1: 2 of its players end out of seat balance (1, 4); another seating leaves 0")]


# --- more of each rule ----------------------------------------------------------------------


def test_seating_finds_missing_twice_seated_late_withdrawn_and_disqualified_players():
    data = export(rnd(1, table(1, 2, 3), table(4, 5, 6), table(7, 8, 9)),
                  rnd(2, table(1, 4, 7), table(2, 5, 8), table(3, 6, 1), table(9, 10, 11)),
                  players=11, late={10: 3}, withdrawn={11: 1}, disqualified={9: 2})
    seating = [f for f in findings_of(data) if f.rule == "seating"]
    assert [(f.round, f.players, f.message) for f in seating] == [
        (2, (1,), "player 1 appears 2 times in the round"),
        (2, (9,), "player 9 is paired but is disqualified (from round 2)"),
        (2, (10,), "player 10 is paired but enters only in round 3"),
        (2, (11,), "player 11 is paired but withdrew (misses rounds 1 on)"),
    ]
    missing = export(rnd(1, table(1, 2, 3), table(4, 5, 6), byes=[]), players=7)
    assert [f.message for f in findings_of(missing) if f.rule == "seating"] == [
        "player 7 is eligible but neither seated nor given a bye"]


def test_a_late_entrant_is_eligible_from_the_round_they_enter():
    rounds = clean_rounds()[:2]
    rounds[1] = rnd(2, table(9, 1, 5, 10), table(6, 7, 2), table(3, 4, 8))
    rounds[1]["tables"][0]["ranks"] = [1, 2, 3, 4]
    assert findings_of(export(*rounds, players=10, late={10: 2})) == []


def test_table_sizes_finds_tables_outside_the_game_range_and_sizes_apart_by_two():
    data = export(rnd(1, table(1, 2, 3, 4, 5), table(6, 7, 8)),
                  options={"table_size": 4, "min_players": 3, "max_players": 4}, players=8)
    assert [f.message for f in findings_of(data)] == [
        "table 1 seats 5; the game takes 3 to 4",
        "table sizes [5, 3] differ by more than 1",
    ]


def test_table_sizes_finds_more_byes_than_a_legal_split_needs():
    data = export(rnd(1, table(1, 2, 3, 4), table(5, 6, 7, 8), byes=[9]))
    assert findings_of(data) == [
        Finding(1, "table-sizes", (9,), "1 bye for 9 eligible players; a legal split needs 0")]


def test_two_player_swiss_needs_one_bye_exactly_with_an_odd_field():
    odd_without_bye = export(rnd(1, table(1, 2), table(3, 4, 5)), fmt="swiss", options={"max_players": 3},
                             players=5)
    assert [f.message for f in findings_of(odd_without_bye)] == [
        "table 2 seats 3; two-player Swiss seats 2",
        "0 byes for 5 eligible players; a legal split needs 1",
    ]
    even_with_bye = export(rnd(1, table(1, 2), byes=[3, 4]), fmt="swiss", options={}, players=4)
    assert [f.message for f in findings_of(even_with_bye)] == [
        "2 byes for 4 eligible players; a legal split needs 0"]


def test_swiss_tables_at_table_size_two_is_judged_as_two_player_swiss():
    """At table size 2 swiss-tables pairs with the two-player Swiss: 5 players are 2+2 and a bye
    (not the 3+2 that `table_sizes` would give for a 2..3 game)."""
    data = export(rnd(1, table(1, 2), table(3, 4), byes=[5]),
                  options={"table_size": 2, "min_players": 2, "max_players": 3}, players=5)
    assert findings_of(data) == []


def test_an_unavoidable_rematch_is_a_finding_only_above_the_least_repeat_cost():
    first = rnd(1, table(1, 2, 3), table(4, 5, 6))
    options = {"table_size": 3, "min_players": 3, "max_players": 3}
    least = export(first, rnd(2, table(1, 2, 4), table(5, 6, 3)), options=options, players=6)
    assert [f for f in findings_of(least) if f.rule == "rematch"] == []
    again = export(first, rnd(2, table(2, 3, 1), table(5, 6, 4)), options=options, players=6)
    assert findings_of(again) == [
        Finding(2, "rematch", (2, 3, 1, 5, 6, 4),
                "rematches cannot be avoided, but the round has 6 pairs meeting a 2nd time where the best "
                "grouping has 2 pairs meeting a 2nd time")]


def test_a_third_meeting_weighs_more_than_any_number_of_second_meetings():
    """Four players have all met once by round 3; round 4 repeats round 1 (unavoidably), and
    round 5 repeats it again: two third meetings, where two second meetings would do."""
    data = export(rnd(1, table(1, 2), table(3, 4)), rnd(2, table(1, 3), table(2, 4)),
                  rnd(3, table(1, 4), table(2, 3)), rnd(4, table(2, 1), table(4, 3)),
                  rnd(5, table(1, 2), table(3, 4)), fmt="swiss", options={"rounds": 5}, players=4)
    rematch = [f for f in findings_of(data) if f.rule == "rematch"]
    assert [f.message for f in rematch] == [
        "rematches cannot be avoided, but the round has 2 pairs meeting a 3rd time where the best "
        "grouping has 2 pairs meeting a 2nd time"]


def test_hajnal_szemeredi_proves_a_rematch_avoidable_above_the_exhaustive_limit():
    players = 20
    first = rnd(1, *(table(a, a + 1) for a in range(1, players, 2)))
    second = rnd(2, table(1, 2), *(table(a, a + 3) for a in range(3, players - 2, 4)),
                 *(table(a + 1, a + 2) for a in range(3, players - 2, 4)), table(20, 19))
    data = export(first, second, fmt="swiss", options={"rounds": 2}, players=players)
    rematches = [f for f in findings_of(data) if f.rule == "rematch"]
    assert [f.players for f in rematches] == [(1, 2), (20, 19)]
    assert "Hajnal-Szemeredi: 10 tables, at most 1 earlier opponents each" in rematches[0].message


def test_a_rematch_the_search_cannot_settle_is_a_note_not_a_finding(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(pairing_check.rules, "LARGE_NODE_BUDGET", 1)
    players = 18
    first = rnd(1, table(*range(1, 7)), table(*range(7, 13)), table(*range(13, 19)))
    second = rnd(2, table(1, 2, 3, 7, 8, 13), table(4, 5, 9, 10, 14, 15), table(6, 11, 12, 16, 17, 18))
    options = {"table_size": 6, "min_players": 6, "max_players": 6}
    data = export(first, second, options=options, players=players)
    [note] = [f for f in findings_of(data) if f.rule == "rematch"]
    assert note.note and note.round == 2
    assert note.message.startswith("undecided: the exhaustive search ran out of its 1 nodes")
    path = tmp_path / "export.json"
    path.write_text(json.dumps(data))
    status = main([str(path)])
    out = capsys.readouterr().out
    assert "round 2: [note rematch] undecided" in out
    assert status == (1 if real(findings_of(data)) else 0)


def test_rules_three_to_five_do_not_apply_to_round_robin():
    data = export(rnd(1, table(1, 2), table(3, 4)), rnd(2, table(1, 2), table(3, 4)),
                  fmt="round-robin", options={}, players=4)
    assert findings_of(data) == []
    rules, left_out = pairing_check.rules_for("round-robin", {})
    assert rules == ("seating", "table-sizes") and "does not pair tables freely" in left_out


def test_elimination_formats_do_not_need_every_eligible_player_seated():
    data = export(rnd(1, table(1, 4), table(2, 3)), rnd(2, table(1, 2)),
                  fmt="single-elimination", options={}, players=4)
    assert findings_of(data) == []


def test_a_league_of_swiss_rounds_gets_every_rule():
    data = export(rnd(1, table(1, 2), table(3, 4)), rnd(2, table(2, 1), table(4, 3)),
                  fmt="league", options={"format": "swiss", "rounds": 2}, players=4)
    assert {f.rule for f in findings_of(data)} == {"rematch"}


# --- bad input ------------------------------------------------------------------------------


def _broken(change):
    data = export(*clean_rounds())
    change(data)
    return data


BAD_EXPORTS = [
    (lambda d: d.clear() or d.update({"rounds": []}), '"export" must be "tournament-pairings", not None'),
    (lambda d: d.update(version=2), "unsupported export version 2 (this checker reads version 1)"),
    (lambda d: d.pop("rounds"), 'the export has no "rounds"'),
    (lambda d: d.update(format="swizz"), "unknown format 'swizz'"),
    (lambda d: d.update(format="swiss"), "the swiss format refuses these options: unknown options"),
    (lambda d: d["options"].update(table_size=7), "the swiss-tables format refuses these options: table_"),
    (lambda d: d.update(withdrawals={}), "the export has unknown keys: withdrawals"),
    (lambda d: d["entrants"].append({"id": 3}), "entrant id 3 appears twice"),
    (lambda d: d["entrants"].append({"id": "ten"}), "entrant 10's id: ids are integers, not 'ten'"),
    (lambda d: d["entrants"][0].update(entered=0), "entrant 1's entered must be a round number"),
    (lambda d: d.update(withdrawn={"12": 2}), '"withdrawn" names 12, who is not an entrant'),
    (lambda d: d.update(disqualified={"x": 2}), '"disqualified" keys must be entrant ids'),
    (lambda d: d["rounds"].reverse(), "rounds must be numbered 1, 2, ... in order: entry 1 says 3"),
    (lambda d: d["rounds"][0]["tables"][0].update(ranks=None), "round 1 table 1 has no result, yet round 2"),
    (lambda d: d["rounds"][0]["tables"][0].update(ranks=[1, 2]), "round 1 table 1's ranks must be one"),
    (lambda d: d["rounds"][0]["tables"][0].update(team_score=3), "round 1 table 1 gives both ranks and"),
    (lambda d: d["rounds"][1]["tables"][0].update(seats=[9, 9, 5]), "round 2 table 1 seats the same player"),
    (lambda d: d["rounds"][1]["tables"][0].update(forfeited=[4]), "round 2 table 1: forfeited players"),
    (lambda d: d["rounds"][1].pop("byes"), 'round 2 has no "byes"'),
    (lambda d: d["rounds"][1].update(bye=[]), "round 2 has unknown keys: bye"),
]


@pytest.mark.parametrize(("change", "message"), BAD_EXPORTS)
def test_a_badly_shaped_export_is_refused_with_a_clear_message(change, message):
    with pytest.raises(ExportError) as error:
        load_export(_broken(change))
    assert message in str(error.value)


def test_the_export_must_be_an_object():
    with pytest.raises(ExportError, match="the export must be a JSON object"):
        load_export([])


def test_the_last_round_may_be_unfinished():
    rounds = clean_rounds()
    rounds[2]["tables"][1]["ranks"] = None
    assert findings_of(export(*rounds)) == []


# --- the exhaustive search ------------------------------------------------------------------


def weights_of(groups, count, weight=1):
    """A weight matrix where the players of each group met once (weight 1)."""
    matrix = [[0] * count for _ in range(count)]
    for group in groups:
        for a, b in itertools.combinations(group, 2):
            matrix[a][b] += weight
            matrix[b][a] += weight
    return matrix


def test_the_search_finds_a_rematch_free_split_when_one_exists():
    assert fewest_repeats(weights_of([(0, 1), (2, 3), (4, 5)], 6), [2, 2, 2], 1_000) == 0
    assert fewest_repeats(weights_of([], 5), [3, 2], 1_000) == 0


def test_the_search_finds_a_forced_rematch():
    """Player 0 has met everyone: at tables of two someone must meet them again."""
    star = weights_of([(0, 1), (0, 2), (0, 3)], 4)
    assert fewest_repeats(star, [2, 2], 1_000) == 1


def test_two_tables_of_three_after_two_tables_of_three_force_two_rematches():
    """Three players from two earlier tables: each new table holds two who met (pigeonhole)."""
    assert fewest_repeats(weights_of([(0, 1, 2), (3, 4, 5)], 6), [3, 3], 1_000) == 2


def test_sixteen_players_after_six_five_five_spread_at_best_into_seven_rematches():
    """Tables of 6, 5, 5 again: the 6 who met spread 2+2+2 (3 pairs), each 5 spreads 2+2+1 (2 pairs)."""
    groups = [range(0, 6), range(6, 11), range(11, 16)]
    weight = weights_of([tuple(group) for group in groups], 16)
    assert fewest_repeats(weight, [6, 5, 5], 300_000) == 7
    assert fewest_repeats(weight, [6, 5, 5], 300_000, known=7) == 7


def test_the_search_prefers_two_second_meetings_to_one_third():
    base = 6 + 1  # (4 choose 2) + 1
    weight = weights_of([(0, 1), (2, 3)], 4)
    weight[0][1] = weight[1][0] = base  # 0 and 1 have met twice
    weight[0][2] = weight[2][0] = weight[1][3] = weight[3][1] = 1
    weight[0][3] = weight[3][0] = weight[1][2] = weight[2][1] = 1
    assert fewest_repeats(weight, [2, 2], 1_000) == 2


def test_the_search_gives_up_past_its_node_budget():
    weight = weights_of([tuple(range(0, 6)), tuple(range(6, 11)), tuple(range(11, 16))], 16)
    with pytest.raises(SearchBudgetExceeded):
        fewest_repeats(weight, [6, 5, 5], 10)


def test_the_search_agrees_with_brute_force_on_random_small_fields():
    rng = Random(27)
    for _ in range(150):
        count = rng.randint(2, 9)
        tables = rng.randint(1, max(1, count // 2))
        share, extra = divmod(count, tables)
        sizes = [share + 1] * extra + [share] * (tables - extra)
        weight = [[0] * count for _ in range(count)]
        density = rng.random()
        for a, b in itertools.combinations(range(count), 2):
            if rng.random() < density:
                weight[a][b] = weight[b][a] = rng.choice([1, 1, 2, 9])
        assert fewest_repeats(weight, sizes, 10**6) == _brute_force(weight, sizes)


def _brute_force(weight, sizes):
    """The least cost over every split, by plain enumeration: the first player left opens a table."""
    def least(left, sizes_left):
        if not left:
            return 0
        opener, rest = left[0], left[1:]
        best = None
        for size in set(sizes_left):
            after = list(sizes_left)
            after.remove(size)
            for others in itertools.combinations(rest, size - 1):
                group = (opener, *others)
                cost = sum(weight[a][b] for a, b in itertools.combinations(group, 2))
                total = cost + least([p for p in rest if p not in others], after)
                best = total if best is None else min(best, total)
        return best
    return least(list(range(len(weight))), list(sizes))


# --- the round report -----------------------------------------------------------------------


def test_round_report_of_a_hand_made_round():
    """Round 2 of seven players at tables of 3-4, after 1 2 3 | 4 5 6 and a bye for 7.

    Rematches: 2-1 and 6-4, unavoidable (a table of four holds two of the same earlier table),
    and two is the least. Seat deviation (twelfths): player 5 sat in seat 1 at a table of 3
    and of 4: 2 - (1/3 + 1/4) = 17/12. Scores before: 1 → 1, 2 → 1/2, 3 → 0, 4 → 1, 5 and 6
    → 1/4 (a tie for second of three), 7 → 1/2 (the bye).
    """
    options = {"table_size": 3, "min_players": 3, "max_players": 4}
    history = History(results=(result(1, 1, 2, 3), result(1, 4, 5, 6, ranks=[1, 2, 2])), byes=(Bye(1, 7),))
    pairing = Pairing(2, (Table((2, 5, 1, 7)), Table((6, 3, 4))))
    report = round_report("swiss-tables", list(range(1, 8)), options, history, pairing)
    assert report == {
        "tables": 2,
        "table_sizes": [4, 3],
        "byes": [],
        "rematches": [{"players": [2, 1], "meeting": 2, "avoidable": False},
                      {"players": [6, 4], "meeting": 2, "avoidable": False}],
        "repeat_cost_minimal": True,
        "seat_balance": {"max_deviation": 1.417, "out_of_balance": [5], "first_seat_spread": 1},
        "score_spread": {"per_table": [0.75, 1.0], "mean": 0.875, "max": 1.0},
    }
    json.dumps(report)


def test_round_report_of_an_avoidable_rematch_with_a_bye():
    history = History(results=(result(1, 1, 2), result(1, 3, 4)), byes=(Bye(1, 5),))
    pairing = Pairing(2, (Table((2, 1)), Table((5, 3))), byes=(4,))
    report = round_report("swiss", [1, 2, 3, 4, 5], {"rounds": 3}, history, pairing)
    assert report["byes"] == [4]
    assert report["rematches"] == [{"players": [2, 1], "meeting": 2, "avoidable": True}]
    assert report["repeat_cost_minimal"] is False
    assert report["seat_balance"] == {"max_deviation": 0.5, "out_of_balance": [], "first_seat_spread": 1}
    assert report["score_spread"] == {"per_table": [1.0, 0.0], "mean": 0.5, "max": 1.0}


def test_round_report_uses_mean_team_scores_for_a_cooperative_game():
    options = {"table_size": 3, "min_players": 2, "max_players": 4, "cooperative": True}
    history = History(results=(result(1, 1, 2, 3, team_score=12), result(1, 4, 5, 6, team_score=3)))
    pairing = Pairing(2, (Table((1, 4, 7)), Table((2, 5, 3, 6))))
    report = round_report("swiss-tables", list(range(1, 8)), options, history, pairing)
    assert report["score_spread"] == {"per_table": [9.0, 9.0], "mean": 9.0, "max": 9.0}


def test_round_report_leaves_a_large_field_undecided_unless_hajnal_szemeredi_settles_it():
    first = History(results=tuple(result(1, *range(a, a + 6)) for a in (1, 7, 13)))
    again = Pairing(2, (Table((1, 2, 7, 8, 13, 14)), Table((3, 4, 9, 10, 15, 16)),
                        Table((5, 6, 11, 12, 17, 18))))
    options = {"table_size": 6, "min_players": 6, "max_players": 6}
    report = round_report("swiss-tables", list(range(1, 19)), options, first, again)
    assert {r["avoidable"] for r in report["rematches"]} == {None} and report["repeat_cost_minimal"] is None
    pairs = History(results=tuple(result(1, a, a + 1) for a in range(1, 21, 2)))
    repeat = Pairing(2, tuple(Table((a, a + 1)) for a in range(1, 21, 2)))
    report = round_report("swiss", list(range(1, 21)), {}, pairs, repeat)
    assert {r["avoidable"] for r in report["rematches"]} == {True} and report["repeat_cost_minimal"] is False


def test_round_report_of_a_first_round_of_the_real_pairer_is_clean():
    fmt = FORMATS["swiss-tables"]
    options = {"table_size": 4, "min_players": 3, "max_players": 5}
    pairing = fmt.next_round(list(range(1, 19)), options, History())
    report = round_report("swiss-tables", list(range(1, 19)), options, History(), pairing)
    assert report["table_sizes"] == [5, 5, 4, 4] and report["rematches"] == []
    assert report["repeat_cost_minimal"] is True
    assert report["seat_balance"]["out_of_balance"] == [] and report["seat_balance"]["first_seat_spread"] == 1
    assert report["score_spread"] == {"per_table": [0.0] * 4, "mean": 0.0, "max": 0.0}


def test_seat_deviation_is_exact_in_fractions():
    """Player 1 at three tables of three in seats 0, 0, 1: seat 0 holds 2 against a share of 1."""
    history = History(results=(result(1, 1, 2, 3), result(2, 1, 3, 2)))
    pairing = Pairing(3, (Table((2, 1, 3)),))
    report = round_report("swiss-tables", [1, 2, 3], {"table_size": 3, "min_players": 3, "max_players": 3},
                          history, pairing)
    assert report["seat_balance"]["out_of_balance"] == [1, 3]  # 3 sat in seat 2 twice
    assert report["seat_balance"]["max_deviation"] == float(Fraction(1))


# --- the command line and the management command --------------------------------------------


@pytest.fixture
def files(tmp_path):
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(export(*clean_rounds())))
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(export(rnd(1, table(1, 2), table(3, 4)), rnd(2, table(2, 1), table(4, 3)),
                                        fmt="swiss", options={"rounds": 2}, players=4)))
    garbled = tmp_path / "garbled.json"
    garbled.write_text('{"export": ')
    return {"clean": str(clean), "broken": str(broken), "garbled": str(garbled),
            "missing": str(tmp_path / "missing.json")}


def test_the_cli_exits_0_on_a_clean_export(files, capsys):
    assert main([files["clean"]]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == ("swiss-tables: 9 entrants, 3 rounds; rules checked: seating, table-sizes, byes, "
                      "rematch, seat-balance")
    assert out[1:] == ["round 1: no findings", "round 2: no findings", "round 3: no findings",
                       "summary: 0 findings in 3 rounds; 0 notes"]


def test_the_cli_exits_1_and_lists_every_finding_by_round(files, capsys):
    assert main([files["broken"]]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "round 1: no findings"
    assert [line[:20] for line in out[2:4]] == ["round 2: [rematch] p"] * 2
    assert out[-1] == "summary: 2 findings in 2 rounds (rematch 2); 0 notes"


def test_the_cli_prints_json(files, capsys):
    assert main([files["broken"], "--json"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert printed["summary"] == {"rounds": 2, "findings": 2, "notes": 0, "by_rule": {"rematch": 2}}
    assert printed["rounds"][1]["findings"][0]["players"] == [2, 1]


def test_the_cli_reads_standard_input(files, capsys):
    with open(files["clean"]) as handle:
        assert main(["-"], stdin=io.StringIO(handle.read())) == 0
    assert capsys.readouterr().out.endswith("summary: 0 findings in 3 rounds; 0 notes\n")


@pytest.fixture
def hostile(tmp_path, files):
    """Exports an attacker would send: JSON nested past Python's recursion limit, an id of 5,000
    digits (past its limit for int()), one 20 digits long, and one table of 400 seats."""
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    data = export(*clean_rounds())
    data["entrants"][0]["id"] = "the id"
    long_id = tmp_path / "long_id.json"
    long_id.write_text(json.dumps(data).replace('"the id"', "9" * 5000))
    wide_id = tmp_path / "wide_id.json"
    wide_id.write_text(json.dumps(data).replace('"the id"', "9" * 20))
    crowded = tmp_path / "crowded.json"
    crowded.write_text(json.dumps(export(rnd(1, table(*range(1, 401))), fmt="swiss-tables",
                                         options={"rounds": 1}, players=400)))
    return {**files, "nested": str(nested), "long_id": str(long_id), "wide_id": str(wide_id),
            "crowded": str(crowded)}


@pytest.mark.parametrize(("name", "message"), [
    ("garbled", "is not JSON: Expecting value at line 1 column 12"),
    ("missing", "cannot read"),
    ("nested", "is nested too deeply to be an export"),
    ("long_id", "holds a number too long to read"),
    ("wide_id", "ids are 64-bit integers, and 99999999999999999999... has 20 digits"),
    ("crowded", "round 1 table 1 has 400 seats: no format seats more than 64 at a table"),
])
def test_the_cli_exits_2_with_one_line_on_unreadable_input(hostile, capsys, name, message):
    """Regression (#39): a deeply nested file and a 5,000-digit id crashed it with a traceback
    and exit 1 ("findings"); a 400-seat table took 52 s."""
    files = hostile
    assert main([files[name]]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("pairing_check: ") and message in captured.err
    assert captured.err.count("\n") == 1


@pytest.mark.processes
def test_python_m_runs_without_django_and_keeps_the_exit_codes(files):
    env = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = ROOT
    command = [sys.executable, "-m", "tournaments.pairing_check"]
    assert subprocess.run([*command, files["clean"]], env=env, capture_output=True).returncode == 0
    assert subprocess.run([*command, files["broken"]], env=env, capture_output=True).returncode == 1
    bad = subprocess.run([*command, files["garbled"]], env=env, capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("pairing_check: ")
    probe = ("import sys, tournaments.pairing_check, tournaments.pairing_generate; "
             "print('django' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert done.stdout == "False\n"


def test_the_management_command_keeps_the_exit_codes(files):
    out = io.StringIO()
    call_command("pairing_check", files["clean"], stdout=out)
    assert out.getvalue().endswith("summary: 0 findings in 3 rounds; 0 notes\n")
    with pytest.raises(CommandError) as findings:
        call_command("pairing_check", files["broken"], "--json", stdout=io.StringIO())
    assert findings.value.returncode == 1
    with pytest.raises(CommandError) as unreadable:
        call_command("pairing_check", files["garbled"], stdout=io.StringIO())
    assert unreadable.value.returncode == 2 and "is not JSON" in str(unreadable.value)


@pytest.mark.processes
def test_manage_py_exits_1_on_findings(files):
    env = {**os.environ, "PYTHONPATH": ROOT, "DJANGO_SETTINGS_MODULE": "server.settings_test"}
    done = subprocess.run([sys.executable, os.path.join(ROOT, "manage.py"), "pairing_check", files["broken"]],
                          env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert "summary: 2 findings in 2 rounds (rematch 2)" in done.stdout
