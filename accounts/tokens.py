"""API token keys: how a key is made and the form it is stored and looked up in."""
from __future__ import annotations

import hashlib
import secrets


def key_new() -> str:
    return secrets.token_hex(20)  # 40 characters, as DRF's tokens were


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
