"""Tournaments themselves: listing, creating, one tournament's facts, its start and its event feed."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from games.engines import ENGINES
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    SpectatorPolicy,
)
from server.db_router import replica_reads
from server.errors import bad_request
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged
from tournaments import selectors, services
from tournaments.api._common import JsonApiView, feed_parameters, feed_position
from tournaments.formats import FORMATS
from tournaments.models import Tournament

# Bounds of what an organiser may ask for (and what the columns hold).
MAX_ENTRANTS = 100_000
MAX_ROUND_SECONDS = 90 * 24 * 3600


class TournamentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    game = serializers.CharField()
    format = serializers.CharField()
    cooperative = serializers.BooleanField(help_text="A cooperative game's tournament: players rank by mean team score.")
    options = serializers.DictField(help_text="The format's options as given.")
    match_options = serializers.DictField(help_text="Engine options of every table.")
    organiser = serializers.IntegerField()
    status = serializers.ChoiceField(choices=Tournament.Status.choices)
    starts_at = serializers.DateTimeField(allow_null=True)
    round_seconds = serializers.IntegerField(allow_null=True)
    clock_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    max_entrants = serializers.IntegerField(allow_null=True)
    contributed_shuffle = serializers.BooleanField(
        help_text="Each table's deal mixes the server's committed seed with its seated people's contributions."
    )
    spectator_policy = serializers.ChoiceField(
        choices=SpectatorPolicy.choices,
        help_text="Every table's spectator policy (open, delayed, closed), given to its matches (README, Security).",
    )
    spectator_delay_moves = serializers.IntegerField(allow_null=True, help_text="A delayed tournament's delay in moves.")
    entrants = serializers.IntegerField(help_text="Active entrants.")
    total_rounds = serializers.IntegerField(allow_null=True, help_text="When known in advance.")
    current_round = serializers.IntegerField(allow_null=True)
    champion = serializers.IntegerField(allow_null=True, help_text="The winner's entrant id, once finished.")
    seq = serializers.IntegerField(help_text="The position of the tournament's last event.")
    seed_sha256 = serializers.CharField()
    seed = serializers.IntegerField(allow_null=True, help_text="Revealed when the tournament ends.")
    created_at = serializers.DateTimeField()
    field_rules = serializers.DictField(
        help_text="Check-in, waitlist, late entry, re-entry and no-show rules (README: Who is really there)."
    )
    check_in_opens_at = serializers.DateTimeField(
        allow_null=True, help_text="When check-in opens (null: no check-in, or open all through registration)."
    )
    waitlisted = serializers.IntegerField(help_text="People on the waitlist.")


class EventOutputSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    # A declared field (DRF's metaclass takes it off the class), not Serializer.data as the stubs see it.
    data = serializers.DictField()  # type: ignore[assignment]
    actor = serializers.CharField()
    created = serializers.DateTimeField()


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF's own also takes "yes", 0, "off", ...)."""

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        self.fail("invalid", input=data)


class StrictCharField(serializers.CharField):
    """A JSON string only (DRF's own also turns numbers into strings)."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class TournamentPageSerializer(PageSerializer):
    results = TournamentOutputSerializer(many=True)


def _summary(tournament: Tournament) -> dict:
    return TournamentOutputSerializer(selectors.tournament_summary(tournament)).data


class TournamentListCreateApi(JsonApiView):
    """Lists tournaments (filters: game, status, organiser) and creates one (the caller organises it)."""

    class InputSerializer(serializers.Serializer):
        name = StrictCharField(max_length=120)
        game = serializers.ChoiceField(choices=sorted(ENGINES))
        format = serializers.ChoiceField(choices=sorted(FORMATS))
        options = serializers.DictField(
            required=False,
            default=dict,
            help_text="The format's options (rounds, table_size, double, seeding, ...).",
        )
        match_options = serializers.DictField(required=False, default=dict)
        starts_at = serializers.DateTimeField(
            required=False, allow_null=True, help_text="Round 1 starts by itself then."
        )
        round_seconds = serializers.IntegerField(
            required=False, allow_null=True, min_value=60, max_value=MAX_ROUND_SECONDS,
            default=services.DEFAULT_ROUND_SECONDS,
        )
        clock_seconds = serializers.IntegerField(
            required=False, min_value=5, max_value=7 * 24 * 3600, default=services.DEFAULT_CLOCK_SECONDS
        )
        rated = StrictBooleanField(required=False, default=True)
        max_entrants = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_ENTRANTS)
        contributed_shuffle = StrictBooleanField(
            required=False, default=False,
            help_text="Each table's deal mixes the server's seed, committed when the round is paired, with what "
            "its seated people send before the round starts.",
        )
        field_rules = serializers.DictField(
            required=False,
            default=dict,
            help_text="check_in_minutes, waitlist, late_entry, late_entry_until_round, late_entry_award "
            "(bye or zero), reentry, no_show_seconds, no_show_drop_after (README: Who is really there).",
        )
        spectator_policy = StrictCharField(
            required=False, default=SpectatorPolicy.OPEN, max_length=16, allow_blank=True,
            help_text="Every table's: open (default), delayed or closed (400 bad_spectator_policy otherwise).",
        )
        spectator_delay_moves = serializers.IntegerField(
            required=False, default=SPECTATOR_DELAY_MOVES_DEFAULT,
            help_text=f"A delayed tournament's: how many moves behind spectators see its tables, "
            f"{SPECTATOR_DELAY_MOVES_MIN} to {SPECTATOR_DELAY_MOVES_MAX} (400 bad_spectator_delay otherwise).",
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, enum=sorted(ENGINES)),
            OpenApiParameter("status", str, enum=Tournament.Status.values),
            OpenApiParameter(
                "organiser", {"type": "integer", "minimum": 1}, description="The organiser's user id."
            ),
            *PAGE_PARAMETERS,
        ],
        responses={200: TournamentPageSerializer},
        operation_id="tournaments_list",  # a list, not a retrieve: the default id is /{id}'s
    )
    @replica_reads
    def get(self, request):
        status_filter = request.query_params.get("status")
        if status_filter and status_filter not in Tournament.Status.values:
            raise serializers.ValidationError({"status": _("one of %(values)s") % {"values": Tournament.Status.values}})
        game = request.query_params.get("game")
        if game is not None and game not in ENGINES:
            raise serializers.ValidationError({"game": _("one of %(values)s") % {"values": sorted(ENGINES)}})
        organiser = request.query_params.get("organiser")
        if organiser is not None:
            organiser = serializers.IntegerField(min_value=1).run_validation(organiser)
        rows = selectors.tournament_list(game=game, status=status_filter, organiser=organiser)
        return paged(rows, request, self, lambda page: [_summary(t) for t in page])

    def get_throttles(self):
        # Creating one is counted per user (`THROTTLE_TOURNAMENT_CREATE`); listing is not.
        self.throttle_scope = "tournament_create" if self.request.method == "POST" else None
        return super().get_throttles()

    @extend_schema(request=InputSerializer, responses={201: TournamentOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        tournament = services.tournament_create(organiser=request.user, **data.validated_data)
        return Response(_summary(tournament), status=status.HTTP_201_CREATED)


class TournamentFormatsApi(JsonApiView):
    """Per game, the formats a tournament may use and the rounds a league may play (what
    `POST /api/tournaments` accepts; any other format is refused with `bad_options`)."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        game = serializers.CharField()
        formats = serializers.ListField(child=serializers.CharField())
        league_formats = serializers.ListField(child=serializers.CharField())

    @extend_schema(responses={200: OutputSerializer(many=True)})
    def get(self, request):
        return Response(self.OutputSerializer(selectors.game_formats(), many=True).data)


class TournamentMatchTablesApi(JsonApiView):
    """Which of these matches are tournament tables (`?matches=4,9,12`, at most 100): each one's
    tournament, round, table and entrants' names in seat order, for lists of tables."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        tournament = serializers.IntegerField()
        tournament_name = serializers.CharField()
        round = serializers.IntegerField()
        table = serializers.IntegerField()
        names = serializers.ListField(child=serializers.CharField(allow_blank=True))

    @extend_schema(
        parameters=[OpenApiParameter("matches", str, description="Match ids, comma-separated.", required=True)],
        responses={200: OutputSerializer(many=True)},
    )
    @replica_reads
    def get(self, request):
        raw = request.query_params.get("matches", "")
        try:
            ids = [int(part) for part in raw.split(",") if part.strip()]
        except ValueError:
            ids = [0]
        if not all(0 < match_id < 2**63 for match_id in ids):  # the database's id range
            raise bad_request("bad_matches", _("matches: match ids separated by commas, e.g. 4,9,12."))
        return Response(self.OutputSerializer(selectors.match_tables(ids), many=True).data)


class TournamentDetailApi(JsonApiView):
    """One tournament's public facts."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: TournamentOutputSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        return Response(_summary(selectors.tournament_get(tournament_id)))


class TournamentStartApi(JsonApiView):
    """The organiser starts the tournament now: registration closes and round 1 is paired and started."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TournamentOutputSerializer})
    def post(self, request, tournament_id: int):
        tournament = services.tournament_start(tournament_id=tournament_id, user=request.user)
        return Response(_summary(selectors.tournament_get(tournament.pk)))


class TournamentEventsApi(JsonApiView):
    """The tournament's events in order, after position `after`: follow a tournament by asking
    again with `after` = the `next` of the last answer."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        events = EventOutputSerializer(many=True)
        next = serializers.IntegerField(help_text="Ask again with after=next.")
        head = serializers.IntegerField(help_text="The position of the latest event.")

    @extend_schema(parameters=feed_parameters("events"), responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        after, limit = feed_position(request)
        feed = selectors.event_feed(selectors.tournament_get(tournament_id), after=after, limit=limit, viewer=request.user)
        return Response(self.OutputSerializer(feed).data)
