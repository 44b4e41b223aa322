from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person who plays, organises or watches. Bots are not users: they sit in seats by name."""

    display_name = models.CharField(max_length=40, blank=True)

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username


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
