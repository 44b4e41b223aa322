"""Facts of a table that other apps may act on, sent inside the writing transaction.

Sent rather than calling the listener, so games imports none of the apps that listen.
"""
from __future__ import annotations

from django.dispatch import Signal

# An invitation addressed to a person was made: `invitation` (its `invitee` set) and `token`,
# its link's secret, which exists only now (the server keeps its SHA-256).
invitation_addressed = Signal()
