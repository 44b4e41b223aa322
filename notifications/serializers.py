"""A notification as the API and the socket send it (one shape for both)."""
from __future__ import annotations

from rest_framework import serializers

from notifications.models import Kind


class NotificationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Kind.choices)
    title = serializers.CharField(source="data.title")
    body = serializers.CharField(source="data.body")
    url = serializers.CharField(source="data.url", help_text="The page it is about, a path on this site.")
    created_at = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)
