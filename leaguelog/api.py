"""The league log over HTTP, to anyone: the signed checkpoint and the tiles (plain files that never
change once served, for any web server or CDN to cache), and JSON proofs and entries for clients
that prefer them. Every path here reads; nothing writes but the integrator."""
from __future__ import annotations

import base64
import json

from django.conf import settings
from django.http import HttpResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from leaguelog import selectors, services, tiles
from leaguelog.models import Kind
from leaguelog.notes import verifier_key_for
from server.errors import bad_request, english_or, error_response, not_found

# A tile's bytes depend on its path alone, so it is cached for good; the checkpoint changes.
_IMMUTABLE = "public, max-age=31536000, immutable"


def _log_size() -> int:
    checkpoint = selectors.checkpoint_latest()
    return 0 if checkpoint is None else checkpoint.size


@require_GET
def checkpoint(request) -> HttpResponse:
    """The newest signed checkpoint (C2SP tlog-checkpoint, as a C2SP signed note), with the
    cosignatures its witnesses have sent so far."""
    latest = selectors.checkpoint_latest()
    refusal = selectors.publish_refusal(latest)
    if refusal is not None:  # a restored database behind what was published: serving it would fork
        return error_response(refusal.code, refusal.message)
    if latest is None:
        return error_response("log_not_started", _("The league log has no checkpoint yet: try again in a few seconds."))
    response = HttpResponse(selectors.checkpoint_served(latest), content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def key(request) -> HttpResponse:
    """The verifier key of the log's signatures (C2SP signed-note format): pin it, don't fetch it
    each time, or a server that changed its key would be believed."""
    return HttpResponse(verifier_key_for(settings.LOG_SIGNING_KEY) + "\n", content_type="text/plain; charset=utf-8")


@require_GET
def tile(request, path: str) -> HttpResponse:
    """A hash tile or an entry bundle (C2SP tlog-tiles) of the log as the newest checkpoint has it."""
    try:
        wanted = tiles.parse_tile_path(f"tile/{path}")
    except tiles.TileError as error:
        return error_response("tile_not_found", english_or(str(error), _("The log holds no such tile.")))
    level = 0 if isinstance(wanted, tiles.EntryBundle) else wanted.level
    count = _log_size() >> (tiles.TILE_HEIGHT * level)
    if wanted.index * tiles.TILE_WIDTH + wanted.width > count or (
        wanted.width == tiles.TILE_WIDTH and (wanted.index + 1) * tiles.TILE_WIDTH > count
    ):
        return error_response("tile_not_found", _("The log holds no %(path)s yet.") % {"path": path})
    body = selectors.entry_bundle(wanted) if isinstance(wanted, tiles.EntryBundle) else selectors.hash_tile(wanted)
    response = HttpResponse(body, content_type="application/octet-stream")
    response["Cache-Control"] = _IMMUTABLE
    return response


def _b64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _sizes_checked(**sizes: int) -> int:
    """The log's size; a 400 for a size past it."""
    size = _log_size()
    for name, value in sizes.items():
        if value > size:
            raise bad_request(
                "beyond_log",
                _("%(name)s %(value)s is past the log's size, %(size)s.")
                % {"name": name, "value": value, "size": size},
            )
    return size


class InclusionProofApi(APIView):
    """The RFC 9162 inclusion proof of the entry at `index` in the tree of `size` entries."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        index = serializers.IntegerField(min_value=0, max_value=2**62)
        size = serializers.IntegerField(min_value=1, max_value=2**62)

    class OutputSerializer(serializers.Serializer):
        index = serializers.IntegerField()
        size = serializers.IntegerField()
        leaf_hash = serializers.CharField(help_text="base64 of SHA-256(0x00 ‖ entry)")
        proof = serializers.ListField(child=serializers.CharField(), help_text="base64 hashes, leaf to root")

    @extend_schema(parameters=[InputSerializer], responses={200: OutputSerializer})
    def get(self, request):
        query = _query(self.InputSerializer, request)
        index, size = query["index"], query["size"]
        _sizes_checked(size=size)
        if index >= size:
            raise bad_request(
                "beyond_tree",
                _("index %(index)s is not in a tree of %(size)s entries.") % {"index": index, "size": size},
            )
        leaf = selectors.stored_hashes([(0, index)])[(0, index)]
        proof = selectors.inclusion_proof(index, size)
        return Response({"index": index, "size": size, "leaf_hash": _b64(leaf), "proof": [_b64(h) for h in proof]})


class ConsistencyProofApi(APIView):
    """The RFC 9162 proof that the tree of `old` entries is a prefix of the tree of `new` entries."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        old = serializers.IntegerField(min_value=0, max_value=2**62)
        new = serializers.IntegerField(min_value=0, max_value=2**62)

    class OutputSerializer(serializers.Serializer):
        old = serializers.IntegerField()
        new = serializers.IntegerField()
        proof = serializers.ListField(child=serializers.CharField(), help_text="base64 hashes")

    @extend_schema(parameters=[InputSerializer], responses={200: OutputSerializer})
    def get(self, request):
        query = _query(self.InputSerializer, request)
        old, new = query["old"], query["new"]
        _sizes_checked(new=new)
        if old > new:
            raise bad_request("bad_sizes", _("old (%(old)s) must not be past new (%(new)s).") % {"old": old, "new": new})
        proof = selectors.consistency_proof(old, new)
        return Response({"old": old, "new": new, "proof": [_b64(h) for h in proof]})


class EntryOutputSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Kind.choices)
    source_id = serializers.IntegerField(help_text="the match, tournament event or rating ledger row")
    part = serializers.IntegerField()
    entry = serializers.JSONField(help_text="the entry as logged (its shapes: leaguelog/selectors.py)")
    leaf_hash = serializers.CharField(help_text="base64 of SHA-256(0x00 ‖ the entry's bytes)")


def _entry_body(entry) -> dict:
    body = bytes(entry.body)
    leaf = selectors.stored_hashes([(0, entry.index)])[(0, entry.index)]
    return {"index": entry.index, "kind": entry.kind, "source_id": entry.source_id, "part": entry.part,
            "entry": json.loads(body), "leaf_hash": _b64(leaf)}


class EntryApi(APIView):
    """The log's entry at `index`."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: EntryOutputSerializer})
    def get(self, request, index: int):
        entry = selectors.entry_at(index) if index < _log_size() else None
        if entry is None:
            raise not_found("entry_not_found", _("The log holds no entry %(index)s.") % {"index": index})
        return Response(_entry_body(entry))


class EntryFindApi(APIView):
    """Where a fact is in the log: the entry of a match, a tournament event or a ledger row."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=Kind.choices)
        source_id = serializers.IntegerField(min_value=1, max_value=2**62)

    @extend_schema(operation_id="log_entry_find", parameters=[InputSerializer], responses={200: EntryOutputSerializer})
    def get(self, request):
        query = _query(self.InputSerializer, request)
        entry = selectors.entry_of(query["kind"], query["source_id"])
        if entry is None or entry.index >= _log_size():
            raise not_found(
                "entry_not_found",
                _("No %(kind)s %(id)s in the log (yet).") % {"kind": query["kind"], "id": query["source_id"]},
            )
        return Response(_entry_body(entry))


def _query(serializer_class: type[serializers.Serializer], request) -> dict:
    serializer = serializer_class(data=request.query_params)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class CosignatureAddApi(APIView):
    """A witness sends its cosignature of a checkpoint (a C2SP cosignature/v1 signature line).

    Anyone may send one: only a line that verifies under one of LOG_WITNESSES' keys for the
    checkpoint of that size is kept (403 `unknown_witness`, 400 `bad_cosignature`); 201 when
    new, 200 when that witness had already cosigned it."""

    permission_classes = [AllowAny]
    authentication_classes: list = []  # a witness proves itself by its signature, not a session

    class InputSerializer(serializers.Serializer):
        size = serializers.IntegerField(min_value=0, max_value=2**62)
        cosignature = serializers.CharField(max_length=1000, trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={200: None, 201: None})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        created = services.cosignature_add(size=data.validated_data["size"], line=data.validated_data["cosignature"])
        return Response(status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)
