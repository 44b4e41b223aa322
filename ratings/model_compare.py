"""Five rating models behind one interface, and how well each predicts held-out finishing orders.

Pure (no Django): the bench (`bench/rating_models.py`) feeds it simulated leagues, the report
command (`rating_report --models`) a server's rated history, both as `ratings.math.Table`s.

The models (`MODELS`):

- `trueskill`: TrueSkill as the server rates today (`ratings.math.table_updates`, the game's `Params`).
- `openskill`: OpenSkill's Plackett–Luce (`openskill.models.PlackettLuce`, same mu, sigma, beta, tau).
- `elo`: Board Game Arena's multiplayer Elo, a sum of pairwise duels (see `EloModel`).
- `trueskill-seat`: TrueSkill where each player's team is (player, "seat k of n"), the seat a
  pseudo-competitor learned like any rating; it can learn a first-seat advantage.
- `ttt`: TrueSkill Through Time (`trueskillthroughtime.History`), fitted once on all the training
  matches (smoothing backwards in time too): the offline ceiling, not a ladder an online server can run.

The interface: `rate(table)` (in time order; TTT only `fit`s a whole sequence), `predict(table)`
(a `Prediction` over the table's *units*: its seats, or, cooperative, the team and the game),
`strength(competitor)` and `chance_against_average`.

Predictive distributions:

- Gaussian models (TrueSkill, TrueSkill+seat, TTT): a unit's performance is N(Σμ, Σ(σ² + β²))
  over its members (cooperative members weighted 1/n, as `ratings.math` rates them). Winner
  probabilities come from `ratings.math.win_probabilities`; a pair's from Φ(Δμ/√(v_i + v_j)); a
  strict order's probability P(x_1 > x_2 > … > x_n) exactly, by numerical integration: the chain
  G_n = F_n, G_k(x) = ∫_{-∞}^x G_{k+1} dF_k, P = G_1(+∞), by the trapezoid rule in F_k on the
  union of one grid per unit (`_ORDER_GRID` points over its mean ± 8 sd); the strict orders of a
  table sum to 1 within about 3e-4 (worst for identical units, whose grids coincide), a log error
  far below the differences between models that matter. No Monte Carlo.
- Plackett–Luce models (OpenSkill; Elo read as Bradley–Terry strengths 10^(R/400)): closed form,
  P(order) = Π_k s_(k) / Σ_{j ≥ k} s_(j); a pair's P = s_i / (s_i + s_j) (the Plackett–Luce marginal).
- Ties: a weak order's probability is the probability that the model's strict order is any strict
  order consistent with it (the sum over the orders that break its ties every way). No model here
  predicts a tie as such, so a tied result is "any of these orders".

Metrics, per test match, then averaged (`evaluate`), each with a 95 % bootstrap interval over the
test matches (seeded, `resamples` draws of the test matches with replacement):

- `order_ll`: mean log-probability of the observed (weak) finishing order (higher is better).
- `winner_ll`: winner log-loss, −log P(first place); a shared first place scores the probability the
  model gives to any of the co-winners finishing first (their winner probabilities summed).
- `pair_accuracy`: the share of pairs of units whose order the model calls right (P > 0.5 for the
  one ahead; exactly 0.5 counts a half); tied pairs are left out.
- `brier`: multi-class Brier score of the winner, Σ_i (p_i − o_i)², o_i = 1/w for each of w co-winners.
- `ece`: expected calibration error over pairwise predictions, 10 equal bins on [0, 1], each pair
  counted in both orientations (p for "i ahead of j" and 1 − p for the reverse), so it is symmetric.
- `settle`: games until a new player's rating settles: the fewest games k after which the model's
  predicted chance that the player beats the league's average player (a duel with the mean μ and
  root-mean-square σ of the players rated so far) stays within `SETTLE_BAND` (0.05) of its value at
  the end of training; the median over the players asked about. A probability, so it is scale-free
  and comparable across models. TTT has none (it is fitted once, not game by game).

Cooperative tables (The Game): every model rates the team against the game's pseudo-player
(`game:<n>`), like `ratings.math`; the metrics are then about two units, the team and the game,
that is about the team's win. How each model does it is in its class. Logs are floored at `_FLOOR`.
Everything is deterministic: no model draws random numbers and the bootstrap is seeded.
"""
from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import openskill.models
import trueskill
import trueskillthroughtime

from ratings import math as rmath
from ratings.math import Pair, Params, Table

MODELS = ("trueskill", "openskill", "elo", "trueskill-seat", "ttt")
METRICS = ("order_ll", "winner_ll", "pair_accuracy", "brier", "ece")
# Higher is better for these; lower for the others.
HIGHER_IS_BETTER = {"order_ll", "pair_accuracy"}
SETTLE_BAND = 0.05
_FLOOR = 1e-12  # probabilities are floored here before a log: no observed result scores -inf
_ORDER_GRID = 961  # points per unit (the grid is their union)
_GRID_WIDTH_SD = 8.0
_ECE_BINS = 10


# --- what a table's units are -----------------------------------------------------------------


def observed_ranks(table: Table) -> tuple[int, ...]:
    """The ranks of the table's units: its seats' ranks, or (cooperative) the team's and the game's."""
    if table.cooperative:
        return (1, 2) if table.won else (2, 1)
    return tuple(table.ranks)


Members = list[list[tuple[int | None, str]]]  # per rated group: (seat, competitor); seat None: the game


def _rating_groups(table: Table) -> tuple[Members, list[int], list[tuple[float, ...]] | None]:
    """Who is rated together at this table, at which rank, with which weights (as `ratings.math`)."""
    if table.cooperative:
        return rmath._cooperative_groups(table)
    return [[(seat, competitor)] for seat, competitor in enumerate(table.seats)], list(table.ranks), None


def _first_seats(members: Members) -> set[tuple[int, int]]:
    """(group, index) of each competitor's first place at the table: a competitor sitting twice
    (a bot playing itself) is updated from its first seat only, as `ratings.math` does."""
    seen: set[str] = set()
    firsts = set()
    for g, group in enumerate(members):
        for i, (_, competitor) in enumerate(group):
            if competitor not in seen:
                seen.add(competitor)
                firsts.add((g, i))
    return firsts


# --- predictions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Prediction:
    """A model's predictive distribution for one table's units (seats, or the team and the game)."""

    winner: tuple[float, ...]  # P(unit finishes first), summing to 1
    ahead: tuple[tuple[float, ...], ...]  # ahead[i][j] = P(unit i finishes ahead of unit j)
    order_probability: Callable[[Sequence[int]], float] = field(repr=False, compare=False)

    def weak_order_probability(self, ranks: Sequence[int]) -> float:
        """P(the model's strict order is consistent with `ranks`): a sum over the ways to break ties."""
        groups = [[u for u, r in enumerate(ranks) if r == rank] for rank in sorted(set(ranks))]
        total = 0.0
        for parts in itertools.product(*(itertools.permutations(group) for group in groups)):
            total += self.order_probability([u for part in parts for u in part])
        return total


def gaussian_prediction(perf: Sequence[tuple[float, float]], winner: Sequence[float]) -> Prediction:
    """A prediction from independent normal performances (mean, variance) and their winner chances."""
    ahead = tuple(
        tuple(0.5 if i == j else _cdf((mi - mj) / math.sqrt(vi + vj)) for j, (mj, vj) in enumerate(perf))
        for i, (mi, vi) in enumerate(perf)
    )
    grid = _OrderGrid(perf)
    return Prediction(tuple(winner), ahead, grid.probability)


def plackett_luce_prediction(log_strengths: Sequence[float]) -> Prediction:
    """A prediction from Plackett–Luce log-strengths: every probability in closed form."""
    top = max(log_strengths)
    strengths = [math.exp(s - top) for s in log_strengths]
    total = sum(strengths)
    winner = tuple(s / total for s in strengths)
    ahead = tuple(
        tuple(0.5 if i == j else si / (si + sj) for j, sj in enumerate(strengths)) for i, si in enumerate(strengths)
    )

    def probability(order: Sequence[int]) -> float:
        # Each denominator summed afresh: subtracting the placed strengths from the total
        # cancels catastrophically once a dominant strength is gone.
        result = 1.0
        for place in range(len(order) - 1):
            result *= strengths[order[place]] / sum(strengths[unit] for unit in order[place:])
        return result

    return Prediction(winner, ahead, probability)


class _OrderGrid:
    """Every unit's distribution function on one grid, for the chain integral.

    The grid is the union of one grid per unit (`_ORDER_GRID` points over its mean ± 8 sd), so a
    narrow performance is sampled at its own scale even beside a wide or distant one.
    """

    def __init__(self, perf: Sequence[tuple[float, float]]) -> None:
        sds = [math.sqrt(v) for _, v in perf]
        steps = _ORDER_GRID - 1
        self.xs = sorted({
            m + s * _GRID_WIDTH_SD * (2 * k / steps - 1) for (m, _), s in zip(perf, sds) for k in range(_ORDER_GRID)
        })
        self.cdfs = [[_cdf((x - m) / s) for x in self.xs] for (m, _), s in zip(perf, sds)]

    def probability(self, order: Sequence[int]) -> float:
        """P(performances fall in exactly this order, best first)."""
        below = self.cdfs[order[-1]]
        for unit in reversed(order[:-1]):
            # ∫ G dF_k rather than ∫ G f_k dx: the trapezoid on F_k's own increments takes each
            # interval's mass exactly, and over all orders the sums telescope to F_1⋯F_n = 1.
            mass = self.cdfs[unit]
            running = 0.0
            cumulative = [running]
            for k in range(1, len(mass)):
                running += (below[k] + below[k - 1]) * (mass[k] - mass[k - 1]) / 2
                cumulative.append(running)
            below = cumulative
        return below[-1]


# --- the models -------------------------------------------------------------------------------


class RatingModel:
    """The interface every model has: rate tables in time order, then predict a table."""

    name = ""
    online = True  # False: fitted on a whole sequence at once (settling is then undefined)

    def fit(self, tables: Iterable[Table]) -> None:
        for table in tables:
            self.rate(table)

    def rate(self, table: Table) -> None:
        raise NotImplementedError

    def predict(self, table: Table) -> Prediction:
        raise NotImplementedError

    def strength(self, competitor: str) -> float:
        """A number that orders competitors by skill (the model's mean)."""
        raise NotImplementedError

    def terms(self, competitor: str) -> tuple[float, float]:
        """The competitor's (mean, variance) as the league's average player is made of them."""
        raise NotImplementedError

    def chance_against(self, competitor: str, average: tuple[float, float]) -> float:
        """P(competitor beats a player rated `average` (mean, variance) in a duel)."""
        raise NotImplementedError

    def chance_against_average(self, competitor: str, league: Sequence[str]) -> float:
        """P(competitor beats the league's average player in a duel), the settling measure."""
        terms = [self.terms(c) for c in league]
        average = (sum(m for m, _ in terms) / len(terms), sum(v for _, v in terms) / len(terms))
        return self.chance_against(competitor, average)


class _Gaussian(RatingModel):
    """Shared by the Gaussian models: ratings (μ, σ) per competitor, a TrueSkill environment."""

    def __init__(self, params: Params) -> None:
        self.params = params
        self.env = rmath.environment(params)
        self.ratings: dict[str, Pair] = {}

    def pair(self, competitor: str) -> Pair:
        return self.ratings.get(competitor, (self.params.mu, self.params.sigma))

    def strength(self, competitor: str) -> float:
        return self.pair(competitor)[0]

    def _unit_groups(self, table: Table) -> tuple[list[list[Pair]], list[list[float]]]:
        """Each unit's members' ratings and weights."""
        pairs = [self.pair(c) for c in table.seats]
        if table.cooperative:
            house = self.pair(rmath.game_competitor(len(pairs)))
            groups, weights = rmath.table_groups(pairs, cooperative=True, house=house)
            return groups, weights
        return [[p] for p in pairs], [[1.0] for _ in pairs]

    def predict(self, table: Table) -> Prediction:
        groups, weights = self._unit_groups(table)
        env = self._env_for(table)
        beta2 = env.beta ** 2
        perf = [
            (sum(w * mu for (mu, _), w in zip(group, ws)),
             sum(w * w * (s * s + beta2) for (_, s), w in zip(group, ws)))
            for group, ws in zip(groups, weights)
        ]
        return gaussian_prediction(perf, rmath.win_probabilities(env, groups, weights))

    def _env_for(self, table: Table) -> trueskill.TrueSkill:
        """The environment a table is rated and predicted in."""
        return self.env

    def terms(self, competitor: str) -> tuple[float, float]:
        mu, sigma = self.pair(competitor)
        return mu, sigma * sigma

    def chance_against(self, competitor: str, average: tuple[float, float]) -> float:
        mu, sigma = self.pair(competitor)
        spread = math.sqrt(sigma * sigma + average[1] + 2 * self._duel_beta() ** 2)
        return _cdf((mu - average[0]) / spread)

    def _duel_beta(self) -> float:
        return self.env.beta


class TrueSkillModel(_Gaussian):
    """TrueSkill as configured today: exactly the server's update (`ratings.math.table_updates`)."""

    name = "trueskill"

    def rate(self, table: Table) -> None:
        for competitor, _, _, _, after in rmath.table_updates(self.env, table, self.ratings):
            self.ratings[competitor] = after


class SeatTrueSkillModel(_Gaussian):
    """TrueSkill with a seat-position term: each player's team is (player, "seat k of n").

    The seat pseudo-competitor (`seat:k/n`) is rated by the same `env.rate` as the players, from a
    prior N(0, (β/2)²): centred on no advantage, so a team's mean stays on the players' scale, and
    a seat's edge is expected to be a fraction of one performance's spread. Every member of a
    TrueSkill team adds its own β² to the team's performance, so this model's environment has
    β/√2: a (player, seat) team then performs with the same noise β² as one player does in the
    plain model (and trueskill's draw margin, √(players) β, is the same too).
    Cooperative tables: every seat is on the one team and all n seats sit at every table of n, so
    a seat term could only add a constant to the team, which the game's pseudo-player already
    absorbs; the model rates them exactly as plain TrueSkill does (and predicts the same).
    """

    name = "trueskill-seat"

    def __init__(self, params: Params) -> None:
        super().__init__(params)
        self.plain_env = self.env
        self.env = trueskill.TrueSkill(
            mu=params.mu, sigma=params.sigma, beta=params.beta / math.sqrt(2), tau=params.tau,
            draw_probability=params.draw_probability,
        )
        self.seat_prior: Pair = (0.0, params.beta / 2)

    @staticmethod
    def seat_competitor(seat: int, players: int) -> str:
        return f"seat:{seat}/{players}"

    def seat_pair(self, seat: int, players: int) -> Pair:
        return self.ratings.get(self.seat_competitor(seat, players), self.seat_prior)

    def rate(self, table: Table) -> None:
        if table.cooperative:
            for competitor, _, _, _, after in rmath.table_updates(self.plain_env, table, self.ratings):
                self.ratings[competitor] = after
            return
        n = len(table.seats)
        befores = [(self.pair(c), self.seat_pair(s, n)) for s, c in enumerate(table.seats)]
        groups = [(trueskill.Rating(*player), trueskill.Rating(*seat)) for player, seat in befores]
        try:
            rated = self.env.rate(groups, ranks=list(table.ranks))
        except FloatingPointError:
            return  # as `ratings.math`: nobody moves, deterministically
        seen: set[str] = set()
        for s, (competitor, (player, seat)) in enumerate(zip(table.seats, rated)):
            self.ratings[self.seat_competitor(s, n)] = (seat.mu, seat.sigma)
            if competitor not in seen:
                seen.add(competitor)
                self.ratings[competitor] = (player.mu, player.sigma)

    def _unit_groups(self, table: Table) -> tuple[list[list[Pair]], list[list[float]]]:
        if table.cooperative:
            return super()._unit_groups(table)
        n = len(table.seats)
        groups = [[self.pair(c), self.seat_pair(s, n)] for s, c in enumerate(table.seats)]
        return groups, [[1.0, 1.0] for _ in table.seats]

    def _env_for(self, table: Table) -> trueskill.TrueSkill:
        return self.plain_env if table.cooperative else self.env

    def _duel_beta(self) -> float:
        return self.plain_env.beta  # a player at a neutral seat: the plain model's noise


class TrueSkillThroughTimeModel(_Gaussian):
    """TrueSkill Through Time (`trueskillthroughtime.History`): one fit of the whole training sequence.

    Same μ, σ, β as TrueSkill, γ = τ (skill drift per game a player plays: no `times` are given, so
    each match is its own step), p_draw = the game's draw probability. Predictions use each
    competitor's last posterior (its skill at the end of training) with β, like TrueSkill's.
    Cooperative tables: the team (weights 1/n) against the game's pseudo-player, as `ratings.math`.
    TTT keys skills by name, so a competitor sitting twice at one table keeps only its first seat.
    """

    name = "ttt"
    online = False

    def __init__(self, params: Params, *, iterations: int = 8, epsilon: float = 1e-3) -> None:
        super().__init__(params)
        self.iterations = iterations
        self.epsilon = epsilon

    def rate(self, table: Table) -> None:
        raise TypeError("TrueSkill Through Time is fitted on a whole sequence: call fit()")

    def fit(self, tables: Iterable[Table]) -> None:
        composition, results, weights = [], [], []
        tied = False
        for table in tables:
            members, ranks, group_weights = _rating_groups(table)
            firsts = _first_seats(members)
            teams, kept_ranks, kept_weights = [], [], []
            for g, group in enumerate(members):
                kept = [i for i in range(len(group)) if (g, i) in firsts]
                if not kept:
                    continue
                teams.append([group[i][1] for i in kept])
                kept_ranks.append(ranks[g])
                kept_weights.append([group_weights[g][i] if group_weights else 1.0 for i in kept])
            if len(teams) < 2:
                continue
            tied = tied or len(set(kept_ranks)) < len(kept_ranks)
            # Teams go in best first: trueskillthroughtime 1.1's many-team likelihood
            # (`Game.likelihood_teams`) hands team e the message of sorted position o[e] instead
            # of the inverse, so any other order that is not its own inverse rates the wrong teams.
            best_first = sorted(range(len(teams)), key=lambda t: kept_ranks[t])
            composition.append([teams[t] for t in best_first])
            results.append([-float(kept_ranks[t]) for t in best_first])  # TTT: a higher result is better
            weights.append([kept_weights[t] for t in best_first])
        if not composition:
            return
        # TTT refuses a tie when p_draw is 0; a tiny draw chance lets it read one.
        p_draw = self.params.draw_probability if self.params.draw_probability > 0 or not tied else 1e-3
        history = trueskillthroughtime.History(
            composition, results, mu=self.params.mu, sigma=self.params.sigma, beta=self.params.beta,
            gamma=self.params.tau, p_draw=p_draw, weights=weights,
        )
        history.convergence(epsilon=self.epsilon, iterations=self.iterations, verbose=False)
        for competitor, curve in history.learning_curves().items():
            last = curve[-1][1]
            self.ratings[competitor] = (last.mu, last.sigma)


class OpenSkillModel(RatingModel):
    """OpenSkill's Plackett–Luce (`openskill.models.PlackettLuce`) with TrueSkill's μ, σ, β, τ.

    Its likelihood is Plackett–Luce with log-strength μ_team / c, c = √Σ_teams(σ²_team + β²), a
    team's μ and σ² being its members' sums; predictions use exactly that, in closed form.
    Cooperative tables: the team against the game's pseudo-player. OpenSkill sums a team's μ (it has
    no averaging weights: its `weights` only share out the update), so the pseudo-player `game:<n>`
    starts at n·μ0, level with a team of n new players, the nearest to `ratings.math`'s averaged team.
    """

    name = "openskill"

    def __init__(self, params: Params) -> None:
        self.params = params
        self.model = openskill.models.PlackettLuce(
            mu=params.mu, sigma=params.sigma, beta=params.beta, tau=params.tau
        )
        self.ratings: dict[str, Pair] = {}

    def pair(self, competitor: str) -> Pair:
        if competitor in self.ratings:
            return self.ratings[competitor]
        if competitor.startswith(rmath.GAME_PREFIX):
            return (self.params.mu * int(competitor[len(rmath.GAME_PREFIX):]), self.params.sigma)
        return (self.params.mu, self.params.sigma)

    def strength(self, competitor: str) -> float:
        return self.pair(competitor)[0]

    def rate(self, table: Table) -> None:
        members, ranks, _ = _rating_groups(table)
        teams = [[self.model.create_rating(list(self.pair(c)), name=c) for _, c in group]
                 for group in members]
        rated = self.model.rate(teams, ranks=[float(r) for r in ranks])
        for g, i in sorted(_first_seats(members)):
            player = rated[g][i]
            self.ratings[members[g][i][1]] = (player.mu, player.sigma)

    def predict(self, table: Table) -> Prediction:
        units = _units(table)
        team_pairs = [[self.pair(c) for c in unit] for unit in units]
        team_mu = [sum(mu for mu, _ in unit) for unit in team_pairs]
        team_var = [sum(s * s for _, s in unit) for unit in team_pairs]
        c = math.sqrt(sum(v + self.params.beta ** 2 for v in team_var))
        return plackett_luce_prediction([mu / c for mu in team_mu])

    def terms(self, competitor: str) -> tuple[float, float]:
        mu, sigma = self.pair(competitor)
        return mu, sigma * sigma

    def chance_against(self, competitor: str, average: tuple[float, float]) -> float:
        mu, sigma = self.pair(competitor)
        c = math.sqrt(sigma * sigma + average[1] + 2 * self.params.beta ** 2)
        return 1 / (1 + math.exp((average[0] - mu) / c))


class EloModel(RatingModel):
    """Board Game Arena's multiplayer Elo: every table is a set of two-player duels.

    BGA's help page (en.doc.boardgamearena.com/Rating, "How is my Elo rating computed?") bases it
    on chess Elo, starting at 1500, gains and losses set by the place reached against each opponent;
    the formula as BGA's developers gave it on their forum (forum.boardgamearena.com,
    viewtopic.php?t=14422): for each other player j, change = K·P·(S_ij − E_ij) with
    E_ij = 1 / (1 + 10^((R_j − R_i)/400)), S = 1 for finishing ahead, ½ for a tie, 0 behind;
    K = 60 for a player's first 10 games, 40 for the next 10, 20 after; P ≈ 2 / (players at the
    table). Predictions read the ratings as Bradley–Terry strengths 10^(R/400), i.e. Plackett–Luce.
    Cooperative tables: BGA's Elo is for competitive tables; here the team (its members' mean
    Elo) duels the game's pseudo-player, and each member moves by its own K times the team's
    surprise: the closest honest reading of "team against the game" for a duel system.
    """

    name = "elo"
    INITIAL = 1500.0

    def __init__(self, params: Params | None = None) -> None:
        self.ratings: dict[str, float] = {}
        self.games: dict[str, int] = {}

    def elo(self, competitor: str) -> float:
        return self.ratings.get(competitor, self.INITIAL)

    def strength(self, competitor: str) -> float:
        return self.elo(competitor)

    def k_factor(self, competitor: str) -> float:
        played = self.games.get(competitor, 0)
        return 60.0 if played < 10 else 40.0 if played < 20 else 20.0

    def rate(self, table: Table) -> None:
        members, ranks, _ = _rating_groups(table)
        means = [sum(self.elo(c) for _, c in group) / len(group) for group in members]
        multiplier = 2.0 / len(members)
        firsts = _first_seats(members)
        changes: dict[str, float] = {}
        for g, group in enumerate(members):
            surprise = 0.0
            for h in range(len(members)):
                if h != g:
                    score = 1.0 if ranks[g] < ranks[h] else 0.5 if ranks[g] == ranks[h] else 0.0
                    surprise += score - 1 / (1 + 10 ** ((means[h] - means[g]) / 400))
            for i, (_, competitor) in enumerate(group):
                if (g, i) in firsts:
                    changes[competitor] = self.k_factor(competitor) * multiplier * surprise
        for competitor, change in changes.items():
            self.ratings[competitor] = self.elo(competitor) + change
            self.games[competitor] = self.games.get(competitor, 0) + 1

    def predict(self, table: Table) -> Prediction:
        units = _units(table)
        means = [sum(self.elo(c) for c in unit) / len(unit) for unit in units]
        return plackett_luce_prediction([m * math.log(10) / 400 for m in means])

    def terms(self, competitor: str) -> tuple[float, float]:
        return self.elo(competitor), 0.0

    def chance_against(self, competitor: str, average: tuple[float, float]) -> float:
        return 1 / (1 + 10 ** ((average[0] - self.elo(competitor)) / 400))


def _units(table: Table) -> list[list[str]]:
    """The competitors of each unit predicted: each seat, or the team (best rank) and the game."""
    if table.cooperative:
        best = min(table.ranks)
        team = [c for c, r in zip(table.seats, table.ranks) if r == best]
        return [team, [rmath.game_competitor(len(table.seats))]]
    return [[c] for c in table.seats]


def make_model(name: str, params: Params) -> RatingModel:
    """A fresh model by name (`MODELS`), with the game's TrueSkill parameters where it has any."""
    factories: dict[str, Callable[[Params], RatingModel]] = {
        "trueskill": TrueSkillModel,
        "openskill": OpenSkillModel,
        "elo": EloModel,
        "trueskill-seat": SeatTrueSkillModel,
        "ttt": TrueSkillThroughTimeModel,
    }
    if name not in factories:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    return factories[name](params)


# --- metrics ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchScore:
    """One test match's contribution to every metric."""

    order_ll: float
    winner_ll: float
    brier: float
    pairs_right: float
    pairs: int
    calibration: tuple[tuple[int, float, float, int], ...]  # (bin, Σ predicted, Σ observed, count)


def score_match(prediction: Prediction, ranks: Sequence[int]) -> MatchScore:
    """Scores one prediction against the observed ranks of the table's units (1 is best)."""
    best = min(ranks)
    first = [u for u, r in enumerate(ranks) if r == best]
    order_ll = math.log(max(prediction.weak_order_probability(ranks), _FLOOR))
    winner_ll = -math.log(max(sum(prediction.winner[u] for u in first), _FLOOR))
    brier = sum((p - (1 / len(first) if u in first else 0.0)) ** 2 for u, p in enumerate(prediction.winner))
    right, pairs = 0.0, 0
    bins: dict[int, list[float]] = {}
    for i, j in itertools.combinations(range(len(ranks)), 2):
        if ranks[i] == ranks[j]:
            continue
        p = prediction.ahead[i][j]
        i_ahead = ranks[i] < ranks[j]
        pairs += 1
        right += 0.5 if p == 0.5 else float((p > 0.5) == i_ahead)
        for q, y in ((p, float(i_ahead)), (1 - p, float(not i_ahead))):
            cell = bins.setdefault(min(int(q * _ECE_BINS), _ECE_BINS - 1), [0.0, 0.0, 0])
            cell[0] += q
            cell[1] += y
            cell[2] += 1
    calibration = tuple((b, s, y, int(n)) for b, (s, y, n) in sorted(bins.items()))
    return MatchScore(order_ll, winner_ll, brier, right, pairs, calibration)


def aggregate(scores: Sequence[MatchScore], counts: Sequence[int] | None = None) -> dict[str, float]:
    """Every metric over some test matches; `counts` weights each match (a bootstrap resample)."""
    weights = counts if counts is not None else [1] * len(scores)
    total = sum(weights)
    if not total:
        return {metric: float("nan") for metric in METRICS}
    order = winner = brier = right = 0.0
    pairs = 0
    bins = [[0.0, 0.0, 0] for _ in range(_ECE_BINS)]
    for score, weight in zip(scores, weights):
        if not weight:
            continue
        order += weight * score.order_ll
        winner += weight * score.winner_ll
        brier += weight * score.brier
        right += weight * score.pairs_right
        pairs += weight * score.pairs
        for b, predicted, observed, count in score.calibration:
            cell = bins[b]
            cell[0] += weight * predicted
            cell[1] += weight * observed
            cell[2] += weight * count
    counted = sum(cell[2] for cell in bins)
    ece = sum(abs(p - y) for p, y, _ in bins) / counted if counted else float("nan")
    return {
        "order_ll": order / total, "winner_ll": winner / total, "brier": brier / total,
        "pair_accuracy": right / pairs if pairs else float("nan"), "ece": ece,
    }


def bootstrap_draws(matches: int, resamples: int, seed: int) -> Iterator[list[int]]:
    """`resamples` multiplicity vectors (how often each test match is drawn), seeded: every call
    with the same arguments yields the same draws, so each model is resampled alike (paired)
    without holding resamples × matches counts at once."""
    rng = random.Random(seed)
    for _ in range(resamples):
        counts = [0] * matches
        for _ in range(matches):
            counts[rng.randrange(matches)] += 1
        yield counts


def interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float]:
    """The percentile interval of bootstrap values (NaNs left out)."""
    ordered = sorted(v for v in values if not math.isnan(v))
    if not ordered:
        return float("nan"), float("nan")
    tail = (1 - level) / 2
    return ordered[int(tail * (len(ordered) - 1))], ordered[math.ceil((1 - tail) * (len(ordered) - 1))]


# --- evaluation -------------------------------------------------------------------------------


@dataclass
class ModelResult:
    """One model's figures on one sequence of matches."""

    model: str
    metrics: dict[str, float]
    intervals: dict[str, tuple[float, float]]
    settle: float | None  # median games until a new player's rating settles (None: offline model)
    settled_players: int
    rank_correlation: float | None  # Kendall's τ of the model's strengths against known ones
    online: bool = True  # False: fitted once on the training matches (no settling figure)
    resampled: dict[str, list[float]] = field(repr=False, default_factory=dict)


@dataclass
class Comparison:
    """Every model on one sequence: train on the first share, test on the rest."""

    train: int
    test: int
    results: dict[str, ModelResult]

    def difference(self, first: str, second: str, metric: str) -> tuple[float, float, float]:
        """first − second on `metric`, with its paired bootstrap interval (same resamples)."""
        a, b = self.results[first], self.results[second]
        point = a.metrics[metric] - b.metrics[metric]
        low, high = interval([x - y for x, y in zip(a.resampled[metric], b.resampled[metric])])
        return point, low, high

    def as_dict(self) -> dict:
        return {
            "train": self.train, "test": self.test,
            "models": {
                name: {"metrics": r.metrics, "intervals": r.intervals, "settle": r.settle,
                       "settled_players": r.settled_players, "rank_correlation": r.rank_correlation,
                       "online": r.online}
                for name, r in self.results.items()
            },
        }


def split(tables: Sequence[Table], train_share: float = 0.8) -> tuple[Sequence[Table], Sequence[Table]]:
    """The first `train_share` of the matches (by time) to train on, the rest to test on."""
    cut = int(round(len(tables) * train_share))
    return tables[:cut], tables[cut:]


def evaluate(
    tables: Sequence[Table],
    params: Params,
    *,
    models: Sequence[str] = MODELS,
    train_share: float = 0.8,
    resamples: int = 1000,
    seed: int = 0,
    newcomers: Iterable[str] | None = None,
    strengths: Mapping[str, float] | None = None,
    settle_min_games: int = 20,
) -> Comparison:
    """Rates the first `train_share` of `tables` with each model, then predicts every test match
    from the ratings frozen at the end of training (TTT fitted on the training matches only).

    `newcomers`: the players whose settling is measured (default: every player, not the game's
    pseudo-players, with at least `settle_min_games` training games). `strengths`: known skills
    (competitor → number), for the rank correlation.
    """
    train, test = split(tables, train_share)
    asked = set(newcomers) if newcomers is not None else None
    results = {}
    for name in models:
        model = make_model(name, params)
        settle, settled = (None, 0)
        if model.online:
            settle, settled = _train_tracking(model, train, asked, settle_min_games)
        else:
            model.fit(train)
        scores = [score_match(model.predict(table), observed_ranks(table)) for table in test]
        metrics = aggregate(scores)
        resampled: dict[str, list[float]] = {metric: [] for metric in METRICS}
        for counts in bootstrap_draws(len(test), resamples if test else 0, seed):
            for metric, value in aggregate(scores, counts).items():
                resampled[metric].append(value)
        intervals = {metric: interval(values) for metric, values in resampled.items()}
        correlation = None
        if strengths:
            known = sorted(strengths, key=lambda c: (-strengths[c], c))
            rated = sorted(strengths, key=lambda c: (-model.strength(c), c))
            correlation = rmath.kendall_tau(rated, known)
        results[name] = ModelResult(
            name, metrics, intervals, settle, settled, correlation, model.online, resampled
        )
    return Comparison(len(train), len(test), results)


def _train_tracking(
    model: RatingModel, train: Sequence[Table], asked: set[str] | None, min_games: int
) -> tuple[float | None, int]:
    """Rates `train` in order, following each player's chance against the league's average after
    each of its games; returns the median games until it settles and how many players it covers.

    The league is every player rated so far; its average is kept as running sums of each player's
    terms, updated for the players of each table only, so a long history costs O(seats) per match.
    """
    terms: dict[str, tuple[float, float]] = {}
    sum_mean = sum_var = 0.0
    curves: dict[str, list[float]] = {}
    for table in train:
        model.rate(table)
        for competitor in set(table.seats):
            old_mean, old_var = terms.get(competitor, (0.0, 0.0))
            new_mean, new_var = terms[competitor] = model.terms(competitor)
            sum_mean += new_mean - old_mean
            sum_var += new_var - old_var
        average = (sum_mean / len(terms), max(sum_var, 0.0) / len(terms))
        for competitor in set(table.seats):
            if asked is None or competitor in asked:
                curves.setdefault(competitor, []).append(model.chance_against(competitor, average))
    if not terms:
        return None, 0
    average = (sum_mean / len(terms), max(sum_var, 0.0) / len(terms))
    games = [
        _settled_after(curve, model.chance_against(c, average)) for c, curve in curves.items()
        if asked is not None or len(curve) >= min_games
    ]
    if not games:
        return None, 0
    return float(_median(games)), len(games)


def _settled_after(curve: Sequence[float], final: float) -> int:
    """The fewest games k such that the chance after game k and every later one is within the band."""
    k = len(curve)
    while k > 0 and abs(curve[k - 1] - final) <= SETTLE_BAND:
        k -= 1
    return k + 1 if k < len(curve) else len(curve)


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _cdf(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))
