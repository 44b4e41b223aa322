"""The sign-up and login throttles through real uvicorn processes, started as the Dockerfile
starts them: X-Forwarded-For counts only from a trusted proxy."""
from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import httpx
import pytest

from tests.games.servers import uvicorn_servers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]
ROOT = Path(__file__).resolve().parents[2]
LOW_RATES = {"THROTTLE_SIGNUP": "3/hour", "THROTTLE_LOGIN": "3/hour"}


def loopback() -> str:
    """A loopback address of its own, as the test's client's peer address: throttle counts of
    other tests (all from 127.0.0.1) are not this one's."""
    raw = uuid.uuid4().bytes
    return f"127.{raw[0]}.{raw[1]}.{max(raw[2], 2)}"


def client_from(address: str, base: str) -> httpx.Client:
    return httpx.Client(base_url=base, transport=httpx.HTTPTransport(local_address=address), timeout=30)


def sign_up(client: httpx.Client, forwarded_for: str) -> int:
    body = {"username": f"spam{uuid.uuid4().hex[:10]}", "password": "a long enough passphrase"}
    return client.post("/api/auth/register", json=body, headers={"X-Forwarded-For": forwarded_for}).status_code


@pytest.mark.processes
def test_rotating_x_forwarded_for_through_uvicorn_does_not_escape_the_throttles():
    """Regression: uvicorn ran with `--forwarded-allow-ips "*"`, so any client's X-Forwarded-For
    became its address; a new one per request was unlimited sign-ups and password guesses."""
    with uvicorn_servers(1, **LOW_RATES) as (base,):
        with client_from(loopback(), base) as client:
            assert [sign_up(client, f"198.51.100.{i}") for i in range(4)] == [201, 201, 201, 429]
        with client_from(loopback(), base) as client:
            codes = [client.post("/api/auth/login", json={"username": f"v{uuid.uuid4().hex}", "password": "x"},
                                 headers={"X-Forwarded-For": f"198.51.100.{i}"}).status_code for i in range(4)]
            assert codes == [400, 400, 400, 429]


@pytest.mark.processes
def test_a_trusted_proxys_forwarded_address_counts_through_uvicorn():
    proxy = loopback()
    with uvicorn_servers(1, TRUSTED_PROXIES=proxy, **LOW_RATES) as (base,), client_from(proxy, base) as via_proxy:
        first, second = f"203.0.113.{uuid.uuid4().bytes[0]}", f"192.0.2.{uuid.uuid4().bytes[0]}"
        codes = [sign_up(via_proxy, f"10.{i}.0.1, {first}") for i in range(4)]  # the client's own entries differ
        assert codes == [201, 201, 201, 429]
        assert sign_up(via_proxy, second) == 201  # another client behind the same proxy


def test_every_uvicorn_command_takes_its_trusted_proxies_from_the_setting():
    """Regression: the Dockerfile trusted X-Forwarded-For from "*" (everyone)."""
    command = json.loads(re.search(r"^CMD (\[.*\])$", (ROOT / "docker/Dockerfile").read_text(), re.M)[1])
    assert '--forwarded-allow-ips "${TRUSTED_PROXIES:-}"' in command[-1] and '"*"' not in command[-1]
    assert "TRUSTED_PROXIES: ${TRUSTED_PROXIES:-}" in (ROOT / "docker/compose.yaml").read_text()
    assert "forwarded_allow_ips=" in (ROOT / "games/management/commands/serve.py").read_text()
