"""OpenAPI generation tuned to our view style."""
from __future__ import annotations

from drf_spectacular.openapi import AutoSchema


class ViewScopedAutoSchema(AutoSchema):
    """Names a view's nested `InputSerializer`/`OutputSerializer` after the view.

    Every view has its own `InputSerializer` (HackSoft style); without this they would all
    collide as one "Input" component.
    """

    def get_serializer_name(self, serializer, direction):
        qualname = type(serializer).__qualname__
        if "." in qualname:
            outer, inner = qualname.rsplit(".", 1)
            return outer.removesuffix("Api") + inner
        return super().get_serializer_name(serializer, direction)
