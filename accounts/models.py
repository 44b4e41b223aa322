from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """A person who plays, organises or watches. Bots are not users: they sit in seats by name."""

    display_name = models.CharField(max_length=40, blank=True)

    @property
    def shown_name(self) -> str:
        return self.display_name or self.username
