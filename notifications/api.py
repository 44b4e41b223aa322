"""Notifications over HTTP: thin views over notifications.services and selectors.

Only ever the caller's own: there is no way to name another person's notifications (staff
included: an operator who needs them reads the database, not the API).
"""
from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from notifications import selectors, services
from notifications.models import Kind
from notifications.serializers import NotificationOutputSerializer
from server.errors import bad_request
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged


class NotificationPageSerializer(PageSerializer):
    results = NotificationOutputSerializer(many=True)


class ChoiceSerializer(serializers.Serializer):
    browser = serializers.BooleanField(help_text="Shown on the site (the badge, the list, the browser's notifications).")
    email = serializers.BooleanField(help_text="Mailed to the account's e-mail, if it has one.")


class ChoiceInputSerializer(serializers.Serializer):
    browser = serializers.BooleanField(required=False)
    email = serializers.BooleanField(required=False)


class PreferencesSerializer(serializers.Serializer):
    """Every kind's choice, one field per kind."""

    def get_fields(self):
        return {kind: ChoiceSerializer() for kind in Kind.values}


class PreferencesInputSerializer(serializers.Serializer):
    """The kinds to change, each with the channels to change; what is left out keeps its value."""

    def get_fields(self):
        return {kind: ChoiceInputSerializer(required=False) for kind in Kind.values}

    def to_internal_value(self, data):
        if isinstance(data, dict) and (unknown := sorted(set(data) - set(Kind.values))):
            raise bad_request("unknown_kind", _("Kinds are %(kinds)s.") % {"kinds": ', '.join(Kind.values)}, kinds=unknown)
        return super().to_internal_value(data)


class NotificationListApi(APIView):
    """The caller's notifications, newest first; `unread=1` for the unread ones only."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        parameters=[OpenApiParameter("unread", bool, description="Only the unread ones."), *PAGE_PARAMETERS],
        responses={200: NotificationPageSerializer},
    )
    def get(self, request):
        unread = request.query_params.get("unread", "0").lower()
        if unread not in ("0", "1", "true", "false"):
            raise bad_request("bad_unread", _("unread is 1 or 0 (true or false)."))
        rows = selectors.notification_list(user_id=request.user.pk, unread=unread in ("1", "true"))
        return paged(rows, request, self, lambda page: NotificationOutputSerializer(page, many=True).data)


class NotificationUnreadCountApi(APIView):
    """How many of the caller's notifications are unread (the badge)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: inline_serializer("UnreadCount", {"unread": serializers.IntegerField()})})
    def get(self, request):
        return Response({"unread": selectors.unread_count(user_id=request.user.pk)})


class NotificationReadApi(APIView):
    """Marks the caller's notifications read: those of `ids`, or all with `"all": true`. Ids that
    are not the caller's are ignored."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        ids = serializers.ListField(child=serializers.IntegerField(min_value=1), required=False, max_length=500)
        all = serializers.BooleanField(required=False, default=False)

        def validate(self, data):
            if data["all"] == ("ids" in data):
                raise bad_request("ids_or_all", _("Send \"ids\" (a list) or \"all\": true, one of them."))
            return data

    @extend_schema(
        request=InputSerializer,
        responses={200: inline_serializer("NotificationsMarked", {
            "marked": serializers.IntegerField(help_text="How many were unread and are read now."),
            "unread": serializers.IntegerField(),
        })},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        marked = services.notifications_mark_read(user=request.user, ids=data.validated_data.get("ids"))
        return Response({"marked": marked, "unread": selectors.unread_count(user_id=request.user.pk)})


class NotificationPreferencesApi(APIView):
    """Where each kind of notification reaches the caller: the browser, e-mail, both or neither.
    A kind with the browser off is still kept (and mailed if chosen), but never shown as new."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: PreferencesSerializer})
    def get(self, request):
        return Response(selectors.preferences(user=request.user))

    @extend_schema(request=PreferencesInputSerializer, responses={200: PreferencesSerializer})
    def put(self, request):
        data = PreferencesInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.preferences_set(user=request.user, preferences=data.validated_data)
        return Response(selectors.preferences(user=request.user))
