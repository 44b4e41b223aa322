"""The hash chain over a match's events. Pure: used by the store, `verify_events` and import."""
from __future__ import annotations

import hashlib
import json
from typing import Any

GENESIS_HASH = ""


def canonical_json(value: Any) -> str:
    """One spelling of a JSON value: sorted keys, no spaces, UTF-8 kept as is."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def event_hash(previous_hash: str, *, seq: int, kind: str, actor: str, data: dict) -> str:
    """sha256(previous hash + canonical JSON of the event), as hex."""
    body = canonical_json({"seq": seq, "kind": kind, "actor": actor, "data": data})
    return hashlib.sha256((previous_hash + body).encode("utf-8")).hexdigest()


def seed_sha256(seed: int) -> str:
    """The public commitment to a match's seed, published when it starts."""
    return hashlib.sha256(str(seed).encode("ascii")).hexdigest()
