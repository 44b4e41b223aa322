"""The Celery application; configuration comes from Django settings (CELERY_*)."""
from __future__ import annotations

import os

import functools

from celery import Celery, shared_task

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")

app = Celery("server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_configure.connect
def _safe_filesystem_broker(sender, **kwargs) -> None:
    # `sender.conf` is not loaded yet when this signal fires (reading it would recurse).
    from django.conf import settings

    if str(getattr(settings, "CELERY_BROKER_URL", "")).startswith("filesystem"):
        from server.filesystem_broker import install

        install()


def _transient_errors() -> tuple[type[Exception], ...]:
    """Errors after which a task should simply run again a little later."""
    import redis
    from django.db import InterfaceError, OperationalError
    from kombu.exceptions import OperationalError as BrokerError

    return (OperationalError, InterfaceError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError, BrokerError)


def idempotent_task(func=None, **options):
    """A task that is safe to run twice: acknowledged only when done (a dead worker's task runs
    again elsewhere) and retried with exponential back-off while the database or Redis is away."""
    options = {
        "acks_late": True,
        "reject_on_worker_lost": True,
        "autoretry_for": _transient_errors(),
        "retry_backoff": True,
        "retry_backoff_max": 60,
        "retry_jitter": True,
        "max_retries": 10,
        **options,
    }
    if func is None:
        return functools.partial(idempotent_task, **options)
    return shared_task(**options)(func)
