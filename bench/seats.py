"""Seat advantage: each seat's share of the wins with the same bot in every seat, with 95% intervals.

For each competitive game and player count k, `--games` games from fixed seeds (0, 1, ...) with
the strong bot in every seat, and the same seeds with random bots in every seat: the game's own
seat advantage without strategy. The fair share is 1/k.

How the share is counted: a game's win is one credit; w winners tied for first get 1/w each; a
game without a winner (Sequence Stacks' stalemate and turn limit) is left out of the share and
counted beside it, so the seats' shares of the decided games sum to 1. The interval is Wilson's
with the share as its proportion and the decided games as n: Wilson's own case when no win was
shared, and conservative when one was, because a credit between 0 and 1 with mean p varies by at
most p(1 - p), the variance Wilson assumes. Each seat's interval is a 95% interval on its own:
with k fair seats, some seat's interval misses 1/k by chance in up to about k rows in 20.
The Game is cooperative (every seat wins or loses together), so it is left out.
Run: `python -m bench.seats [--games 300] [--game SLUG] [--players K]`.
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import print_table, wilson  # noqa: E402
from bench.bots import play  # noqa: E402
from games.bots import STRONG_BOT  # noqa: E402
from games.engines import ENGINES  # noqa: E402

# On the shared 2-core machine 400 games took 6.3 minutes (5.7 of CPU), 300 took 4.5 (3.5 of CPU).
DEFAULT_GAMES = 300
COOPERATIVE = {"the-game"}
MAX_SEATS = max(ENGINES[game].max_players for game in ENGINES if game not in COOPERATIVE)


@dataclass(frozen=True)
class SeatShares:
    """Each seat's share of the decided games' wins for one bot in every seat."""

    bot: str
    players: int
    games: int
    decided: int  # games with at least one winner: the shares' denominator
    shared: int  # decided games whose win was shared by a tie for first
    shares: list[float]
    intervals: list[tuple[float, float]]

    @property
    def fair(self) -> float:
        return 1 / self.players

    @property
    def largest_deviation(self) -> tuple[int, float]:
        """The seat furthest from the fair share, and its share minus 1/k."""
        seat = max(range(self.players), key=lambda s: abs(self.shares[s] - self.fair))
        return seat, self.shares[seat] - self.fair

    @property
    def seats_excluding_fair(self) -> list[int]:
        """The seats whose interval does not contain 1/k."""
        return [s for s, (low, high) in enumerate(self.intervals) if not low <= self.fair <= high]


def win_credit(winners: list[int], players: int) -> list[float]:
    """Each seat's credit for one game: 1/w to each of w winners, 0 to the others."""
    return [1 / len(winners) if seat in winners else 0.0 for seat in range(players)]


def seat_shares(game: str, players: int, games: int, bot: str) -> SeatShares:
    """Plays `games` games from seeds 0..games-1 with `bot` in every seat and counts each seat's wins."""
    if game in COOPERATIVE:
        raise ValueError(f"{game} is cooperative: its seats win or lose together")
    credit = [0.0] * players
    decided = shared = 0
    for seed in range(games):
        winners = play(game, players, seed, [bot] * players)["winners"]
        if not winners:
            continue
        decided += 1
        shared += len(winners) > 1
        credit = [total + c for total, c in zip(credit, win_credit(winners, players))]
    shares = [c / decided if decided else 0.0 for c in credit]
    intervals = [wilson(c, decided) for c in credit]
    return SeatShares(bot, players, games, decided, shared, shares, intervals)


def measure(game: str, players: int, games: int) -> tuple[SeatShares, SeatShares]:
    """The strong bot's seat shares beside random bots' on the same seeds, for one game and count."""
    return seat_shares(game, players, games, STRONG_BOT[game]), seat_shares(game, players, games, "random")


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES)
    parser.add_argument("--game", action="append", choices=sorted(ENGINES))
    parser.add_argument("--players", type=int, action="append")
    args = parser.parse_args(argv)
    chosen = args.game or sorted(ENGINES)
    figures, rows = [], []
    for game in chosen:
        engine = ENGINES[game]
        for players in range(engine.min_players, engine.max_players + 1):
            if game in COOPERATIVE or (args.players and players not in args.players):
                continue
            started = time.perf_counter()
            strong, baseline = measure(game, players, args.games)
            figures.append({"game": game, "players": players, "games": args.games, "fair": 1 / players,
                            "strong": _figures(strong), "random": _figures(baseline),
                            "seconds": round(time.perf_counter() - started, 1)})
            rows.append(_row(game, strong, baseline))
    if not rows and not COOPERATIVE & set(chosen):
        parser.error(f"no game chosen plays with {args.players} players")
    if rows:
        print_table(
            "Seat advantage: each seat's share of the wins with the strong bot in every seat (95% Wilson "
            "intervals; ties share the win; games without a winner left out), beside the same with random bots",
            ["game", "players", "fair 1/k", "decided"] + [f"seat {s}" for s in range(MAX_SEATS)]
            + ["largest deviation", "1/k outside interval", "random: decided", "random: seat shares",
               "random: largest deviation", "random: 1/k outside interval"],
            rows,
        )
    for game in sorted(COOPERATIVE & set(chosen)):
        print(f"\n{game} is left out: it is cooperative, every seat wins or loses together, so no seat "
              "has a share of the wins of its own.")
    return figures


def _figures(measured: SeatShares) -> dict:
    seat, deviation = measured.largest_deviation
    return {**asdict(measured), "largest_deviation": deviation, "largest_deviation_seat": seat,
            "seats_excluding_fair": measured.seats_excluding_fair}


def _row(game: str, strong: SeatShares, baseline: SeatShares) -> list:
    cells = [f"{share:.1%} [{low * 100:.1f}, {high * 100:.1f}]"
             for share, (low, high) in zip(strong.shares, strong.intervals)]
    return [game, strong.players, f"{strong.fair:.1%}", _decided(strong), *cells,
            *[""] * (MAX_SEATS - strong.players), _deviation(strong), _outside(strong), _decided(baseline),
            " / ".join(f"{share:.0%}" for share in baseline.shares), _deviation(baseline), _outside(baseline)]


def _decided(measured: SeatShares) -> str:
    return f"{measured.decided}/{measured.games}" + (f" ({measured.shared} shared)" if measured.shared else "")


def _deviation(measured: SeatShares) -> str:
    seat, deviation = measured.largest_deviation
    return f"{deviation * 100:+.1f} pts (seat {seat})"


def _outside(measured: SeatShares) -> str:
    return ", ".join(f"seat {s}" for s in measured.seats_excluding_fair) or "none"


if __name__ == "__main__":
    main()
