"""The live benchmark's client and its baseline app: every socket of a table gets every move."""
from __future__ import annotations

import pytest
from django.conf import settings

from bench import live

pytestmark = [pytest.mark.skipif(not settings.REDIS_URL, reason="needs Redis (set REDIS_URL)"), pytest.mark.processes]


def test_the_echo_app_brings_each_move_to_every_socket_of_its_table():
    server = live.start_server(echo=True, database_url="", redis_url=settings.REDIS_URL, workers=1)
    try:
        got = live.run_client(live.measure(server, [[(9001, [None, None])], [(9002, [None, None])]],
                                           seconds=1.0, rate=0.0, spectators=3))
    finally:
        server.stop()
    assert got.sockets == 10
    assert got.moves_per_s > 10
    assert (got.lost, got.errors) == (0, 0)
    assert len(got.latencies) >= got.moves_per_s * 1.0 > 0
