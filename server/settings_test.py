"""Settings for the test suite: the real settings, with what tests need set where unset.

pytest-django exports DJANGO_SETTINGS_MODULE, so server processes the tests start (uvicorn,
Celery workers) use this module too.
"""
from __future__ import annotations

import os

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("ALLOWED_HOSTS", "*")
os.environ.setdefault("SECURE_COOKIES", "0")
# The league log's key for tests only: public here, so it signs nothing anyone should trust.
os.environ.setdefault(
    "LOG_SIGNING_KEY", "PRIVATE+KEY+tests.card-league.invalid+a3ba505c+AT2uNy0iNVxrxfTK109d5Vx/n3DCrfzCxZDX+KfA9cA7"
)
# Tests sign up many users from one address; the throttle tests set their own rates.
os.environ.setdefault("THROTTLE_SIGNUP", "100000/hour")
os.environ.setdefault("THROTTLE_LOGIN", "100000/hour")
os.environ.setdefault("THROTTLE_LOGIN_ACCOUNT", "100000/hour")
os.environ.setdefault("THROTTLE_PASSWORD_RESET", "100000/hour")
os.environ.setdefault("THROTTLE_PASSWORD_RESET_ACCOUNT", "100000/hour")
os.environ.setdefault("THROTTLE_PASSWORD_CHECK", "100000/hour")

from server.settings import *  # noqa: E402,F403
from server.settings import DATABASES  # noqa: E402

# Hashing passwords properly is slow by design; tests need not pay for it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The router's tests (tests/server/test_db_router.py) switch the router on over a `replica` alias
# that mirrors the test database; the rest of the suite has no router, so nothing reads from it.
if "replica" not in DATABASES and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["replica"] = {**DATABASES["default"], "OPTIONS": {"connect_timeout": 2}, "TEST": {"MIRROR": "default"}}
