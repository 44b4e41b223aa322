"""Series of tournaments over HTTP: listing and creating them, one series with its standings, its
rules and the tournaments it counts. Anyone reads; the series' organiser (or staff) changes it
(403 `not_series_organiser`). Every write answers with the series and its standings as they now are."""

from __future__ import annotations

from typing import get_args

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from games.engines import ENGINES
from server.db_router import replica_reads
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged
from tournaments import selectors, services
from tournaments.api._common import JsonApiView, feed_parameters, feed_position
from tournaments.api.tournaments import EventOutputSerializer, StrictCharField
from tournaments.models import Tournament
from tournaments.series import Mark, Status

_RULES_HELP = (
    "points: an object of tiers (\"1\", \"2\", ...), each the points of places 1, 2, ... (not rising); "
    "best: how many results count (null: all); field_scaling: the field size from which places score in full "
    "(null: no scaling). Left out: the circuit's 1000/600/400/200 table, all counting, no scaling."
)


class SeriesEventOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    tournament_seq = serializers.IntegerField(help_text="The position of the tournament's last event, as counted.")
    name = serializers.CharField()
    game = serializers.CharField()
    tier = serializers.IntegerField()
    # Text, as the result's status below: the tournaments' status enum keeps its one component's name.
    status = serializers.CharField(help_text=f"The tournament's: {', '.join(Tournament.Status.values)}.")
    counted = serializers.BooleanField(help_text="Finished: its final standings count in the series.")


class SeriesOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.ListField(child=serializers.CharField())
    starts_on = serializers.DateField()
    ends_on = serializers.DateField()
    organiser = serializers.IntegerField()
    rules = serializers.DictField(help_text=_RULES_HELP)
    seq = serializers.IntegerField(help_text="The position of the series' last decision.")
    created_at = serializers.DateTimeField()
    events = SeriesEventOutputSerializer(many=True)


class SeriesResultOutputSerializer(serializers.Serializer):
    event = serializers.IntegerField(help_text="The tournament.")
    tier = serializers.IntegerField()
    field_size = serializers.IntegerField()
    place = serializers.IntegerField()
    shared = serializers.IntegerField(help_text="Players holding the place (1: alone).")
    # Text, not a choice field: a second choice set named `status` would rename the tournaments'
    # status enum in the schema.
    status = serializers.CharField(help_text=f"How the player left the event: {', '.join(get_args(Status))}.")
    points = serializers.CharField(help_text="Exact, as a fraction (\"500\", \"1400/3\").")
    mark = serializers.ChoiceField(
        choices=list(get_args(Mark)),
        help_text="counting, dropped (beyond the best N) or void (disqualified, or no game played).",
    )


class SeriesStandingOutputSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField(help_text="user:<id> for a person, bot:<name> for a bot.")
    name = serializers.CharField(allow_blank=True)
    total = serializers.CharField(help_text="The counting results' points, exact.")
    played = serializers.IntegerField()
    counting = serializers.IntegerField()
    head_to_head = serializers.IntegerField(help_text="The last tie-break's score (0 when untied).")
    results = SeriesResultOutputSerializer(many=True)


class SeriesWithStandingsOutputSerializer(SeriesOutputSerializer):
    standings = SeriesStandingOutputSerializer(many=True)


class SeriesPageSerializer(PageSerializer):
    results = SeriesOutputSerializer(many=True)


def _answer(series_id: int, code: int = status.HTTP_200_OK) -> Response:
    shown = selectors.series_with_standings(selectors.series_get(series_id))
    return Response(SeriesWithStandingsOutputSerializer(shown).data, status=code)


class SeriesListCreateApi(JsonApiView):
    """Lists series (filters: game, organiser) and creates one (the caller organises it)."""

    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=120)
        # Slugs checked by the service (400 unknown_game, `extra.games` listing them): as a choice
        # field here the schema would name the games' enum twice.
        games = serializers.ListField(child=StrictCharField(max_length=32), min_length=1, max_length=20)
        starts_on = serializers.DateField()
        ends_on = serializers.DateField()
        rules = serializers.DictField(required=False, default=dict, help_text=_RULES_HELP)

    def get_permissions(self):
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, enum=sorted(ENGINES)),
            OpenApiParameter("organiser", {"type": "integer", "minimum": 1}, description="The organiser's user id."),
            *PAGE_PARAMETERS,
        ],
        responses={200: SeriesPageSerializer},
        operation_id="series_list",
    )
    @replica_reads
    def get(self, request):
        game = request.query_params.get("game")
        if game is not None and game not in ENGINES:
            raise serializers.ValidationError({"game": _("one of %(values)s") % {"values": sorted(ENGINES)}})
        organiser = request.query_params.get("organiser")
        if organiser is not None:
            organiser = serializers.IntegerField(min_value=1).run_validation(organiser)
        rows = selectors.series_list(game=game, organiser=organiser)
        return paged(rows, request, self, lambda page: [SeriesOutputSerializer(selectors.series_shown(s)).data for s in page])

    @extend_schema(request=InputSerializer, responses={201: SeriesWithStandingsOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        series = services.series_create(organiser=request.user, **data.validated_data)
        return _answer(series.pk, status.HTTP_201_CREATED)


class SeriesDetailApi(JsonApiView):
    """One series, the tournaments it counts and its standings now."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: SeriesWithStandingsOutputSerializer})
    @replica_reads
    def get(self, request, series_id: int):
        return _answer(series_id)


class SeriesRulesSetApi(JsonApiView):
    """The organiser sets the series' points table, best N and field scaling."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        rules = serializers.DictField(help_text=_RULES_HELP)

    @extend_schema(request=InputSerializer, responses={200: SeriesWithStandingsOutputSerializer})
    def put(self, request, series_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.series_rules_set(series_id=series_id, user=request.user, **data.validated_data)
        return _answer(series_id)


class SeriesEventAddApi(JsonApiView):
    """The organiser counts a tournament in the series, at a tier of its points table."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        tournament = serializers.IntegerField(min_value=1, max_value=2**63 - 1)
        tier = serializers.IntegerField(min_value=1, max_value=32767)

    @extend_schema(request=InputSerializer, responses={201: SeriesWithStandingsOutputSerializer})
    def post(self, request, series_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.series_event_add(
            series_id=series_id, user=request.user, tournament_id=data.validated_data["tournament"],
            tier=data.validated_data["tier"],
        )
        return _answer(series_id, status.HTTP_201_CREATED)


class SeriesEventChangeApi(JsonApiView):
    """The organiser moves a counted tournament to another tier, or stops counting it."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        tier = serializers.IntegerField(min_value=1, max_value=32767)

    @extend_schema(request=InputSerializer, responses={200: SeriesWithStandingsOutputSerializer})
    def patch(self, request, series_id: int, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.series_event_tier_change(
            series_id=series_id, user=request.user, tournament_id=tournament_id, tier=data.validated_data["tier"]
        )
        return _answer(series_id)

    @extend_schema(request=None, responses={200: SeriesWithStandingsOutputSerializer})
    def delete(self, request, series_id: int, tournament_id: int):
        services.series_event_remove(series_id=series_id, user=request.user, tournament_id=tournament_id)
        return _answer(series_id)


class SeriesDecisionsApi(JsonApiView):
    """The series' decisions in order, after position `after` (the league log takes each one):
    follow a series by asking again with `after` = the `next` of the last answer."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        decisions = EventOutputSerializer(many=True)
        next = serializers.IntegerField(help_text="Ask again with after=next.")
        head = serializers.IntegerField(help_text="The position of the latest decision.")

    @extend_schema(parameters=feed_parameters("decisions"), responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, series_id: int):
        after, limit = feed_position(request)
        feed = selectors.series_decision_feed(selectors.series_get(series_id), after=after, limit=limit)
        return Response(self.OutputSerializer(feed).data)
