"""The JSON shapes the tournaments API sends, as its selectors build them (datetimes before rendering).

Each has its serializer in its topic's module of `tournaments/api/`; tests/server/test_shapes.py
holds the two to the same keys.
"""
from __future__ import annotations

from datetime import date, datetime
from typing import Any, TypedDict

from tournaments.series import SeriesResultJson


class TournamentSummary(TypedDict):
    id: int
    name: str
    game: str
    format: str
    cooperative: bool
    options: dict[str, Any]
    match_options: dict[str, Any]
    organiser: int
    status: str
    starts_at: datetime | None
    round_seconds: int | None
    clock_seconds: int
    rated: bool
    max_entrants: int | None
    contributed_shuffle: bool
    spectator_policy: str
    spectator_delay_moves: int | None
    entrants: int
    total_rounds: int | None
    current_round: int | None
    champion: int | None
    seq: int
    seed_sha256: str
    seed: int | None
    created_at: datetime
    field_rules: dict[str, Any]
    check_in_opens_at: datetime | None
    waitlisted: int


class EntrantShown(TypedDict):
    id: int
    name: str
    user: int | None
    bot: str
    status: str
    seed: int | None
    rating: float | None
    checked_in: bool
    waitlist_position: int | None


class StandingShown(TypedDict):
    position: int
    rank: int
    place: int | None
    entrant: PlayerShown
    points: float
    points_exact: str
    played: int
    wins: int
    draws: int
    losses: int
    byes: int
    forfeits: int
    buchholz: float
    sonneborn_berger: float
    rating: float | None
    mean_team_score: float | None
    withdrawn: bool
    disqualified: bool


class RoundShown(TypedDict):
    round: int
    status: str
    date: date | None
    starts_at: datetime
    started_at: datetime | None
    deadline: datetime | None
    completed_at: datetime | None
    byes: list[PlayerShown]
    tables: list[TableShown]
    quality: PairingQuality | None
    quality_summary: str | None
    quality_details: list[str] | None


class PlayerShown(TypedDict):
    id: int
    name: str
    user: int | None
    bot: str


class TableShown(TypedDict):
    table: int
    seats: list[SeatedPlayer]
    bracket: str | None
    deal: int | None
    seed_sha256: str
    match: int | None
    match_url: str | None
    match_status: str | None
    absent: list[int]
    extra_seconds: int
    result: dict[str, Any] | None


class PairingQuality(TypedDict):
    tables: int
    table_sizes: list[int]
    byes: list[int]
    rematches: list[RematchShown]
    repeat_cost_minimal: bool | None
    seat_balance: SeatBalance
    score_spread: ScoreSpread


class SeatedPlayer(TypedDict):
    id: int
    name: str
    user: int | None
    bot: str
    seat: int


class RematchShown(TypedDict):
    players: list[int]
    meeting: int
    avoidable: bool | None


class SeatBalance(TypedDict):
    max_deviation: float
    out_of_balance: list[int]
    first_seat_spread: int


class ScoreSpread(TypedDict):
    per_table: list[float]
    mean: float
    max: float


class BracketShown(TypedDict):
    matches: list[dict[str, Any]]
    champion: int | None
    finished: bool
    placements: list[dict[str, Any]]
    entrants: list[PlayerShown]



class FieldDecision(TypedDict):
    seq: int
    type: str
    rule: str
    why: str
    entrants: list[PlayerShown]
    round: int | None
    actor: str
    created: datetime



class TableState(TypedDict):
    table: int
    seats: list[int]
    bracket: str
    match: int | None
    absent: list[int]
    result: dict[str, Any] | None



class TournamentExport(TypedDict):
    export: str
    version: int
    tournament: ExportedTournament
    format: str
    options: dict[str, Any]
    entrants: list[ExportedEntrant]
    withdrawn: dict[str, Any]
    disqualified: dict[str, Any]
    rounds: list[ExportedRound]



class TournamentEventShown(TypedDict):
    seq: int
    type: str
    data: dict[str, Any]
    actor: str
    created: datetime



class Matchday(TypedDict):
    round: int
    date: date | None
    starts_at: datetime | None
    status: str



class ExportedTournament(TypedDict):
    id: int
    name: str
    game: str



class ExportedEntrant(TypedDict):
    id: int
    rating: float | None
    entered: int



class ExportedRound(TypedDict):
    round: int
    byes: list[int]
    tables: list[ExportedTable]
    quality: PairingQuality | None



class ExportedTable(TypedDict):
    seats: list[int]
    ranks: list[int] | None
    team_score: float | None
    forfeited: list[int]


class SeriesEventShown(TypedDict):
    tournament: int
    tournament_seq: int
    name: str
    game: str
    tier: int
    status: str
    counted: bool


class SeriesShown(TypedDict):
    id: int
    name: str
    games: list[str]
    starts_on: date
    ends_on: date
    organiser: int
    rules: dict[str, Any]
    seq: int
    created_at: datetime
    events: list[SeriesEventShown]


class SeriesStandingShown(TypedDict):
    rank: int
    player: str
    name: str
    total: str
    played: int
    counting: int
    head_to_head: int
    results: list[SeriesResultJson]  # as tournaments.series gives each result


class SeriesWithStandings(SeriesShown):
    standings: list[SeriesStandingShown]


class PersonShown(TypedDict):
    id: int
    name: str


class JudgeCallShown(TypedDict):
    number: int
    round: int
    table: int
    seats: list[PersonShown]
    match: int | None
    match_url: str | None
    match_seq: int
    reason: str
    details: str | None
    caller: PersonShown | None
    called_at: datetime
    status: str
    claimed_by: PersonShown | None
    claimed_at: datetime | None
    ruling: dict[str, Any] | None
    resolved_by: PersonShown | None
    resolved_at: datetime | None
    last_seq: int


class JudgingQueue(TypedDict):
    calls: list[JudgeCallShown]
    judges: list[PersonShown | None]
    organiser: PersonShown | None
    head: int


class TableJudging(TypedDict):
    tournament: int
    round: int
    table: int
    deadline: datetime | None
    extra_seconds: int
    can_call: bool
    judges: bool
    calls: list[JudgeCallShown]


class SeriesDecisionShown(TypedDict):
    seq: int
    type: str
    data: dict[str, Any]
    actor: str
    created: datetime


class SeriesDecisionFeed(TypedDict):
    decisions: list[SeriesDecisionShown]
    next: int
    head: int
