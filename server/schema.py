"""OpenAPI generation tuned to our view style."""
from __future__ import annotations

from drf_spectacular.openapi import AutoSchema

from server.errors import CATALOGUE


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


ERROR_STATUSES = {
    "400": "Malformed input (the `code` says what).",
    "401": "Not logged in.",
    "403": "Not allowed.",
    "404": "No such thing.",
    "409": "Refused in this state (the engine's code, `stale_seq`, ...).",
    "413": "Request body too large.",
    "415": "A request body of a type the endpoint does not read (send JSON).",
    "422": "Understood but refused (`name_reserved`, `idempotency_key_reused`).",
    "429": "Too many requests.",
    "503": "A service the request needs is away; try again later.",
}


def document_errors(result, generator, request, public):
    """Postprocessing hook: every operation may answer with the catalogue's error shape, and the
    description lists the catalogue itself."""
    rows = "\n".join(f"| `{code}` | {entry.status} | {entry.meaning} |" for code, entry in sorted(CATALOGUE.items()))
    info = result.setdefault("info", {})
    table = f"## Error codes\n\n| code | status | meaning |\n|---|---|---|\n{rows}\n"
    info["description"] = f"{info.get('description', '')}\n\n{table}"
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas["Error"] = {
        "type": "object",
        "required": ["error"],
        "properties": {
            "error": {
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string"},
                    "message": {"type": "string"},
                    "extra": {"type": "object", "additionalProperties": True},
                },
            }
        },
    }
    reference = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    for path in result.get("paths", {}).values():
        for operation in path.values():
            responses = operation.setdefault("responses", {})
            for status, description in ERROR_STATUSES.items():
                responses.setdefault(status, {"description": description, **reference})
    return result
