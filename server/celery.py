"""The Celery application; configuration comes from Django settings (CELERY_*)."""
from __future__ import annotations

import functools
import logging
import os
import time
from datetime import datetime

import redis
from celery import Celery, shared_task, signals
from django.db import InterfaceError, OperationalError, transaction
from django.utils.module_loading import import_string
from kombu.exceptions import OperationalError as BrokerError

from server import metrics
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


@signals.before_task_publish.connect
def _sent_at_stamped(headers=None, **kwargs) -> None:
    """Each message says when it was sent, for the task's wait (`metrics.celery_task_wait_seconds`)."""
    if headers is not None:
        headers.setdefault("sent_at", time.time())


_started: dict[str, float] = {}  # task id -> when it started, in this process


@signals.task_prerun.connect
def _task_started(task_id=None, task=None, **kwargs) -> None:
    _started[task_id] = time.perf_counter()
    sent_at = getattr(task.request, "sent_at", None)
    if isinstance(sent_at, float | int):
        eta = task.request.eta
        due = max(sent_at, datetime.fromisoformat(eta).timestamp()) if isinstance(eta, str) else sent_at
        metrics.celery_task_wait_seconds.labels(task.name).observe(max(0.0, time.time() - due))


@signals.task_postrun.connect
def _task_ended(task_id=None, task=None, state=None, **kwargs) -> None:
    started = _started.pop(task_id, None)
    if started is not None:
        outcome = (state or "unknown").lower()
        metrics.celery_task_seconds.labels(task.name, outcome).observe(time.perf_counter() - started)


@signals.worker_init.connect
def _worker_metrics_served(**kwargs) -> None:
    _metrics_served()


@signals.beat_init.connect
def _beat_metrics_served(**kwargs) -> None:
    # A beat inside a worker (`worker -B`, forked from it) finds the worker's server started.
    _metrics_served()


def _metrics_served() -> None:
    """The worker's or beat's /metrics on METRICS_PORT, if set."""
    from django.conf import settings  # noqa: PLC0415 - as in _safe_filesystem_broker

    # Here, not at the top: the endpoint loads DRF and the project's limits, which need the
    # settings configured, and this module is loaded before they are.
    from server import metrics_endpoint  # noqa: PLC0415

    if settings.METRICS_PORT:
        metrics_endpoint.serve(settings.METRICS_PORT)


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
