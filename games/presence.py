"""Who is connected to each table: shared through Redis when there is one, else in this process.

An entry per socket: `{"user", "seat", "name"}` with the time it was last refreshed. Sockets
refresh their entry while they live, so entries of a crashed server fade out after `TTL`.
"""
from __future__ import annotations

import json
import threading
import time
from functools import lru_cache

from django.conf import settings

TTL = 90.0


def _summary(entries: list[dict]) -> dict:
    seated = {e["seat"]: e["name"] for e in entries if e.get("seat") is not None}
    return {
        "seats": [{"seat": seat, "name": seated[seat]} for seat in sorted(seated)],
        "spectators": sum(1 for e in entries if e.get("seat") is None),
    }


class LocalPresence:
    def __init__(self) -> None:
        self._tables: dict[int, dict[str, tuple[float, dict]]] = {}
        self._lock = threading.Lock()

    def join(self, match_id: int, socket_id: str, entry: dict) -> None:
        with self._lock:
            self._tables.setdefault(match_id, {})[socket_id] = (time.monotonic(), entry)

    def leave(self, match_id: int, socket_id: str) -> None:
        with self._lock:
            self._tables.get(match_id, {}).pop(socket_id, None)

    def summary(self, match_id: int) -> dict:
        now = time.monotonic()
        with self._lock:
            live = [entry for at, entry in self._tables.get(match_id, {}).values() if now - at < TTL]
        return _summary(live)


class RedisPresence:
    def __init__(self, url: str) -> None:
        import redis

        self._redis = redis.Redis.from_url(url)

    @staticmethod
    def _key(match_id: int) -> str:
        return f"presence:match:{match_id}"

    def join(self, match_id: int, socket_id: str, entry: dict) -> None:
        key = self._key(match_id)
        pipe = self._redis.pipeline()
        pipe.hset(key, socket_id, json.dumps({**entry, "at": time.time()}))
        pipe.expire(key, int(TTL * 2))
        pipe.execute()

    def leave(self, match_id: int, socket_id: str) -> None:
        self._redis.hdel(self._key(match_id), socket_id)

    def summary(self, match_id: int) -> dict:
        now = time.time()
        entries = [json.loads(raw) for raw in self._redis.hgetall(self._key(match_id)).values()]
        return _summary([e for e in entries if now - e["at"] < TTL])


@lru_cache(maxsize=1)
def presence() -> LocalPresence | RedisPresence:
    return RedisPresence(settings.REDIS_URL) if settings.REDIS_URL else LocalPresence()
