"""Single elimination at two-player tables, and the bracket machinery double elimination shares.

Seeding is standard: in a bracket of 2^k lines seed s meets seed 2^k + 1 − s in round
one and the lines nest so that, when favourites win, seeds 1 and 2 meet only in the
final, 1–4 and 2–3 in the semi-finals, and so on. Missing seeds are byes, so the top
seeds get them. An optional third-place match pairs the semi-final losers.

A bracket is a fixed list of `BracketMatch`es (what a front end draws: side, round,
position, where each slot comes from and where winner and loser go). `resolve`
fills it from the results: each match is waiting (a slot not yet known), ready,
played, a bye (one player: they go through unplayed) or void (nobody). Withdrawn or
disqualified players lose their unplayed matches as byes for the opponent. Results
name their match (`Result.match`, copied from `Table.match`); a tied result goes to
the higher seed.

Rounds follow the bracket: a match is played in its bracket round (one after its
latest feeder, as if there were no byes) or, if a feeder is late, in the round after
its players are known; a round pairs every match that is ready and due. So seeds
with a first-round bye wait for round two, and in double elimination each losers'
round is played beside the winners' round that feeds it. Seat 0 goes by the two-player
seat rules (`seat_two`: whoever has had it less).

Placements: the champion is first; every other player is placed by how far they got
(losers of the same round share a place, e.g. 1, 2, 3, 3, 5, 5, 5, 5), with the
third-place match splitting 3 and 4.
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tournaments.formats._common import (
    COMMON_KEYS,
    Field,
    History,
    Options,
    Pairing,
    PlayerId,
    Result,
    Table,
    next_power_of_two,
    seat_records,
    seat_two,
)
from tournaments.formats.base import Format


class _Bye:
    """The empty slot of a bye (a sentinel; never a player id)."""

    _instance: _Bye | None = None

    def __new__(cls) -> _Bye:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "BYE"


BYE: Any = _Bye()


@dataclass(frozen=True)
class Source:
    """Where a match slot's player comes from: a seed (1-based) or a match's winner or loser."""

    kind: str  # "seed" | "winner" | "loser"
    ref: int | str


@dataclass(frozen=True)
class BracketMatch:
    """One match of a bracket, as a front end draws it.

    side: "winners", "losers", "third-place" or "final"; round: the round within its
    side (1-based); position: top to bottom within that round (0-based); sources: the
    two slots; winner_to/loser_to: (match id, slot) the winner/loser moves to.
    `stage` orders eliminations (a later stage places higher); `deciding` marks a match
    whose winner is champion; `reset_of` marks a grand-final reset, played only if the
    named final's slot-1 player (from the losers' bracket) won it.
    """

    id: str
    side: str
    round: int
    position: int
    sources: tuple[Source, Source]
    winner_to: tuple[str, int] | None = None
    loser_to: tuple[str, int] | None = None
    stage: int = 0
    deciding: bool = False
    reset_of: str | None = None


@dataclass(frozen=True)
class MatchState:
    """A match with its players so far: ids, `BYE`, or None where not known yet."""

    match: BracketMatch
    players: tuple[Any, Any]
    status: str  # "waiting" | "ready" | "played" | "bye" | "void"
    winner: Any = None
    loser: Any = None
    round: int | None = None  # the round it was played in
    due: int = 1              # the earliest round it can be played in (or its bye falls in)
    natural: int = 1          # its round were there no byes: one after its latest feeder

    @property
    def id(self) -> str:
        return self.match.id


@dataclass(frozen=True)
class Bracket:
    """A resolved bracket: every match's state, the champion, and the places decided so far."""

    matches: tuple[MatchState, ...]
    champion: PlayerId | None
    placements: Mapping[PlayerId, int]
    finished: bool

    def match(self, match_id: str) -> MatchState:
        """The state of one match by id (KeyError if unknown)."""
        for state in self.matches:
            if state.id == match_id:
                return state
        raise KeyError(match_id)

    def ready(self) -> list[MatchState]:
        """Matches whose two players are known and that are not played yet."""
        return [state for state in self.matches if state.status == "ready"]

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: a bye slot is {"bye": true}, a slot not known yet is null."""
        def slot(player: Any) -> Any:
            return {"bye": True} if player is BYE else player

        matches = [{
            "id": state.id, "side": state.match.side, "round": state.match.round,
            "position": state.match.position, "status": state.status,
            "sources": [{"kind": source.kind, "ref": source.ref} for source in state.match.sources],
            "winner_to": state.match.winner_to, "loser_to": state.match.loser_to,
            "players": [slot(player) for player in state.players],
            "winner": slot(state.winner), "loser": slot(state.loser), "played_in": state.round,
        } for state in self.matches]
        places = sorted(self.placements.items(), key=lambda item: item[1])
        return {"matches": matches, "champion": self.champion, "finished": self.finished,
                "placements": [{"player": player, "place": place} for player, place in places]}


class EliminationFormat(Format):
    """Base for bracket formats: `bracket`, `next_round`, `placements`, `champion`."""

    def structure(self, entrant_count: int, options: Options) -> list[BracketMatch]:
        raise NotImplementedError  # pragma: no cover - abstract

    def bracket(self, entrants: Sequence[Any], options: Mapping[str, Any] | Options | None = None,
                history: History | None = None) -> Bracket:
        """The bracket for these entrants, filled from the results so far."""
        field_, opts, past = self._inputs(entrants, options, history)
        return resolve(self.structure(len(field_.entrants), opts), field_, past)

    def placements(self, entrants: Sequence[Any], options: Mapping[str, Any] | Options | None = None,
                   history: History | None = None) -> Mapping[PlayerId, int]:
        """Final places of the players decided so far (everyone once the bracket is finished)."""
        return self.bracket(entrants, options, history).placements

    def champion(self, entrants: Sequence[Any], options: Mapping[str, Any] | Options | None = None,
                 history: History | None = None) -> PlayerId | None:
        """The winner, once the bracket is finished."""
        return self.bracket(entrants, options, history).champion

    def total_rounds(self, entrant_count: int, options: Mapping[str, Any] | Options | None = None) -> None:
        return None  # depends on byes and (double elimination) on a grand-final reset

    def _pair(self, field_: Field, options: Options, history: History) -> Pairing | None:
        bracket = resolve(self.structure(len(field_.entrants), options), field_, history)
        ready = bracket.ready()
        if not ready:
            return None
        number = max(history.last_round + 1, min(state.due for state in ready))
        records = seat_records(history)
        tables = tuple(
            Table(seat_two(*_by_seed(state.players, field_), records, board), match=state.id)
            for board, state in enumerate(s for s in ready if s.due <= number)
        )
        gone = history.absent_in(number)
        byes = tuple(state.winner for state in bracket.matches
                     if state.status == "bye" and state.due == number and state.winner not in gone)
        return Pairing(number, tables, byes)


class SingleEliminationFormat(EliminationFormat):
    """Single elimination with standard seeding and an optional third-place match."""

    slug = "single-elimination"
    option_keys = COMMON_KEYS | {"third_place"}

    def structure(self, entrant_count: int, options: Options) -> list[BracketMatch]:
        return single_elimination_bracket(entrant_count, third_place=options.third_place)


FORMAT = SingleEliminationFormat()


def standard_order(size: int) -> list[int]:
    """Seed numbers down the bracket lines: 8 → [1, 8, 4, 5, 2, 7, 3, 6]."""
    order = [1]
    while len(order) < size:
        mirror = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, mirror - top)]
    return order


def single_elimination_bracket(entrant_count: int, *, third_place: bool = False) -> list[BracketMatch]:
    """The matches of a single-elimination bracket for that many entrants, in play order."""
    size = next_power_of_two(entrant_count)
    depth = size.bit_length() - 1
    lines = standard_order(size)
    third = third_place and depth >= 2
    matches = []
    for rnd in range(1, depth + 1):
        for index in range(size >> rnd):
            if rnd == 1:
                sources = (Source("seed", lines[2 * index]), Source("seed", lines[2 * index + 1]))
            else:
                sources = (Source("winner", match_id("W", rnd - 1, 2 * index)),
                           Source("winner", match_id("W", rnd - 1, 2 * index + 1)))
            matches.append(BracketMatch(
                id=match_id("W", rnd, index), side="winners" if rnd < depth else "final", round=rnd,
                position=index, sources=sources,
                winner_to=(match_id("W", rnd + 1, index // 2), index % 2) if rnd < depth else None,
                loser_to=("3P", index) if third and rnd == depth - 1 else None,
                stage=2 * rnd, deciding=rnd == depth,
            ))
    if third:
        semis = [Source("loser", match_id("W", depth - 1, index)) for index in (0, 1)]
        matches.append(BracketMatch(id="3P", side="third-place", round=1, position=0,
                                    sources=(semis[0], semis[1]), stage=2 * depth - 1))
    return matches


def match_id(side: str, rnd: int, index: int) -> str:
    """"W2.3": side letter, round, 1-based position."""
    return f"{side}{rnd}.{index + 1}"


# --- resolution -----------------------------------------------------------------------------


def resolve(structure: Sequence[BracketMatch], field_: Field, history: History) -> Bracket:
    """Fills a bracket structure from the results: states, champion, placements."""
    by_id = {m.id: m for m in structure}
    results = _results_by_match(history.results, by_id)
    ids = field_.ids
    absent = _Absence(history.leaving(), history.last_round + 1)
    states: dict[str, MatchState] = {}
    finish: dict[PlayerId, tuple[int, int]] = {}  # eliminated or finished: (stage, won)
    champion = None
    for match in structure:
        players, timing = _slot_players(match, states, ids)
        if match.reset_of is not None:
            final = states[match.reset_of]
            state = _reset_state(match, players, timing, final, results, absent, field_, finish)
        else:
            state = _match_state(match, players, timing, results, absent, field_, by_id, finish)
        states[match.id] = state
        if state.status in ("played", "bye"):
            _record_finish(state, finish)
            if match.deciding and state.winner is not BYE:
                champion = state.winner
    done = all(state.status in ("played", "bye", "void") for state in states.values())
    placements = _placements(finish, champion, done, ids)
    return Bracket(tuple(states[m.id] for m in structure), champion if done else None, placements, done)


def _results_by_match(results: Sequence[Result], by_id: Mapping[str, BracketMatch]) -> dict[str, Result]:
    found: dict[str, Result] = {}
    for res in results:
        if res.match is None or res.match not in by_id:
            raise ValueError(f"an elimination result must name a match of the bracket, not {res.match!r}")
        if res.match in found:
            raise ValueError(f"two results for match {res.match}")
        if res.ranks is None or len(res.seats) != 2:
            raise ValueError(f"match {res.match} needs a two-player ranked result")
        found[res.match] = res
    return found


def _slot_players(match: BracketMatch, states: Mapping[str, MatchState],
                  ids: Sequence[PlayerId]) -> tuple[list[Any], dict[str, int]]:
    """The two slots' players, and the match's `due` and `natural` rounds.

    A match is due one round after both slots are known (a bye counts as happening in
    its due round) but never before its natural round, so rounds follow the bracket.
    """
    players, known_after, natural = [], 0, 1
    for source in match.sources:
        if source.kind == "seed":
            assert isinstance(source.ref, int)
            players.append(ids[source.ref - 1] if source.ref <= len(ids) else BYE)
            continue
        feeder = states[str(source.ref)]
        players.append(feeder.winner if source.kind == "winner" else feeder.loser)
        after = feeder.round if feeder.status == "played" else feeder.due
        assert after is not None  # a played match records its round
        known_after = max(known_after, after)
        natural = max(natural, feeder.natural + 1)
    return players, {"due": max(known_after + 1, natural), "natural": natural}


def _match_state(match: BracketMatch, players: list[Any], timing: dict[str, int], results: Mapping[str, Result],
                 absent: _Absence, field_: Field, by_id: Mapping[str, BracketMatch],
                 finish: dict[PlayerId, tuple[int, int]]) -> MatchState:
    res = results.get(match.id)
    if any(player is None for player in players):
        if res is not None:
            raise ValueError(f"match {match.id} has a result but its players are not known yet")
        return MatchState(match, (players[0], players[1]), "waiting", **timing)
    if res is not None:
        if set(res.seats) != set(players):
            raise ValueError(f"the result for {match.id} seats {res.seats}, not {tuple(players)}")
        winner, loser = _winner_loser(res, field_)
        return MatchState(match, (players[0], players[1]), "played", winner, loser, res.round, **timing)
    if BYE not in players:  # a walkover: an absent player goes out here (a bye already taken stands)
        for player in absent.walked_over(players, timing["due"]):
            target = by_id[match.loser_to[0]] if match.loser_to else match
            finish[player] = (target.stage, 0)
            players[players.index(player)] = BYE
    real = [player for player in players if player is not BYE]
    if len(real) == 2:
        return MatchState(match, (players[0], players[1]), "ready", **timing)
    if len(real) == 1:
        return MatchState(match, (players[0], players[1]), "bye", real[0], BYE, **timing)
    return MatchState(match, (players[0], players[1]), "void", BYE, BYE, **timing)


@dataclass(frozen=True)
class _Absence:
    """Who has left, and from which round; `current` is the round being paired."""

    leaving: Mapping[PlayerId, int]
    current: int

    def walked_over(self, players: Sequence[PlayerId], due: int) -> list[PlayerId]:
        """The players of an unplayed match who lose it by not being there.

        Absence is judged in the match's own round first, so a walkover decided then
        stands when the winner leaves later; a match still pending is judged now.
        """
        for number in (due, max(due, self.current)):
            gone = [player for player in players if self.leaving.get(player, number + 1) <= number]
            if gone:
                return gone
        return []


def _reset_state(match: BracketMatch, players: list[Any], timing: dict[str, int], final: MatchState,
                 results: Mapping[str, Result], absent: _Absence, field_: Field,
                 finish: dict[PlayerId, tuple[int, int]]) -> MatchState:
    """A grand-final reset: played only when the losers'-bracket finalist won the final."""
    if final.status in ("waiting", "ready"):
        return MatchState(match, (None, None), "waiting", **timing)
    upset = final.status == "played" and final.winner == final.players[1]
    if not upset:
        if final.loser is not BYE and final.loser is not None:
            finish[final.loser] = (final.match.stage, 0)
        if match.id in results:
            raise ValueError(f"match {match.id} was not needed but has a result")
        return MatchState(match, (None, None), "void", final.winner, final.loser, **timing)
    return _match_state(match, players, timing, results, absent, field_, {}, finish)


def _winner_loser(res: Result, field_: Field) -> tuple[PlayerId, PlayerId]:
    assert res.ranks is not None
    (rank_a, a), (rank_b, b) = zip(res.ranks, res.seats)
    if rank_a != rank_b:
        return (a, b) if rank_a < rank_b else (b, a)
    return (a, b) if field_.seed_index[a] < field_.seed_index[b] else (b, a)  # a tie goes to the higher seed


def _record_finish(state: MatchState, finish: dict[PlayerId, tuple[int, int]]) -> None:
    match = state.match
    if state.loser is not BYE and match.loser_to is None:
        finish[state.loser] = (match.stage, 0)
    if state.winner is not BYE and match.winner_to is None and not match.deciding:
        finish[state.winner] = (match.stage, 1)


def _placements(finish: Mapping[PlayerId, tuple[int, int]], champion: PlayerId | None, done: bool,
                ids: Sequence[PlayerId]) -> dict[PlayerId, int]:
    """Place = 1 + players who went further (alive players count as further)."""
    placed = {player: key for player, key in finish.items() if player != champion}
    ahead = len(ids) - len(placed)  # the champion and everyone still in
    keys = sorted(placed.values())
    places = {player: 1 + ahead + len(keys) - bisect_right(keys, key) for player, key in placed.items()}
    if done and champion is not None:
        places[champion] = 1
    return places


def _by_seed(players: tuple[Any, Any], field_: Field) -> tuple[PlayerId, PlayerId]:
    a, b = players
    return (a, b) if field_.seed_index[a] < field_.seed_index[b] else (b, a)
