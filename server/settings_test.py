"""Settings for the test suite: the real settings, with what tests need set where unset.

pytest-django exports DJANGO_SETTINGS_MODULE, so server processes the tests start (uvicorn,
Celery workers) use this module too.
"""
from __future__ import annotations

import os
from typing import Any, cast
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "tests-only-not-secret")
os.environ.setdefault("ALLOWED_HOSTS", "*")
os.environ.setdefault("SECURE_COOKIES", "0")
# Where the e-mails link to (password resets need it): Django's test client's host.
os.environ.setdefault("SITE_URL", "http://testserver")
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
# Tests play many bot games a minute for a few users (ids are reused between tests); the budget's
# tests (tests/games/test_bot_move_budget.py) set their own.
os.environ.setdefault("BOT_MOVES_PER_MINUTE_PER_USER", "1000000")
# A match's review costs seconds of a core even at the smallest budget: tests (and the servers and
# workers they start) review only the matches whose review is asked for, with the smallest budget.
os.environ.setdefault("REVIEW_AFTER_MATCH", "0")
os.environ.setdefault("REVIEW_PLAYOUTS", "2")


def _redis_url_of_this_worker() -> None:
    """Under pytest-xdist, each worker has a Redis database of its own (the URL's database plus
    the worker's number): its broker queue, cache, throttles and presence are its own, and the
    server processes it starts inherit the URL. Done once, in the worker: the processes it
    starts find `TEST_REDIS_WORKER` already set and keep the URL they are given."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    url = os.environ.get("REDIS_URL", "")
    if not worker or not url or os.environ.get("TEST_REDIS_WORKER") == worker:
        return
    parts = urlsplit(url)
    database = int(parts.path.strip("/") or 0) + int(worker.removeprefix("gw"))
    if database > 15:
        raise RuntimeError(f"REDIS_URL: worker {worker} would need Redis database {database} (Redis has 16)")
    os.environ["REDIS_URL"] = urlunsplit(parts._replace(path=f"/{database}"))
    os.environ["TEST_REDIS_WORKER"] = worker


_redis_url_of_this_worker()

from server.settings import *  # noqa: E402,F403
from server.settings import CHANNEL_LAYERS, DATABASES, REDIS_URL  # noqa: E402

# Hashing passwords properly is slow by design; tests need not pay for it.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The router's tests (tests/server/test_db_router.py) switch the router on over a `replica` alias
# that mirrors the test database; the rest of the suite has no router, so nothing reads from it.
if "replica" not in DATABASES and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    DATABASES["replica"] = {**DATABASES["default"], "OPTIONS": {"connect_timeout": 2}, "TEST": {"MIRROR": "default"}}

# Pub/sub channels are not per Redis database: each run's Redis database (each xdist worker's, and
# its server processes', which inherit the URL) names its groups apart, or a match of one
# database would be heard at another's table of the same id, in another worker or in another
# run of the suite on the same Redis.
if REDIS_URL and "CONFIG" in CHANNEL_LAYERS["default"]:
    _layer = cast(dict[str, Any], CHANNEL_LAYERS["default"])
    _layer["CONFIG"] = {**_layer["CONFIG"], "prefix": "asgi-db" + (urlsplit(REDIS_URL).path.strip("/") or "0")}
