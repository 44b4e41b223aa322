"""WebSocket routes."""
from __future__ import annotations

from django.urls import path

from chat.consumers import TableConsumer
from notifications.consumers import NotificationConsumer

websocket_urlpatterns = [
    # The table's socket: the game's frames (games.consumers.MatchConsumer) and its chat's.
    path("ws/matches/<int:match_id>/", TableConsumer.as_asgi()),
    path("ws/notifications/", NotificationConsumer.as_asgi()),
]
