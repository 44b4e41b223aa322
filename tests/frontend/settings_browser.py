"""Settings for the server processes the browser tests start: the test settings, with bots that
answer at once on the embedded default (its filesystem broker polled every 50 ms)."""
from __future__ import annotations

from server.settings_test import *  # noqa: F403
from server.settings_test import CELERY_BROKER_TRANSPORT_OPTIONS, REDIS_URL

if not REDIS_URL:
    CELERY_BROKER_TRANSPORT_OPTIONS = {**CELERY_BROKER_TRANSPORT_OPTIONS, "polling_interval": 0.05}
