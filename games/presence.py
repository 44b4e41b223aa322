"""Who is connected to each table: shared through Redis when there is one, else in this process.

An entry per socket: `{"user", "seat", "name", "client"}` with the time it was last refreshed.
Sockets refresh their entry while they live, so entries of a crashed server fade out after
`TTL`. A socket's first entry is a `claim`: refused when its client (the user, or an anonymous
socket's address) already has `cap` live sockets at the table, so the entries are also the count
of sockets per client and table. `client` never leaves the server: summaries name seats only.

The same entries count a person's notification sockets (`notifications.consumers`): a place
named `notifications:<user id>` instead of a table, claimed, refreshed and left the same way.
"""
from __future__ import annotations

import json
import threading
import time
from functools import lru_cache
from typing import cast

import redis

from server.redis_clients import redis_client, redis_configured

TTL = 90.0


def _summary(entries: list[dict]) -> dict:
    seated = {e["seat"]: e["name"] for e in entries if e.get("seat") is not None}
    return {
        "seats": [{"seat": seat, "name": seated[seat]} for seat in sorted(seated)],
        "spectators": sum(1 for e in entries if e.get("seat") is None),
    }


def notification_place(user_id: int) -> str:
    """Where a person's notification sockets are counted: one place per person, like a table."""
    return f"notifications:{user_id}"


class LocalPresence:
    def __init__(self) -> None:
        self._tables: dict[int | str, dict[str, tuple[float, dict]]] = {}
        self._lock = threading.Lock()

    def join(self, match_id: int | str, socket_id: str, entry: dict) -> None:
        self.join_many(match_id, {socket_id: entry})

    def join_many(self, match_id: int | str, entries: dict[str, dict]) -> None:
        """`join` for many sockets of one place at once."""
        now = time.monotonic()
        with self._lock:
            self._tables.setdefault(match_id, {}).update({socket_id: (now, entry) for socket_id, entry in entries.items()})

    def claim(self, match_id: int | str, socket_id: str, entry: dict, cap: int) -> bool:
        now = time.monotonic()
        with self._lock:
            table = self._tables.setdefault(match_id, {})
            held = sum(1 for at, e in table.values() if e.get("client") == entry["client"] and now - at < TTL)
            if held >= cap:
                return False
            table[socket_id] = (now, entry)
            return True

    def leave(self, match_id: int | str, socket_id: str) -> None:
        with self._lock:
            self._tables.get(match_id, {}).pop(socket_id, None)

    def summary(self, match_id: int) -> dict:
        now = time.monotonic()
        with self._lock:
            live = [entry for at, entry in self._tables.get(match_id, {}).values() if now - at < TTL]
        return _summary(live)


# Counts the client's live entries and adds the new one in one step, so that sockets opened at
# once on several processes cannot all pass; entries past TTL (a crashed server's) are dropped.
_CLAIM = """
local now, ttl, cap = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local entries = redis.call('HGETALL', KEYS[1])
local held = 0
for i = 1, #entries, 2 do
  local entry = cjson.decode(entries[i + 1])
  if now - entry.at >= ttl then
    redis.call('HDEL', KEYS[1], entries[i])
  elseif entry.client == ARGV[3] then
    held = held + 1
  end
end
if held >= cap then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], math.floor(ttl * 2))
return 1
"""


class RedisPresence:
    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._claim = self._redis.register_script(_CLAIM)

    @staticmethod
    def _key(match_id: int | str) -> str:
        # A table's key is its id, as it always was; another place (a string) has its own prefix.
        return f"presence:match:{match_id}" if isinstance(match_id, int) else f"presence:{match_id}"

    def join(self, match_id: int | str, socket_id: str, entry: dict) -> None:
        self.join_many(match_id, {socket_id: entry})

    def join_many(self, match_id: int | str, entries: dict[str, dict]) -> None:
        """`join` for many sockets of one place at once, in one round trip."""
        key, now = self._key(match_id), time.time()
        pipe = self._redis.pipeline()
        pipe.hset(key, mapping={socket_id: json.dumps({**entry, "at": now}) for socket_id, entry in entries.items()})
        pipe.expire(key, int(TTL * 2))
        pipe.execute()

    def claim(self, match_id: int | str, socket_id: str, entry: dict, cap: int) -> bool:
        now = time.time()
        text = json.dumps({**entry, "at": now})
        return bool(self._claim(keys=[self._key(match_id)], args=[socket_id, text, entry["client"], now, TTL, cap]))

    def leave(self, match_id: int | str, socket_id: str) -> None:
        self._redis.hdel(self._key(match_id), socket_id)

    def summary(self, match_id: int) -> dict:
        now = time.time()
        # redis-py types its commands for the sync and async clients at once; this one is sync.
        found = cast(dict, self._redis.hgetall(self._key(match_id)))
        entries = [json.loads(raw) for raw in found.values()]
        return _summary([e for e in entries if now - e["at"] < TTL])


@lru_cache(maxsize=1)
def presence() -> LocalPresence | RedisPresence:
    return RedisPresence(redis_client()) if redis_configured() else LocalPresence()
