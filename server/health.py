"""Liveness and readiness for orchestrators and load balancers."""
from __future__ import annotations

from django.db import connection
from django.http import JsonResponse

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
    ready = all(value == "ok" for value in checks.values())
    return JsonResponse({"status": "ready" if ready else "not ready", "checks": checks}, status=200 if ready else 503)
