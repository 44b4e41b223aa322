"""Liveness and readiness for orchestrators and load balancers."""
from __future__ import annotations

from django.db import connection
from django.http import JsonResponse

from leaguelog.selectors import checkpoint_latest, publish_refusal
from server.redis_clients import redis_client, redis_configured


def healthz(request):
    """The process is alive and serving."""
    return JsonResponse({"status": "ok"})


def readyz(request):
    """The database and (when configured) Redis answer; 503 otherwise, naming what failed."""
    checks: dict[str, str] = {}
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        checks["database"] = "ok"
    except Exception as exc:  # noqa: BLE001 - any failure means not ready
        checks["database"] = f"error: {type(exc).__name__}"
    if redis_configured():
        try:
            redis_client(socket_timeout=2, socket_connect_timeout=2).ping()
            checks["redis"] = "ok"
        except Exception as exc:  # noqa: BLE001
            checks["redis"] = f"error: {type(exc).__name__}"
    if checks["database"] == "ok":
        checks["league_log"] = _league_log()
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ready" if ready else "not ready", "checks": checks}, status=200 if ready else 503)


def _league_log() -> str:
    """"ok", or the code of why the league log publishes nothing (a database restored behind the
    checkpoint it published: README, Backups and restore)."""
    refusal = publish_refusal(checkpoint_latest())
    return "ok" if refusal is None else f"error: {refusal.code}"
