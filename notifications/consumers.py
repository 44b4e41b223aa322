"""A person's notifications, live: `/ws/notifications/` (authenticated as the table's socket is).

On connect: `{"type": "unread", "unread": N, "latest": [notification, ...]}` (the newest ten,
read or not). Then one `{"type": "notification", "notification": {...}, "unread": N}` for each
new unread notification. The channel layer's hint (`notifications.changed`, at most once) only
says "look": the socket sends what is newer than the last one it sent, read from the database
for its own user, so a lost hint is made up by the next one, a `ping`, or the poll of the
embedded default. `{"type": "ping"}` -> anything new, then `{"type": "pong", "unread": N}`.

An anonymous socket is sent a `not_authenticated` error frame and closed with 4401; one whose
token or session ends is closed with 4401 too, within `SOCKET_CREDENTIAL_CHECK_SECONDS`.
A person holds at most `MAX_NOTIFICATION_SOCKETS_PER_USER` of these sockets, counted over every
process in presence (`games.presence`, as a table's sockets are): one more is sent a
`too_many_notification_sockets` error frame and closed with 4429.
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from typing import TYPE_CHECKING, cast

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _

from accounts.sockets import credential_ended
from games.presence import TTL, notification_place, presence
from notifications import selectors, services
from notifications.serializers import NotificationOutputSerializer
from server import languages, live, metrics

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

_MAX_FRAME_BYTES = 1024
_PING_SECONDS = 1.0  # a ping reads the database: at most one a second is answered
log = logging.getLogger(__name__)


class NotificationConsumer(AsyncJsonWebsocketConsumer):
    async def dispatch(self, message: dict) -> None:
        if not hasattr(self, "language"):
            self.language = await _in_thread(languages.of_scope)(self.scope)
        # Active for this socket's task alone (a context variable): other sockets keep theirs.
        with translation.override(self.language):
            await super().dispatch(message)

    async def connect(self) -> None:
        user = self.scope.get("user")
        await self.accept()  # first, so that a refused client reads why
        if user is None or not user.is_authenticated:
            await self._error("not_authenticated", _("Log in to get your notifications."))
            await self.close(code=4401)
            return
        self.user_id = user.pk
        self.socket_id = uuid.uuid4().hex
        self.place = notification_place(self.user_id)
        self.entry = {"user": self.user_id, "seat": None, "name": None, "client": str(self.user_id)}
        cap = settings.MAX_NOTIFICATION_SOCKETS_PER_USER
        if await self._presence("claim", self.entry, cap) is False:
            await self._error(
                "too_many_notification_sockets",
                _("At most %(cap)s notification sockets per person: close one first.") % {"cap": cap},
            )
            await self.close(code=4429)
            return
        metrics.sockets_open.labels("notifications").inc()  # down again in disconnect, which needs `tasks`
        self.tasks: list[asyncio.Future] = []
        self.group = services.user_group(self.user_id)
        joined = await live.joined(self._join, self.group)
        unread, latest = await _in_thread(_snapshot)(self.user_id)
        self.last_id = latest[0]["id"] if latest else 0
        self.last_ping = 0.0
        await self.send_json({"type": "unread", "unread": unread, "latest": latest})
        self.tasks.append(asyncio.ensure_future(self._check_credential(user)))
        self.tasks.append(asyncio.ensure_future(self._refresh_presence()))
        if settings.LIVE_POLL_SECONDS > 0:  # the embedded default: the worker's hints do not reach here
            self.tasks.append(asyncio.ensure_future(self._poll()))
        if not joined:
            self.tasks.append(asyncio.ensure_future(self._join_when_back()))

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "tasks"):
            return
        metrics.sockets_open.labels("notifications").dec()
        for task in self.tasks:
            task.cancel()
        await self._presence("leave")
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        except Exception:  # the layer may be away; the socket is closing anyway
            log.warning("could not leave group %s", self.group, exc_info=True)

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if not hasattr(self, "tasks"):
            return  # refused at connect and closing
        try:
            message = json.loads(text_data) if text_data and len(text_data) <= _MAX_FRAME_BYTES else None
        except ValueError:
            message = None
        if not isinstance(message, dict) or message.get("type") != "ping":
            await self._error("unknown_frame", _("The only frame this socket takes is {\"type\": \"ping\"}."))
            return
        if time.monotonic() - self.last_ping < _PING_SECONDS:
            await self._error(
                "rate_limited", _("At most one ping every %(seconds)s s.") % {"seconds": format(_PING_SECONDS, "g")}
            )
            return
        self.last_ping = time.monotonic()
        await self._send_new()
        await self.send_json({"type": "pong", "unread": await _in_thread(selectors.unread_count)(user_id=self.user_id)})

    async def notifications_changed(self, message: dict) -> None:
        await self._send_new()

    async def _send_new(self) -> None:
        """Sends the unread notifications newer than the last one sent, each with the count."""
        unread, new = await _in_thread(_newer)(self.user_id, self.last_id)
        for notification in new:
            self.last_id = max(self.last_id, notification["id"])
            await self.send_json({"type": "notification", "notification": notification, "unread": unread})

    async def _join(self) -> None:
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def _join_when_back(self) -> None:
        """Until the socket has joined, it catches up on its pings; once joined, it is sent what
        the hints it missed would have brought."""
        await live.join_retried(self._join, self.group)
        with contextlib.suppress(OSError):  # the client has gone: disconnect follows
            await self._send_new()

    async def _poll(self) -> None:
        while True:
            await asyncio.sleep(settings.LIVE_POLL_SECONDS)
            await self._send_new()

    async def _refresh_presence(self) -> None:
        """Keeps this socket's place in the count; a crashed server's places fade after TTL."""
        while True:
            await asyncio.sleep(TTL / 3)
            await self._presence("join", self.entry)

    async def _presence(self, operation: str, *args):
        """As at a table: while Redis is away, sockets are let in uncounted (None), not refused."""
        try:
            return await _in_thread(getattr(presence(), operation))(self.place, self.socket_id, *args)
        except Exception:  # noqa: BLE001 - the client library's own connection errors
            log.warning("presence %s failed for %s", operation, self.place, exc_info=True)
            return None

    async def _check_credential(self, user) -> None:
        """As the table's socket: once its token or session ends, it is told so and closed."""
        await credential_ended(self.scope, user.pk)
        await self._error("credential_revoked", _("Your token or session has ended: log in again."))
        await self.close(code=4401)

    async def _error(self, code: str, message: StrOrPromise) -> None:
        await self.send_json({"type": "error", "code": code, "message": str(message)})


# The `cast`s: a many=True serializer's data is a list; the stubs type every serializer's data as a dict.
def _snapshot(user_id: int) -> tuple[int, list[dict]]:
    latest = selectors.notification_list(user_id=user_id)[: selectors.LATEST_ON_CONNECT]
    return selectors.unread_count(user_id=user_id), cast(list[dict], NotificationOutputSerializer(latest, many=True).data)


def _newer(user_id: int, after_id: int) -> tuple[int, list[dict]]:
    new = selectors.unread_after(user_id=user_id, after_id=after_id)
    if not new:
        return 0, []
    return selectors.unread_count(user_id=user_id), cast(list[dict], NotificationOutputSerializer(new, many=True).data)


def _in_thread(func):
    """Blocking work in the loop's thread pool, not queued behind every other socket's."""
    return database_sync_to_async(func, thread_sensitive=False)
