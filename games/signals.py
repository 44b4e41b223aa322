"""Facts of a table that other apps may act on, sent inside the writing transaction.

Sent rather than calling the listener, so games imports none of the apps that listen.
"""
from __future__ import annotations

from django.dispatch import Signal

# An invitation addressed to a person was made: `invitation` (its `invitee` set). Its link's
# secret is not sent: the invitee sits down by their account (games.services.match_join), so no
# copy of the secret is kept anywhere, a notification included.
invitation_addressed = Signal()

# Sealed matches were unsealed (their duplicate deal is done): `match_ids`. What was held from
# their players while they were sealed (an invitation's notification) may be told now.
matches_unsealed = Signal()
