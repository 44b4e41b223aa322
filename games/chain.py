"""The hash chain over a match's events. Pure: used by the store, `verify_events` and import.

Each match is hashed under one chain version, kept with the match (`Match.chain_version`) and
in its export file's header. `CHAIN_COVERS` names what each version's hash covers; a version
never changes once matches are stored under it, so old matches keep verifying.
"""
from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any

GENESIS_HASH = ""

# The event's fields each version hashes. Version 1 left out `type` (it repeats `data.type`)
# and `created`, so an event's time could be changed unseen; version 2 covers every stored column.
CHAIN_COVERS: dict[int, tuple[str, ...]] = {
    1: ("seq", "kind", "actor", "data"),
    2: ("seq", "kind", "type", "actor", "data", "created"),
}
CHAIN_VERSION = 2  # new matches'


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def canonical_time(moment: datetime) -> str:
    """One spelling of an event's time, as version 2 hashes it: ISO 8601 in UTC with
    microseconds and a Z, e.g. 2026-12-03T10:22:32.123456Z (microseconds: what PostgreSQL keeps)."""
    if moment.tzinfo is None:
        raise ValueError("an event's time must say its time zone")
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def event_hash(
    previous_hash: str, *, version: int, seq: int, kind: str, type: str, actor: str, data: dict, created: str
) -> str:
    """sha256(previous hash + canonical JSON of the fields `CHAIN_COVERS[version]` names), as hex.

    `created` is `canonical_time` of the event's time (version 1 ignores it, and `type`).
    """
    fields = {"seq": seq, "kind": kind, "type": type, "actor": actor, "data": data, "created": created}
    body = canonical_json({name: fields[name] for name in CHAIN_COVERS[version]})
    return hashlib.sha256((previous_hash + body).encode("utf-8")).hexdigest()


def seed_sha256(seed: int) -> str:
    """The public commitment to a match's seed, published when it starts."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()
