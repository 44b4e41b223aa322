"""What every topic's views share: JSON request bodies, a player as the API names one, and pages."""

from __future__ import annotations

from typing import cast

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.parsers import JSONParser
from rest_framework.response import Response
from rest_framework.views import APIView

from server.pagination import paged
from tournaments.selectors import FEED_LIMIT


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


def feed_parameters(what: str) -> list[OpenApiParameter]:
    """A feed's `after` and `limit` (a tournament's events, a series' decisions), as documented."""
    return [
        OpenApiParameter(
            "after", {"type": "integer", "minimum": 0}, description=f"Only {what} after this position (default 0)."
        ),
        OpenApiParameter(
            "limit", {"type": "integer", "minimum": 1, "maximum": FEED_LIMIT}, description="At most this many (default 100)."
        ),
    ]


def feed_position(request) -> tuple[int, int]:
    """A feed request's `after` and `limit` (400 `invalid_input` out of range)."""
    after = serializers.IntegerField(min_value=0).run_validation(request.query_params.get("after", 0))
    limit = serializers.IntegerField(min_value=1, max_value=FEED_LIMIT).run_validation(request.query_params.get("limit", 100))
    return after, limit
