from django.urls import path

from notifications import api

urlpatterns = [
    path("notifications", api.NotificationListApi.as_view(), name="notification-list"),
    path("notifications/unread-count", api.NotificationUnreadCountApi.as_view(), name="notification-unread-count"),
    path("notifications/read", api.NotificationReadApi.as_view(), name="notification-read"),
    path("notifications/preferences", api.NotificationPreferencesApi.as_view(), name="notification-preferences"),
]
