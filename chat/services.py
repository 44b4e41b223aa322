"""Writes of a table's chat: posting, hiding, muting.

A chat event is appended at the stream's next seq; `UNIQUE(match, seq)` settles a race, and the
loser reads the head again and retries (as the game's events do: DESIGN.md). The rate limit and
the idempotency key are checked in the same attempt, so a loser counts the winner's message.
Each attempt first locks the poster's user row, so one person's posts are counted one at a time
(at one table and across tables): posts sent at once cannot all count before any has committed.
After commit the table's sockets are told the new seq; each reads what its reader may see.
"""
from __future__ import annotations

import unicodedata
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from chat import notify, selectors
from chat.models import ChatEvent, ChatMute
from games.models import Seat
from games.selectors import match_get_known, watch_required
from server.errors import ApplicationError, bad_request, conflict, forbidden, not_found
from server.limits import whole_number

TEXT_MAX = 500  # characters, after stripping
_APPEND_ATTEMPTS = 10  # writers racing at one table: each round one wins, the losers retry at the new head
_NEWLINE = "\n"


def chat_message_post(
    *, match_id: int, user: User, text: str, channel: str | None = None, client_id: str | None = None
) -> selectors.ChatItem:
    """Posts a message: a seated player's to the players' channel, anyone else's to the spectators'.

    A retry with the same `client_id` gets the first answer; the same id with another message is
    409 `chat_id_reused`. At a sealed table (a duplicate deal other tables still play) only its
    seated players write: anyone else is 403 `chat_table_sealed`, so that every event of its chat is
    one its players read, and the `head` and `chat_seq` they are sent count nothing they are not
    sent (issue #39: they counted the hidden spectators' messages, a signal from outside).
    Past `CHAT_MESSAGES_PER_MINUTE` at this table: 429 `chat_rate_limited`;
    past `CHAT_MESSAGES_PER_MINUTE_ALL_TABLES` at all tables together: 429 `chat_rate_limited_all_tables`.
    """
    match = match_get_known(match_id, user)  # a private table is no match to a stranger
    text = _valid_text(text)
    seated = Seat.objects.filter(match=match, user=user).exists()
    own = ChatEvent.Channel.PLAYERS if seated else ChatEvent.Channel.SPECTATORS
    if channel is not None and channel != own:
        raise forbidden("chat_channel_not_yours", _("You write in the %(own)s channel at this table.") % {"own": own})
    if not seated and selectors.spectators_closed_to_players(match):
        raise forbidden(
            "chat_table_sealed",
            _("Until its duplicate deal is done, only the table's players write in its chat."),
        )
    if not seated:
        watch_required(match, user)  # a closed table's chat takes nobody it keeps out (403 table_closed_to_spectators)
    reader = selectors.chat_reader(match, user)
    for _attempt in range(_APPEND_ATTEMPTS):
        try:
            with transaction.atomic():
                # Held to commit: the next post of this person counts this one (see the module's doc).
                User.objects.select_for_update().filter(pk=user.pk).exists()
                if client_id:
                    earlier = ChatEvent.objects.filter(match=match, author=user, client_id=client_id).first()
                    if earlier is not None:
                        if earlier.text != text or earlier.channel != own:
                            raise conflict("chat_id_reused", _("This id named another message: send a new id."))
                        return selectors.chat_item(earlier, reader)
                _within_rate(match_id, user)
                event = _append(match, type=ChatEvent.Type.MESSAGE_POSTED, channel=own, author=user, text=text,
                                client_id=client_id or "")
            return selectors.chat_item(event, reader)
        except IntegrityError:
            continue  # another writer took the seq (or our id, on a retry sent twice at once)
    raise _busy()


def chat_message_hide(*, match_id: int, seq: int, user: User) -> selectors.ChatItem:
    """The organiser of the match's tournament, or staff, hides a message: a `MessageHidden` event
    naming it (the message itself is never changed; staff still read it). Hiding a hidden message
    again answers with the first hide."""
    match = match_get_known(match_id, user)  # a private table is no match to a stranger
    if not selectors.chat_moderator(match, user):
        raise forbidden("chat_hide_forbidden", _("Only the tournament's organiser or staff hide messages."))
    message = ChatEvent.objects.filter(match=match, seq=seq, type=ChatEvent.Type.MESSAGE_POSTED).first()
    if message is None:
        raise not_found("chat_message_not_found", _("There is no message %(seq)s at this table.") % {"seq": seq})
    reader = selectors.chat_reader(match, user)
    for _attempt in range(_APPEND_ATTEMPTS):
        try:
            with transaction.atomic():
                hide = ChatEvent.objects.filter(match=match, message_seq=seq).first() or _append(
                    match, type=ChatEvent.Type.MESSAGE_HIDDEN, channel=message.channel, author=user, message_seq=seq
                )
            return selectors.chat_item(hide, reader)
        except IntegrityError:
            continue  # another writer took the seq, or another hide of this message won
    raise _busy()


def chat_mute_add(*, user: User, muted: str) -> selectors.ChatPerson:
    """`user` is no longer sent what `muted` (a username or id) writes. Muting twice is one mute."""
    target = _person_named(muted)
    if target.pk == user.pk:
        raise bad_request("chat_mute_self", _("You cannot mute yourself."))
    ChatMute.objects.get_or_create(user=user, muted=target)
    return {"id": target.pk, "name": target.shown_name}


def chat_mute_remove(*, user: User, muted: str) -> None:
    """`user` is sent what `muted` writes again (nothing to undo is no error)."""
    ChatMute.objects.filter(user=user, muted=_person_named(muted)).delete()


def _append(match, **fields) -> ChatEvent:
    """The event at the chat's next seq; raises IntegrityError if another writer took it."""
    head = ChatEvent.objects.filter(match=match).aggregate(head=Max("seq"))["head"] or 0
    event = ChatEvent.objects.create(match=match, seq=head + 1, **fields)
    transaction.on_commit(lambda: notify.match_chat_changed(match.pk, event.seq))
    return event


def _valid_text(text: str) -> str:
    """The text stripped, 1 to `TEXT_MAX` characters, no control characters but newlines."""
    text = text.replace("\r\n", _NEWLINE).strip()
    if not text:
        raise bad_request("chat_text_empty", _("Write something first."))
    if len(text) > TEXT_MAX:
        raise bad_request(
            "chat_text_too_long",
            _("A message is at most %(text_max)s characters.") % {"text_max": TEXT_MAX},
            max=TEXT_MAX,
        )
    # Cs: a lone surrogate, which JSON may carry but no database stores.
    if any(unicodedata.category(c) in ("Cc", "Cs") and c != _NEWLINE for c in text):
        raise bad_request("chat_text_invalid", _("A message holds no control characters (newlines are fine)."))
    return text


def _within_rate(match_id: int, user: User) -> None:
    """Called with the poster's row locked: the counts include every post of theirs committed."""
    recent = ChatEvent.objects.filter(
        author=user, type=ChatEvent.Type.MESSAGE_POSTED, created__gte=timezone.now() - timedelta(minutes=1)
    )
    limit = settings.CHAT_MESSAGES_PER_MINUTE
    if recent.filter(match_id=match_id).count() >= limit:
        raise ApplicationError(
            "chat_rate_limited",
            _("At most %(limit)s messages a minute at a table: wait a little.") % {"limit": limit},
            extra={"per_minute": limit},
        )
    limit = settings.CHAT_MESSAGES_PER_MINUTE_ALL_TABLES
    if recent.count() >= limit:
        raise ApplicationError(
            "chat_rate_limited_all_tables",
            _("At most %(limit)s messages a minute at all tables together: wait a little.") % {"limit": limit},
            extra={"per_minute": limit},
        )


def _person_named(text: str) -> User:
    user_id = whole_number(text)
    user = User.objects.filter(pk=user_id).first() if user_id is not None else User.objects.filter(username=text).first()
    if user is None:
        raise not_found("user_not_found", _("There is no user %(name)s.") % {"name": repr(text[:40])})
    return user


def _busy() -> ApplicationError:
    return conflict("chat_busy", _("The table's chat is busy: send the message again."))
