"""A notification as the API and the socket send it (one shape for both)."""
from __future__ import annotations

from rest_framework import serializers

from games.models import Invitation
from notifications.models import Kind


class NotificationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Kind.choices)
    title = serializers.CharField(source="data.title")
    body = serializers.CharField(source="data.body")
    url = serializers.CharField(source="data.url", help_text="The page it is about, a path on this site.")
    created_at = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)
    sender = serializers.SerializerMethodField(
        help_text="For an invitation (`invited`): its sender's username, whom the person may mute "
        "(`POST /api/auth/muted/<username>`); null for other kinds and a deleted sender."
    )

    def get_sender(self, notification) -> str | None:
        # Read from the invitation (the key names it), not kept in the notification: a sender
        # who deletes their account leaves no name behind here.
        if notification.kind != Kind.INVITED:
            return None
        invitation = Invitation.objects.filter(pk=notification.key, created_by__is_active=True)
        return invitation.values_list("created_by__username", flat=True).first()
