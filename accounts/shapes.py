"""The JSON shapes the accounts API sends, as its selectors build them (datetimes before rendering).

Each has its serializer in `accounts/api.py`; tests/server/test_shapes.py holds the two
to the same keys.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any, TypedDict


class UserShown(TypedDict):
    id: int
    username: str
    display_name: str
    email: str
    avatar: int
    avatar_url: Any
    language: str
    invitations_from: str
    sound_volume: int


class MutedSenderShown(TypedDict):
    username: str
    display_name: str
    created: datetime


class TokenShown(TypedDict):
    id: int
    created: datetime
    expires: datetime
