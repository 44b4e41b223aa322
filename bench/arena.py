"""Arena: a simulated 2-hour arena of 1,000 bots at tables of 4 (prefer 4, allow 3-5).

The simulation (seeded, no clock: time is a number): 800 bots join at the start, 200 more at
random over the first 30 minutes. The pool is looked at every `--tick` seconds (2 s, as lila's
pairing cycle), and the tables formed then start at once. A game at a table of n lasts a
lognormal time with a median of 75 s a player (5 minutes at 4: a turn clock of 15 s, most
turns far shorter) and σ 0.35, so games end at scattered times. Finishing orders are drawn by
Plackett-Luce from each bot's hidden strength (normal); ratings are the strength with noise.
A bot berserks 1 game in 10 (its strength counts 0.3 less then) and abandons 1 in 100 at its
first move. After a game a bot pauses 1 time in 25, for an exponential time of mean 5 minutes,
and comes back after that or after its rejoin delay (`rejoin_delay`), whichever is later.
Standings are the arena scores (`score_game`), ranked every tick.

Compared in the same run, on the same seeds: the project's former (`form_tables`) with lila's
pool size of 100 for forming at once, the same with 40 (shorter waits, tables wider apart in
the standings), and a baseline "first come, first seated", which seats the pool in arrival
order at tables of 4 as soon as four wait, seats in arrival order, and knows nothing of
standings or previous tables.
Printed: games per player (p50, min), the wait between tables (p50, p99, max), the share of
tables seating two players of one previous table ("rematch"), seat balance at the end (players
whose every seat count is within 1 of its fair share, and the largest gap), how far apart in the
standings a table's players are (mean of max − min rank), the forming step's time per call
(p50, p99, with the pool's p50 size), and how many formings left a player past the wait bound
while the pool could fill a table (the bound's promise: 0). The same for a small arena of 60
bots, where a table's players come back together with few others free, so an overdue player's
only table is often the one they just left (rule 1 of `form_tables` before rule 2). Then one
forming call on a pool of 10,000 waiting players. Last, team battles: the 1,000 bots in 10 teams
(every table can avoid teammates) and in 2 (tables of 4 hold two pairs of teammates at the
fewest, tables of 3 one, of 5 four), with the tables that seat teammates and the pairs of
teammates a table beside the baseline, which knows nothing of teams, and the teams' scores
(each team's 10 best players, `team_standings`).
Run: `python -m bench.arena [--bots 1000] [--small 60] [--minutes 120] [--tick 2] [--seed 1] [--big 10000]
[--teams 10 --teams 2]`.
"""
from __future__ import annotations

import argparse
import heapq
import math
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import cast

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import best_of, percentile, print_table  # noqa: E402
from tournaments.formats._common import PlayerId, SeatRecord  # noqa: E402
from tournaments.formats.arena import (  # noqa: E402
    ArenaGame,
    FormedTable,
    TableRules,
    Waiting,
    form_tables,
    pauses_counted,
    rejoin_delay,
    score_game,
    team_standings,
)

RULES = TableRules(low=3, high=5, preferred=4, clock_seconds=15)
_LATE_SHARE, _LATE_WINDOW = 0.2, 30 * 60.0   # bots joining after the start, and over how long
_SECONDS_A_PLAYER, _SPREAD = 75.0, 0.35      # game length: lognormal median per player, sigma
_BERSERK, _BERSERK_COST = 0.1, 0.3
_ABANDON = 0.01
_PAUSE, _PAUSE_MEAN = 0.04, 300.0
_OWN_MOVES_A_MINUTE = 3                      # a bot's own moves, for berserk's minimum

Former = Callable[[Sequence[Waiting], TableRules, float], list[FormedTable]]


def first_come_first_seated(pool: Sequence[Waiting], rules: TableRules, now: float) -> list[FormedTable]:
    """The baseline: tables of the preferred size in arrival order, seats in arrival order."""
    order = sorted(pool, key=lambda p: p.since)
    size = rules.preferred
    return [FormedTable(tuple(p.id for p in order[start:start + size]), {"reason": "arrived"})
            for start in range(0, len(order) - size + 1, size)]


@dataclass
class Bot:
    strength: float
    rating: float
    points: float = 0.0
    streak: int = 0
    games: int = 0
    previous: frozenset[PlayerId] = frozenset()
    seats: SeatRecord = field(default_factory=SeatRecord)
    pauses: list[float] = field(default_factory=list)
    team: str | None = None


@dataclass
class Figures:
    waits: list[float] = field(default_factory=list)
    forming_ms: list[float] = field(default_factory=list)
    pool_sizes: list[int] = field(default_factory=list)
    tables: int = 0
    rematch_tables: int = 0
    teammate_tables: int = 0
    teammate_pairs: int = 0
    fewest_teammate_pairs: int = 0  # what the tables' sizes allowed, given the number of teams
    rank_spreads: list[int] = field(default_factory=list)
    overdue_left: int = 0  # formings that left someone past the bound in a pool that could fill a table


def simulate(former: Former, rules: TableRules, bots: int, minutes: float, tick: float,
             seed: int, teams: int = 0) -> tuple[list[Bot], Figures]:
    """One arena from the seed: the same bots, arrivals and draws whichever former seats them;
    with `teams`, a team battle, bot i in team i mod `teams`."""
    rng = random.Random(seed)
    players = []
    for index in range(bots):
        strength = rng.gauss(0, 1)
        players.append(Bot(strength, 1500 + 200 * strength + rng.gauss(0, 80),
                           team=f"team {index % teams + 1}" if teams else None))
    end = minutes * 60
    back: list[tuple[float, int]] = []  # (when a bot enters the pool, bot)
    for bot in range(bots):
        heapq.heappush(back, (rng.uniform(0, _LATE_WINDOW) if rng.random() < _LATE_SHARE else 0.0, bot))
    playing: list[tuple[float, int, tuple[int, ...], list[bool]]] = []  # (end, serial, seats, berserks)
    pool: dict[int, float] = {}
    figures = Figures()
    serial, now = 0, 0.0
    while now < end:
        while playing and playing[0][0] <= now:
            finished, _, seats, berserks = heapq.heappop(playing)
            for bot, when in _finish(players, seats, berserks, finished, rng):
                heapq.heappush(back, (when, bot))
        while back and back[0][0] <= now:
            when, bot = heapq.heappop(back)
            pool[bot] = when
        ranks = _ranks(players)
        waiting = [Waiting(bot, since, ranks[bot], players[bot].rating, players[bot].previous, players[bot].seats,
                           players[bot].team) for bot, since in pool.items()]
        started = time.perf_counter()
        tables = former(waiting, rules, now)
        figures.forming_ms.append((time.perf_counter() - started) * 1000)
        figures.pool_sizes.append(len(waiting))
        for table in tables:
            seats = tuple(cast(int, bot) for bot in table.seats)
            _seat(players, seats, pool, now, ranks, figures, teams)
            length = rng.lognormvariate(math.log(_SECONDS_A_PLAYER * len(seats)), _SPREAD)
            berserks = [rng.random() < _BERSERK for _ in seats]
            serial += 1
            heapq.heappush(playing, (now + length, serial, seats, berserks))
        if len(pool) >= rules.low and any(now - since >= rules.bound for since in pool.values()):
            figures.overdue_left += 1
        now += tick
    return players, figures


def _seat(players: list[Bot], seats: tuple[int, ...], pool: dict[int, float], now: float,
          ranks: dict[int, int], figures: Figures, teams: int) -> None:
    figures.tables += 1
    if any(b in players[a].previous for a, b in combinations(seats, 2)):
        figures.rematch_tables += 1
    if teams:
        pairs = sum(1 for a, b in combinations(seats, 2) if players[a].team == players[b].team)
        figures.teammate_tables += pairs > 0
        figures.teammate_pairs += pairs
        figures.fewest_teammate_pairs += _fewest_pairs(len(seats), teams)
    table_ranks = [ranks[bot] for bot in seats]
    figures.rank_spreads.append(max(table_ranks) - min(table_ranks))
    for seat, bot in enumerate(seats):
        figures.waits.append(now - pool.pop(bot))
        players[bot].seats.sat(seat, len(seats))
        players[bot].previous = frozenset(seats) - {bot}


def _finish(players: list[Bot], seats: tuple[int, ...], berserks: list[bool], finished: float,
            rng: random.Random) -> list[tuple[int, float]]:
    """Scores a finished table; returns when each of its bots is back in the pool."""
    weights = [math.exp(players[bot].strength - (_BERSERK_COST if berserk else 0.0))
               for bot, berserk in zip(seats, berserks)]
    order = _plackett_luce(list(range(len(seats))), weights, rng)
    returns = []
    for place, index in enumerate(order, start=1):
        bot = players[seats[index]]
        abandoned = rng.random() < _ABANDON
        game = ArenaGame(len(seats), place=place, berserk=berserks[index], abandoned=abandoned,
                         own_moves=0 if abandoned else 10 * _OWN_MOVES_A_MINUTE)
        scored, bot.streak = score_game(game, bot.streak)
        bot.points += float(scored.points)
        bot.games += 1
        when = finished
        if rng.random() < _PAUSE:
            bot.pauses.append(finished)
            delay = rejoin_delay(pauses_counted(bot.pauses, finished), RULES.clock_seconds)
            when = finished + max(rng.expovariate(1 / _PAUSE_MEAN), delay)
        returns.append((seats[index], when))
    return returns


def _fewest_pairs(size: int, teams: int) -> int:
    """Pairs of teammates a table of `size` must hold with `teams` teams: its players spread evenly."""
    small, extra = divmod(size, teams)
    return extra * (small + 1) * small // 2 + (teams - extra) * small * (small - 1) // 2


def _plackett_luce(items: list[int], weights: list[float], rng: random.Random) -> list[int]:
    order, items, weights = [], list(items), list(weights)
    while items:
        pick = rng.choices(range(len(items)), weights)[0]
        order.append(items.pop(pick))
        weights.pop(pick)
    return order


def _ranks(players: list[Bot]) -> dict[int, int]:
    """Standings places, shared by equal points (1, 1, 3, ...)."""
    order = sorted(range(len(players)), key=lambda bot: -players[bot].points)
    ranks, previous, place = {}, None, 0
    for position, bot in enumerate(order, start=1):
        if players[bot].points != previous:
            place, previous = position, players[bot].points
        ranks[bot] = place
    return ranks


def summary(name: str, players: list[Bot], figures: Figures) -> tuple[list[object], dict]:
    games = sorted(float(bot.games) for bot in players)
    in_balance = sum(1 for bot in players if bot.seats.deviation() < 1) / len(players)
    worst_gap = max(float(bot.seats.deviation()) for bot in players)
    waits = [percentile(figures.waits, q) for q in (0.5, 0.99)] + [max(figures.waits)]
    forming = [percentile(figures.forming_ms, q) for q in (0.5, 0.99)]
    pool = percentile([float(size) for size in figures.pool_sizes], 0.5)
    rematch_share = figures.rematch_tables / figures.tables
    rank_spread = sum(figures.rank_spreads) / len(figures.rank_spreads)
    measured = {
        "former": name, "games_p50": percentile(games, 0.5), "games_min": games[0],
        "wait_p50_s": waits[0], "wait_p99_s": waits[1], "wait_max_s": waits[2],
        "tables": figures.tables, "rematch_share": rematch_share,
        "in_balance_share": in_balance, "worst_seat_gap": worst_gap, "rank_spread_mean": rank_spread,
        "forming_p50_ms": forming[0], "forming_p99_ms": forming[1], "pool_p50": pool,
        "overdue_left": figures.overdue_left,
    }
    row: list[object] = [
        name, f"{percentile(games, 0.5):.0f} / {games[0]:.0f}", " / ".join(f"{w:.0f}" for w in waits),
        f"{figures.rematch_tables:,} of {figures.tables:,} ({100 * rematch_share:.1f}%)",
        f"{100 * in_balance:.1f}% / {worst_gap:.2f}", rank_spread,
        f"{forming[0]:.2f} / {forming[1]:.2f} (pool {pool:.0f})", figures.overdue_left,
    ]
    return row, measured


def big_pool(count: int, seed: int) -> list[Waiting]:
    """A pool of `count` players mid-arena: previous tables of 4, seat histories, half overdue."""
    rng = random.Random(seed)
    order = list(range(count))
    rng.shuffle(order)
    previous: dict[int, frozenset[PlayerId]] = {}
    for start in range(0, count, 4):
        mates = order[start:start + 4]
        for bot in mates:
            previous[bot] = frozenset(mates) - {bot}
    pool = []
    for bot in range(count):
        record = SeatRecord()
        for _ in range(rng.randint(0, 12)):
            size = rng.choice((3, 4, 4, 4, 5))
            record.sat(rng.randrange(size), size)
        pool.append(Waiting(bot, since=rng.uniform(0, 2 * RULES.bound), rank=rng.randint(1, count),
                            rating=rng.gauss(1500, 200), previous=previous[bot], seats=record))
    return pool


FORMERS: list[tuple[str, Former, TableRules]] = [
    ("arena (form_tables)", form_tables, RULES),
    ("arena, large pool at 40", form_tables, replace(RULES, large_pool=40)),
    ("first come, first seated", first_come_first_seated, RULES),
]


def main(argv: list[str]) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--minutes", type=float, default=120)
    parser.add_argument("--tick", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--small", type=int, default=60, help="bots of a small arena beside it (0: none)")
    parser.add_argument("--big", type=int, default=10_000, help="players of the one-call pool (0: none)")
    parser.add_argument("--teams", type=int, action="append",
                        help="teams of a team battle of --bots bots (10 and 2; 0: none)")
    args = parser.parse_args(argv)
    figures = []
    for bots, formers in ((args.bots, FORMERS), (args.small, FORMERS[::2])):
        if not bots:
            continue
        rows = []
        for name, former, rules in formers:
            started = time.perf_counter()
            players, measured = simulate(former, rules, bots, args.minutes, args.tick, args.seed)
            row, summed = summary(name, players, measured)
            summed.update(bots=bots, simulated_s=time.perf_counter() - started)
            rows.append(row)
            figures.append(summed)
        print_table(f"A {args.minutes:.0f}-minute arena of {bots:,} bots at tables of 3-5 (prefer 4), "
                    f"pool looked at every {args.tick:g} s",
                    ["former", "games a player (p50 / min)", "wait between tables, s (p50 / p99 / max)",
                     "tables with a rematch", "seat balance: in balance / worst gap", "table rank spread (mean)",
                     "forming ms a call (p50 / p99)", "formings leaving one overdue"], rows)
    if args.big:
        pool = big_pool(args.big, args.seed)
        now = 2 * RULES.bound
        tables = form_tables(pool, RULES, now)
        seconds = best_of(3, lambda: form_tables(pool, RULES, now))
        baseline = best_of(3, lambda: first_come_first_seated(pool, RULES, now))
        rematches = sum(1 for t in tables if t.why.get("rematches"))
        print_table(f"One forming call on a pool of {args.big:,} (half overdue, previous tables of 4)",
                    ["former", "tables", "seated", "tables with a rematch", "ms (fastest of 3)"],
                    [["arena (form_tables)", len(tables), sum(len(t.seats) for t in tables), rematches,
                      seconds * 1000],
                     ["first come, first seated", args.big // 4, args.big // 4 * 4, "-", baseline * 1000]])
        figures.append({"big_pool": args.big, "tables": len(tables), "rematch_tables": rematches,
                        "forming_ms": seconds * 1000, "baseline_ms": baseline * 1000})
    rows = []
    for teams in [t for t in args.teams or [10, 2] if t] if args.bots else []:
        for name, former, rules in FORMERS[::2]:
            players, measured = simulate(former, rules, args.bots, args.minutes, args.tick, args.seed, teams)
            row, summed = team_summary(name, teams, players, measured)
            rows.append(row)
            figures.append(summed)
    if rows:
        print_table(f"A {args.minutes:.0f}-minute team battle of {args.bots:,} bots at tables of 3-5 (prefer 4)",
                    ["former", "teams", "games a player (p50 / min)", "wait between tables, s (p50 / p99 / max)",
                     "tables seating teammates", "teammate pairs a table (fewest possible)", "tables with a rematch",
                     "forming ms a call (p50 / p99)", "best team: points (10 best players)"], rows)
    return figures


def team_summary(name: str, teams: int, players: list[Bot], figures: Figures) -> tuple[list[object], dict]:
    row, measured = summary(name, players, figures)
    points = {bot: Fraction(player.points).limit_denominator(1000) for bot, player in enumerate(players)}
    best = team_standings(points, {bot: cast(str, player.team) for bot, player in enumerate(players)}, leaders=10)[0]
    share = figures.teammate_tables / figures.tables
    measured.update(teams=teams, teammate_table_share=share, teammate_pairs_mean=figures.teammate_pairs / figures.tables,
                    fewest_teammate_pairs_mean=figures.fewest_teammate_pairs / figures.tables,
                    best_team=best.team, best_team_points=float(best.points))
    return [name, teams, row[1], row[2], f"{figures.teammate_tables:,} of {figures.tables:,} ({100 * share:.1f}%)",
            f"{figures.teammate_pairs / figures.tables:.2f} ({figures.fewest_teammate_pairs / figures.tables:.2f})",
            row[3], row[6], f"{best.team}: {float(best.points):.0f}"], measured


if __name__ == "__main__":
    main(sys.argv[1:])
