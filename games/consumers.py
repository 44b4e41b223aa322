"""The live table: `/ws/matches/<id>/?since=<seq>&token=<api token>`.

On connect the socket gets its seat's view (a spectator's without a seat) and the log it
missed since `since`. After every committed change it gets one `update` frame with the new
events as its seat may see them and its new view. Every frame carries `seq`; a client that
sees a gap sends `{"type": "resync", "since": <seq>}` (`"full": true` for a snapshot: the whole
view even with nothing new). With `?patches=1` an update carries the changes to the view the socket
was last sent (`view_patch` from `base`: `frames.view_patch`), not the view. Moves go through the same service as
the REST endpoint: `{"type": "move", "move": {...}, "id": "<client id>"}` -> `ack` or `error`.
`{"type": "auto_pass", "enabled": true}` makes the seat pass at once in interrupt windows.
Once the match has ended, its players review it together (issue #44 item 6): a seated person's
`{"type": "review_position", "seq": <position>}` is sent on as a `review_position` frame (with
the leader's `seat`) to every other socket of a person seated there, never to a spectator's.
The frames a client may send are `MatchConsumer.frame_handlers`; the table's socket as mounted
(`server/routing.py`) is `chat.consumers.TableConsumer`, which adds the table chat's frames to them.

A table closed to the socket's person (`selectors.can_watch`: a duplicate deal's table before the
deal is done, a closed table before its match has finished) sends one `table_closed_to_spectators`
error frame and closes with 4403, also when a closed table that was open to find seats at starts
while the socket has no seat there. At a delayed table, a person the policy puts behind is sent,
while they hold no seat, every view frame as the table was `spectator_delay_moves` moves before
its head (`frames.frame_text`'s `delay_moves`); a private
table to a stranger (`selectors.known_to`), like a number that names no table, one `match_not_found`
error frame and 4404.

A socket belongs to a person, not to a seat: every frame is built for the seat its user holds
at that frame's head (`frames.frame_text`), so leaving a table, or a seat taken by someone
else, changes what an open socket is sent at once, on every process.

A client (a user, or an anonymous socket's address) holds at most
`MAX_SOCKETS_PER_CLIENT_AND_TABLE` sockets at a table, counted over every process in presence:
one more is sent a `too_many_sockets` error frame and closed with 4429.
A sealed table's presence frames carry `"spectators": null`: a count that sockets opened from
outside could move is a signal to its players (issue #39).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from typing import TYPE_CHECKING, ClassVar
from urllib.parse import parse_qs

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.sockets import credential_ended
from games import fanout, fastlane, frames, notify, reviews, selectors, services
from games.models import Match, SpectatorPolicy
from games.presence import TTL, presence
from server import languages, live, metrics
from server.errors import ApplicationError

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

_MAX_FRAME_BYTES = 8192
PRESENCE_GATHER_SECONDS = 0.1  # presence changes within it are announced together
_announcing: dict[int, asyncio.Task] = {}  # match id -> its announcement on its way, in this process
log = logging.getLogger(__name__)


class MatchConsumer(AsyncJsonWebsocketConsumer):
    # The frames a client may send, by type, and the method that takes each: a socket composed
    # over the table's (chat.consumers.TableConsumer) adds its own, and names them all in its refusal.
    frame_handlers: ClassVar[dict[str, str]] = {
        "move": "_move", "resync": "_resync", "auto_pass": "_auto_pass", "ping": "_ping",
        "review_position": "_review_position",
    }
    unknown_frame_message: ClassVar[StrOrPromise] = gettext_lazy(
        "Frames are move, resync, auto_pass, ping or review_position."
    )

    async def connect(self) -> None:
        self.match_id = int(self.scope["url_route"]["kwargs"]["match_id"])
        self.group = notify.match_group(self.match_id)
        self.socket_id = uuid.uuid4().hex
        query = parse_qs(self.scope.get("query_string", b"").decode())
        user = self.scope.get("user")
        self.user = user if user is not None and user.is_authenticated else None
        self.user_id = self.user.pk if self.user else None
        self.seat: int | None = None  # as the last frame sent found it
        # `?patches=1`: updates carry the changes to the view this socket was last sent (`frames`).
        self.patches = query.get("patches", [""])[0] == "1"
        self.view_seat: int | None | frames.NoPatch = frames.NO_PATCH  # whose view the client holds, if any
        await self.accept()  # first, so that the client reads why it is closed
        try:  # a private table is no match to a stranger: the same frame and close as for no match at all
            match = await in_thread(selectors.match_get_known)(self.match_id, self.user)
        except ApplicationError as refusal:
            await self._error(None, refusal.code, refusal.message, refusal.extra)
            await self.close(code=4404)
            return
        try:  # the same decision as every REST route's (selectors.can_watch), before presence or a frame
            watch = await in_thread(selectors.watch_required)(match, self.user)
        except ApplicationError as refusal:
            await self._error(None, refusal.code, refusal.message, refusal.extra)
            await self.close(code=4403)
            return
        self.delay_moves = watch.delay_moves  # a delayed table's spectator: every view frame behind
        # A closed table open to find seats at closes to this socket when it starts, unless it sits.
        self.watch_again = match.status == Match.Status.OPEN and match.spectator_policy == SpectatorPolicy.CLOSED
        self.refused = False  # set once `_still_watching` has refused it: it is sent nothing more
        entry = {"user": self.user_id, "seat": None, "name": self.user.shown_name if self.user else None,
                 "client": _client(self.scope, self.user_id)}
        cap = settings.MAX_SOCKETS_PER_CLIENT_AND_TABLE
        if await self._presence("claim", self.socket_id, entry, cap) is False:
            # Accepted first so that the client reads why; a close before accepting says nothing.
            await self._error(
                None,
                "too_many_sockets",
                _("At most %(cap)s sockets per table for one person or address; close one first.") % {"cap": cap},
            )
            await self.close(code=4429)
            return
        self.entry = entry  # the socket's slot, released on disconnect
        metrics.sockets_open.labels("match").inc()  # down again in disconnect, which needs `entry`
        self.last_seq = self.hint = nonnegative_int(query.get("since", ["0"])[0])
        self.sending = asyncio.Lock()  # one frame at a time, in order, whichever task sends it
        self.hint_arrived = asyncio.Event()
        self.deliverer = asyncio.ensure_future(self._deliver())
        if not await live.joined(self._join, self.group):
            self.joiner = asyncio.ensure_future(self._join_when_back())
        await self._send_frame("snapshot")
        await self._after_snapshot(query)
        await self._announce_presence()
        self.checker = asyncio.ensure_future(self._check_credential()) if self.user else None
        self.poller = asyncio.ensure_future(self._poll()) if settings.LIVE_POLL_SECONDS > 0 else None

    async def dispatch(self, message: dict) -> None:
        """As Channels' own, without its `aclose_old_connections()` before every message: a hop to
        the one sync thread for each frame of each socket (about 30 % of the CPU of a move sent
        to a hundred spectators, and a queue they all waited in: bench/live.py). This consumer
        reaches the database only through `in_thread`, which closes old connections itself,
        or through the fast lane's own pool."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        if not hasattr(self, "language"):
            self.language = await in_thread(languages.of_scope)(self.scope)
        # Active for this socket's task alone (a context variable): other sockets keep theirs.
        with translation.override(self.language):
            await handler(message)

    async def disconnect(self, code: int) -> None:
        if not hasattr(self, "entry"):
            return
        metrics.sockets_open.labels("match").dec()
        for name in ("deliverer", "joiner", "poller", "checker"):  # absent if it closes while still connecting
            if (task := getattr(self, name, None)) is not None:
                task.cancel()
        if (joiner := getattr(self, "joiner", None)) is not None:
            await asyncio.wait([joiner])  # so that a join under way cannot add it to the table after this
        fanout.unwatch(self.match_id, self)
        try:
            await self.channel_layer.group_discard(self.group, self.channel_name)
        except Exception:  # noqa: BLE001 - the layer may be away; the socket is closing anyway
            log.warning("could not leave group %s", self.group, exc_info=True)
        await self._presence("leave", self.socket_id)
        await self._announce_presence()

    async def receive(self, text_data=None, bytes_data=None) -> None:
        if not hasattr(self, "entry") or self.refused:
            return  # refused (at connect, or when its closed table started) and closing: it is sent nothing more
        if not self._within_rate():
            metrics.throttle_refusals.labels("socket_frames").inc()
            # The frame's id, if it has one, so the client knows which move was refused.
            await self._error(
                _frame_id(text_data),
                "rate_limited",
                _("At most %(rate)s frames a second.")
                % {"rate": format(settings.SOCKET_FRAMES_PER_SECOND, "g")},
            )
            return
        if text_data is None or len(text_data) > _MAX_FRAME_BYTES:
            await self._error(
                None,
                "frame_rejected",
                _("Send JSON text frames of at most %(max_bytes)s bytes.")
                % {"max_bytes": _MAX_FRAME_BYTES},
            )
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            await self._error(None, "malformed_json", _("The frame is not JSON."))
            return
        if not isinstance(message, dict):
            await self._error(None, "malformed_frame", _("A frame is a JSON object with a \"type\"."))
            return
        kind = message.get("type")
        handler = self.frame_handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            await self._error(message.get("id"), "unknown_frame", self.unknown_frame_message)
            return
        await getattr(self, handler)(message)

    async def _after_snapshot(self, query: dict[str, list[str]]) -> None:
        """What a composed socket sends after the snapshot on connect, before presence (its own streams' catch-up)."""

    async def _after_catch_up(self) -> None:
        """What a composed socket sends after a resync's or ping's update (its own streams, whose hints are
        at most once too)."""

    def _within_rate(self) -> bool:
        """A token bucket per socket: a steady rate, with bursts of twice as many frames."""
        rate = settings.SOCKET_FRAMES_PER_SECOND
        now = time.monotonic()
        tokens, last = getattr(self, "_bucket", (2 * rate, now))
        tokens = min(2 * rate, tokens + (now - last) * rate)
        if tokens < 1:
            self._bucket = (tokens, now)
            return False
        self._bucket = (tokens - 1, now)
        return True

    async def _resync(self, message: dict) -> None:
        self.last_seq = min(self.last_seq, nonnegative_int(message.get("since")))
        # `"full": true`: the whole view again, even with nothing new (a client that lost its view).
        await self._send_frame("snapshot" if message.get("full") is True else "update")
        await self._after_catch_up()

    async def _ping(self, message: dict) -> None:
        # Also a catch-up: if the channel layer lost a hint, the client gets what it missed now.
        await self._send_frame("update")
        await self._after_catch_up()
        await self.send_json({"type": "pong", "seq": self.last_seq})

    async def _move(self, message: dict) -> None:
        client_id = message.get("id")
        if not isinstance(client_id, str) or not 0 < len(client_id) <= 64:
            await self._error(None, "malformed_frame", _("A move frame carries a string \"id\" of 1 to 64 characters."))
            return
        if self.user is None:
            await self._error(client_id, "not_authenticated", _("Log in to play."))
            return
        expected_seq = message.get("expected_seq")
        if expected_seq is not None and (isinstance(expected_seq, bool) or not isinstance(expected_seq, int)):
            await self._error(client_id, "malformed_frame", _("expected_seq is an integer."))
            return
        move, idempotency_key = message.get("move"), f"ws:{client_id}"
        try:
            if fastlane.enabled():
                result = await fastlane.move_submit(
                    user_id=self.user.pk, match_id=self.match_id, move=move, expected_seq=expected_seq,
                    idempotency_key=idempotency_key,
                )
            else:
                result = await in_thread(services.move_submit)(
                    user=self.user, match_id=self.match_id, move=move, expected_seq=expected_seq,
                    idempotency_key=idempotency_key,
                )
        except ApplicationError as exc:
            await self._error(client_id, exc.code, exc.message, exc.extra)
            return
        await self.send_json({"type": "ack", "id": client_id, "seq": result["seq"]})

    async def _auto_pass(self, message: dict) -> None:
        enabled = message.get("enabled")
        if not isinstance(enabled, bool):
            await self._error(None, "malformed_frame", _("An auto_pass frame carries \"enabled\": true or false."))
            return
        if self.user is None:
            await self._error(None, "not_authenticated", _("Log in to play."))
            return
        try:
            await in_thread(services.seat_auto_pass_set)(match_id=self.match_id, user=self.user, enabled=enabled)
        except ApplicationError as exc:
            await self._error(None, exc.code, exc.message)
            return
        await self.send_json({"type": "auto_pass", "enabled": enabled, "seq": self.last_seq})

    async def _review_position(self, message: dict) -> None:
        """A seated player leads the shared review to a position of the finished match."""
        seq = message.get("seq")
        if isinstance(seq, bool) or not isinstance(seq, int):
            await self._error(None, "malformed_frame", _("A review_position frame carries \"seq\", a position number."))
            return
        if self.user is None:
            await self._error(None, "not_authenticated", _("Log in to lead a shared review."))
            return
        try:
            seat = await in_thread(reviews.review_lead_seat)(self.match_id, self.user, seq)
        except ApplicationError as exc:
            await self._error(None, exc.code, exc.message, exc.extra)
            return
        await self.channel_layer.group_send(
            self.group, {"type": "review.position", "seq": seq, "seat": seat, "socket": self.socket_id}
        )

    async def review_position(self, message: dict) -> None:
        """The leader's position, to the sockets of the other people seated here (a spectator's
        socket joins the same group, and is sent nothing of it)."""
        if self.refused or message["socket"] == self.socket_id or self.seat is None:
            return
        await self.send_json({"type": "review_position", "seq": message["seq"], "seat": message["seat"]})

    def hinted(self, seq: int) -> None:
        """The table is at `seq` (`fanout`, once per process for all its sockets here): this
        socket's own task sends the frame, so a socket slow to write holds up no other."""
        if seq > self.hint:
            self.hint = seq
            self.hint_arrived.set()

    async def _deliver(self) -> None:
        """Sends the frame of the latest hint; hints that come while it sends are one frame more."""
        try:
            while True:
                await self.hint_arrived.wait()
                self.hint_arrived.clear()
                if self.hint > self.last_seq and not self.refused:
                    await self._send_frame("update", hint=self.hint)
        except OSError:  # the client has gone (uvicorn's ClientDisconnected): disconnect follows
            return
        except Exception:  # as Channels does for a handler that fails: logged, and the socket closes
            log.exception("match %s: could not send a frame; closing the socket", self.match_id)
            with contextlib.suppress(Exception):
                await self.close(code=1011)

    async def seats_changed(self, message: dict) -> None:
        """Someone sat down or left an open table: this socket's seat may be another now."""
        await self._send_frame("snapshot")

    async def presence_changed(self, message: dict) -> None:
        if self.refused:
            return
        await self.send_json({"type": "presence", **message["presence"]})

    async def _send_frame(self, kind: str, hint: int | None = None) -> None:
        async with self.sending:
            await self._frame_sent(kind, hint)

    async def _frame_sent(self, kind: str, hint: int | None) -> None:
        patch_from = self.view_seat if self.patches else frames.NO_PATCH
        known = None if hint is None else frames.frame_text_known(
            self.match_id, self.user_id, kind=kind, since=self.last_seq, hint=hint, delay_moves=self.delay_moves,
            patch_from=patch_from,
        )
        seq, seat, text = known or await in_thread(frames.frame_text)(
            self.match_id, self.user_id, kind=kind, since=self.last_seq, hint=hint, delay_moves=self.delay_moves,
            patch_from=patch_from,
        )
        # Asked after the frame is read, not before: a closed table that started between the two
        # would have been read running and sent. A table never opens again, so one still open now
        # was open when its frame was read.
        if self.watch_again and not await self._still_watching_in_language():
            return
        if seat != self.seat:  # the table is told where this person sits now
            self.seat = seat
            self.entry = {**self.entry, "seat": seat}
            await self._presence("join", self.socket_id, self.entry)
            await self._announce_presence()
        if text is None:
            return  # another hint already brought this socket here
        self.last_seq, self.view_seat = seq, seat
        await self.send(text_data=text)

    async def _still_watching_in_language(self) -> bool:
        """`_still_watching` in the socket's language (frames from `_deliver` are sent outside
        `dispatch`, which sets it: Django's translation costs a tenth of a frame's fan-out)."""
        with translation.override(self.language):
            return await self._still_watching()

    async def _still_watching(self) -> bool:
        """Asks `can_watch` again before a frame while a closed table is open (see `connect`): once it
        has started, a person it keeps out is sent the refusal and the socket closes (4403)."""
        if self.refused:
            return False
        try:
            match = await in_thread(selectors.match_get)(self.match_id)
            await in_thread(selectors.watch_required)(match, self.user)
        except ApplicationError as refusal:
            self.refused = True
            await self._error(None, refusal.code, refusal.message, refusal.extra)
            await self.close(code=4403)
            return False
        if match.status != Match.Status.OPEN:
            self.watch_again = False  # running with this person let in: its seats no longer change
        return True

    async def _presence(self, operation: str, *args):
        """Presence is a courtesy: while Redis is away the table plays on without it."""
        try:
            return await in_thread(getattr(presence(), operation))(self.match_id, *args)
        except Exception:  # noqa: BLE001
            log.warning("presence %s failed for match %s", operation, self.match_id, exc_info=True)
            return None

    async def _announce_presence(self) -> None:
        """Tells the table who is here. Joins and leaves close together (a hundred spectators
        arriving for a final) are told once, not each to everyone: that was a hundred times a
        hundred frames (bench/live.py)."""
        pending = _announcing.get(self.match_id)
        if pending is None or pending.done() or pending.get_loop() is not asyncio.get_running_loop():
            _announcing[self.match_id] = asyncio.ensure_future(self._announce_soon())

    async def _announce_soon(self) -> None:
        try:
            await asyncio.sleep(PRESENCE_GATHER_SECONDS)
        finally:
            if _announcing.get(self.match_id) is asyncio.current_task():
                del _announcing[self.match_id]  # a change from now on is told by another announcement
        summary = await self._presence("summary")
        if summary is None:
            return
        if await in_thread(_sealed)(self.match_id):
            summary = {**summary, "spectators": None}
        try:
            await self.channel_layer.group_send(self.group, {"type": "presence.changed", "presence": summary})
        except Exception:  # noqa: BLE001
            log.warning("could not announce presence for match %s", self.match_id, exc_info=True)

    async def _join(self) -> None:
        """Joins the table's group and its moves' fan-out in this process."""
        await self.channel_layer.group_add(self.group, self.channel_name)
        await fanout.watch(self.match_id, self)  # the table's moves, heard once for this process

    async def _join_when_back(self) -> None:
        """Until the socket has joined, it keeps its own presence entry alive (else the table's
        fan-out does) and catches up on its pings; once joined, it is sent what the hints it
        missed would have brought."""
        refresher = asyncio.ensure_future(self._refresh_presence())
        try:
            await live.join_retried(self._join, self.group)
        finally:
            refresher.cancel()
        if not self.refused:
            with contextlib.suppress(OSError):  # the client has gone: disconnect follows
                await self._send_frame("update")
                await self._after_catch_up()

    async def _refresh_presence(self) -> None:
        while True:
            await asyncio.sleep(TTL / 3)
            await self._presence("join", self.socket_id, self.entry)

    async def _check_credential(self) -> None:
        """A socket lives no longer than what let it in: once its API token is revoked or expires,
        or its session logs out, it is told so and closed within `SOCKET_CREDENTIAL_CHECK_SECONDS`."""
        assert self.user_id is not None  # started for a signed-in socket only
        await credential_ended(self.scope, self.user_id)
        await self._error(None, "credential_revoked", _("Your token or session has ended: log in again."))
        await self.close(code=4401)

    async def _poll(self) -> None:
        """Without a shared channel layer (the embedded default's in-memory one), moves made in
        another process (the worker's bots and clocks) send no hint here: look for them. (A delayed
        table's spectator is always behind the head: a head already looked for is not again.)"""
        polled = 0
        while True:
            await asyncio.sleep(settings.LIVE_POLL_SECONDS)
            head = await in_thread(selectors.match_head)(self.match_id)
            if head > max(self.last_seq, polled):
                polled = head
                await self._send_frame("update")

    async def _error(self, client_id, code: str, message: StrOrPromise, extra: dict | None = None) -> None:
        frame = {"type": "error", "id": client_id, "code": code, "message": str(message), "seq": getattr(self, "last_seq", 0)}
        if extra:
            frame["extra"] = extra
        await self.send_json(frame)


def _sealed(match_id: int) -> bool:
    return Match.objects.filter(pk=match_id, sealed=True).exists()


def in_thread(func):
    """Runs blocking work (database, Redis) in the loop's thread pool, database connections
    cleaned up as Channels does. Not thread-sensitive: that would queue every socket of the
    process on one thread, each waiting for the database in turn (bench/live.py)."""
    return database_sync_to_async(func, thread_sensitive=False)


def _frame_id(text: str | None) -> str | None:
    """A refused frame's client id, if it is a small JSON object that has one."""
    if text is None or len(text) > _MAX_FRAME_BYTES:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    client_id = message.get("id") if isinstance(message, dict) else None
    return client_id if isinstance(client_id, str) and 0 < len(client_id) <= 64 else None


def _client(scope: dict, user_id: int | None) -> str:
    """Whom a socket counts against: its user, else the address it came from."""
    if user_id is not None:
        return f"user:{user_id}"
    address = scope.get("client") or ("unknown",)
    return f"address:{address[0]}"


def nonnegative_int(value) -> int:
    """A cursor from a query or a frame (`since`): a whole number, 0 for anything else."""
    try:
        return max(0, int(value))
    except (TypeError, ValueError):
        return 0
