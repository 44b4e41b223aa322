"""Issue #39, finding 2: no spectator count reaches a sealed table while its deal runs. Who may
watch it (its organiser, staff) is counted nowhere its players can read: a count that moves with
sockets opened from outside would be a signal."""
from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from tests.chat.test_chat_consumer import joined, tournament_table
from tests.conftest import make_user
from tests.games.test_match_consumer import receive_until

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


async def test_a_sealed_tables_presence_tells_its_seats_but_no_spectator_count():
    match_id, players = await tournament_table()
    player, _ = await joined(match_id, players[0])
    first = await receive_until(player, "presence")
    assert first["spectators"] is None and first["seats"]
    staff = await database_sync_to_async(make_user)("sam", staff=True)
    watcher, _ = await joined(match_id, staff)
    seen = await receive_until(player, "presence")
    assert seen["spectators"] is None
    await watcher.disconnect()
    await player.disconnect()
