"""Reads of a table's chat: each reader is sent what they may see, never more.

Who reads what:
- the players' channel: everyone who may see the table (anyone: tables are public);
- the spectators' channel: spectators and staff, and the seated players unless the table is
  closed to them (`spectators_closed_to_players`) or they chose not to see it;
- a hidden message: its seq, channel, author and time for everyone, its text and who hid it for
  staff only;
- a muted author's messages: not sent to the person who muted them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from django.contrib.auth.models import AnonymousUser
from django.utils.translation import gettext as _

from accounts.models import User
from chat.models import ChatEvent, ChatMute
from games.chain import canonical_json, canonical_time
from games.models import Match, Seat
from games.selectors import match_get_known, watch_required
from server.errors import forbidden

CHAT_PAGE_SIZE = 200  # events read per page of `chat_page`

_POSTED, _HIDDEN = ChatEvent.Type.MESSAGE_POSTED, ChatEvent.Type.MESSAGE_HIDDEN
_PLAYERS, _SPECTATORS = ChatEvent.Channel.PLAYERS, ChatEvent.Channel.SPECTATORS


class ChatPerson(TypedDict):
    id: int
    name: str


class ChatMessage(TypedDict):
    seq: int
    channel: str
    author: ChatPerson
    text: str | None  # None: hidden, and the reader is not staff
    created: str
    hidden: bool
    hidden_by: ChatPerson | None  # for staff only


class ChatItem(TypedDict):
    seq: int  # the chat event's own seq: a reader's cursor
    type: str  # MessagePosted, or MessageHidden (then `message` is the message it hid)
    message: ChatMessage


class ChatPage(TypedDict):
    head: int  # ask again with since=head
    more: bool
    items: list[ChatItem]


@dataclass(frozen=True)
class ChatReader:
    """Whom a page of chat is for: what they may read, whose messages they muted, whether staff."""

    channels: frozenset[str]
    muted: frozenset[int]
    staff: bool


def spectators_closed_to_players(match: Match) -> bool:
    """Whether the seated players may not read the spectators' channel.

    A sealed match is a table of a duplicate-deal round: other tables play the same deal, so a
    spectator who watched one of them could tell its players the cards. It stays sealed, and
    the channel closed, until the round is over (`games.services.matches_unseal`).
    """
    return match.sealed


def chat_reader(match: Match, user: User | None, *, spectators_shown: bool = True) -> ChatReader:
    """What `user` may read of `match`'s chat; `spectators_shown=False` is a reader's own choice."""
    person = user if user is not None and user.is_authenticated else None
    seated = person is not None and Seat.objects.filter(match=match, user=person).exists()
    channels = {_PLAYERS}
    if spectators_shown and not (seated and spectators_closed_to_players(match)):
        channels.add(_SPECTATORS)
    muted = frozenset(ChatMute.objects.filter(user=person).values_list("muted_id", flat=True)) if person else frozenset()
    return ChatReader(frozenset(channels), muted, staff=person is not None and person.is_staff)


def chat_page_for_user(match_id: int, user: User | None, *, since: int = 0, spectators_shown: bool = True) -> ChatPage:
    """`chat_page` for whoever `user` is at the match now (a seat taken or left since counts)."""
    match = match_get_known(match_id, user)  # a private table is no match to a stranger
    watch_required(match, user)  # a closed table's chat is closed with it (games.selectors.can_watch)
    return chat_page(match, chat_reader(match, user, spectators_shown=spectators_shown), since=since)


def chat_page(match: Match, reader: ChatReader, *, since: int = 0) -> ChatPage:
    """The reader's view of the chat events after `since`, a page at a time."""
    rows = list(
        ChatEvent.objects.filter(match=match, seq__gt=since).select_related("author").order_by("seq")[: CHAT_PAGE_SIZE + 1]
    )
    more = len(rows) > CHAT_PAGE_SIZE
    rows = rows[:CHAT_PAGE_SIZE]
    head = rows[-1].seq if rows else since
    items = _items(match.pk, rows, reader.staff)
    return {"head": head, "more": more, "items": [item for item in items if _shown(item, reader)]}


def chat_item(event: ChatEvent, reader: ChatReader) -> ChatItem:
    """One event as the reader sees it (the answer to their own post or hide)."""
    return _items(event.match_id, [event], reader.staff)[0]


def chat_moderator(match: Match, user: User | AnonymousUser | None) -> bool:
    """Staff, or the organiser of the match's tournament: who may hide a message."""
    if user is None or not user.is_authenticated:
        return False
    return user.is_staff or Match.objects.filter(pk=match.pk, tournament_table__round__tournament__organiser=user).exists()


def chat_mutes(user: User) -> list[ChatPerson]:
    """The people `user` has muted, in the order they were muted."""
    rows = ChatMute.objects.filter(user=user).select_related("muted").order_by("created", "pk")
    return [_person(row.muted) for row in rows]


def chat_export_lines(match: Match) -> list[str]:
    """The chat as lines of a match's export file (`games.exchange`): `{"chat": {...}}` each, hidden
    messages without their text, authors by username as the file's players are. Only once the
    match's hidden information is public: until then its spectators' talk may carry the deal."""
    if not match.revealed:
        raise forbidden("chat_not_exportable", _("A table's chat is exported once its match has ended and is revealed."))
    rows = list(ChatEvent.objects.filter(match=match).select_related("author").order_by("seq"))
    hidden = {row.message_seq for row in rows if row.type == _HIDDEN}
    lines = []
    for row in rows:
        entry = {"seq": row.seq, "type": row.type, "channel": row.channel, "author": row.author.username,
                 "created": canonical_time(row.created)}
        if row.type == _POSTED:
            entry |= {"text": None if row.seq in hidden else row.text, "hidden": row.seq in hidden}
        else:
            entry["message"] = row.message_seq
        lines.append(canonical_json({"chat": entry}))
    return lines


def _items(match_id: int, rows: list[ChatEvent], staff: bool) -> list[ChatItem]:
    """Each row as an item, with what the rows leave out read once: the hides of the messages
    among them, and the messages their hides name."""
    posted = [row.seq for row in rows if row.type == _POSTED]
    hides = {row.message_seq: row for row in rows if row.type == _HIDDEN}
    hides |= {
        row.message_seq: row
        for row in ChatEvent.objects.filter(
            match_id=match_id, message_seq__in=set(posted) - hides.keys()
        ).select_related("author")
    }
    messages = {row.seq: row for row in rows if row.type == _POSTED}
    wanted = {row.message_seq for row in rows if row.type == _HIDDEN} - messages.keys()
    if wanted:
        messages |= {row.seq: row for row in ChatEvent.objects.filter(match_id=match_id, seq__in=wanted).select_related("author")}
    return [
        {"seq": row.seq, "type": row.type, "message": _message(messages[row.message_seq or row.seq], hides, staff)}
        for row in rows
    ]


def _message(row: ChatEvent, hides: dict[int | None, ChatEvent], staff: bool) -> ChatMessage:
    hide = hides.get(row.seq)
    return {
        "seq": row.seq, "channel": row.channel, "author": _person(row.author),
        "text": row.text if hide is None or staff else None,
        "created": row.created.isoformat(), "hidden": hide is not None,
        "hidden_by": _person(hide.author) if hide is not None and staff else None,
    }


def _shown(item: ChatItem, reader: ChatReader) -> bool:
    message = item["message"]
    return message["channel"] in reader.channels and message["author"]["id"] not in reader.muted


def _person(user: User) -> ChatPerson:
    return {"id": user.pk, "name": user.shown_name}
