"""Results over HTTP: the standings, and the organiser's corrections and forfeits of a table."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from server.db_router import replica_reads
from server.pagination import PAGE_PARAMETERS, PageSerializer
from tournaments import selectors, services
from tournaments.api._common import JsonApiView, PlayerSerializer, _page_of


class StandingOutputSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    rank = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True, help_text="Bracket placement (elimination formats).")
    entrant = PlayerSerializer()
    points = serializers.FloatField()
    points_exact = serializers.CharField(help_text='Points as an exact fraction, e.g. "7/3".')
    played = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    byes = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    buchholz = serializers.FloatField()
    sonneborn_berger = serializers.FloatField()
    rating = serializers.FloatField(allow_null=True)
    mean_team_score = serializers.FloatField(allow_null=True, help_text="Cooperative games: lower is better.")
    withdrawn = serializers.BooleanField()
    disqualified = serializers.BooleanField()


class StandingPageSerializer(PageSerializer):
    results = StandingOutputSerializer(many=True)


class TableStateOutputSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Entrant ids in seat order.")
    bracket = serializers.CharField(allow_blank=True)
    match = serializers.IntegerField(allow_null=True)
    absent = serializers.ListField(child=serializers.IntegerField())
    result = serializers.DictField(
        allow_null=True, help_text="ranks | team_score, forfeited, source, reason."
    )


class TournamentStandingsApi(JsonApiView):
    """The standings with tie-breaks (points, Buchholz, Sonneborn–Berger, rating), best first."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=PAGE_PARAMETERS, responses={200: StandingPageSerializer},
        operation_id="tournaments_standings_list",  # a list: the default id is one entrant's standing's
    )
    @replica_reads
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        rows = selectors.standings_rows(tournament, request.user)
        return _page_of(StandingOutputSerializer, rows, request, self, shown=selectors.standing_public)


class TournamentStandingApi(JsonApiView):
    """One entrant's standings row and position (404 `not_in_standings` for someone not in them)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: StandingOutputSerializer})
    @replica_reads
    def get(self, request, tournament_id: int, entrant_id: int):
        tournament = selectors.tournament_get(tournament_id)
        return Response(StandingOutputSerializer(selectors.standing_of(tournament, entrant_id, request.user)).data)


class TableCorrectApi(JsonApiView):
    """The organiser corrects a table's result, with a reason; standings and pairings not yet played follow."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        ranks = serializers.ListField(
            child=serializers.IntegerField(min_value=1),
            required=False,
            allow_null=True,
            help_text="One rank per seat in seat order (1 is best).",
        )
        team_score = serializers.FloatField(required=False, allow_null=True, help_text="Cooperative games.")
        forfeited = serializers.ListField(child=serializers.IntegerField(), required=False, default=list)
        reason = serializers.CharField(max_length=500)

    @extend_schema(request=InputSerializer, responses={200: TableStateOutputSerializer})
    def post(self, request, tournament_id: int, round_number: int, table_number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.result_correct(
            tournament_id=tournament_id,
            user=request.user,
            round_number=round_number,
            table_number=table_number,
            **data.validated_data,
        )
        return Response(TableStateOutputSerializer(table).data)


class TableForfeitApi(JsonApiView):
    """The organiser awards a table by forfeit: the entrants named lose it."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        forfeited = serializers.ListField(child=serializers.IntegerField(), min_length=1)
        reason = serializers.CharField(max_length=500)

    @extend_schema(request=InputSerializer, responses={200: TableStateOutputSerializer})
    def post(self, request, tournament_id: int, round_number: int, table_number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = services.forfeit_award(
            tournament_id=tournament_id,
            user=request.user,
            round_number=round_number,
            table_number=table_number,
            **data.validated_data,
        )
        return Response(TableStateOutputSerializer(table).data)
