"""Arena at tables of 2 to 6: scoring, table forming, pauses (tournaments/formats/arena.py)."""
from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournaments.formats._common import SeatRecord, balanced_seats, most_seated_in_balance
from tournaments.formats.arena import (
    BERSERK_MIN_MOVES,
    PAUSE_MEMORY,
    QUICK_ABANDON_MOVES,
    THE_GAME_PAR,
    ArenaGame,
    TableRules,
    TeamStanding,
    Waiting,
    arena_score,
    form_tables,
    par_points,
    pauses_counted,
    place_points,
    rejoin_delay,
    score_game,
    team_standings,
    wait_bound,
)

NOW = 1000.0
FOURS = TableRules(low=3, high=5, preferred=4, clock_seconds=10)  # bound 26 s


def waiting(player, waited=0.0, rank=None, previous=(), seats=None, rating=None, team=None):
    """A pool entry that has waited `waited` seconds at NOW; rank defaults to the id."""
    return Waiting(player, since=NOW - waited, rank=player if rank is None else rank, rating=rating,
                   previous=frozenset(previous), seats=seats, team=team)


def won(players=4, **extra):
    return ArenaGame(players, place=1, **extra)


def lost(players=4, **extra):
    return ArenaGame(players, place=players, **extra)


def seated_ids(tables):
    return [player for table in tables for player in table.seats]


def together(tables):
    return [set(table.seats) for table in tables]


# --- scoring --------------------------------------------------------------------------------


def test_two_players_score_as_lichess_two_for_a_win_one_for_a_draw():
    assert place_points(2, 1) == 2
    assert place_points(2, 2) == 0
    assert place_points(2, 1, tied=2) == 1


def test_a_win_at_a_table_of_four_is_worth_more_than_at_two():
    assert [place_points(4, place) for place in range(1, 5)] == [3, Fraction(2, 3), Fraction(1, 3), 0]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_every_table_shares_out_one_point_a_player(players):
    assert sum(place_points(players, place) for place in range(1, players + 1)) == players


def test_tied_players_share_the_places_they_hold():
    assert place_points(4, 2, tied=2) == Fraction(1, 2)  # (2/3 + 1/3) / 2
    assert place_points(3, 1, tied=3) == 1


def test_the_game_is_scored_against_the_par_for_its_player_count():
    par = THE_GAME_PAR[4]
    assert par_points(4, 0) == 3
    assert par_points(4, par) == 2
    assert par_points(4, par + 1) == 1
    assert par_points(4, 2 * par) == 1
    assert par_points(4, 2 * par + 1) == 0


def test_at_or_under_par_is_a_win_for_the_streak():
    games = [ArenaGame(3, cards_left=THE_GAME_PAR[3])] * 3
    assert [s.points for s in arena_score(games).games] == [2, 2, 4]


def test_points_double_after_two_wins_in_a_row_until_a_game_is_not_won():
    score = arena_score([won(), won(), won(), lost(), won()])
    assert [s.points for s in score.games] == [3, 3, 6, 0, 3]
    assert [s.fire for s in score.games] == [False, False, True, True, False]
    assert score.points == 15
    assert score.streak == 1 and not score.on_fire


def test_a_shared_first_place_is_no_win():
    score = arena_score([won(), won(), ArenaGame(2, place=1, tied=2), won()])
    assert score.games[2].points == 2  # a draw on fire, doubled
    assert not score.games[3].fire


def test_the_streak_state_says_whether_the_next_game_is_doubled():
    score = arena_score([lost(), won(), won()])
    assert score.streak == 2 and score.on_fire


def test_berserk_adds_one_to_a_win_and_is_not_doubled():
    score = arena_score([won(), won(), won(berserk=True, own_moves=BERSERK_MIN_MOVES)])
    assert score.games[2].points == 2 * 3 + 1
    assert score.games[2].berserk == 1


def test_berserk_is_void_when_the_game_was_too_short():
    short = score_game(won(berserk=True, own_moves=BERSERK_MIN_MOVES - 1), 0)[0]
    assert short.points == 3 and short.berserk == 0


def test_berserk_earns_nothing_on_a_loss():
    assert score_game(lost(berserk=True, own_moves=40), 0)[0].points == 0


def test_a_quick_abandon_scores_zero_and_ends_the_streak():
    game = won(abandoned=True, own_moves=QUICK_ABANDON_MOVES - 1)
    score, streak = score_game(game, 5)
    assert score.points == 0 and streak == 0


def test_leaving_late_keeps_the_place_the_game_gave():
    score, _ = score_game(ArenaGame(4, place=4, abandoned=True, own_moves=QUICK_ABANDON_MOVES), 0)
    assert score.points == 0 and not score.win
    score, _ = score_game(ArenaGame(4, place=2, abandoned=True, own_moves=QUICK_ABANDON_MOVES), 0)
    assert score.points == Fraction(2, 3)


def test_a_game_gives_a_place_or_cards_left():
    with pytest.raises(ValueError):
        ArenaGame(4)
    with pytest.raises(ValueError):
        ArenaGame(4, place=1, cards_left=3)
    with pytest.raises(ValueError):
        ArenaGame(4, place=4, tied=2)


games = st.builds(
    lambda players, place, tied, berserk, moves, abandoned: ArenaGame(
        players, place=min(place, players), tied=min(tied, players - min(place, players) + 1),
        berserk=berserk, own_moves=moves, abandoned=abandoned),
    st.integers(2, 6), st.integers(1, 6), st.integers(1, 3), st.booleans(), st.integers(0, 12), st.booleans(),
)


@given(st.lists(games, max_size=20))
def test_points_are_doubled_exactly_after_two_wins_in_a_row(played):
    score = arena_score(played)
    for index, (game, scored) in enumerate(zip(played, score.games)):
        base = scored.points - scored.berserk
        wins_before = 0
        for earlier in reversed(score.games[:index]):
            if not earlier.win:
                break
            wins_before += 1
        quick_abandon = game.abandoned and game.own_moves < QUICK_ABANDON_MOVES
        assert scored.fire == (wins_before >= 2 and not quick_abandon)
        if game.place is not None and not quick_abandon:
            assert base == place_points(game.players, game.place, game.tied) * (2 if scored.fire else 1)
    assert score.points == sum(s.points for s in score.games)


@given(st.lists(games, max_size=20))
def test_berserk_never_pays_for_a_short_game_or_a_game_not_won(played):
    for game, scored in zip(played, arena_score(played).games):
        if not game.berserk or game.own_moves < BERSERK_MIN_MOVES or not scored.win:
            assert scored.berserk == 0


@given(st.lists(games, max_size=20))
def test_a_quick_abandon_always_scores_zero_and_breaks_the_streak(played):
    score = arena_score(played)
    for index, game in enumerate(played):
        if game.abandoned and game.own_moves < QUICK_ABANDON_MOVES:
            assert score.games[index].points == 0
            if index + 1 < len(played):
                assert not score.games[index + 1].fire


@given(st.integers(2, 6), st.data())
def test_a_table_with_ties_still_shares_out_one_point_a_player(players, data):
    ranks = sorted(data.draw(st.lists(st.integers(1, players), min_size=players, max_size=players)))
    places = [ranks.index(r) + 1 for r in ranks]  # competition ranking: 1, 1, 3, ...
    total = sum(place_points(players, place, places.count(place)) for place in places)
    assert total == players


# --- waiting and pausing --------------------------------------------------------------------


def test_the_wait_bound_follows_the_clock_within_lilas_range():
    assert wait_bound(None) == 30
    assert wait_bound(1) == 15
    assert wait_bound(10) == 26
    assert wait_bound(60) == 50
    assert wait_bound(5) < wait_bound(15)


def test_the_rejoin_delay_grows_with_the_pauses_up_to_two_minutes():
    delays = [rejoin_delay(pauses, 10) for pauses in range(0, 10)]
    assert delays[:4] == [0, 10, 40, 60]
    assert delays == sorted(delays)
    assert delays[-1] == 120


def test_old_pauses_are_forgotten():
    assert pauses_counted([0, 100, 200], now=300) == 3
    assert pauses_counted([0, 100, 200], now=200 + PAUSE_MEMORY + 1) == 0
    assert pauses_counted([0, PAUSE_MEMORY + 500], now=PAUSE_MEMORY + 600) == 1


# --- forming: when --------------------------------------------------------------------------


def test_a_small_pool_waits_for_company_until_someone_has_waited_the_bound():
    pool = [waiting(1, 20), waiting(2, 10), waiting(3, 5), waiting(4, 1)]
    assert form_tables(pool, FOURS, NOW) == []
    pool[0] = waiting(1, 26)
    [table] = form_tables(pool, FOURS, NOW)
    assert set(table.seats) == {1, 2, 3, 4}
    assert table.why == {"reason": "waited", "longest_wait": 26, "pool": 4}


def test_a_large_pool_forms_tables_at_once():
    rules = TableRules(3, 5, 4, clock_seconds=10, large_pool=12)
    pool = [waiting(player, 1) for player in range(1, 13)]
    tables = form_tables(pool, rules, NOW)
    assert sorted(seated_ids(tables)) == list(range(1, 13))
    assert all(table.why["reason"] == "pool_large" for table in tables)


def test_nothing_forms_when_the_pool_cannot_fill_the_smallest_table():
    assert form_tables([waiting(1, 300), waiting(2, 300)], FOURS, NOW) == []


def test_the_rules_refuse_sizes_outside_two_to_six():
    with pytest.raises(ValueError):
        TableRules(3, 7, 4)
    with pytest.raises(ValueError):
        TableRules(4, 5, 3)


# --- forming: who with whom -----------------------------------------------------------------


def test_tables_are_cut_in_standings_order_at_the_preferred_size():
    pool = [waiting(player, 30, rank=player) for player in range(1, 9)]
    assert together(form_tables(pool, FOURS, NOW)) == [{1, 2, 3, 4}, {5, 6, 7, 8}]


def test_rating_breaks_ties_in_the_standings():
    pool = [waiting(player, 30, rank=1, rating=rating) for player, rating in
            zip(range(1, 9), [1500, 1900, 1400, 1800, 1300, 1700, 1200, 1600])]
    assert together(form_tables(pool, FOURS, NOW)) == [{2, 4, 6, 8}, {1, 3, 5, 7}]


def test_sizes_come_from_the_allowed_range_nearest_the_preferred():
    pool = [waiting(player, 30) for player in range(1, 10)]
    assert sorted(len(t.seats) for t in form_tables(pool, FOURS, NOW)) == [4, 5]


def test_players_of_one_previous_table_are_kept_apart():
    previous = {1: {2}, 2: {1}, 5: {6}, 6: {5}}
    pool = [waiting(player, 30, previous=previous.get(player, ())) for player in range(1, 9)]
    tables = form_tables(pool, FOURS, NOW)
    assert all(not {1, 2} <= group and not {5, 6} <= group for group in together(tables))
    assert sorted(seated_ids(tables)) == list(range(1, 9))


def test_a_player_not_yet_overdue_waits_rather_than_meet_a_previous_table_mate_again():
    pool = [waiting(1, 30), waiting(2, 30), waiting(3, 30), waiting(4, 2, previous={1, 2, 3})]
    [table] = form_tables(pool, FOURS, NOW)
    assert set(table.seats) == {1, 2, 3}
    assert "rematches" not in table.why


def test_overdue_players_meet_again_when_no_other_table_is_possible():
    mates = {1, 2, 3, 4}
    pool = [waiting(player, 30, previous=mates - {player}) for player in mates]
    [table] = form_tables(pool, FOURS, NOW)
    assert set(table.seats) == mates
    assert table.why["rematches"] == 6


def test_a_large_pool_keeps_previous_tables_apart():
    count = 40
    previous = {player: set(range(player - player % 4, player - player % 4 + 4)) - {player}
                for player in range(count)}
    pool = [waiting(player, 30, rank=player, previous=previous[player]) for player in range(count)]
    tables = form_tables(pool, FOURS, NOW)
    assert all(not any(b in previous[a] for a, b in combinations(t.seats, 2)) for t in tables)
    assert sorted(seated_ids(tables)) == list(range(count))


def test_whoever_waited_longest_is_seated_first():
    rules = TableRules(4, 4, 4, clock_seconds=10)
    pool = [waiting(player, 30 + player) for player in range(1, 7)]
    [table] = form_tables(pool, rules, NOW)
    assert set(table.seats) == {3, 4, 5, 6}


def test_the_longest_waiters_table_comes_first():
    pool = [waiting(player, 30 + (50 if player == 7 else 0)) for player in range(1, 9)]
    tables = form_tables(pool, FOURS, NOW)
    assert 7 in tables[0].seats
    assert tables[0].why["longest_wait"] == 80


def test_seats_go_to_whoever_is_owed_them():
    first = SeatRecord()
    for _ in range(2):
        first.sat(0, 4)
    pool = [waiting(1, 30, seats=first), waiting(2, 30), waiting(3, 30), waiting(4, 30)]
    [table] = form_tables(pool, FOURS, NOW)
    assert table.seats[0] != 1


def test_a_player_out_of_seat_balance_is_brought_back_not_left_the_last_seat_again():
    drifted = SeatRecord()
    for _ in range(3):
        drifted.sat(3, 4)
    pool = [waiting(1, 30, rank=4, seats=drifted), waiting(2, 30, rank=1), waiting(3, 30, rank=2),
            waiting(4, 30, rank=3)]
    [table] = form_tables(pool, FOURS, NOW)
    assert table.seats.index(1) != 3


def test_a_player_cannot_be_in_the_pool_twice():
    with pytest.raises(ValueError):
        form_tables([waiting(1, 30), waiting(1, 30), waiting(2, 30)], FOURS, NOW)


# --- forming: properties --------------------------------------------------------------------

RULES = st.sampled_from([
    TableRules(2, 2, 2, clock_seconds=10), TableRules(3, 5, 4, clock_seconds=10),
    TableRules(4, 4, 4, clock_seconds=10), TableRules(3, 4, 4, clock_seconds=5),
    TableRules(2, 4, 3, clock_seconds=None), TableRules(4, 6, 5, clock_seconds=20),
])


@st.composite
def pools(draw, most=10, with_previous=True):
    """A pool: waits around the bound, ranks with ties, previous tables, seat histories."""
    count = draw(st.integers(2, most))
    players = list(range(count))
    tables = draw(st.lists(st.integers(0, count // 2), min_size=count, max_size=count)) if with_previous \
        else list(range(count))
    pool = []
    for player in players:
        record = SeatRecord()
        for seat, size in draw(st.lists(st.tuples(st.integers(0, 5), st.integers(2, 6)), max_size=6)):
            record.sat(seat % size, size)
        mates = {other for other in players if other != player and tables[other] == tables[player]}
        pool.append(waiting(player, draw(st.integers(0, 60)), rank=draw(st.integers(1, count)),
                            previous=mates, seats=record))
    return pool


def formed(pool, rules):
    tables = form_tables(pool, rules, NOW)
    seated = seated_ids(tables)
    assert len(seated) == len(set(seated)), "a player was seated twice"
    assert set(seated) <= {p.id for p in pool}
    assert all(rules.low <= len(t.seats) <= rules.high for t in tables)
    return tables, set(seated)


def overdue(pool, rules):
    return [p for p in pool if NOW - p.since >= rules.bound]


@given(RULES, pools())
def test_nobody_waits_past_the_bound_while_a_table_can_be_formed(rules, pool):
    tables, seated = formed(pool, rules)
    late = overdue(pool, rules)
    if late and len(pool) >= rules.low:
        assert tables
    left = [p for p in late if p.id not in seated]
    assert len(left) < rules.low
    if left:  # more overdue players than seats: the seats went to the longest waiters
        by_id = {p.id: p for p in pool}
        assert all(by_id[player] in late and by_id[player].since <= min(p.since for p in left)
                   for player in seated)


def rematch_free_exists(players, must, rules):
    """Whether some tables of allowed sizes seat every player of `must` and perhaps others of
    `players`, at least one table, with no two players of a previous table together."""
    def clean(group):
        return not any(b.id in a.previous or a.id in b.previous for a, b in combinations(group, 2))

    def partitions(left):
        if not left:
            yield []
            return
        head, rest = left[0], left[1:]
        for size in range(rules.low, rules.high + 1):
            for others in combinations(rest, size - 1):
                if clean((head, *others)):
                    remaining = [p for p in rest if p not in others]
                    for tail in partitions(remaining):
                        yield [(head, *others), *tail]

    others = [p for p in players if p not in must]
    for extra in range(len(others) + 1):
        for chosen in combinations(others, extra):
            chosen_players = [*must, *chosen]
            if chosen_players and next(partitions(chosen_players), None) is not None:
                return True
    return False


@given(RULES, pools(most=9))
def test_no_back_to_back_rematch_when_a_forming_avoids_it(rules, pool):
    tables, seated = formed(pool, rules)
    by_id = {p.id: p for p in pool}
    if any(t.why.get("rematches") for t in tables):
        must = [p for p in overdue(pool, rules) if p.id in seated]
        assert must, "a rematch with nobody overdue: forming nothing avoids it"
        assert not rematch_free_exists(pool, must, rules)
    for table in tables:
        pairs = sum(1 for a, b in combinations(table.seats, 2) if b in by_id[a].previous)
        assert pairs == table.why.get("rematches", 0)


@given(RULES, pools(most=60))
def test_every_table_seats_as_many_in_seat_balance_as_any_order_of_it(rules, pool):
    tables, _ = formed(pool, rules)
    by_id = {p.id: p for p in pool}
    for table in tables:
        size = len(table.seats)
        masks = [balanced_seats(by_id[player].seats, size) for player in table.seats]
        kept = sum(1 for seat, mask in enumerate(masks) if mask >> seat & 1)
        assert kept == most_seated_in_balance(tuple(masks), (1 << size) - 1)


@given(RULES, pools(with_previous=False))
def test_without_previous_tables_the_longest_waiters_are_seated(rules, pool):
    tables, seated = formed(pool, rules)
    left = [p for p in pool if p.id not in seated]
    if tables and left:
        longest_left = min(p.since for p in left)
        assert all(p.since <= longest_left for p in pool if p.id in seated)
    if tables:
        longest = min(p.since for p in pool)
        assert any(p.since == longest for p in pool if p.id in tables[0].seats)


@given(st.integers(1, 40), st.integers(0, 10**6))
def test_large_pools_of_separate_previous_tables_meet_nobody_again(tables_before, seed):
    rng = Random(seed)
    count = 4 * tables_before + 12
    order = list(range(count))
    rng.shuffle(order)
    previous = {}
    for start in range(0, count, 4):
        mates = order[start:start + 4]
        for player in mates:
            previous[player] = set(mates) - {player}
    pool = [waiting(player, rng.randint(0, 60), rank=rng.randint(1, count), previous=previous[player])
            for player in range(count)]
    tables, seated = formed(pool, FOURS)
    assert not any(t.why.get("rematches") for t in tables)
    if overdue(pool, FOURS):
        assert {p.id for p in overdue(pool, FOURS)} <= seated


# --- team battles -----------------------------------------------------------------------------

TWOS = TableRules(low=2, high=2, preferred=2, clock_seconds=10)


def teammates_at(table, by_id):
    return sum(1 for a, b in combinations(table.seats, 2) if by_id[a].team == by_id[b].team is not None)


def test_a_team_battle_at_tables_of_two_pairs_players_of_different_teams():
    # Ranked so that the nearest in the standings is always a teammate.
    pool = [waiting(rank, 30, team="red" if rank % 4 in (1, 2) else "blue") for rank in range(1, 9)]
    tables = form_tables(pool, TWOS, NOW)
    by_id = {p.id: p for p in pool}
    assert len(tables) == 4 and not any(teammates_at(t, by_id) for t in tables)
    assert not any("teammates" in t.why for t in tables)


def test_two_teams_at_tables_of_four_sit_two_and_two():
    pool = [waiting(rank, 30, team="red" if rank <= 4 else "blue") for rank in range(1, 9)]
    tables = form_tables(pool, TableRules(4, 4, 4, clock_seconds=10), NOW)
    by_id = {p.id: p for p in pool}
    assert [teammates_at(t, by_id) for t in tables] == [2, 2]  # the fewest two teams allow
    assert [t.why["teammates"] for t in tables] == [2, 2]


def test_teammates_are_never_a_reason_to_wait():
    pool = [waiting(player, 30, team="red") for player in range(1, 5)]
    tables = form_tables(pool, TableRules(4, 4, 4, clock_seconds=10), NOW)
    assert seated_ids(tables) and set(seated_ids(tables)) == {1, 2, 3, 4}
    assert tables[0].why["teammates"] == 6


def test_a_rematch_weighs_more_than_teammates():
    # 1 and 2 sat together last time; the only table of two without them together pairs teammates.
    pool = [waiting(1, 30, previous={2}, team="red"), waiting(2, 30, previous={1}, team="blue"),
            waiting(3, 30, team="red"), waiting(4, 30, team="blue")]
    tables = form_tables(pool, TWOS, NOW)
    assert {1, 2} not in together(tables)


def test_a_large_team_battle_seats_no_teammates_together_when_the_teams_allow():
    rng = Random(7)
    pool = [waiting(player, rng.randint(0, 60), rank=rng.randint(1, 400), team=f"team {player % 10}")
            for player in range(400)]
    tables = form_tables(pool, FOURS, NOW)
    by_id = {p.id: p for p in pool}
    assert tables and not any(teammates_at(t, by_id) for t in tables)


def test_a_large_battle_of_two_teams_sits_two_and_two():
    rng = Random(8)
    pool = [waiting(player, rng.randint(0, 60), rank=rng.randint(1, 200), team="red" if player % 2 else "blue")
            for player in range(200)]
    tables = form_tables(pool, TableRules(4, 4, 4, clock_seconds=10, large_pool=100), NOW)
    by_id = {p.id: p for p in pool}
    assert tables and all(teammates_at(t, by_id) == 2 for t in tables)


@st.composite
def team_pools(draw):
    """A small pool as `pools` makes it, each player in one of up to three teams or none."""
    pool = draw(pools(most=8))
    teams = draw(st.lists(st.sampled_from([None, "red", "blue", "green"]), min_size=len(pool), max_size=len(pool)))
    return [Waiting(p.id, p.since, p.rank, p.rating, p.previous, p.seats, team) for p, team in zip(pool, teams)]


def fewest_clashes(players, rules):
    """The fewest (rematches, teammates together) of any grouping of all of `players`."""
    def clashes(group):
        rematches = sum(1 for a, b in combinations(group, 2) if b.id in a.previous or a.id in b.previous)
        return rematches, sum(1 for a, b in combinations(group, 2) if a.team is not None and a.team == b.team)

    def groupings(left):
        if not left:
            yield (0, 0)
            return
        head, rest = left[0], left[1:]
        for size in range(rules.low, rules.high + 1):
            for others in combinations(rest, size - 1):
                here = clashes((head, *others))
                for tail in groupings([p for p in rest if p not in others]):
                    yield here[0] + tail[0], here[1] + tail[1]

    return min(groupings(list(players)))


@given(RULES, team_pools())
def test_a_small_forming_seats_the_fewest_teammates_together_its_players_allow(rules, pool):
    tables, seated = formed(pool, rules)
    by_id = {p.id: p for p in pool}
    rematches = sum(t.why.get("rematches", 0) for t in tables)
    teammates = sum(teammates_at(t, by_id) for t in tables)
    assert teammates == sum(t.why.get("teammates", 0) for t in tables)
    if tables:
        assert (rematches, teammates) == fewest_clashes([by_id[player] for player in seated], rules)


@given(RULES, team_pools())
def test_teams_change_who_sits_together_never_who_is_seated(rules, pool):
    without = [Waiting(p.id, p.since, p.rank, p.rating, p.previous, p.seats) for p in pool]
    assert formed(pool, rules)[1] == formed(without, rules)[1]


def test_a_teams_score_is_its_best_players_points():
    points = {1: Fraction(5), 2: Fraction(3), 3: Fraction(1), 4: Fraction(4), 5: Fraction(4), 6: Fraction(0)}
    teams = {1: "red", 2: "red", 3: "red", 4: "blue", 5: "blue", 6: "blue"}
    assert team_standings(points, teams, leaders=2) == [
        TeamStanding("blue", 1, Fraction(8), (4, 5)), TeamStanding("red", 1, Fraction(8), (1, 2)),
    ]  # level on points: one rank, the name orders them
    assert [t.points for t in team_standings(points, teams, leaders=1)] == [Fraction(5), Fraction(4)]


def test_a_team_without_players_or_points_scores_nothing():
    standings = team_standings({}, {7: "red"}, leaders=3, registered=["green"])
    assert [(t.team, t.rank, t.points, t.counted) for t in standings] == [("green", 1, 0, ()), ("red", 1, 0, (7,))]
    with pytest.raises(ValueError):
        team_standings({}, {}, leaders=0)
