"""What every topic's views share: JSON request bodies, a player as the API names one, and pages."""

from __future__ import annotations

from typing import cast

from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from server.pagination import paged


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    user = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField(allow_blank=True)


class JsonApiView(APIView):
    """A view whose request bodies are JSON (the only content type its schema documents)."""

    parser_classes = [JSONParser]


def _page_of(serializer_class: type[serializers.Serializer], rows, request, view: APIView, shown=None) -> Response:
    """A page of `rows` (a list, or a queryset read one page at a time), each row `shown` first."""
    def serialized(page: list) -> list:
        # A list (many=True); the stubs type every serializer's data as a dict.
        return cast(list, serializer_class([shown(row) for row in page] if shown else page, many=True).data)

    return paged(rows, request, view, serialized)
