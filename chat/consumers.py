"""The table's socket with its chat: `/ws/matches/<id>/?since=<seq>&chat_since=<chat seq>`.

`TableConsumer` is the game's socket (`games.consumers.MatchConsumer`: its frames, refusals and
limits) with the table chat's frames added to its frame table. Table chat has its own stream and
cursor, `chat_seq` (never `seq`, which is the game's: a client reads a frame's `seq` ahead of its
own as a missed update). After the snapshot the socket gets `{"type": "chat_history", "since",
"chat_seq", "items"}`, what its reader may read after `?chat_since=<chat seq>` (items as
`GET /api/matches/<id>/chat` has them), then one `{"type": "chat", "chat_seq", "event", "message"}`
frame per new chat event it may see (`chat.selectors`: a seated player of a sealed table is never
sent the spectators' channel, a muted author is not heard, a hidden message comes without its text
but to staff). `{"type": "chat", "text", "channel"?, "id"}` posts -> `chat_ack` with its
`chat_seq`, or `error`. `{"type": "chat_channels", "spectators": false}` stops sending this socket
the spectators' channel (true sends it again, with a `chat_history` from the start);
`{"type": "chat_since", "since": <chat seq>}` asks for a `chat_history`. A resync or ping catches
the chat up too: its hints (`chat.notify`) are at most once as well.
"""
from __future__ import annotations

from collections.abc import AsyncIterator

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from chat import selectors, services
from games.consumers import MatchConsumer, in_thread, nonnegative_int
from server.errors import ApplicationError


class TableConsumer(MatchConsumer):
    frame_handlers = {
        **MatchConsumer.frame_handlers, "chat": "_chat", "chat_channels": "_chat_channels", "chat_since": "_chat_since",
    }
    unknown_frame_message = gettext_lazy(
        "Frames are move, resync, auto_pass, ping, review_position, chat, chat_channels or chat_since."
    )

    async def _after_snapshot(self, query: dict[str, list[str]]) -> None:
        self.chat_seq = nonnegative_int(query.get("chat_since", ["0"])[0])
        self.spectators_shown = True  # the reader's choice for this socket (chat_channels)
        await self._send_chat_history(self.chat_seq)

    async def _after_catch_up(self) -> None:
        await self._send_chat()

    async def _chat_since(self, message: dict) -> None:
        await self._send_chat_history(nonnegative_int(message.get("since")))

    async def _chat(self, message: dict) -> None:
        client_id = message.get("id")
        if not isinstance(client_id, str) or not 0 < len(client_id) <= 64:
            await self._error(None, "malformed_frame", _("A chat frame carries a string \"id\" of 1 to 64 characters."))
            return
        text, channel = message.get("text"), message.get("channel")
        if not isinstance(text, str) or not (channel is None or isinstance(channel, str)):
            await self._error(client_id, "malformed_frame", _("A chat frame carries \"text\" and maybe \"channel\", strings."))
            return
        if self.user is None:
            await self._error(client_id, "not_authenticated", _("Log in to chat."))
            return
        try:
            item = await in_thread(services.chat_message_post)(
                match_id=self.match_id, user=self.user, text=text, channel=channel, client_id=client_id
            )
        except ApplicationError as exc:
            await self._error(client_id, exc.code, exc.message, exc.extra)
            return
        await self.send_json({"type": "chat_ack", "id": client_id, "chat_seq": item["seq"]})

    async def _chat_channels(self, message: dict) -> None:
        shown = message.get("spectators")
        if not isinstance(shown, bool):
            await self._error(None, "malformed_frame", _("A chat_channels frame carries \"spectators\": true or false."))
            return
        self.spectators_shown = shown
        await self.send_json({"type": "chat_channels", "spectators": shown})
        if shown:  # what was left out meanwhile
            await self._send_chat_history(0)

    async def chat_changed(self, message: dict) -> None:
        """A hint that the table's chat moved on: this socket reads what its reader may see of it."""
        if message["chat_seq"] > self.chat_seq:
            await self._send_chat()

    async def _send_chat(self) -> None:
        """One `chat` frame per chat event after the last one this socket was sent, as its reader may see it."""
        async for page in self._chat_pages(self.chat_seq):
            for item in page["items"]:
                await self.send_json({"type": "chat", "chat_seq": item["seq"], "event": item["type"], "message": item["message"]})

    async def _send_chat_history(self, since: int) -> None:
        """The chat after `since` as its reader may see it, in `chat_history` frames of a page each."""
        async for page in self._chat_pages(since):
            await self.send_json({"type": "chat_history", "since": since, "chat_seq": page["head"], "items": page["items"]})
            since = page["head"]

    async def _chat_pages(self, since: int) -> AsyncIterator[selectors.ChatPage]:
        if self.watch_again and not await self._still_watching():
            return  # its chat closed with the table (chat.selectors.chat_page_for_user)
        while True:
            page = await in_thread(selectors.chat_page_for_user)(
                self.match_id, self.user, since=since, spectators_shown=self.spectators_shown
            )
            self.chat_seq = max(self.chat_seq, page["head"])
            yield page
            if not page["more"]:
                return
            since = page["head"]
