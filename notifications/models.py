"""Notifications: what the server tells a person (your turn, a round, a result, an invitation),
and each person's choice of where it reaches them (the browser, e-mail), per kind."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Kind(models.TextChoices):
    YOUR_TURN = "your_turn", _("your turn at a table")
    ROUND_PAIRED = "round_paired", _("a round of your tournament is paired")
    ROUND_STARTED = "round_started", _("a round of your tournament starts")
    MATCH_FINISHED = "match_finished", _("a match of yours ended")
    INVITED = "invited", _("you were invited to a table")
    JUDGE_CALLED = "judge_called", _("a judge is called to a table of a tournament you judge")
    JUDGE_RULED = "judge_ruled", _("a judge ruled on your call")


class Notification(models.Model):
    """One thing told to one person, once: `(user, kind, key)` is unique, and the key names the
    fact it is about (`match:seq` for a turn, the match for a result, the invitation...), so a
    task run twice finds the row there and neither shows nor mails it again.

    `data` is what the pages and the mail show (`services.NotificationData`). A person who
    turned the browser off for its kind gets the row already read: it is still the record that
    the fact was told (and mailed), but it is never pushed or counted as unread.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    key = models.CharField(max_length=64)
    data = models.JSONField()
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)
    # Claimed by the mail task before it sends (a conditional update): a task run twice mails once.
    emailed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "kind", "key"], name="notification_once_per_user_kind_key")
        ]
        indexes = [
            # A person's list, newest first, and their unread count (the badge, on every page).
            models.Index(fields=["user", "-id"], name="notification_user_newest"),
            models.Index(
                fields=["user"], condition=models.Q(read_at__isnull=True), name="notification_user_unread"
            ),
            # The turn sweep asks whether a (match, seq) was told already, whoever it was told to.
            models.Index(fields=["kind", "key"], name="notification_kind_key"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.key} to user {self.user_id}"


class NotificationPreference(models.Model):
    """Where one kind of notification reaches one person; no row: the defaults (browser, no mail)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    browser = models.BooleanField(default=True)
    email = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="preference_once_per_user_kind")]

    def __str__(self) -> str:
        return f"{self.kind} preference of user {self.user_id}"
