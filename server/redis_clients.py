"""The one place that knows where Redis is: every user of Redis gets its client or its
configuration here.

`REDIS_URL` names one server. `REDIS_SENTINELS` (`host:port,host:port,...`) names Redis Sentinels
instead, which name the master of `REDIS_SENTINEL_SERVICE` (database `REDIS_SENTINEL_DB`); they
win when both are set. A Sentinel-managed client asks the Sentinels for the master whenever it
opens a connection, so after a failover the first command that finds its connection broken
fails, and the next one reaches the new master (pub/sub connections re-subscribe as they
reconnect). What a failover loses is only in flight: moves commit in PostgreSQL first, and
Redis carries hints and tasks that the sockets' `seq` and the sweeps make up for.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import redis
import redis.asyncio
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from redis.asyncio.sentinel import Sentinel as AsyncSentinel
from redis.sentinel import Sentinel

# For the connections to the Sentinels themselves: one that does not answer at once is skipped
# for the next, rather than holding up every connection to the master.
_SENTINEL_OPTIONS = {"socket_timeout": 1.0, "socket_connect_timeout": 1.0}


def sentinels_parsed(text: str) -> list[tuple[str, int]]:
    """`host:port,host:port` as `[(host, port), ...]` (an IPv6 host in brackets: `[::1]:26379`)."""
    hosts = []
    for entry in filter(None, (part.strip() for part in text.split(","))):
        host, _, port = entry.rpartition(":")
        if not host or not port.isdigit():
            raise ImproperlyConfigured(f"REDIS_SENTINELS: {entry!r} is not host:port")
        hosts.append((host.removeprefix("[").removesuffix("]"), int(port)))
    return hosts


@dataclass(frozen=True)
class RedisLocation:
    """Where Redis is: the server at `url`, or, when `sentinels` are given, the master that they
    name for `service` (database `db`)."""

    url: str
    sentinels: list[tuple[str, int]] = field(default_factory=list)
    service: str = "mymaster"
    db: int = 0

    @classmethod
    def from_settings(cls) -> RedisLocation:
        """As the settings say (read anew each time: tests change them)."""
        return cls(settings.REDIS_URL, settings.REDIS_SENTINELS, settings.REDIS_SENTINEL_SERVICE, settings.REDIS_SENTINEL_DB)

    @property
    def is_set(self) -> bool:
        """Whether there is a Redis at all (the embedded default has none)."""
        return bool(self.sentinels or self.url)

    def client(self, **options: Any) -> redis.Redis:
        if self.sentinels:
            sentinel = Sentinel(self.sentinels, sentinel_kwargs=_SENTINEL_OPTIONS)
            return sentinel.master_for(self.service, db=self.db, **options)
        return redis.Redis.from_url(self.url, **options)

    def async_client(self, **options: Any) -> redis.asyncio.Redis:
        if self.sentinels:
            sentinel = AsyncSentinel(self.sentinels, sentinel_kwargs=_SENTINEL_OPTIONS)
            return sentinel.master_for(self.service, db=self.db, **options)
        return redis.asyncio.Redis.from_url(self.url, **options)

    def channel_layer_host(self) -> str | dict:
        """A `hosts` entry of channels_redis's layers (it makes its own Sentinel-managed pool)."""
        if self.sentinels:
            return {"sentinels": self.sentinels, "master_name": self.service, "db": self.db,
                    "sentinel_kwargs": _SENTINEL_OPTIONS}
        return self.url

    def celery_broker(self) -> tuple[str, dict]:
        """Celery's broker URL and transport options: kombu's `sentinel://` transport names every
        Sentinel in one URL, `;` between them, and the master in the options."""
        if self.sentinels:
            hosts = ";".join(f"sentinel://{_in_url(host)}:{port}/{self.db}" for host, port in self.sentinels)
            return hosts, {"master_name": self.service, "sentinel_kwargs": _SENTINEL_OPTIONS}
        return self.url, {}


def redis_configured() -> bool:
    return RedisLocation.from_settings().is_set


def redis_client(**options: Any) -> redis.Redis:
    """A new client of the master, with its own pool; `options` are redis-py's (timeouts)."""
    return RedisLocation.from_settings().client(**options)


def redis_async_client(**options: Any) -> redis.asyncio.Redis:
    """`redis_client` for asyncio; its connections belong to the event loop that first uses them."""
    return RedisLocation.from_settings().async_client(**options)


class CachePool:
    """Django's `RedisCache` (as its `pool_class`) on `redis_client`'s master; the cache's
    LOCATION is not read."""

    @staticmethod
    def from_url(url: str, **options: Any) -> redis.ConnectionPool:
        return redis_client(**options).connection_pool


def _in_url(host: str) -> str:
    return f"[{host}]" if ":" in host else host  # an IPv6 address
