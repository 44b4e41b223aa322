"""`/metrics` in Prometheus's text format, to the networks in METRICS_ALLOWED_NETWORKS only.

The web processes answer it on the event loop (`asgi`, called by `server.asgi` before Django):
a scrape needs neither a free HTTP thread (it answers while every thread is busy, when it is
wanted most) nor a Host that ALLOWED_HOSTS names, nor the HTTPS redirect (Prometheus scrapes
each process by its own address). The collecting runs in a thread. A Celery worker or beat
with METRICS_PORT set serves the same on that port (`serve`), from a thread of its main process.

What a scrape reads: with `PROMETHEUS_MULTIPROC_DIR`, every process's values in that directory
(added up; the open sockets of processes that are gone are dropped); without it, this process's
own. The web processes also read, at scrape time, the broker's queue lengths and the league
log's backlog: current whenever Prometheus asks, and still told while beat or the worker is
stuck, which is when they matter (a beat task would stop reporting exactly then).
"""
from __future__ import annotations

import asyncio
import functools
import glob
import ipaddress
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from wsgiref.simple_server import make_server

from celery import current_app
from django.conf import settings
from django.db import connections
from django.utils import translation
from django.utils.translation import gettext as _
from prometheus_client import REGISTRY, CollectorRegistry, exposition, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric

from server import languages, limits, metrics

log = logging.getLogger(__name__)

PATH = "/metrics"
# The classic text format, which every Prometheus reads (`generate_latest` writes it).
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_served: list[object] = []  # the worker's or beat's server, once started


def handles(scope) -> bool:
    return scope["path"] == PATH


def allowed(peer: str, forwarded_for: str = "") -> bool:
    """Whether a client at `peer` (with the X-Forwarded-For it sent) may read the metrics:
    its address as the throttles find it (`limits.client_ip`) is in METRICS_ALLOWED_NETWORKS."""
    address = limits.client_ip({"REMOTE_ADDR": peer, "HTTP_X_FORWARDED_FOR": forwarded_for})
    return address is not None and any(address in network for network in _networks(tuple(settings.METRICS_ALLOWED_NETWORKS)))


@functools.lru_cache(maxsize=8)
def _networks(networks: tuple[str, ...]) -> tuple:
    return tuple(ipaddress.ip_network(network, strict=False) for network in networks)


def refusal(accept_language: str) -> tuple[int, bytes, str]:
    """The 403 answer, in the project's error shape and the reader's language."""
    language = languages.chosen(accept_language=accept_language, api=True)
    with translation.override(language):
        message = _("This address may not read the metrics: it is not in METRICS_ALLOWED_NETWORKS.")
        body = {"error": {"code": "metrics_forbidden", "message": message}}
    return 403, json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode(), language


def scraped_text(*, scrape_time: bool) -> bytes:
    """The metrics in Prometheus's text format; `scrape_time`: with the broker's and the league log's."""
    registry = CollectorRegistry()
    if metrics.MULTIPROC_DIR:
        _gone_processes_forgotten()
        multiprocess.MultiProcessCollector(registry, path=metrics.MULTIPROC_DIR)
    else:
        registry.register(_ThisProcess())
    if scrape_time:
        registry.register(_ScrapeTime())
    return exposition.generate_latest(registry)


class _ThisProcess:
    """This process's own values (and prometheus_client's process and platform collectors)."""

    def collect(self) -> Iterable[Metric]:
        return REGISTRY.collect()


def _gone_processes_forgotten() -> None:
    """The live gauges (open sockets) of processes that have ended are dropped: nobody else would
    (a uvicorn or Celery child that dies says nothing); their counters stay in the totals."""
    for path in glob.glob(os.path.join(metrics.MULTIPROC_DIR, "gauge_live*_*.db")):
        pid = int(path.rsplit("_", 1)[1].removesuffix(".db"))
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            multiprocess.mark_process_dead(pid, metrics.MULTIPROC_DIR)
        except PermissionError:  # alive, another user's
            pass


class _ScrapeTime:
    """What is read when Prometheus asks: each part on its own, so one that is down (the broker)
    leaves the others and the scrape answers anyway (the part is missing from it)."""

    def collect(self) -> Iterator[Metric]:
        for part in (_queue_lengths, _league_log_backlog):
            try:
                yield from part()
            except Exception:  # noqa: BLE001 - a scrape never fails for one source
                log.warning("metrics: %s could not be read", part.__name__, exc_info=True)


def _queue_lengths() -> Iterator[Metric]:
    family = GaugeMetricFamily("cardleague_celery_queue_length", metrics.SCRAPED["cardleague_celery_queue_length"],
                               labels=["queue"])
    with current_app.connection_for_read(connect_timeout=2) as connection:
        connection.ensure_connection(max_retries=1)
        channel = connection.default_channel
        for queue in sorted(current_app.amqp.queues):
            # Kombu's own count: Redis's lists (every priority's) or the filesystem queue's files.
            family.add_metric([queue], channel._size(queue))
    yield family


def _league_log_backlog() -> Iterator[Metric]:
    try:
        count, oldest = _pending_backlog()
    finally:
        connections.close_all()  # this thread's, back to the pool
    yield GaugeMetricFamily("cardleague_leaguelog_pending_facts", metrics.SCRAPED["cardleague_leaguelog_pending_facts"],
                            value=count)
    age = max(0.0, time.time() - oldest.timestamp()) if oldest is not None else 0.0
    yield GaugeMetricFamily("cardleague_leaguelog_oldest_pending_seconds",
                            metrics.SCRAPED["cardleague_leaguelog_oldest_pending_seconds"], value=age)


def _pending_backlog() -> tuple[int, datetime | None]:
    """How many facts wait for the league log, and when the oldest of them happened (a match's
    end, a tournament event's making, a ledger row's match's end): the queue keeps no time."""
    # Here, not at the top: the models need the apps loaded, and this module is also loaded by
    # a Celery worker before them (it never reads the log: the web processes do).
    from games.models import Match  # noqa: PLC0415
    from leaguelog.models import Kind, LogPending  # noqa: PLC0415
    from ratings.models import RatingEntry  # noqa: PLC0415
    from tournaments.models import TournamentEvent  # noqa: PLC0415

    count = LogPending.objects.count()
    oldest = LogPending.objects.order_by("id").values_list("kind", "source_id").first()
    if oldest is None:
        return count, None
    kind, source_id = oldest
    if kind == Kind.TOURNAMENT_EVENT:
        return count, TournamentEvent.objects.filter(pk=source_id).values_list("created", flat=True).first()
    match_id = (
        RatingEntry.objects.filter(pk=source_id).values_list("match_id", flat=True).first()
        if kind == Kind.RATING_ENTRY else source_id
    )
    if match_id is None:
        return count, None
    return count, Match.objects.filter(pk=match_id).values_list("finished_at", flat=True).first()


async def asgi(scope, receive, send) -> None:
    """Answers `GET /metrics` on a web process (`server.asgi`)."""
    headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
    peer = (scope.get("client") or ("", 0))[0]
    if not allowed(peer, headers.get("x-forwarded-for", "")):
        status, body, language = refusal(headers.get("accept-language", ""))
        content_type = "application/json"
        extra = [(b"content-language", language.encode())]
    else:
        body = await asyncio.get_running_loop().run_in_executor(None, lambda: scraped_text(scrape_time=True))
        status, content_type, extra = 200, CONTENT_TYPE, []
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode()),
        (b"cache-control", b"no-store"), *extra,
    ]})
    await send({"type": "http.response.body", "body": body})


def wsgi(environ, start_response) -> list[bytes]:
    """The same for the worker's or beat's own server (no scrape-time reads: the web's have them)."""
    if environ.get("PATH_INFO") != PATH:
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not found: metrics are at /metrics\n"]
    if not allowed(environ.get("REMOTE_ADDR", ""), environ.get("HTTP_X_FORWARDED_FOR", "")):
        _status, body, language = refusal(environ.get("HTTP_ACCEPT_LANGUAGE", ""))
        start_response("403 Forbidden", [("Content-Type", "application/json"), ("Content-Language", language)])
        return [body]
    start_response("200 OK", [("Content-Type", CONTENT_TYPE), ("Cache-Control", "no-store")])
    return [scraped_text(scrape_time=False)]


def serve(port: int, *, host: str = "0.0.0.0", make: Callable = make_server) -> None:
    """Serves `wsgi` on `port` from a thread of this process (a Celery worker's or beat's), once."""
    if _served:
        return
    server = make(host, port, wsgi, exposition.ThreadingWSGIServer, handler_class=exposition._SilentHandler)
    _served.append(server)
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    log.info("metrics served on %s:%s%s", host, port, PATH)
