"""Production settings, health endpoints, request ids and structured logs."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from server import logs

ROOT = Path(__file__).resolve().parents[2]


def settings_in_a_fresh_process(env: dict, expression: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "SECURE_COOKIES")}
    code = f"import django, os; os.environ['DJANGO_SETTINGS_MODULE']='server.settings'; django.setup(); " \
           f"from django.conf import settings; print({expression})"
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**base, **env}, capture_output=True, text=True)


@pytest.mark.processes
def test_production_refuses_to_start_without_a_secret_key():
    done = settings_in_a_fresh_process({"DATABASE_URL": "postgres://u@h/db"}, "settings.DEBUG")
    assert done.returncode != 0 and "SECRET_KEY must be set" in done.stderr


@pytest.mark.processes
def test_production_is_not_debug_and_sends_cookies_only_over_https():
    env = {"DATABASE_URL": "postgres://u@h/db", "SECRET_KEY": "x" * 50, "ALLOWED_HOSTS": "cards.example.org"}
    done = settings_in_a_fresh_process(
        env, "settings.DEBUG, settings.SESSION_COOKIE_SECURE, settings.ALLOWED_HOSTS, settings.LOG_FORMAT"
    )
    assert done.stdout.strip() == "False True ['cards.example.org'] json"


@pytest.mark.processes
def test_the_embedded_default_keeps_its_own_secret_key(tmp_path):
    env = {"VAR_DIR": str(tmp_path)}
    env_without_db = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    code = "import django, os; os.environ['DJANGO_SETTINGS_MODULE']='server.settings'; django.setup(); " \
           "from django.conf import settings; print(settings.SECRET_KEY)"
    runs = [subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**env_without_db, **env, "SECRET_KEY": ""},
                           capture_output=True, text=True).stdout.strip() for _ in range(2)]
    assert runs[0] == runs[1] and len(runs[0]) >= 50
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600


@pytest.mark.django_db
def test_healthz_and_readyz():
    client = Client()
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz").json()
    assert ready["status"] == "ready" and ready["checks"]["database"] == "ok"
    if settings.REDIS_URL:
        assert ready["checks"]["redis"] == "ok"


def test_readyz_says_which_service_is_down(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    answer = Client().get("/readyz")
    assert answer.status_code == 503
    assert answer.json()["checks"]["redis"].startswith("error")


@pytest.mark.django_db
def test_a_request_id_is_kept_from_the_proxy_or_made_and_sent_back():
    client = Client()
    assert client.get("/healthz", HTTP_X_REQUEST_ID="abc-123")["X-Request-ID"] == "abc-123"
    made = client.get("/healthz", HTTP_X_REQUEST_ID="bad id with spaces")["X-Request-ID"]
    assert made != "bad id with spaces" and len(made) == 32


def test_json_logs_carry_the_request_and_match_ids():
    record = logging.LogRecord("games", logging.WARNING, __file__, 1, "move refused", None, None)
    token, match = logs.request_id.set("r-1"), logs.match_id.set(42)
    try:
        logs.ContextFilter().filter(record)
    finally:
        logs.request_id.reset(token)
        logs.match_id.reset(match)
    line = json.loads(logs.JsonFormatter().format(record))
    assert line["request_id"] == "r-1" and line["match_id"] == 42 and line["message"] == "move refused"


@pytest.mark.django_db
def test_security_headers_are_sent():
    answer = Client().get("/healthz")
    assert answer["X-Content-Type-Options"] == "nosniff" and answer["X-Frame-Options"] == "DENY"
    assert answer["Referrer-Policy"] == "same-origin"
