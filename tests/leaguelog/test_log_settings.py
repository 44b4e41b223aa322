"""The log's key: required in production, made and kept by the embedded default."""
from __future__ import annotations

import os

import pytest

from leaguelog.notes import parse_signer_key
from tests.server.test_production_shape import settings_in_a_fresh_process

pytestmark = pytest.mark.processes


def test_production_refuses_to_start_without_a_log_key():
    env = {"DATABASE_URL": "postgres://u@h/db", "SECRET_KEY": "x" * 50, "LOG_SIGNING_KEY": ""}
    done = settings_in_a_fresh_process(env, "settings.DEBUG")
    assert done.returncode != 0 and "LOG_SIGNING_KEY must be set" in done.stderr


def test_the_embedded_default_makes_its_log_key_once_and_keeps_it(tmp_path):
    env = {"VAR_DIR": str(tmp_path), "LOG_SIGNING_KEY": "", "DATABASE_URL": ""}
    first = settings_in_a_fresh_process(env, "settings.LOG_SIGNING_KEY").stdout.strip()
    assert parse_signer_key(first).name == "localhost/card-league"
    assert settings_in_a_fresh_process(env, "settings.LOG_SIGNING_KEY").stdout.strip() == first
    assert oct(os.stat(tmp_path / "log_signing_key").st_mode & 0o777) == "0o600"
