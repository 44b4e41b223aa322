"""The JSON shapes the games API sends, as its selectors build them (datetimes before rendering).

Each has its serializer in `games/api.py`; tests/server/test_shapes.py holds the two
to the same keys.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict


class MatchSummary(TypedDict):
    id: int
    game: str
    status: str
    players: int
    rated: bool
    private: bool
    rating: MatchRating | None
    options: dict[str, Any]
    deck_chosen: bool
    created_by: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    seats: list[MatchSeat]
    seq: int
    seed_sha256: str
    seed: int | None
    shuffle: ShuffleShown | None
    outcome: dict[str, Any] | None
    ranks: list[int] | None
    clock_seconds: int | None
    deadline: datetime | None
    rematch_of: int | None
    rematch: int | None
    spectator_policy: str
    spectator_delay_moves: int | None
    concession: ConcessionShown | None


class ConcessionShown(TypedDict):
    agreed: list[int]
    waiting: list[int]


class MatchView(TypedDict):
    match: int
    seq: int
    seat: int | None
    view: dict[str, Any] | None
    legal_moves: list[dict[str, Any]]


class MatchRating(TypedDict):
    rated: bool
    reason: str | None
    seats: list[int]


class MatchSeat(TypedDict):
    seat: int
    user: int | None
    name: str | None
    bot: str
    ready: bool
    abandoned: bool


class ShuffleShown(TypedDict):
    derivation: str
    contributed_seats: list[int]
    contributions: list[ContributionShown] | None


class ContributionShown(TypedDict):
    seat: int
    value: str


class FrameBody(TypedDict):
    """A table socket's `snapshot` or `update` frame, without the `type` and `seat` it is sent
    with (`games.frames`): the head, what the seat may see of it, and the events since."""

    seq: int
    status: str
    deadline: str | None  # ISO 8601, as the head holds it
    view: dict[str, Any] | None
    legal_moves: list[dict[str, Any]]
    events: list[dict[str, Any]]


class MoveAnswer(TypedDict):
    match: int
    seq: int
    events: list[LoggedEvent]
    view: dict[str, Any]
    legal_moves: list[dict[str, Any]]



class RawEvent(TypedDict):
    seq: int
    kind: str
    type: str
    data: dict[str, Any]
    actor: str
    created: datetime
    hash: str



class InvitationShown(TypedDict):
    id: int
    match: int
    seat: int | None
    invitee: str | None
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None



class DecisionPoint(TypedDict):
    seq: int
    after: int
    seat: int
    move: dict[str, Any]
    actor: str



class LoggedEvent(TypedDict):
    seq: int
    event: dict[str, Any]
