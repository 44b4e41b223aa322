"""Whether a request came over TLS is a trusted proxy's word, not any client's.

Regression: with BEHIND_TLS_PROXY, Django believed `X-Forwarded-Proto: https` from anyone who
could reach the server, so a client talking plain HTTP to it passed for a TLS one.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.accounts.test_throttles_through_uvicorn import client_from, loopback
from tests.games.servers import uvicorn_servers
from tests.games.worker import ROOT

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.processes]


def test_x_forwarded_proto_counts_only_from_a_trusted_proxy():
    proxy = loopback()
    with uvicorn_servers(1, TRUSTED_PROXIES=proxy, SECURE_SSL_REDIRECT="1") as (base,):
        https = {"X-Forwarded-Proto": "https"}
        with client_from(loopback(), base) as stranger:
            assert stranger.get("/api/games", headers=https).status_code == 301  # sent to https: not believed
        with client_from(proxy, base) as via_proxy:
            assert via_proxy.get("/api/games", headers=https).status_code == 200
            assert via_proxy.get("/api/games").status_code == 301


def test_the_setting_that_believed_anyone_stops_the_server():
    env = {"BEHIND_TLS_PROXY": "1", "DJANGO_SETTINGS_MODULE": "server.settings_test", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "TRUSTED_PROXIES" in done.stderr
