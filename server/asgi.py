"""ASGI entry point: HTTP through Django, WebSockets through Channels."""
from __future__ import annotations

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "server.settings")
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402  (needs the apps loaded)

from server.routing import websocket_urlpatterns  # noqa: E402
from server.ws_auth import WebSocketAuthStack, origin_checked  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": origin_checked(WebSocketAuthStack(URLRouter(websocket_urlpatterns))),
    }
)
