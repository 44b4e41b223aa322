"""Random tournaments, played with the real Swiss formats, as exports for the pairing checker.

Pure Python (no Django): `python -m tournaments.pairing_generate --seed N` prints one export
(version 1, see `tournaments.pairing_check`); `--count K --output DIR` writes the exports of
seeds N .. N+K-1 to DIR/tournament-<seed>.json. `python manage.py tournament_generate` is the
same command.

`generate(seed)` is deterministic per seed. It plays `FORMATS["swiss"]` (a third of the time)
or `FORMATS["swiss-tables"]` (table size 2-6 inside a game range around it, sometimes a
cooperative game) for 1-7 rounds with fields mostly of 3-24 players, sometimes up to 60, ids
with gaps, ratings for some, and through the rounds: random finishing orders with ties (or
team scores), forfeits (some seats of a table, via `forfeit_result`), withdrawals and
disqualifications between rounds, late entries (joining the entrants list from a later round,
at the bottom of the seed order) and the byes the format gives.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from io import TextIOBase
from random import Random
from typing import IO, Any, TypedDict

from tournaments.formats import FORMATS, Bye, Entrant, History, Result, Table, forfeit_result
from tournaments.formats._common import PlayerId

_TABLE_SIZE_WEIGHTS = {2: 1, 3: 3, 4: 3, 5: 2, 6: 2}


class _EntrantJson(TypedDict):
    """An entrant as the export lists it."""

    id: int
    rating: float | None
    entered: int


def generate(seed: int) -> dict[str, Any]:
    """A random tournament played with the project's Swiss formats, as an export (version 1)."""
    rng = Random(seed)
    slug, options = _random_format(rng)
    fmt = FORMATS[slug]
    opts = fmt.options(options)
    rounds_to_play = opts.rounds
    assert rounds_to_play is not None  # _random_format always sets the rounds
    starting = max(rng.randint(3, 24) if rng.random() < 0.85 else rng.randint(25, 60), opts.min_players)
    late = rng.choice([0, 0, 0, 1, 2, 3]) if rounds_to_play > 1 else 0
    ids = rng.sample(range(1, 10 * (starting + late) + 1), starting + late)
    entrants: list[_EntrantJson] = [
        {"id": player, "rating": _random_rating(rng), "entered": 1} for player in ids[:starting]
    ]
    entrants += sorted(({"id": player, "rating": _random_rating(rng), "entered": rng.randint(2, rounds_to_play)}
                        for player in ids[starting:]), key=lambda entrant: entrant["entered"])
    withdrawn: dict[PlayerId, int] = {}
    disqualified: dict[PlayerId, int] = {}
    results: list[Result] = []
    byes: list[Bye] = []
    rounds = []
    for number in range(1, rounds_to_play + 1):
        field_ = [Entrant(e["id"], e["rating"]) for e in entrants if e["entered"] <= number]
        history = History(results=tuple(results), byes=tuple(byes),
                          withdrawn=dict(withdrawn), disqualified=dict(disqualified))
        pairing = fmt.next_round(field_, options, history)
        if pairing is None:
            break
        played = [_random_result(rng, number, table, opts.cooperative) for table in pairing.tables]
        results += played
        byes += [Bye(number, player) for player in pairing.byes]
        rounds.append({"round": number, "byes": list(pairing.byes),
                       "tables": [_table_json(res) for res in played]})
        _leave_between_rounds(rng, number, field_, withdrawn, disqualified)
    return {
        "export": "tournament-pairings", "version": 1,
        "tournament": {"id": seed, "name": f"Generated tournament {seed}", "game": "generated"},
        "format": slug, "options": options, "entrants": entrants,
        "withdrawn": {str(player): first for player, first in withdrawn.items()},
        "disqualified": {str(player): first for player, first in disqualified.items()},
        "rounds": rounds,
    }


def _random_format(rng: Random) -> tuple[str, dict[str, Any]]:
    """A format slug and options it accepts."""
    rounds = rng.randint(1, 7)
    if rng.random() < 1 / 3:
        options: dict[str, Any] = {"min_players": 2, "max_players": rng.choice([2, 2, 2, 3, 4]),
                                   "rounds": rounds}
        slug = "swiss"
    else:
        size = rng.choices(list(_TABLE_SIZE_WEIGHTS), weights=list(_TABLE_SIZE_WEIGHTS.values()))[0]
        low = rng.randint(max(2, size - 2), size)
        high = rng.randint(size, min(6, size + 2))
        options = {"table_size": size, "min_players": low, "max_players": high, "rounds": rounds}
        if rng.random() < 0.15:
            options["cooperative"] = True
        slug = "swiss-tables"
    if rng.random() < 0.2:
        options["bye_points"] = rng.choice(["1/2", "1", "0", "1/3"])
    if rng.random() < 0.2:
        options["seeding"] = "rating"
    return slug, options


def _random_rating(rng: Random) -> float | None:
    return None if rng.random() < 0.3 else round(rng.uniform(10.0, 40.0), 2)


def _random_result(rng: Random, number: int, table: Table, cooperative: bool) -> Result:
    """Forfeits now and then (some seats, rarely all); else ranks with ties, or a team score."""
    seats = table.seats
    if rng.random() < 0.08:
        gone = rng.sample(seats, rng.randint(1, len(seats) - 1) if len(seats) > 1 and rng.random() < 0.9
                          else len(seats))
        return forfeit_result(number, seats, gone)
    if cooperative:
        return Result(number, seats, team_score=rng.randint(0, 40))
    performance = [rng.randint(0, len(seats)) for _ in seats]  # few values: ties are common
    ranks = tuple(1 + sum(1 for other in performance if other > mine) for mine in performance)
    return Result(number, seats, ranks)


def _leave_between_rounds(rng: Random, number: int, field_: Sequence[Entrant], withdrawn: dict[PlayerId, int],
                          disqualified: dict[PlayerId, int]) -> None:
    """Now and then a player withdraws or is disqualified: they miss the rounds from the next on."""
    present = [e.id for e in field_ if e.id not in withdrawn and e.id not in disqualified]
    if present and rng.random() < 0.25:
        withdrawn[rng.choice(present)] = number + 1
    present = [player for player in present if player not in withdrawn]
    if present and rng.random() < 0.1:
        disqualified[rng.choice(present)] = number + 1


def _table_json(res: Result) -> dict[str, Any]:
    return {"seats": list(res.seats), "ranks": None if res.ranks is None else list(res.ranks),
            "team_score": res.team_score, "forfeited": sorted(res.forfeited)}


# --- the command line -----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (shared with `manage.py tournament_generate`)."""
    parser.add_argument("--seed", type=int, required=True, help="the (first) seed")
    parser.add_argument("--count", type=int, default=1,
                        help="how many tournaments (seeds seed .. seed+count-1)")
    parser.add_argument("--output", help="a directory to write tournament-<seed>.json files to")


def run(seed: int, count: int = 1, output: str | None = None, stdout: IO[str] | TextIOBase | None = None) -> int:
    """Prints one export, or writes `count` of them to `output` (printing their paths); 0 when done."""
    out = stdout or sys.stdout
    if count < 1:
        raise ValueError("--count must be at least 1")
    if output is None:
        if count != 1:
            raise ValueError("--count above 1 needs --output DIR")
        out.write(json.dumps(generate(seed), indent=2) + "\n")
        return 0
    os.makedirs(output, exist_ok=True)
    for number in range(seed, seed + count):
        path = os.path.join(output, f"tournament-{number}.json")
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(generate(number), handle, indent=2)
            handle.write("\n")
        out.write(path + "\n")
    return 0


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None,
         stderr: IO[str] | None = None) -> int:
    """`python -m tournaments.pairing_generate --seed N [--count K] [--output DIR]`: the exit status."""
    parser = argparse.ArgumentParser(prog="python -m tournaments.pairing_generate",
                                     description="Random tournaments as pairing exports (version 1).")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args.seed, args.count, args.output, stdout)
    except (ValueError, OSError) as error:
        print(f"tournament_generate: {error}", file=stderr or sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
