"""Facts of an account that other apps act on, sent inside the writing transaction.

Sent rather than calling the listener, so accounts imports none of the apps that keep copies of
a person's data.
"""
from __future__ import annotations

from django.dispatch import Signal

# An account was deleted (anonymised): `user`, already renamed "deleted player <id>". An app that
# copied the person's name into its own rows replaces that copy, in the same transaction.
account_deleted = Signal()
