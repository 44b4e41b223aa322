"""Table chat: each match's own append-only stream of chat events, beside its game events.

A chat event is never changed: hiding a message is a `MessageHidden` event naming it, so the
text stays in the stream for staff. `(match, seq)` is unique and gapless from 1, as the game's
events are; the database refuses UPDATE, DELETE and TRUNCATE (see the migrations).
"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from games.models import Match


class ChatEvent(models.Model):
    """One fact of a table's chat: a message posted, or a message hidden by the organiser or staff."""

    class Type(models.TextChoices):
        MESSAGE_POSTED = "MessagePosted", "message posted"
        MESSAGE_HIDDEN = "MessageHidden", "message hidden"

    class Channel(models.TextChoices):
        PLAYERS = "players", "the seated players'"
        SPECTATORS = "spectators", "the spectators'"

    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="chat_events")
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=16, choices=Type.choices)
    # A hide carries the hidden message's channel, so a reader who may not see that channel
    # is not told that anything there was hidden.
    channel = models.CharField(max_length=16, choices=Channel.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+", help_text="Who posted, or who hid."
    )
    text = models.TextField(blank=True, help_text="The message (MessagePosted); empty for a hide.")
    message_seq = models.PositiveIntegerField(null=True, blank=True, help_text="The hidden message's seq (MessageHidden).")
    client_id = models.CharField(max_length=64, blank=True, help_text="The poster's id for the message: a retry's key.")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["match_id", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seq"], name="chat_event_seq_unique_per_match"),
            # A message is hidden once: a second hide finds the first (services.chat_message_hide).
            models.UniqueConstraint(
                fields=["match", "message_seq"], condition=models.Q(message_seq__isnull=False),
                name="chat_message_hidden_once",
            ),
            models.UniqueConstraint(
                fields=["match", "author", "client_id"], condition=~models.Q(client_id=""),
                name="chat_client_id_unique_per_author_and_match",
            ),
            models.CheckConstraint(
                condition=models.Q(type="MessagePosted", message_seq__isnull=True)
                | models.Q(type="MessageHidden", message_seq__isnull=False, text=""),
                name="chat_event_is_a_post_or_a_hide",
            ),
        ]
        indexes = [
            # The rate limit counts a person's recent messages at a table.
            models.Index(fields=["match", "author", "created"], name="chat_event_author_recent"),
        ]

    def __str__(self) -> str:
        return f"match {self.match_id} chat #{self.seq} {self.type}"


class ChatMute(models.Model):
    """`user` is not sent what `muted` writes in any table's chat (a choice of their own, told to nobody)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="chat_mutes")
    muted = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["user_id", "created"]
        constraints = [
            models.UniqueConstraint(fields=["user", "muted"], name="chat_mute_unique_pair"),
            models.CheckConstraint(condition=~models.Q(user=models.F("muted")), name="chat_mute_not_oneself"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} mutes {self.muted_id}"
