"""How well the ratings predicted each next result, for the configured and alternative parameters.

Replays a game's rated history in rating order (the rebuild's order) with each TrueSkill
setting and, before every match, asks who the favourite is: the seat (cooperative: the team or
the game) with the best predicted chance to finish first. Prints the favourite's accuracy and
log-loss by the fewest games any competitor at the table had played, so an operator can pick
parameters from evidence.

`--models` compares rating models instead (`ratings.model_compare`: TrueSkill as configured,
OpenSkill's Plackett–Luce, Board Game Arena's Elo, TrueSkill with a seat term, TrueSkill Through
Time): each rates the first 80 % of the history in rating order and predicts the rest from the
ratings frozen then; printed per model: full-order log-likelihood, winner log-loss, pairwise
accuracy, Brier score, calibration error (95 % bootstrap intervals over the test matches) and
the median games until a player's rating settles. Writes nothing.
"""
from __future__ import annotations

import math

from django.core.management.base import BaseCommand, CommandError

from games.engines import ENGINES
from ratings import math as rmath
from ratings import model_compare
from ratings.models import Pool
from ratings.selectors import (
    game_params,
    ladder_get,
    ledger_positions,
    ratable_matches,
    rating_order,
    revised_matches,
)
from tournaments.selectors import table_result_changes


def parse_alternative(text: str, base: rmath.Params) -> rmath.Params:
    """`beta=6,tau=0.1` or `beta*2`: parameters changed from the configured ones."""
    changes = {}
    for part in text.split(","):
        part = part.strip()
        if "*" in part:
            name, factor = part.split("*", 1)
            changes[name.strip()] = getattr(base, name.strip()) * float(factor)
        elif "=" in part:
            name, value = part.split("=", 1)
            changes[name.strip()] = float(value)
        else:
            raise ValueError(f"expected name=value or name*factor, not {part!r}")
    return base.replace(**changes)


DEFAULT_ALTERNATIVES = ("beta*0.5", "beta*2", "tau*5")


class Command(BaseCommand):
    help = "Replay a game's rated history and report how well each parameter setting predicted results."

    def add_arguments(self, parser):
        parser.add_argument("--game", required=True, choices=sorted(ENGINES))
        parser.add_argument("--pool", choices=Pool.values, default=Pool.PEOPLE)
        parser.add_argument(
            "--alt", action="append", dest="alternatives",
            help=f"an alternative setting, e.g. 'beta=6,tau=0.2' or 'beta*2' (repeatable; "
            f"default: {', '.join(DEFAULT_ALTERNATIVES)})",
        )
        parser.add_argument("--models", action="store_true",
                            help="compare rating models on the history (train on the first 80%%, test on the rest)")
        parser.add_argument("--model", action="append", dest="model_names", choices=model_compare.MODELS,
                            help="with --models: only these (repeatable; default: all five; TTT's fit "
                            "grows with the history times its iterations, the slowest on a long one)")
        parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples for --models")
        parser.add_argument("--seed", type=int, default=0, help="bootstrap seed for --models")

    def handle(self, *args, game, pool, alternatives=None, models=False, model_names=None, resamples=1000, seed=0,
               **options):
        base = game_params(game)
        try:
            settings = [base] + [parse_alternative(a, base) for a in alternatives or DEFAULT_ALTERNATIVES]
        except (ValueError, AttributeError, TypeError) as exc:
            raise CommandError(f"bad --alt: {exc}") from exc
        matches = [m for m in ratable_matches(game) if m.pool == pool]
        ladder = ladder_get(game, pool)
        ordered = rating_order(matches, ledger_positions(ladder) if ladder else {})
        # Each match at the result that counts: the last its tournament gave it, if it changed one.
        counted = {r.match_id: r.table for r in revised_matches(matches, table_result_changes(game=game))}
        tables = [counted.get(m.match_id, m.table) for m in ordered]
        self.stdout.write(f"rating report: {game} ({pool}), {len(tables)} rated matches")
        if not tables:
            return
        if models:
            self._models(tables, base, names=model_names or model_compare.MODELS, resamples=resamples, seed=seed)
            return
        replays = [rmath.replay(tables, params) for params in settings]
        self._ties(game, replays[0], base)
        for index, replay in enumerate(replays):
            title = "configured" if index == 0 else f"alternative {index}"
            self._table(f"{title}: {replay.params.label()}", replay)
        self._summary(replays)

    def _ties(self, game: str, replay: rmath.Replay, params: rmath.Params) -> None:
        if replay.adjacent_pairs:
            rate = replay.adjacent_ties / replay.adjacent_pairs
            self.stdout.write(
                f"\nties between neighbours in the result: {rate:.3f} of {replay.adjacent_pairs} "
                f"(configured draw_probability {params.draw_probability:g})"
            )

    def _table(self, title: str, replay: rmath.Replay) -> None:
        self.stdout.write(f"\n## {title}\n")
        self.stdout.write("| fewest games at the table | matches | favourite right | chance | log-loss |")
        self.stdout.write("|---|---:|---:|---:|---:|")
        for (low, high), score in replay.buckets.items():
            if score.matches:
                label = f"{low}" if low == high else (f"{low}+" if high is None else f"{low}-{high}")
                self.stdout.write(f"| {label} | {score.matches} | {_fmt(score.accuracy)} | "
                                  f"{_fmt(score.mean_chance)} | {_fmt(score.mean_log_loss)} |")
        total = replay.overall
        self.stdout.write(f"| all | {total.matches} | {_fmt(total.accuracy)} | {_fmt(total.mean_chance)} | "
                          f"{_fmt(total.mean_log_loss)} |")

    def _summary(self, replays: list[rmath.Replay]) -> None:
        best = min(range(len(replays)), key=lambda i: replays[i].overall.mean_log_loss)
        self.stdout.write("\n## summary (lower log-loss is better)\n")
        for index, replay in enumerate(replays):
            mark = "  <- best" if index == best else ""
            name = "configured" if index == 0 else f"alternative {index}"
            self.stdout.write(
                f"{name:>14}: accuracy {_fmt(replay.overall.accuracy)}  log-loss "
                f"{_fmt(replay.overall.mean_log_loss)}  [{replay.params.label()}]{mark}"
            )


    def _models(self, tables: list[rmath.Table], params: rmath.Params, *, names: list[str] | tuple[str, ...],
                resamples: int, seed: int) -> None:
        if resamples < 1:
            raise CommandError("--resamples must be at least 1")
        comparison = model_compare.evaluate(tables, params, models=names, resamples=resamples, seed=seed)
        if not comparison.test:
            raise CommandError(f"{len(tables)} matches leave none to test on: the last 20% are the test")
        self.stdout.write(
            f"\n## rating models: trained on the first {comparison.train} matches in rating order, tested on "
            f"the last {comparison.test} (95% bootstrap intervals, {resamples} resamples)\n"
        )
        self.stdout.write("| model | order log-lik | winner log-loss | pair accuracy | Brier | ECE | settle (games) |")
        self.stdout.write("|---|---:|---:|---:|---:|---:|---:|")
        for name, result in comparison.results.items():
            cells = [_interval(result, metric) for metric in model_compare.METRICS]
            settle = "offline" if not result.online else (
                "n/a" if result.settle is None else f"{result.settle:.0f} ({result.settled_players} players)")
            order, winner, pairs, brier, ece = cells
            self.stdout.write(f"| {name} | {order} | {winner} | {pairs} | {brier} | {ece} | {settle} |")
        best = max(comparison.results, key=lambda name: comparison.results[name].metrics["order_ll"])
        self.stdout.write(f"\nbest by full-order log-likelihood: {best}")
        for other in ("trueskill", "elo"):
            if other != best and other in comparison.results:
                point, low, high = comparison.difference(best, other, "order_ll")
                self.stdout.write(f"  {best} - {other}: {point:+.3f} [{low:+.3f}, {high:+.3f}] per match")


def _interval(result: model_compare.ModelResult, metric: str) -> str:
    value, (low, high) = result.metrics[metric], result.intervals[metric]
    if math.isnan(value):
        return "n/a"
    return f"{value:.3f} [{low:.3f}, {high:.3f}]"


def _fmt(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"
