"""Player-contributed shuffles: the deal follows from the server's committed seed and what each
seated player sent before the start. Pure: used by the services, verification and the offline
verifiers.

The server draws its seed first and publishes its SHA-256 (`chain.seed_sha256`) while the table
is still open; each seated person may then send a contribution, 32 random bytes as 64 lowercase
hex digits. At the start the deck's seed is

    HMAC-SHA-256(key = the server seed in decimal ASCII,
                 message = canonical JSON of [{"seat": s, "value": v}, ...] in seat order),

its first 8 bytes read big-endian and shifted right by 2 (a 62-bit number, the range of the
server's own seeds). `MatchStarted` records `{"derivation": DERIVATION, "contributions": [...]}`;
`MatchFinished` reveals the server seed, and anyone re-derives the deck. The server cannot choose
the deal after seeing the contributions (its seed was committed first), and no player can (they
never see the server seed before the end).
"""
from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from games.chain import canonical_json

DERIVATION = "hmac-sha256/1"
_CONTRIBUTION = re.compile(r"[0-9a-f]{64}")


def contribution_valid(value: Any) -> bool:
    """A contribution is exactly 64 lowercase hex digits (32 bytes)."""
    return isinstance(value, str) and _CONTRIBUTION.fullmatch(value) is not None


def contributions_canonical(by_seat: dict[int, str]) -> list[dict[str, Any]]:
    """The contributions as `MatchStarted` records them and the derivation hashes them: seat order."""
    return [{"seat": seat, "value": by_seat[seat]} for seat in sorted(by_seat)]


def deck_seed(server_seed: int, contributions: list[dict[str, Any]], derivation: str = DERIVATION) -> int:
    """The seed the deck is shuffled with, from the server's seed and the contributions."""
    if derivation != DERIVATION:
        raise ValueError(f"unknown shuffle derivation {derivation!r}")
    digest = hmac.new(
        str(server_seed).encode("ascii"), canonical_json(contributions).encode("utf-8"), hashlib.sha256
    ).digest()
    return int.from_bytes(digest[:8], "big") >> 2


def shuffle_problem(shuffle: Any, players: int) -> str | None:
    """What is wrong with a `MatchStarted` shuffle record (from a file anyone may have written), or None."""
    if not isinstance(shuffle, dict) or shuffle.get("derivation") != DERIVATION:
        return f"the shuffle record does not name the derivation {DERIVATION!r}"
    contributions = shuffle.get("contributions")
    if not isinstance(contributions, list):
        return "the shuffle record has no list of contributions"
    seats = []
    for item in contributions:
        if not isinstance(item, dict) or set(item) != {"seat", "value"}:
            return "a contribution is not {seat, value}"
        seat = item["seat"]
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < players:
            return f"a contribution names no seat of the table: {seat!r}"
        if not contribution_valid(item["value"]):
            return f"seat {seat}'s contribution is not 64 lowercase hex digits"
        seats.append(seat)
    if seats != sorted(set(seats)):
        return "the contributions are not one per seat in seat order"
    return None
