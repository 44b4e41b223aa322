"""The incremental rating task per finished match, beside a bare `trueskill.rate` loop on the same matches.

For a benchmark that has finished, rated, not yet rated matches on a Django-configured database
(`bench/league.py` plays a league round and calls in here). Two ways the task meets them:

- `rating_one_by_one`: the ladder keeps up, each match's task finding only its own match
  pending (`match_rate` without `through_latest`, in match-end order: the matches are all there
  already, and the task would take the later ones along);
- `rating_round`: the matches ended together (a round of a league) and their tasks run in the
  order the matches ended, as workers take them from the queue: the first rates them all in
  one transaction, every other finds its match rated.

Both time the task's work as a worker runs it (everything it reads and writes, commit
included; not Celery's own dispatch), and a bare `trueskill.rate` loop over the same matches' tables in the
same order with the same environment, ratings kept in a dict: the floor any rating costs. The
bare loop runs before and after the task and the faster run counts, so a busy moment on the
shared machine does not make the task look cheap. The ledger is append-only: each call consumes
its matches (pass matches no task has rated; a rated one makes the figures meaningless, so it
is refused). The bare loop rates every seat as its own team: for a cooperative game (the team
against the game's pseudo-player) it is a floor of the same size, not the same computation.

    from bench.league_rating import rating_one_by_one, rating_round
    kept_up = rating_one_by_one(first_round_ids).as_dict()
    round_at_once = rating_round(second_round_ids).as_dict()  # other matches: the ledger is append-only
"""
from __future__ import annotations

import gc
import time
from dataclasses import asdict, dataclass

import trueskill


@dataclass(frozen=True)
class RatingCost:
    """Per-match figures, milliseconds of wall time in this process (database round trips included)."""

    how: str  # "one by one" or "round"
    matches: int
    rated: int  # matches the timed calls rated (fewer than `matches` if a person never moved in some)
    task_ms: float  # every `match_rate` call's time / matches: what the workers spend per match
    rating_ms: float  # one by one: the median call; round: the first task's call / matches
    p99_ms: float | None  # one by one: the 99th percentile call
    replay_ms: float | None  # round: the mean call of a task that finds its match rated
    bare_ms: float  # the bare trueskill.rate loop, per match
    task_cpu_ms: float  # this process's CPU per match (the database server's work is not in it)

    @property
    def ratio(self) -> float:
        """What the workers spend per match over the bare loop."""
        return self.task_ms / self.bare_ms

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio}


def rating_one_by_one(match_ids: list[int]) -> RatingCost:
    """`match_rate` once per match, in match-end order: each call rates its own match."""
    from ratings.services import match_rate

    tables, ordered = _tables(match_ids)
    bare_before = _bare_loop(tables)
    gc.collect()
    latencies = []
    rated = 0
    cpu = time.process_time()
    for match_id in ordered:
        start = time.perf_counter()
        rated += match_rate(match_id=match_id)
        latencies.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu
    bare = min(bare_before, _bare_loop(tables))
    count = len(ordered)
    return RatingCost(
        how="one by one", matches=count, rated=rated, task_ms=sum(latencies) / count * 1e3,
        rating_ms=_percentile(latencies, 0.5) * 1e3, p99_ms=_percentile(latencies, 0.99) * 1e3, replay_ms=None,
        bare_ms=bare / count * 1e3, task_cpu_ms=cpu / count * 1e3,
    )


def rating_round(match_ids: list[int]) -> RatingCost:
    """The rating task of every match, in match-end order, run in this process: the first rates
    the round, the others find their match rated."""
    from ratings.tasks import match_rate_task

    tables, ordered = _tables(match_ids)
    bare_before = _bare_loop(tables)
    gc.collect()
    cpu = time.process_time()
    start = time.perf_counter()
    rated = match_rate_task(ordered[0])
    batch = time.perf_counter() - start
    replays = []
    for match_id in ordered[1:]:
        start = time.perf_counter()
        rated += match_rate_task(match_id)
        replays.append(time.perf_counter() - start)
    cpu = time.process_time() - cpu
    bare = min(bare_before, _bare_loop(tables))
    count = len(ordered)
    return RatingCost(
        how="round", matches=count, rated=rated, task_ms=(batch + sum(replays)) / count * 1e3,
        rating_ms=batch / count * 1e3, p99_ms=None, replay_ms=sum(replays) / len(replays) * 1e3 if replays else None,
        bare_ms=bare / count * 1e3, task_cpu_ms=cpu / count * 1e3,
    )


def _tables(match_ids: list[int]) -> tuple[list[tuple[trueskill.TrueSkill, tuple[str, ...], tuple[int, ...]]], list[int]]:
    """Each match's environment, competitors and rating ranks (as ratings read them), and the ids
    in match-end order; read before any timing."""
    from games.models import Match
    from ratings.models import Ladder, RatingEntry
    from ratings.selectors import game_params, ratable_matches

    epochs = set(Ladder.objects.values_list("epoch", flat=True))  # the ledger's index leads with the epoch
    if RatingEntry.objects.filter(epoch__in=epochs, match_id__in=match_ids).exists():
        raise ValueError("some of these matches are rated already: the figures would not be the task's")
    games = dict(Match.objects.filter(pk__in=match_ids).values_list("pk", "game"))
    ordered = list(Match.objects.filter(pk__in=match_ids).order_by("finished_at", "pk").values_list("pk", flat=True))
    tables = []
    for game in sorted(set(games.values())):
        params = game_params(game)
        env = trueskill.TrueSkill(
            mu=params.mu, sigma=params.sigma, beta=params.beta, tau=params.tau, draw_probability=params.draw_probability
        )
        ids = [match_id for match_id, of in games.items() if of == game]
        tables += [(m.key, env, m.table.seats, m.table.ranks) for m in ratable_matches(game, match_ids=ids)]
    tables.sort(key=lambda table: table[0])
    return [table[1:] for table in tables], ordered


def _bare_loop(tables: list[tuple[trueskill.TrueSkill, tuple[str, ...], tuple[int, ...]]]) -> float:
    """Seconds for `trueskill.rate` over the tables in order, ratings kept in a dict (one per competitor)."""
    gc.collect()
    ratings: dict[str, trueskill.Rating] = {}
    start = time.perf_counter()
    for env, seats, ranks in tables:
        rated = env.rate([(ratings.get(seat) or env.create_rating(),) for seat in seats], ranks=ranks)
        for seat, (rating,) in zip(seats, rated):
            ratings[seat] = rating
    return time.perf_counter() - start


def _percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
