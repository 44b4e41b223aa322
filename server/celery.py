"""The Celery application; configuration comes from Django settings (CELERY_*)."""
from __future__ import annotations

import functools
import logging
import os

import redis
from celery import Celery, shared_task
from django.db import InterfaceError, OperationalError, transaction
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as BrokerError

from server.filesystem_broker import install as install_filesystem_broker

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")

log = logging.getLogger(__name__)

app = Celery("server")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@app.on_configure.connect
def _safe_filesystem_broker(sender, **kwargs) -> None:
    # `sender.conf` is not loaded yet when this signal fires (reading it would recurse).
    from django.conf import settings  # noqa: PLC0415

    if str(getattr(settings, "CELERY_BROKER_URL", "")).startswith("filesystem"):
        install_filesystem_broker()


def _transient_errors() -> tuple[type[Exception], ...]:
    """Errors after which a task should simply run again a little later."""
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


def send_now(path: str, *args, **options) -> None:
    """Queues the task at the dotted `path` with `args` (and `apply_async`'s options).

    Bound by name, so a module that sends a task never imports the task's module, and a task may
    import the services that send it. What a task follows is committed already: one the broker
    refuses is logged, and the sweep of its kind sends it again later.
    """
    try:
        import_string(path).apply_async(args, **options)
    except Exception:  # noqa: BLE001 - the broker's own connection errors
        log.warning("could not queue %s%r; its sweep will send it again", path, args, exc_info=True)


def send_on_commit(path: str, *args, **options) -> None:
    """`send_now` once the current transaction commits (at once outside one)."""
    transaction.on_commit(lambda: send_now(path, *args, **options))
