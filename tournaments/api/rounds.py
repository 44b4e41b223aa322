"""Rounds over HTTP: the pairings with their quality reports, the export for `pairing_check`, the
bracket, a league's calendar, and contributions to a table's shuffle."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from server.db_router import replica_reads
from tournaments import selectors, services
from tournaments.api._common import JsonApiView, PlayerSerializer


class SeatedSerializer(PlayerSerializer):
    seat = serializers.IntegerField()


class TableOutputSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    seats = SeatedSerializer(many=True)
    bracket = serializers.CharField(allow_null=True, help_text="The bracket match id (elimination formats).")
    deal = serializers.IntegerField(
        allow_null=True, help_text="Duplicate deal seed, shown once the round is over."
    )
    seed_sha256 = serializers.CharField(
        allow_blank=True, help_text="A contributed shuffle's commitment to the server's seed (else empty)."
    )
    match = serializers.IntegerField(allow_null=True)
    match_url = serializers.CharField(allow_null=True)
    match_status = serializers.CharField(allow_null=True)
    absent = serializers.ListField(child=serializers.IntegerField())
    extra_seconds = serializers.IntegerField(help_text="Time judges added to the table past the round's deadline.")
    result = serializers.DictField(allow_null=True)


class RematchSerializer(serializers.Serializer):
    players = serializers.ListField(
        child=serializers.IntegerField(), help_text="The two entrants seated together again, in seat order."
    )
    meeting = serializers.IntegerField(help_text="How often they have now met (2: their second meeting).")
    avoidable = serializers.BooleanField(
        allow_null=True,
        help_text="true: some grouping of the round's seated players into the same table sizes has no "
        "rematch; false: none has; null: undecided (too large a field to search, or a format that does "
        "not pair tables freely).",
    )


class SeatBalanceSerializer(serializers.Serializer):
    max_deviation = serializers.FloatField(
        help_text="The largest seat deviation of an eligible player after the round: times in a seat minus "
        "their fair share of it (3 places)."
    )
    out_of_balance = serializers.ListField(
        child=serializers.IntegerField(), help_text="Entrants whose deviation is 1 or more, in entrant order."
    )
    first_seat_spread = serializers.IntegerField(
        help_text="Most seat-0 turns minus fewest among the round's eligible players, this round included."
    )


class ScoreSpreadSerializer(serializers.Serializer):
    per_table = serializers.ListField(
        child=serializers.FloatField(),
        help_text="Each table's highest minus lowest score before the round, in table order (cooperative: "
        "mean team score).",
    )
    mean = serializers.FloatField()
    max = serializers.FloatField()


class PairingQualitySerializer(serializers.Serializer):
    """A round's pairing-quality report, judged when it was paired (`pairing_check.round_report`)."""

    tables = serializers.IntegerField()
    table_sizes = serializers.ListField(child=serializers.IntegerField(), help_text="In table order.")
    byes = serializers.ListField(child=serializers.IntegerField(), help_text="Entrants given a bye.")
    rematches = RematchSerializer(many=True)
    repeat_cost_minimal = serializers.BooleanField(
        allow_null=True,
        help_text="No grouping into these table sizes repeats fewer meetings (null: undecided).",
    )
    seat_balance = SeatBalanceSerializer()
    score_spread = ScoreSpreadSerializer()


class RoundOutputSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["paired", "playing", "complete"])
    date = serializers.DateField(allow_null=True)
    starts_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    completed_at = serializers.DateTimeField(allow_null=True)
    byes = PlayerSerializer(many=True)
    tables = TableOutputSerializer(many=True)
    quality = PairingQualitySerializer(
        allow_null=True, help_text="How good the pairing is, judged when it was made (null: paired before reports)."
    )
    quality_summary = serializers.CharField(allow_null=True, help_text="The report in one line, with names.")
    quality_details = serializers.ListField(
        child=serializers.CharField(), allow_null=True,
        help_text="The report sentence by sentence, with names: tables, byes, each rematch, seats, score groups floated.",
    )


class ExportTournamentSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()


class ExportEntrantSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    rating = serializers.FloatField(allow_null=True, help_text="The rating frozen at the start.")
    entered = serializers.IntegerField(help_text="The first round the entrant may be paired in.")


class ExportTableSerializer(serializers.Serializer):
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Entrant ids in seat order.")
    ranks = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="Each seat's rank, 1 best (null: unplayed)."
    )
    team_score = serializers.FloatField(allow_null=True, help_text="A cooperative table's result.")
    forfeited = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seated entrants who did not play."
    )


class ExportRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    byes = serializers.ListField(child=serializers.IntegerField())
    tables = ExportTableSerializer(many=True)
    quality = PairingQualitySerializer(allow_null=True)


class TournamentExportSerializer(serializers.Serializer):
    export = serializers.ChoiceField(choices=["tournament-pairings"])
    version = serializers.IntegerField()
    tournament = ExportTournamentSerializer()
    format = serializers.CharField(help_text="A slug of tournaments.formats.FORMATS.")
    options = serializers.DictField(
        help_text='The options the format pairs with (bye_points as "n/d"; the seed once the tournament ended).'
    )
    entrants = ExportEntrantSerializer(many=True, help_text="The field in the organiser's order.")
    withdrawn = serializers.DictField(
        child=serializers.IntegerField(), help_text="Entrant id -> the first round they miss."
    )
    disqualified = serializers.DictField(
        child=serializers.IntegerField(), help_text="Entrant id -> the first round they miss."
    )
    rounds = ExportRoundSerializer(many=True)


class BracketOutputSerializer(serializers.Serializer):
    matches = serializers.ListField(
        child=serializers.DictField(),
        help_text=(
            "Each match: id, side, round, position, status, sources, winner_to, loser_to, players (entrant ids, "
            "{bye: true} or null), names, winner, loser, played_in, match, match_url."
        ),
    )
    champion = serializers.IntegerField(allow_null=True)
    finished = serializers.BooleanField()
    placements = serializers.ListField(child=serializers.DictField())
    entrants = PlayerSerializer(many=True)


class TournamentRoundsApi(JsonApiView):
    """The pairings of every round, each table with its seats, its match and its result."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: RoundOutputSerializer(many=True)})
    @replica_reads
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        return Response(RoundOutputSerializer(selectors.rounds(tournament), many=True).data)


class TournamentExportApi(JsonApiView):
    """The tournament's pairings as a JSON file (export version 1) for `pairing_check`: format,
    options, field, withdrawals, and every round's tables, results and pairing report."""

    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]  # a file, whoever asks (not the browsable page)

    @extend_schema(responses={200: TournamentExportSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        export = TournamentExportSerializer(selectors.tournament_export(tournament, request.user)).data
        return Response(
            export, headers={"Content-Disposition": f'attachment; filename="tournament-{tournament.pk}.json"'}
        )


class TournamentBracketApi(JsonApiView):
    """The bracket of an elimination tournament, each match with its table's match (404 `no_bracket`)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: BracketOutputSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        return Response(
            BracketOutputSerializer(selectors.bracket(selectors.tournament_get(tournament_id), request.user)).data
        )


class MatchdayOutputSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    date = serializers.DateField(allow_null=True, help_text="Null until a league without a start date starts.")
    starts_at = serializers.DateTimeField(allow_null=True)
    status = serializers.ChoiceField(choices=["scheduled", "paired", "playing", "complete"])


class TournamentCalendarApi(JsonApiView):
    """A league's matchdays and their dates (404 `not_a_league`)."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        inner_format = serializers.CharField()
        matchdays = MatchdayOutputSerializer(many=True)

    @extend_schema(responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        return Response(
            self.OutputSerializer(selectors.calendar(selectors.tournament_get(tournament_id))).data
        )


class TableShuffleContributeApi(JsonApiView):
    """A person seated at a paired table adds a random contribution to its shuffle, before the round
    starts (tournaments with contributed shuffles; the last one sent counts)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        value = serializers.CharField(max_length=64, help_text="32 random bytes as 64 lowercase hex digits.")

    @extend_schema(request=InputSerializer, responses={204: None})
    def post(self, request, tournament_id: int, round_number: int, table_number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.table_shuffle_contribute(
            tournament_id=tournament_id, user=request.user, round_number=round_number, table_number=table_number,
            **data.validated_data,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
