"""ASGI entry point: HTTP through Django's WSGI handler on a pool of threads, WebSockets
through Channels, both in one uvicorn process.

Why HTTP does not go through Django's own ASGI handler: every view here is synchronous (DRF),
and that handler runs each request's sync middleware and view in a thread it starts for that
request, hopping between the event loop and that thread once per middleware. Measured on the
same machine in the same run (`python -m bench.moves`): a view with no database at all served
about 180 requests/s per process that way, 1,450 through this thread pool.

Moves with an API token are the one exception: `games.fastlane` plays them on the event loop
(and hands back to Django whatever it would not answer exactly as the view does).
"""
from __future__ import annotations

import asyncio
import gc
import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
django_wsgi_app = get_wsgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs the apps loaded)
from django.conf import settings  # noqa: E402

from accounts.ws_auth import WebSocketAuthStack, origin_checked  # noqa: E402
from games import fastlane  # noqa: E402
from server import live, logs, loop_watch, metrics_endpoint  # noqa: E402
from server.routing import websocket_urlpatterns  # noqa: E402

logs.uvicorn_logs_redacted()

# The stubs type WSGIHandler's result as an HttpResponseBase, which is the iterable of bytes WSGI asks for.
_django_http = WSGIMiddleware(django_wsgi_app, workers=settings.HTTP_THREADS)  # type: ignore[arg-type]


async def _http(scope, receive, send):
    if metrics_endpoint.handles(scope):
        await metrics_endpoint.asgi(scope, receive, send)
    elif fastlane.handles(scope):
        await fastlane.http_move(scope, receive, send, _django_http)
    else:
        await _django_http(scope, receive, send)


_router = ProtocolTypeRouter(
    {
        "http": _http,
        "websocket": origin_checked(WebSocketAuthStack(URLRouter(websocket_urlpatterns))),
    }
)


async def application(scope, receive, send):
    # Views run in pool threads that know nothing of this loop; a move's hint to its sockets is
    # sent on it (an in-memory channel layer lives here).
    loop = asyncio.get_running_loop()
    live.server_loop_set(loop)
    loop_watch.watch(loop)
    await _router(scope, receive, send)


# What is loaded by now lives as long as the process: keep it out of the collector's scans.
# A full collection walked all of it and held the event loop 100-140 ms under 200 live
# tables; 25-50 ms after (bench/live.py, timed with gc.callbacks).
gc.freeze()
# What is left for a full collection is mostly the open sockets' own objects (a thousand sockets:
# about 150,000 coroutines, tasks, contexts and dicts), and each full collection still took
# 35-65 ms of CPU under 500 live tables, several a second between two processes
# (server.loop_watch's warnings). A full collection once in a hundred collections of the middle
# generation, not ten, took them out of the window; the young generations stay as they are.
gc.set_threshold(700, 10, 100)
