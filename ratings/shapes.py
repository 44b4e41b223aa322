"""The JSON shapes the ratings API sends, as its selectors build them (datetimes before rendering).

Each has its serializer in `ratings/api.py`; tests/server/test_shapes.py holds the two
to the same keys.
"""
from __future__ import annotations

from datetime import datetime
from typing import TypedDict


class LeaderboardRow(TypedDict):
    position: int | None
    competitor: str
    kind: str
    user: int | None
    name: str
    mu: float
    sigma: float
    rating: float
    games: int
    wins: int
    provisional: bool
    games_to_settle: int
    shown_rating: float
    last_played_at: datetime | None


class HistoryRow(TypedDict):
    match: int
    position: int
    finished_at: datetime | None
    players: int
    seat: int | None
    rank: int
    mu_before: float
    sigma_before: float
    mu_after: float
    sigma_after: float
    rating_after: float
    revision: int
    reversal: bool


class CooperativeRecord(TypedDict):
    opponent: str
    user: int | None
    name: str
    matches: int
    wins: int
    losses: int
    draws: int



class PredictedPlayer(TypedDict):
    player: str
    competitor: str
    name: str
    mu: float
    sigma: float
    rating: float
    games: int
    win_probability: float | None



class TeamResultShown(TypedDict):
    match: int
    players: int
    cards_left: int
    won: bool
    finished_at: datetime
    team: list[TeamMember]



class GameRatingShown(TypedDict):
    players: int
    competitor: str
    mu: float
    sigma: float
    rating: float
    games: int
    wins: int



class RatingParams(TypedDict):
    mu: float
    sigma: float
    beta: float
    tau: float
    draw_probability: float



class TeamMember(TypedDict):
    user: int | None
    name: str
    bot: str
