from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.names import name_key

SOUND_VOLUME_DEFAULT = 70
SOUND_VOLUME_MAX = 100


class InvitationsFrom(models.TextChoices):
    """Whose invitations by name reach a person (issue #39, finding 3). "Played with": sat at a
    match with them that started (`notifications.selectors.invitation_wanted`)."""

    ANYONE = "anyone", _("anyone")
    PLAYED_WITH = "played_with", _("only people I have played with")
    NOBODY = "nobody", _("nobody")


class User(AbstractUser):
    """A person who plays, organises or watches. Bots are not users: they sit in seats by name."""

    display_name = models.CharField(max_length=40, blank=True)
    # `name_key` of each name, kept by `save()`: what sign-up compares a new name against, so
    # nobody is seen by another player's name or a confusable copy of it (accounts.services).
    username_key = models.TextField(editable=False, default="")
    display_key = models.TextField(editable=False, default="", blank=True, db_index=True)
    # Which of the generated avatars (accounts/avatars.py) the user picked; nothing is uploaded.
    avatar = models.PositiveSmallIntegerField(default=0)
    # The site's language for this person (a code of LANGUAGES); blank follows the browser.
    language = models.CharField(max_length=8, blank=True, default="", choices=settings.LANGUAGES)
    # Whose invitations by name are delivered; the others are kept from this person without a word
    # to their sender (games.services.invitation_create answers as for any invitation).
    invitations_from = models.CharField(max_length=16, choices=InvitationsFrom.choices, default=InvitationsFrom.ANYONE)
    # The table's sound cues, 0 to 100 (frontend/static/frontend/js/sound.js); 0 is muted. Kept on
    # the account so a person's choice follows them to every device.
    sound_volume = models.PositiveSmallIntegerField(default=SOUND_VOLUME_DEFAULT)

    class Meta(AbstractUser.Meta):  # type: ignore[name-defined]  # the stubs omit AbstractUser.Meta
        # Usernames are one per reader-visible name, whatever the path that creates the user.
        constraints = [models.UniqueConstraint(fields=["username_key"], name="user_username_key_unique")]

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username

    def save(self, *args, **kwargs) -> None:
        username_key = name_key(self.username)
        # An older username that shares its key with an earlier user's keeps its own "<key>#<id>"
        # (migrations 0002, 0006): the name was there first and stays, and the unique index holds.
        if self.username_key.partition("#")[0] != username_key:
            self.username_key = username_key
        self.display_key = name_key(self.display_name)
        fields = kwargs.get("update_fields")
        if fields is not None and {"username", "display_name"} & set(fields):
            kwargs["update_fields"] = {*fields, "username_key", "display_key"}
        super().save(*args, **kwargs)


class ApiToken(models.Model):
    """An API token (`Authorization: Token <key>`), until it expires or its owner revokes it.

    Only the SHA-256 of the key is kept: the key is shown once, when it is made, and a copy of
    this table opens nothing. (The key is 160 random bits: a salt or a slow hash adds nothing.)
    """

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="api_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    expires = models.DateTimeField()

    class Meta:
        ordering = ["-created", "-id"]


class RetiredName(models.Model):
    """A name a deleted account used, kept so nobody can sign up as the person who left.

    Only the SHA-256 of its `name_key` is stored: enough to refuse the name and its look-alikes,
    without a readable list of who deleted their account.
    """

    key_sha256 = models.CharField(max_length=64, unique=True)
    retired = models.DateTimeField(auto_now_add=True)


class MutedSender(models.Model):
    """A person whose invitations by name never reach `user` (issue #39, finding 3). The sender
    is not told: their invitation is answered as any other, and its notification is not made."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="muted_senders")
    sender = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [models.UniqueConstraint(fields=["user", "sender"], name="muted_sender_unique_per_user")]
