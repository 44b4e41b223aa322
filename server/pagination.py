"""Lists come in pages of `limit` rows from `offset`; `limit` has a maximum, `MAX_PAGE_SIZE`.

A limit past it is refused with 400 `bad_limit` rather than clamped: a client that asked for
everything learns at once that it did not get it.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.response import Response

from server.errors import bad_request
from server.limits import whole_number


class Page(LimitOffsetPagination):
    """DRF's limit/offset pages, refusing a limit or offset it would silently replace."""

    def get_limit(self, request) -> int | None:  # DRF's default_limit is None without PAGE_SIZE
        text = request.query_params.get(self.limit_query_param)
        if text is None:
            return self.default_limit
        limit = whole_number(text)
        if limit is None or not 1 <= limit <= settings.MAX_PAGE_SIZE:
            raise bad_request(
                "bad_limit",
                _("limit is a whole number from 1 to %(max_page_size)s.") % {"max_page_size": settings.MAX_PAGE_SIZE},
                max=settings.MAX_PAGE_SIZE,
            )
        return limit

    def get_offset(self, request) -> int:
        text = request.query_params.get(self.offset_query_param)
        if text is None:
            return 0
        offset = whole_number(text)
        if offset is None:
            raise bad_request("bad_offset", _("offset is a whole number of rows to skip."))
        return offset


PAGE_PARAMETERS = [
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": settings.MAX_PAGE_SIZE},
        description=f"Rows per page (default {settings.REST_FRAMEWORK['PAGE_SIZE']}, at most {settings.MAX_PAGE_SIZE}).",
    ),
    OpenApiParameter("offset", {"type": "integer", "minimum": 0}, description="Rows to skip."),
]


class PageSerializer(serializers.Serializer):
    """A page as `Page` answers it; a list's own page serializer adds `results`."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)


def paged(rows: Any, request, view, shown: Callable[[list], Any]) -> Response:
    """A page of `rows` (a list, or a queryset read one page at a time) as `Page` answers it, its
    rows as `shown(page)` gives them."""
    paginator = Page()
    page = paginator.paginate_queryset(rows, request, view=view) or []
    return paginator.get_paginated_response(shown(page))
