"""The embedded default prints password reset e-mails on its console (Django's console backend),
sent by the worker `manage.py serve` starts: a newcomer can reset a password with no mail server."""
from __future__ import annotations

import re
import time

import httpx
import pytest

from tests.embedded import serve

pytestmark = pytest.mark.processes


def test_the_reset_link_is_printed_on_the_console(tmp_path):
    with serve(tmp_path, "--no-demo") as (base, console):
        body = {"username": "gina", "password": "a long enough passphrase", "email": "gina@example.org"}
        assert httpx.post(f"{base}/api/auth/register", json=body).status_code == 201
        assert httpx.post(f"{base}/api/auth/password-reset", json={"email": "gina@example.org"}).status_code == 202
        deadline = time.monotonic() + 30
        port = base.rsplit(":", 1)[1]
        # On SITE_URL's default: the port `serve` was given, which it hands its worker.
        while not (found := re.search(rf"http://localhost:{port}(/account/reset/\S+/\S+)", console.read_text())):
            assert time.monotonic() < deadline, console.read_text()
            time.sleep(0.3)
        assert httpx.get(base + found.group(1)).status_code == 302  # Django's view takes the token: a good link
