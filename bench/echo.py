"""The bare baseline of the live benchmarks: the channel-layer broadcast a move frame rides on.

A minimal Channels application, served by uvicorn exactly like the real server (same number of
workers, the same `channels_redis` RedisPubSubChannelLayer on the same Redis, the same
`AsyncJsonWebsocketConsumer` base class), with no Django apps, no database, no engine, no
authentication and no presence: each socket of `/ws/tables/<table>/` joins the table's group and
gets a `snapshot` frame; a `{"type": "move", "seq": n}` frame from any socket is group_sent to
the table's group and every socket of the table forwards it as `{"type": "update", "seq": n}`.

`bench.live` and `bench.memory` start it as `uvicorn bench.echo:application` with `REDIS_URL`.
"""
from __future__ import annotations

import asyncio
import os

import django
from django.conf import settings

if not settings.configured:
    settings.configure(
        DEBUG=False,
        INSTALLED_APPS=[],
        # The loop's lag is watched as the real server's is (server.loop_watch), for a baseline.
        LOOP_STATS_DIR=os.environ.get("LOOP_STATS_DIR", ""),
        LOOP_LAG_WARN_MS=10**6,
        CHANNEL_LAYERS={
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": [os.environ["REDIS_URL"]]},
            }
        },
    )
    django.setup()

from channels.generic.websocket import AsyncJsonWebsocketConsumer  # noqa: E402  (needs settings)
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import path  # noqa: E402

from server import loop_watch  # noqa: E402


class EchoTableConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        # A group name of its own, so it never meets the real server's `match.<id>` groups.
        self.group = f"echo.{int(self.scope['url_route']['kwargs']['table'])}"
        await self.accept()
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.send_json({"type": "snapshot", "seq": 0})

    async def disconnect(self, code: int) -> None:
        await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content, **kwargs) -> None:
        if isinstance(content, dict) and content.get("type") == "move":
            message = {"type": "table.move", "seq": int(content["seq"])}
            await self.channel_layer.group_send(self.group, message)

    async def table_move(self, message: dict) -> None:
        await self.send_json({"type": "update", "seq": message["seq"]})


async def _no_http(scope, receive, send) -> None:
    """Answers every HTTP request 204, so a starting server can be polled."""
    if scope["type"] == "http":
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})


_router = ProtocolTypeRouter(
    {
        "http": _no_http,
        "websocket": URLRouter([path("ws/tables/<int:table>/", EchoTableConsumer.as_asgi())]),
    }
)


async def application(scope, receive, send) -> None:
    loop_watch.watch(asyncio.get_running_loop())
    await _router(scope, receive, send)
