"""The JSON shapes the notifications API sends, as its selectors build them (datetimes before rendering).

Each has its serializer in `notifications/serializers.py`; tests/server/test_shapes.py holds the two
to the same keys.
"""
from __future__ import annotations

from datetime import datetime
from typing import TypedDict


class NotificationShown(TypedDict):
    id: int
    kind: str
    title: str
    body: str
    url: str
    created_at: datetime
    read_at: datetime | None
    sender: str | None
