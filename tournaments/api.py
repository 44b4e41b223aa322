"""Tournaments over HTTP: one thin view per operation, parse -> one service or selector -> serialise.

Anyone may read a tournament; only its organiser changes it (403 `not_organiser`).
"""

from __future__ import annotations

from typing import cast

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from games.engines import ENGINES
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    SpectatorPolicy,
)
from server.db_router import replica_reads
from server.errors import bad_request, forbidden
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged
from tournaments import selectors, services, webhooks
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


class EntrantOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    user = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField(allow_blank=True)
    status = serializers.CharField()
    seed = serializers.IntegerField(
        allow_null=True, help_text="Place in the organiser's order, from the start."
    )
    rating = serializers.FloatField(allow_null=True, help_text="Conservative rating frozen at the start.")
    checked_in = serializers.BooleanField(help_text="Checked in (bots are always in).")
    waitlist_position = serializers.IntegerField(allow_null=True, help_text="Place in line on the waitlist, 1 first.")


class PlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    user = serializers.IntegerField(allow_null=True)
    bot = serializers.CharField(allow_blank=True)


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


class TableStateOutputSerializer(serializers.Serializer):
    table = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Entrant ids in seat order.")
    bracket = serializers.CharField(allow_blank=True)
    match = serializers.IntegerField(allow_null=True)
    absent = serializers.ListField(child=serializers.IntegerField())
    result = serializers.DictField(
        allow_null=True, help_text="ranks | team_score, forfeited, source, reason."
    )


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


class EntrantPageSerializer(PageSerializer):
    results = EntrantOutputSerializer(many=True)


class StandingPageSerializer(PageSerializer):
    results = StandingOutputSerializer(many=True)


class JsonApiView(APIView):
    """A view whose request bodies are JSON (the only content type its schema documents)."""

    parser_classes = [JSONParser]


def _summary(tournament: Tournament) -> dict:
    return TournamentOutputSerializer(selectors.tournament_summary(tournament)).data


def _page_of(serializer_class: type[serializers.Serializer], rows, request, view: APIView, shown=None) -> Response:
    """A page of `rows` (a list, or a queryset read one page at a time), each row `shown` first."""
    def serialized(page: list) -> list:
        # A list (many=True); the stubs type every serializer's data as a dict.
        return cast(list, serializer_class([shown(row) for row in page] if shown else page, many=True).data)

    return paged(rows, request, view, serialized)


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


class TournamentEntrantsApi(JsonApiView):
    """Everyone entered, with their status, seed and the rating frozen at the start."""

    permission_classes = [AllowAny]

    @extend_schema(parameters=PAGE_PARAMETERS, responses={200: EntrantPageSerializer})
    @replica_reads
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        return _page_of(EntrantOutputSerializer, selectors.entrant_list(tournament), request, self)


class TournamentRegisterApi(JsonApiView):
    """The caller enters the tournament; past `max_entrants` they join its waitlist (if it has one);
    a running Swiss open to late entry takes them late (409 `already_registered`,
    `already_waitlisted`, `tournament_full`, `registration_closed`, `late_entry_closed`, `use_reentry`)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: EntrantOutputSerializer})
    def post(self, request, tournament_id: int):
        entrant = services.entrant_register(tournament_id=tournament_id, user=request.user)
        return Response(_entrant(entrant), status=status.HTTP_201_CREATED)


class TournamentWithdrawApi(JsonApiView):
    """The caller withdraws; the organiser may withdraw any entrant (`entrant`)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        entrant = serializers.IntegerField(required=False, allow_null=True)

    @extend_schema(request=InputSerializer, responses={200: EntrantOutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entrant = services.entrant_withdraw(
            tournament_id=tournament_id, user=request.user, entrant_id=data.validated_data.get("entrant")
        )
        return Response(_entrant(entrant))


class TournamentBotAddApi(JsonApiView):
    """The organiser enters a bot by name (several of the same bot get numbered names)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        bot = serializers.CharField(max_length=40)
        name = serializers.CharField(max_length=80, required=False, allow_blank=True)

    @extend_schema(request=InputSerializer, responses={201: EntrantOutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entrant = services.entrant_bot_add(
            tournament_id=tournament_id,
            user=request.user,
            bot=data.validated_data["bot"],
            name=data.validated_data.get("name") or None,
        )
        return Response(_entrant(entrant), status=status.HTTP_201_CREATED)


def _entrant(entrant) -> dict:
    return EntrantOutputSerializer(selectors.entrant_one(entrant)).data


class TournamentCheckInApi(JsonApiView):
    """The caller checks in during the check-in window (409 `no_check_in`, `check_in_not_open`,
    `already_checked_in`, `registration_closed`; 404 `not_registered`)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: EntrantOutputSerializer})
    def post(self, request, tournament_id: int):
        entrant = services.entrant_check_in(tournament_id=tournament_id, user=request.user)
        return Response(_entrant(entrant))


class TournamentReenterApi(JsonApiView):
    """A player who dropped comes back (where the tournament allows re-entry); the organiser may
    re-admit any dropped entrant (`entrant`)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        entrant = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=2**62)

    @extend_schema(request=InputSerializer, responses={200: EntrantOutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entrant = services.entrant_reenter(
            tournament_id=tournament_id, user=request.user, entrant_id=data.validated_data.get("entrant")
        )
        return Response(_entrant(entrant))


class DecisionOutputSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    rule = serializers.CharField(help_text="The rule that made the decision (tournaments.field_rules.RULES).")
    why = serializers.CharField()
    entrants = PlayerSerializer(many=True, help_text="The players the decision is about.")
    round = serializers.IntegerField(allow_null=True)
    actor = serializers.CharField()
    created = serializers.DateTimeField()


class TournamentDecisionsApi(JsonApiView):
    """Every change to the field and why: each decision with the rule that made it, oldest first."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: DecisionOutputSerializer(many=True)})
    def get(self, request, tournament_id: int):
        decisions = selectors.field_decisions(selectors.tournament_get(tournament_id))
        return Response(DecisionOutputSerializer(decisions, many=True).data)


class TournamentStartApi(JsonApiView):
    """The organiser starts the tournament now: registration closes and round 1 is paired and started."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: TournamentOutputSerializer})
    def post(self, request, tournament_id: int):
        tournament = services.tournament_start(tournament_id=tournament_id, user=request.user)
        return Response(_summary(selectors.tournament_get(tournament.pk)))


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


class TournamentEventsApi(JsonApiView):
    """The tournament's events in order, after position `after`: follow a tournament by asking
    again with `after` = the `next` of the last answer."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        events = EventOutputSerializer(many=True)
        next = serializers.IntegerField(help_text="Ask again with after=next.")
        head = serializers.IntegerField(help_text="The position of the latest event.")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0},
                description="Only events after this position (default 0).",
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": selectors.FEED_LIMIT},
                description="At most this many (default 100).",
            ),
        ],
        responses={200: OutputSerializer},
    )
    @replica_reads
    def get(self, request, tournament_id: int):
        after = serializers.IntegerField(min_value=0).run_validation(request.query_params.get("after", 0))
        limit = serializers.IntegerField(min_value=1, max_value=selectors.FEED_LIMIT).run_validation(
            request.query_params.get("limit", 100)
        )
        feed = selectors.event_feed(selectors.tournament_get(tournament_id), after=after, limit=limit, viewer=request.user)
        return Response(self.OutputSerializer(feed).data)


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


class EntrantDisqualifyApi(JsonApiView):
    """The organiser disqualifies an entrant, with a reason."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=500)

    @extend_schema(request=InputSerializer, responses={200: EntrantOutputSerializer})
    def post(self, request, tournament_id: int, entrant_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        entrant = services.entrant_disqualify(
            tournament_id=tournament_id,
            user=request.user,
            entrant_id=entrant_id,
            reason=data.validated_data["reason"],
        )
        return Response(_entrant(entrant))


class WebhookListCreateApi(JsonApiView):
    """The organiser's webhooks for a tournament; creating one answers with its signing secret."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        url = serializers.URLField(max_length=500)
        kinds = serializers.ListField(
            child=serializers.ChoiceField(choices=webhooks.ALL_KINDS), required=False
        )

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        url = serializers.CharField()
        kinds = serializers.ListField(child=serializers.CharField())
        secret = serializers.CharField(
            help_text="Signs every body: HMAC-SHA256, hex, in X-Cardleague-Signature."
        )
        created_at = serializers.DateTimeField()

    @extend_schema(responses={200: OutputSerializer(many=True)})
    def get(self, request, tournament_id: int):
        tournament = selectors.tournament_get(tournament_id)
        if request.user.pk != tournament.organiser_id:
            raise forbidden("not_organiser", _("Only the tournament's organiser may do that."))
        return Response(self.OutputSerializer(selectors.webhook_list(tournament), many=True).data)

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        hook = webhooks.webhook_create(tournament_id=tournament_id, user=request.user, **data.validated_data)
        return Response(self.OutputSerializer(hook).data, status=status.HTTP_201_CREATED)


class WebhookDeleteApi(JsonApiView):
    """The organiser removes a webhook."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, tournament_id: int, webhook_id: int):
        webhooks.webhook_delete(tournament_id=tournament_id, webhook_id=webhook_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
