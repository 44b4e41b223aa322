"""API tokens and socket tickets in URLs never reach the logs (uvicorn prints every request's
path with its query: the access line for HTTP, the "accepted" line for a socket)."""
from __future__ import annotations

import logging

import httpx
import pytest
from websockets.sync.client import connect

from accounts.services import user_token
from server.logs import SecretQueryFilter, secrets_redacted
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tests.games.servers import uvicorn_servers


def test_token_and_ticket_values_are_blanked_however_they_are_written():
    assert secrets_redacted("/ws/matches/1/?since=3&token=abc&x=1") == "/ws/matches/1/?since=3&token=[redacted]&x=1"
    assert secrets_redacted("/ws/matches/1/?ticket=t-1_2") == "/ws/matches/1/?ticket=[redacted]"
    assert "abc" not in secrets_redacted("/ws/matches/1/?%74oken=abc&TOKEN=abc")  # decoded as the server decodes it
    assert secrets_redacted("/api/matches?limit=5") == "/api/matches?limit=5"
    record = logging.LogRecord("uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
                               ("127.0.0.1:5", "GET", "/x?token=secret", "1.1", 200), None)
    SecretQueryFilter().filter(record)
    assert "secret" not in record.getMessage()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_uvicorns_access_log_never_shows_a_token_or_a_ticket(tmp_path):
    """Regression: the socket's `?token=` landed in the access log, and tokens never expired."""
    alice, bob = make_user("alice"), make_user("bob")
    match_id = started_match("the-game", [alice, bob])
    key = user_token(user=alice)
    ticket = client_for(bob).post("/api/auth/socket-ticket").json()["ticket"]
    log_path = tmp_path / "server.log"
    with open(log_path, "w") as log_file, uvicorn_servers(1, log_file=log_file) as (base,):
        ws = base.replace("http", "ws") + f"/ws/matches/{match_id}/"
        for query in (f"?token={key}", f"?ticket={ticket}"):
            with connect(ws + query) as socket:
                assert '"snapshot"' in socket.recv(timeout=10)
        assert httpx.get(f"{base}/api/auth/me?token={key}").status_code == 401  # tokens go in the header
    logged = log_path.read_text()
    assert "WebSocket /ws/matches/" in logged and "token=[redacted]" in logged and "ticket=[redacted]" in logged
    assert key not in logged and ticket not in logged
