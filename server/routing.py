"""WebSocket routes."""
from __future__ import annotations

from django.urls import path

from games.consumers import MatchConsumer
from notifications.consumers import NotificationConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchConsumer.as_asgi()),
    path("ws/notifications/", NotificationConsumer.as_asgi()),
]
