"""Double elimination at two-player tables: winners' and losers' brackets and a grand final.

The winners' bracket is the single-elimination bracket (standard seeding, byes to the
top seeds). With 2^k lines the losers' bracket has 2(k − 1) rounds:

- L1: the losers of W1, two by two (W1.1 with W1.2, ...);
- L2j (j = 1..k−1), drop-down rounds: the winners of L(2j−1) meet the losers of W(j+1);
- L2j+1: the winners of L2j, two by two.

Drop-down placement: the loser of W(j+1) match m goes to the L2j match of its
neighbour m xor 1 (a "pair flip"; the winners' final drops straight to the losers'
final). Every L(2j−1) winner comes from the section of the winners' bracket under one
W(j+1) match, so the flip puts each dropped player against someone from the
neighbouring section, whom it cannot have met, in every drop-down round except the
losers' final. (This is the ordering brackets-manager's defaults use for 8 and 16
lines, made general.)

Grand final: the winners' champion (slot 0) against the losers' champion (slot 1). With
`grand_final_reset` (default on), if the losers' champion wins, the two play again
(`GF2`) since each then has one loss. Places: champion, runner-up, then by the losers'
round a player went out in (the losers' final loser is third).
"""
from __future__ import annotations

from tournaments.formats._common import COMMON_KEYS, Options, next_power_of_two
from tournaments.formats.single_elimination import (
    BracketMatch,
    EliminationFormat,
    Source,
    match_id,
    single_elimination_bracket,
)


class DoubleEliminationFormat(EliminationFormat):
    """Double elimination with drop-down placement and an optional grand-final reset."""

    slug = "double-elimination"
    option_keys = COMMON_KEYS | {"grand_final_reset"}

    def structure(self, entrant_count: int, options: Options) -> list[BracketMatch]:
        return double_elimination_bracket(entrant_count, reset=options.grand_final_reset)


FORMAT = DoubleEliminationFormat()


def double_elimination_bracket(entrant_count: int, *, reset: bool = True) -> list[BracketMatch]:
    """The matches of a double-elimination bracket for that many entrants, in play order."""
    size = next_power_of_two(entrant_count)
    depth = size.bit_length() - 1
    last_losers = 2 * (depth - 1)
    losers = _losers_bracket(size, depth)
    winners = []
    for match in single_elimination_bracket(entrant_count):
        target = _drop_target(match.round, match.position, size, depth)
        final = match.round == depth
        winners.append(BracketMatch(
            id=match.id, side="winners", round=match.round, position=match.position, sources=match.sources,
            winner_to=("GF", 0) if final else match.winner_to, loser_to=target, stage=0,
        ))
    grand_stage = last_losers + 1
    champion_source = Source("winner", match_id("W", depth, 0))
    challenger = (Source("winner", match_id("L", last_losers, 0)) if depth > 1
                  else Source("loser", match_id("W", 1, 0)))
    finals = [BracketMatch(id="GF", side="final", round=1, position=0, sources=(champion_source, challenger),
                           winner_to=None, loser_to=("GF2", 0) if reset else None, stage=grand_stage,
                           deciding=True)]
    if reset:
        finals.append(BracketMatch(id="GF2", side="final", round=2, position=0,
                                   sources=(Source("loser", "GF"), Source("winner", "GF")),
                                   stage=grand_stage + 1, deciding=True, reset_of="GF"))
    return winners + losers + finals


def _flip(index: int, count: int) -> int:
    """The drop-down pair flip: neighbour sections swap, a single drop stays."""
    return index ^ 1 if count > 1 else index


def _drop_target(rnd: int, index: int, size: int, depth: int) -> tuple[str, int]:
    """Where the loser of winners' match (rnd, index) goes in the losers' bracket."""
    if depth == 1:
        return ("GF", 1)
    if rnd == 1:
        return (match_id("L", 1, index // 2), index % 2)
    drops = size >> rnd
    return (match_id("L", 2 * (rnd - 1), _flip(index, drops)), 1)


def _losers_bracket(size: int, depth: int) -> list[BracketMatch]:
    last = 2 * (depth - 1)
    matches = []
    for rnd in range(1, last + 1):
        count = size >> (rnd // 2 + 1) if rnd % 2 == 0 else size >> ((rnd + 1) // 2 + 1)
        for index in range(count):
            matches.append(BracketMatch(
                id=match_id("L", rnd, index), side="losers", round=rnd, position=index,
                sources=_losers_sources(rnd, index, count),
                winner_to=_losers_winner_to(rnd, index, last), loser_to=None, stage=rnd,
            ))
    return matches


def _losers_sources(rnd: int, index: int, count: int) -> tuple[Source, Source]:
    if rnd == 1:
        return (Source("loser", match_id("W", 1, 2 * index)),
                Source("loser", match_id("W", 1, 2 * index + 1)))
    if rnd % 2 == 0:  # drop-down round: L(rnd-1) winner against a winners' bracket loser
        winners_round = rnd // 2 + 1
        return (Source("winner", match_id("L", rnd - 1, index)),
                Source("loser", match_id("W", winners_round, _flip(index, count))))
    return (Source("winner", match_id("L", rnd - 1, 2 * index)),
            Source("winner", match_id("L", rnd - 1, 2 * index + 1)))


def _losers_winner_to(rnd: int, index: int, last: int) -> tuple[str, int]:
    if rnd == last:
        return ("GF", 1)
    if rnd % 2 == 1:
        return (match_id("L", rnd + 1, index), 0)
    return (match_id("L", rnd + 1, index // 2), index % 2)
