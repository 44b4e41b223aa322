"""A tournament's webhooks over HTTP: the organiser lists, adds and removes them."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from server.errors import forbidden
from tournaments import selectors, webhooks
from tournaments.api._common import JsonApiView


class WebhookListCreateApi(JsonApiView):
    """The organiser's webhooks for a tournament; creating one answers with its signing secret."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        url = serializers.URLField(max_length=500)
        kinds = serializers.ListField(
            child=serializers.ChoiceField(choices=webhooks.ALL_KINDS), required=False
        )

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        url = serializers.CharField()
        kinds = serializers.ListField(child=serializers.CharField())
        secret = serializers.CharField(
            help_text="Signs every body: HMAC-SHA256, hex, in X-Cardleague-Signature."
        )
        created_at = serializers.DateTimeField()

    @extend_schema(responses={200: OutputSerializer(many=True)})
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        if request.user.pk != tournament.organiser_id:
            raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))
        return Response(self.OutputSerializer(selectors.webhook_list(tournament), many=True).data)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = webhooks.webhook_create(tournament_id=tournament_id, user=request.user, **data.validated_data)
        return Response(self.OutputSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDeleteApi(JsonApiView):
    """The organiser removes a webhook."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, tournament_id: int, webhook_id: int):
        webhooks.webhook_delete(tournament_id=tournament_id, webhook_id=webhook_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SeriesWebhookListCreateApi(JsonApiView):
    """The series' webhooks, for its organiser (or staff): `series.changed` hears of its decisions,
    `series.standings` of a counted tournament finishing or its result changed after the end."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        url = serializers.URLField(max_length=500)
        kinds = serializers.ListField(child=serializers.ChoiceField(choices=webhooks.SERIES_KINDS), required=False)

    @extend_schema(responses={200: WebhookListCreateApi.OutputSerializer(many=True)}, operation_id="series_webhooks_list")
    def get(self, request, series_id: int):
        hooks = selectors.series_webhook_list(selectors.series_get(series_id), request.user)
        return Response(WebhookListCreateApi.OutputSerializer(hooks, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: WebhookListCreateApi.OutputSerializer})
    def post(self, request, series_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = webhooks.series_webhook_create(series_id=series_id, user=request.user, **data.validated_data)
        return Response(WebhookListCreateApi.OutputSerializer(hook).data, status=status.HTTP_201_CREATED)


class SeriesWebhookDeleteApi(JsonApiView):
    """The series' organiser (or staff) removes a webhook."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, series_id: int, webhook_id: int):
        webhooks.series_webhook_delete(series_id=series_id, webhook_id=webhook_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
