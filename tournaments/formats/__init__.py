"""Pure pairing formats: `FORMATS` by slug. No Django; importable without settings.

How the Django layer calls a format (`fmt = FORMATS[slug]`):

    fmt.next_round(entrants, options, history) -> Pairing | None
    fmt.standings(entrants, options, history) -> list[Standing]
    fmt.total_rounds(entrant_count, options) -> int | None
    fmt.options(options) -> Options            # validate a tournament's options up front

and for elimination formats also

    fmt.bracket(entrants, options, history) -> Bracket    # single/double elimination: what to draw
    fmt.placements(entrants, options, history) -> {id: place}
    fmt.champion(entrants, options, history) -> id | None

(`Bracket.as_dict()` is JSON-ready; table elimination has placements and champion but
no fixed bracket; a league's inner format is `FORMATS["league"].inner(options)`, and
`FORMATS["league"].calendar(entrant_count, options)` lists its matchday dates.)

Inputs
- `entrants`: seed order, top seed first: bare ids (ints in practice; any hashable) or
  `Entrant(id, rating)`. With `options["seeding"] == "rating"` they are re-sorted by
  rating (highest first, unrated last, ties keep the given order).
- `options`: a JSON-like dict (see `Options` for every key and its default); each
  format refuses keys it does not know (ValueError). The game's range is passed as
  `min_players`/`max_players`; `cooperative: true` for a cooperative game.
- `history`: a `History` of `Result`s (round, seats in seat order, ranks per seat or a
  cooperative team score, forfeited seats, bracket match id), the byes given
  (`Bye(round, player)`), and the `withdrawn` and `disqualified` players as
  {id: first round missed} (a plain set of ids means "from the next round on").
  `History.with_round(pairing, results)` appends a round.

Output
- `Pairing(round, tables, byes, date)`: `tables` are `Table(seats, match, deal)` with
  seat 0 first; `match` is the bracket match id (copy it into the `Result`); `deal`
  is the shared deal seed when `options["duplicate"]` is on (`duplicate.py`); `date`
  is set for league matchdays. `None` means the format is finished.
- Record the pairing's byes as `Bye(round, player)` with the round's results (Swiss
  formats count them). Call `next_round` once every table of the current round has
  its result; the same inputs always give the same pairing.

Formats
- "single-elimination", "double-elimination": two-player brackets (`single_elimination.py`).
- "round-robin": Berger tables, single or double.
- "swiss": two-player Swiss; "swiss-tables": Swiss at tables of 3–6 (or 2).
- "table-elimination": the top of each table go through to a final table.
- "league": matchdays on a calendar, each a round of the inner `format`.
"""
from __future__ import annotations

from tournaments.formats import (
    double_elimination,
    duplicate,
    league,
    round_robin,
    single_elimination,
    swiss,
    swiss_tables,
    table_elimination,
)
from tournaments.formats._common import (
    Bye,
    Entrant,
    History,
    Options,
    Pairing,
    Result,
    Table,
    forfeit_result,
    result,
    table_sizes,
)
from tournaments.formats.base import Format
from tournaments.formats.single_elimination import BYE, Bracket, BracketMatch, MatchState, Source

FORMATS: dict[str, Format] = {**league.INNER_FORMATS, league.FORMAT.slug: league.FORMAT}

__all__ = [
    "BYE", "Bracket", "BracketMatch", "Bye", "Entrant", "FORMATS", "Format", "History", "MatchState",
    "Options", "Pairing", "Result", "Source", "Table", "duplicate", "forfeit_result", "result",
    "table_sizes", "double_elimination", "round_robin", "single_elimination", "swiss", "swiss_tables",
    "table_elimination",
]
