"""The field over HTTP: entrants, registering, bots, withdrawing, check-in, re-entry,
disqualification, and the decisions taken about the field."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from server.db_router import replica_reads
from server.pagination import PAGE_PARAMETERS, PageSerializer
from tournaments import selectors, services
from tournaments.api._common import JsonApiView, PlayerSerializer, _page_of


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


class EntrantPageSerializer(PageSerializer):
    results = EntrantOutputSerializer(many=True)


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
