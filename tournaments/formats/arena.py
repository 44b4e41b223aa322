"""Arena at tables of 2 to 6: come when you like, play as much as you like, the table forms itself.

The pure core (no Django, no I/O, no clock: "now" and every time are seconds passed in):
scoring a player's games in order, forming tables from the waiting pool, and the delay a
player waits to rejoin after a pause. Like lila's Arena (`modules/tournament/src/main/arena/`),
extended to tables of more than two.

Scoring (`score_game`, `arena_score`)
- Competitive table of n players, finishing place p (1 best): (n − p)/(n − 1) for the places
  beaten, plus n/2 for a win (sole first place). At n = 2 that is lila's 2 for a win and 0 for
  a loss; at 4 it is 3, 2/3, 1/3, 0. Why: every table shares out n points, so a player of
  average strength scores 1 a game at every table size and arenas of mixed sizes stay fair,
  while a win, rarer at a larger table (1 in n), is worth more there (n/2 + 1). Tied players
  share the mean of the places they hold: a two-player draw is 1 each, as lila's.
- Cooperative (The Game): the team's cards left against a par per player count, the mean
  cards left of the project's strong bot team ("tight", bench/results.md: 12.8, 6.0, 10.3,
  6.2, 4.3 for 1 to 5 players), rounded: `THE_GAME_PAR`. All 98 cards played: 3; at or under
  par: 2 (a win); up to twice the par: 1; worse: 0.
- Streak ("fire", as lila): after two wins in a row every game's points are doubled until a
  game is not a win. A win is sole first place, or at or under par in a cooperative game.
- Berserk: a player who halved their own turn clock gets +1 on a win (not doubled), void when
  they made fewer than `BERSERK_MIN_MOVES` moves of their own in the game.
- A quick abandon (the player left the game after fewer than `QUICK_ABANDON_MOVES` moves of
  their own) scores 0 whatever the place, and ends the streak.
- Team battles (`team_standings`): a team scores the sum of its best N players' points (lila's
  `TeamBattle`), so a large team gains nothing by numbers alone; teams level share a rank.

Table forming (`form_tables`)
- A pool is looked at only when it can fill the smallest table. Tables form when someone has
  waited `wait_bound(clock)` (reason "waited"; the overdue players must all be seated, longest
  waiters first while there are more than the tables can take), or when the pool holds
  `large_pool` players (reason "pool_large"). Then everyone the sizes can take is seated,
  unless rule 2 below keeps someone waiting.
- What a forming must do, in order:
  1. seat every overdue player it can, longest waiter first;
  2. seat no two players of one previous table together when a forming that seats those
     overdue players avoids it: another player may be left waiting for that (with nobody
     overdue, forming nothing avoids it);
  3. seat as many players as it can, longest waiters first;
  4. in a team battle, as few pairs of teammates at one table as those players allow (two
     teams at tables of 4: two and two); never a reason to leave anyone waiting;
  5. tables close in the standings, then in rating: players cut in rank order (rating
     breaking ties), tables of the preferred size, sizes within one of each other;
  6. seat balance: tables are swapped to keep players in balance (`SeatRecord`: each seat's
     count within 1 of its fair share, the rule Swiss tables follow), then each table is
     seated to keep the most in balance and give each seat to whoever is most owed it
     (`_seat_order`).
  Pools up to `_EXACT_POOL` players are searched exhaustively for 2 and 4 (every choice of who
  waits, every grouping; the nearest in rank tried first). Larger ones are filled in rank
  order and players swapped between nearby tables; while a rematch is left, more and smaller
  tables are tried, then a player who still sits with a previous table-mate is left waiting
  if not overdue; teammates are kept apart by the same fill and swaps, a rematch weighing more
  than any number of teammates and a pair of teammates more than any seat out of balance.
  (bench/arena.py: no rematch in 2 hours of 1,000 bots; 10,000 waiting players formed in about
  0.6 s; in 10 teams, 4 tables of 5,225 seated teammates; in 2, 2.13 pairs a table where 2.05
  was the fewest possible.)
- Tables come out longest waiter's first, each with a machine-readable `why`.

Pause: a paused player leaves the pool; the rejoin delay (`rejoin_delay`) is 10 s for the
first pause, then grows by a step a pause up to 120 s (lila's `Pause`); pauses older than
`PAUSE_MEMORY` seconds are forgotten (`pauses_counted`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations, permutations
from typing import Any

from tournaments.formats._common import (
    PlayerId,
    SeatRecord,
    balanced_seats,
    most_seated_in_balance,
    seat_table,
    table_sizes,
)

# Scoring.
THE_GAME_PAR = {1: 13, 2: 6, 3: 10, 4: 6, 5: 4}  # strong bot team's mean cards left, rounded
_ALL_PLAYED_POINTS = 3   # The Game won outright: every card on the piles
_PAR_POINTS = 2          # at or under par: a win
_NEAR_PAR_POINTS = 1     # up to twice the par
BERSERK_MIN_MOVES = 5    # own moves a berserk win needs to earn its bonus (lila: 7 in chess)
QUICK_ABANDON_MOVES = 3  # leaving before this many own moves scores nothing
_FIRE_AFTER = 2          # wins in a row before points double

# Waiting and pausing (lila's WaitingUsers and Pause, in seconds).
_WAIT_FLOOR, _WAIT_CEILING, _WAIT_NO_CLOCK = 15.0, 50.0, 30.0
_FIRST_PAUSE, _PAUSE_CEILING, _PAUSE_STEP_NO_CLOCK = 10.0, 120.0, 20.0
PAUSE_MEMORY = 20 * 60.0

# Forming.
_EXACT_POOL = 10     # pools up to this size are searched for every way to avoid a rematch
_SCAN = 24           # players the rank-order fill looks ahead for one who sat with nobody there
_REPAIR_REACH = 6    # tables either side a table with a cost looks at for a swap
_REPAIR_PASSES = 4
_DROP_ROUNDS = 4     # rounds of leaving rematched players waiting in a large pool
_SPLITS_TRIED = 3    # table-size splits a large pool tries while a rematch is left


# --- scoring --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ArenaGame:
    """One finished game of a player, as scoring needs it.

    Competitive: `place` (1 best) and `tied`, how many players share it (this one included).
    Cooperative: `cards_left`, the team's result. `own_moves` counts the player's own moves;
    `abandoned`: the player left the game (resigned, timed out, walked away).
    """

    players: int
    place: int | None = None
    tied: int = 1
    cards_left: int | None = None
    berserk: bool = False
    own_moves: int = 0
    abandoned: bool = False

    def __post_init__(self) -> None:
        if self.players < 1:
            raise ValueError("a game has at least one player")
        if (self.place is None) == (self.cards_left is None):
            raise ValueError("a game gives either a place or cards_left")
        if self.place is not None:
            if self.players < 2:
                raise ValueError("a competitive game has at least two players")
            if not (1 <= self.place and self.tied >= 1 and self.place + self.tied - 1 <= self.players):
                raise ValueError(f"place {self.place} tied {self.tied} does not fit a table of {self.players}")
        elif self.cards_left is not None and self.cards_left < 0:
            raise ValueError("cards_left cannot be negative")


@dataclass(frozen=True)
class GameScore:
    """What one game earned: `points` in all, of which `berserk` (0 or 1); `win` and `fire`
    (the points were doubled) as the events will say."""

    points: Fraction
    win: bool
    fire: bool
    berserk: int


@dataclass(frozen=True)
class ArenaScore:
    """A player's arena score, their current streak of wins, and each game's score in order."""

    points: Fraction
    streak: int
    games: tuple[GameScore, ...] = ()

    @property
    def on_fire(self) -> bool:
        """The next game's points will be doubled."""
        return self.streak >= _FIRE_AFTER


def place_points(players: int, place: int, tied: int = 1) -> Fraction:
    """Points for a finishing place at a table of `players`, tied players sharing the places they hold."""
    held = range(place, place + tied)
    total = sum((Fraction(players - p, players - 1) + (Fraction(players, 2) if p == 1 else 0) for p in held),
                Fraction(0))
    return total / tied


def par_points(players: int, cards_left: int) -> int:
    """Points for a cooperative game of The Game: cards left against the par for that many players."""
    par = THE_GAME_PAR[players]
    if cards_left == 0:
        return _ALL_PLAYED_POINTS
    if cards_left <= par:
        return _PAR_POINTS
    if cards_left <= 2 * par:
        return _NEAR_PAR_POINTS
    return 0


def quick_abandon(game: ArenaGame) -> bool:
    return game.abandoned and game.own_moves < QUICK_ABANDON_MOVES


def score_game(game: ArenaGame, streak: int) -> tuple[GameScore, int]:
    """One game's score for a player on a streak of `streak` wins, and the streak after it."""
    if quick_abandon(game):
        return GameScore(Fraction(0), win=False, fire=False, berserk=0), 0
    if game.cards_left is not None:
        base = Fraction(par_points(game.players, game.cards_left))
        win = game.cards_left <= THE_GAME_PAR[game.players]
    else:
        assert game.place is not None
        base = place_points(game.players, game.place, game.tied)
        win = game.place == 1 and game.tied == 1
    fire = streak >= _FIRE_AFTER
    bonus = 1 if game.berserk and win and game.own_moves >= BERSERK_MIN_MOVES else 0
    points = base * (2 if fire else 1) + bonus
    return GameScore(points, win=win, fire=fire, berserk=bonus), streak + 1 if win else 0


def arena_score(games: Iterable[ArenaGame]) -> ArenaScore:
    """A player's arena score from their finished games in the order they were played."""
    streak, total, scored = 0, Fraction(0), []
    for game in games:
        score, streak = score_game(game, streak)
        total += score.points
        scored.append(score)
    return ArenaScore(total, streak, tuple(scored))


@dataclass(frozen=True)
class TeamStanding:
    """A team's place in a team battle: `points`, the sum of its `counted` players' (its best,
    best first); teams level on points share a rank."""

    team: str
    rank: int
    points: Fraction
    counted: tuple[PlayerId, ...]


def team_standings(points: Mapping[PlayerId, Fraction], teams: Mapping[PlayerId, str], leaders: int,
                   registered: Iterable[str] = ()) -> list[TeamStanding]:
    """Each team's score, the sum of its `leaders` best players' arena points (lila's team
    battle: a large team gains nothing by numbers alone), best first, name breaking ties in the
    order only. `points`: each player's arena score (a player without one has 0); `teams`: each
    player's team; `registered`: teams that have no player yet."""
    if leaders < 1:
        raise ValueError("a team counts at least one player")
    members: dict[str, list[PlayerId]] = {team: [] for team in registered}
    for player, team in teams.items():
        members.setdefault(team, []).append(player)
    scored = []
    for team, players in members.items():
        best = sorted(players, key=lambda p: (-points.get(p, Fraction(0)), str(p)))[:leaders]
        scored.append((sum((points.get(p, Fraction(0)) for p in best), Fraction(0)), team, tuple(best)))
    scored.sort(key=lambda row: (-row[0], row[1]))
    standings: list[TeamStanding] = []
    for index, (total, team, counted) in enumerate(scored):
        rank = standings[-1].rank if standings and standings[-1].points == total else index + 1
        standings.append(TeamStanding(team, rank, total, counted))
    return standings


# --- waiting and pausing --------------------------------------------------------------------


def wait_bound(clock_seconds: float | None) -> float:
    """Seconds a player waits at most while a table can be formed: two of their own turns plus
    6 s, within lila's 15–50 s (30 s without a turn clock)."""
    if clock_seconds is None:
        return _WAIT_NO_CLOCK
    return min(_WAIT_CEILING, max(_WAIT_FLOOR, 2 * clock_seconds + 6))


def rejoin_delay(pauses: int, clock_seconds: float | None) -> float:
    """Seconds before a player who has paused `pauses` times (counting this one) may rejoin:
    10 s the first time, then two turn clocks a pause (20 s without a clock), at most 120 s."""
    if pauses <= 0:
        return 0.0
    if pauses == 1:
        return _FIRST_PAUSE
    step = _PAUSE_STEP_NO_CLOCK if clock_seconds is None else 2 * clock_seconds
    return min(_PAUSE_CEILING, max(_FIRST_PAUSE, pauses * step))


def pauses_counted(pause_times: Iterable[float], now: float) -> int:
    """The pauses `rejoin_delay` counts: those within `PAUSE_MEMORY` seconds of the latest, if
    the latest is itself that recent (after a long spell without one the delay starts over)."""
    times = sorted(pause_times)
    if not times or now - times[-1] > PAUSE_MEMORY:
        return 0
    count, previous = 0, times[-1]
    for moment in reversed(times):
        if previous - moment > PAUSE_MEMORY:
            break
        count, previous = count + 1, moment
    return count


# --- forming tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class Waiting:
    """A player in the waiting pool.

    `since`: when they started waiting (seconds, the caller's clock); `rank`: their place in
    the arena's standings now (1 top); `previous`: who sat at their previous table;
    `seats`: their seat record (`SeatRecord.sat(seat, size)` for each table played); `team`:
    their team in a team battle (None: none).
    """

    id: PlayerId
    since: float
    rank: int = 0
    rating: float | None = None
    previous: frozenset[PlayerId] = frozenset()
    seats: SeatRecord | None = field(default=None, compare=False)
    team: str | None = None


@dataclass(frozen=True)
class TableRules:
    """Table sizes from `low` to `high`, `preferred` among them; the game's turn clock; the pool
    size at which tables form without waiting."""

    low: int
    high: int
    preferred: int
    clock_seconds: float | None = None
    large_pool: int = 100

    def __post_init__(self) -> None:
        if not 2 <= self.low <= self.preferred <= self.high <= 6:
            raise ValueError(f"table sizes need 2 <= low <= preferred <= high <= 6, not "
                             f"{self.low}, {self.preferred}, {self.high}")
        if self.large_pool < self.low:
            raise ValueError("large_pool must be able to fill a table")

    @property
    def bound(self) -> float:
        return wait_bound(self.clock_seconds)

    def fits(self, count: int) -> bool:
        """`count` players can all be seated at tables of allowed sizes."""
        return count == 0 or any(self.low * t <= count <= self.high * t for t in range(1, count // self.low + 1))

    def capacity(self, count: int) -> int:
        """The most of `count` players tables of allowed sizes can seat."""
        return next(c for c in range(count, -1, -1) if self.fits(c))

    def splits(self, count: int) -> list[list[int]]:
        """Table sizes for `count` players (`fits(count)`), within one of each other: the split
        nearest the preferred size (`table_sizes`) first, then ones with more tables."""
        best = table_sizes(count, self.preferred, self.low, self.high)
        assert best is not None
        more = []
        for tables in range(len(best) + 1, count // self.low + 1):
            small, extra = divmod(count, tables)
            more.append([small + 1] * extra + [small] * (tables - extra))
        return [best, *more]


@dataclass(frozen=True)
class FormedTable:
    """A table to start: ids in seat order (seat 0 first) and why it formed, for its event.

    `why`: {"reason": "waited" | "pool_large", "longest_wait": seconds (this table's longest
    waiter), "pool": players waiting, "rematches": pairs who sat together last time (only
    when no forming avoided it), "teammates": pairs of one team (only when none avoided it)}.
    """

    seats: tuple[PlayerId, ...]
    why: Mapping[str, Any]


def form_tables(pool: Sequence[Waiting], rules: TableRules, now: float) -> list[FormedTable]:
    """The tables to form now from the waiting pool (empty: everyone keeps waiting)."""
    if len({p.id for p in pool}) != len(pool):
        raise ValueError("a player is in the pool twice")
    if len(pool) < rules.low:
        return []
    by_wait = sorted(pool, key=lambda p: p.since)  # stable: equal waits keep the pool's order
    overdue = [p for p in by_wait if now - p.since >= rules.bound]
    if overdue:
        reason = "waited"
    elif len(pool) >= rules.large_pool:
        reason = "pool_large"
    else:
        return []
    must = overdue[:rules.capacity(len(pool))]
    optional = overdue[len(must):] + [p for p in by_wait if now - p.since < rules.bound]
    if len(pool) <= _EXACT_POOL:
        groups = _form_small(must, optional, rules)
    else:
        groups = _form_large(must, optional, rules)
    return _seated(groups, reason, len(pool), now)


def _seated(groups: list[list[Waiting]], reason: str, pool: int, now: float) -> list[FormedTable]:
    """Each group seated for balance, the table of the longest waiter first."""
    records = {p.id: p.seats for group in groups for p in group if p.seats is not None}
    tables = []
    for group in sorted(groups, key=lambda g: min(p.since for p in g)):
        why: dict[str, Any] = {"reason": reason, "longest_wait": now - min(p.since for p in group), "pool": pool}
        rematches, teammates = _clashes(group)
        if rematches:
            why["rematches"] = rematches
        if teammates:
            why["teammates"] = teammates
        tables.append(FormedTable(_seat_order(_by_rank(group), records), why))
    return tables


def _seat_order(group: list[Waiting], records: Mapping[PlayerId, SeatRecord]) -> tuple[PlayerId, ...]:
    """Seat order for a table: the most players kept in seat balance (as `seat_table`), then each
    seat to whoever is most owed it in all (the sum of fair share minus count over the seats
    taken), so a player out of balance, whom tables of mixed sizes make, is brought back rather
    than left the seat nobody wants; ties keep rank order. Two players: `seat_table`'s rules."""
    ids = [p.id for p in group]
    size = len(group)
    if size == 2:
        return seat_table(ids, records)
    masks = [balanced_seats(records.get(player), size) for player in ids]
    owed = [records.get(player, SeatRecord()).owed(size) for player in ids]

    def merit(order: tuple[int, ...]) -> tuple[int, int]:
        kept = sum(masks[index] >> seat & 1 for seat, index in enumerate(order))
        return kept, sum(owed[index][seat] for seat, index in enumerate(order))

    best = max(permutations(range(size)), key=merit)  # the first best: rank order breaks ties
    return tuple(ids[index] for index in best)


def _by_rank(players: Iterable[Waiting]) -> list[Waiting]:
    """Standings order, rating breaking ties (highest first, unrated last); stable."""
    return sorted(players, key=lambda p: (p.rank, p.rating is None, -(p.rating or 0.0)))


def _met(a: Waiting, b: Waiting) -> bool:
    return b.id in a.previous or a.id in b.previous


def _rematches(group: Sequence[Waiting]) -> int:
    return sum(1 for a, b in combinations(group, 2) if _met(a, b))


def _same_team(a: Waiting, b: Waiting) -> bool:
    return a.team is not None and a.team == b.team


def _teammates(group: Sequence[Waiting]) -> int:
    return sum(1 for a, b in combinations(group, 2) if _same_team(a, b))


def _clashes(group: Sequence[Waiting]) -> tuple[int, int]:
    """What a forming keeps down, in order: rematches, then teammates at one table."""
    return _rematches(group), _teammates(group)


# -- small pools: exhaustive --------------------------------------------------------------------


def _form_small(must: list[Waiting], optional: list[Waiting], rules: TableRules) -> list[list[Waiting]]:
    """Every overdue player in `must` seated; then no rematch if any choice of the others and any
    grouping avoids it; then as many seated as can be, longest waiters first."""
    for extra in range(len(optional), -1, -1):
        if not must and not extra:
            return []  # nobody is overdue: no table at all beats a rematch
        for chosen in combinations(optional, extra):  # longest waiters' combinations first
            if rules.fits(len(must) + extra):
                players = _by_rank([*must, *chosen])
                groups = _clean_grouping(players, rules)
                if groups is not None:
                    # With teams, the fewest teammates together among the groupings with no rematch.
                    return _least_clash_grouping(players, rules) if _any_team(players) else groups
    players = must + optional[:rules.capacity(len(must) + len(optional)) - len(must)]
    return _least_clash_grouping(_by_rank(players), rules)


def _any_team(players: Iterable[Waiting]) -> bool:
    return any(p.team is not None for p in players)


def _clean_grouping(players: list[Waiting], rules: TableRules) -> list[list[Waiting]] | None:
    """Tables of allowed sizes for all of `players` (rank order) with no rematch, if any: the
    first player's table with the nearest in rank first, sizes nearest the preferred first."""
    if not players:
        return []
    head, rest = players[0], players[1:]
    for size in sorted(range(rules.low, rules.high + 1), key=lambda s: (abs(s - rules.preferred), -s)):
        if size > len(players) or not rules.fits(len(players) - size):
            continue
        for others in combinations([p for p in rest if not _met(head, p)], size - 1):
            if any(_met(a, b) for a, b in combinations(others, 2)):
                continue
            taken = {p.id for p in others}
            after = _clean_grouping([p for p in rest if p.id not in taken], rules)
            if after is not None:
                return [[head, *others], *after]
    return None


def _least_clash_grouping(players: list[Waiting], rules: TableRules) -> list[list[Waiting]]:
    """A grouping of all of `players` with the fewest rematches, then the fewest teammates
    together (small pools: every grouping; the first found in rank order among equals)."""
    best: tuple[tuple[int, int], list[list[Waiting]]] | None = None

    def search(left: list[Waiting], groups: list[list[Waiting]], cost: tuple[int, int]) -> None:
        nonlocal best
        if best is not None and cost >= best[0]:
            return
        if not left:
            best = (cost, [list(g) for g in groups])
            return
        head, rest = left[0], left[1:]
        for size in sorted(range(rules.low, rules.high + 1), key=lambda s: (abs(s - rules.preferred), -s)):
            if size > len(left) or not rules.fits(len(left) - size):
                continue
            for others in combinations(rest, size - 1):
                group = [head, *others]
                taken = {p.id for p in others}
                rematches, teammates = _clashes(group)
                search([p for p in rest if p.id not in taken], [*groups, group],
                       (cost[0] + rematches, cost[1] + teammates))

    search(players, [], (0, 0))
    assert best is not None
    return best[1]


# -- large pools: fill in rank order, swap, leave rematched players waiting -----------------------


def _form_large(must: list[Waiting], optional: list[Waiting], rules: TableRules) -> list[list[Waiting]]:
    """Overdue players and as many others as fit, longest waiters first, grouped by rank; a
    player not overdue who still sits with a previous table-mate waits for the next forming."""
    left_out: set[PlayerId] = set()
    best: tuple[int, int, list[list[Waiting]]] | None = None
    for _ in range(_DROP_ROUNDS):
        others = [p for p in optional if p.id not in left_out]
        room = rules.capacity(len(must) + len(others)) - len(must)
        players = _by_rank([*must, *others[:room]])
        grouping = _grouped(players, rules)
        rematched = grouping.rematched()
        score = (len(rematched), -len(players))
        if best is None or score < best[:2]:
            best = (*score, grouping.groups)
        must_ids = {p.id for p in must}
        newest = {}
        for a, b in rematched:  # the later arrival of a pair waits, if either may
            candidates = [p for p in (a, b) if p.id not in must_ids]
            if candidates:
                leaver = max(candidates, key=lambda p: p.since)
                newest[leaver.id] = leaver
        staying = len(others) - len(newest)
        if not newest or rules.capacity(len(must) + staying) < len(must):
            break
        left_out.update(newest)
    assert best is not None
    return best[2]


def _grouped(players: list[Waiting], rules: TableRules) -> _Grouping:
    """The grouping of the preferred sizes, or, while it keeps a rematch, of more and smaller
    tables (which keep a previous table's players apart more easily), the first with none."""
    best = None
    for sizes in rules.splits(len(players))[:_SPLITS_TRIED]:
        grouping = _Grouping(players, sizes)
        grouping.fill()
        grouping.repair()
        if best is None or len(grouping.rematched()) < len(best.rematched()):
            best = grouping
        if not best.rematched():
            break
    assert best is not None
    return best


class _Grouping:
    """Players (rank order) in tables of `sizes`; a table's cost is its rematches (each above
    anything else), then its pairs of teammates (each above any number of seats), then its
    players out of seat balance who need not be."""

    def __init__(self, players: list[Waiting], sizes: list[int]) -> None:
        self.players = players
        self.sizes = sizes
        self.scale = len(players) + 1
        self.rematch_weight = 16 * self.scale  # above the 15 pairs of teammates a table of 6 may hold
        self.groups: list[list[Waiting]] = []
        self.costs: list[int] = []
        self._masks: dict[tuple[PlayerId, int], int] = {}

    def mask(self, player: Waiting, size: int) -> int:
        key = (player.id, size)
        mask = self._masks.get(key)
        if mask is None:
            mask = self._masks[key] = balanced_seats(player.seats, size)
        return mask

    def cost(self, group: Sequence[Waiting]) -> int:
        size = len(group)
        wanted = tuple(sorted(m for m in (self.mask(p, size) for p in group) if m))
        seats = len(wanted) - most_seated_in_balance(wanted, (1 << size) - 1)
        rematches, teammates = _clashes(group)
        return rematches * self.rematch_weight + teammates * self.scale + seats

    def fill(self) -> None:
        """Each table opened by the best-ranked player left and filled with the next in rank
        order who sat with nobody there and is nobody's teammate there, looking `_SCAN` players
        ahead, then the next who sat with nobody there, else the next."""
        left = list(self.players)
        taken = [False] * len(left)
        passes = ((_met, _same_team), (_met,)) if _any_team(left) else ((_met,),)
        start = 0
        for size in self.sizes:
            while taken[start]:
                start += 1
            group, taken[start] = [left[start]], True
            for apart in passes:
                index, looked = start + 1, 0
                while len(group) < size and index < len(left) and looked < _SCAN:
                    if not taken[index]:
                        looked += 1
                        if not any(clash(left[index], member) for clash in apart for member in group):
                            group.append(left[index])
                            taken[index] = True
                    index += 1
            index = start
            while len(group) < size:
                if not taken[index]:
                    group.append(left[index])
                    taken[index] = True
                index += 1
            self.groups.append(group)
        self.costs = [self.cost(g) for g in self.groups]

    def repair(self) -> None:
        """Swaps between a table with a cost and the tables near it while one lowers the total."""
        for _ in range(_REPAIR_PASSES):
            improved = False
            for here in range(len(self.groups)):
                if self.costs[here] and self._swap_from(here):
                    improved = True
            if not improved:
                return

    def _swap_from(self, here: int) -> bool:
        count = len(self.groups)
        reach = range(max(0, here - _REPAIR_REACH), min(count, here + _REPAIR_REACH + 1))
        improved = False
        for there in sorted(reach, key=lambda t: abs(t - here)):
            if there == here:
                continue
            for i in range(len(self.groups[here])):
                for j in range(len(self.groups[there])):
                    a, b = self.groups[here], self.groups[there]
                    new_a = a[:i] + [b[j]] + a[i + 1:]
                    new_b = b[:j] + [a[i]] + b[j + 1:]
                    cost_a, cost_b = self.cost(new_a), self.cost(new_b)
                    if cost_a + cost_b < self.costs[here] + self.costs[there]:
                        self.groups[here], self.groups[there] = new_a, new_b
                        self.costs[here], self.costs[there] = cost_a, cost_b
                        improved = True
                        if not self.costs[here]:
                            return True
        return improved

    def rematched(self) -> list[tuple[Waiting, Waiting]]:
        return [(a, b) for group, cost in zip(self.groups, self.costs) if cost >= self.rematch_weight
                for a, b in combinations(group, 2) if _met(a, b)]
