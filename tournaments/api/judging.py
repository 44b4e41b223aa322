"""Judging over HTTP: the organiser names judges; a seated player calls one to their table; the
judges read the queue, take a call and resolve it; a judge adds time to a table."""

from __future__ import annotations

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response

from server.errors import not_found
from tournaments import selectors, services
from tournaments.api._common import JsonApiView
from tournaments.models import JudgeCall
from tournaments.services.judging import (
    DETAILS_MAX,
    EXTENSION_SECONDS_MAX,
    EXTENSION_SECONDS_MIN,
    NOTE_MAX,
    PENALTIES,
    RULINGS,
)


class PersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class JudgeCallOutputSerializer(serializers.Serializer):
    number = serializers.IntegerField(help_text="The call's position in the tournament's judging stream.")
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    seats = PersonSerializer(many=True, help_text="The table's entrants in seat order.")
    match = serializers.IntegerField(allow_null=True)
    match_url = serializers.CharField(allow_null=True)
    match_seq = serializers.IntegerField(help_text="The table's position in its match's log when the judge was called.")
    reason = serializers.ChoiceField(choices=JudgeCall.Reason.choices)
    details = serializers.CharField(allow_null=True, help_text="The caller's words (null: not yours to read).")
    caller = PersonSerializer(allow_null=True)
    called_at = serializers.DateTimeField()
    status = serializers.ChoiceField(choices=JudgeCall.Status.choices)
    claimed_by = PersonSerializer(allow_null=True)
    claimed_at = serializers.DateTimeField(allow_null=True)
    ruling = serializers.DictField(
        allow_null=True, help_text="kind (note | extension | penalty | correction), note, and the kind's own fields."
    )
    resolved_by = PersonSerializer(allow_null=True)
    resolved_at = serializers.DateTimeField(allow_null=True)
    last_seq = serializers.IntegerField(help_text="The judging event that last changed the call.")


class JudgingQueueOutputSerializer(serializers.Serializer):
    calls = JudgeCallOutputSerializer(many=True)
    judges = PersonSerializer(many=True)
    organiser = PersonSerializer()
    head = serializers.IntegerField(help_text="Ask again with after=head for the calls changed since.")


class JudgeCallsApi(JsonApiView):
    """GET: the judges' queue, the calls changed after `after`. POST: a player seated at a table of
    the round being played calls a judge to it."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        match = serializers.IntegerField(help_text="The table's match.")
        reason = serializers.ChoiceField(choices=JudgeCall.Reason.choices)
        details = serializers.CharField(max_length=DETAILS_MAX, required=False, allow_blank=True, default="")

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 0},
                description="Only calls changed after this judging position (default 0).",
            )
        ],
        responses={200: JudgingQueueOutputSerializer},
    )
    def get(self, request, tournament_id: int):
        after = serializers.IntegerField(min_value=0).run_validation(request.query_params.get("after", 0))
        queue = selectors.judging_queue(selectors.tournament_get(tournament_id), request.user, after=after)
        return Response(JudgingQueueOutputSerializer(queue).data)

    @extend_schema(request=InputSerializer, responses={201: JudgeCallOutputSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        call = services.judge_call(
            tournament_id=tournament_id, user=request.user, match_id=data.validated_data["match"],
            reason=data.validated_data["reason"], details=data.validated_data["details"],
        )
        return Response(JudgeCallOutputSerializer(selectors.judge_call_of(call)).data, status=status.HTTP_201_CREATED)


class JudgeCallClaimApi(JsonApiView):
    """A judge takes a call nobody has taken (409 `judge_call_taken` otherwise)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: JudgeCallOutputSerializer})
    def post(self, request, tournament_id: int, call_number: int):
        call = services.judge_call_claim(tournament_id=tournament_id, user=request.user, call_number=call_number)
        return Response(JudgeCallOutputSerializer(selectors.judge_call_of(call)).data)


class JudgeCallResolveApi(JsonApiView):
    """The judge who took the call, or the organiser, resolves it with a ruling."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        kind = serializers.ChoiceField(choices=RULINGS)
        note = serializers.CharField(max_length=NOTE_MAX, help_text="What was ruled, for the players.")
        seconds = serializers.IntegerField(
            required=False, min_value=EXTENSION_SECONDS_MIN, max_value=EXTENSION_SECONDS_MAX, help_text="extension: time added."
        )
        entrant = serializers.IntegerField(required=False, help_text="penalty: the entrant penalised.")
        penalty = serializers.ChoiceField(choices=PENALTIES, required=False)
        forfeited = serializers.ListField(
            child=serializers.IntegerField(), required=False, help_text="correction: the entrants who forfeit the table."
        )
        ranks = serializers.ListField(
            child=serializers.IntegerField(min_value=1), required=False, help_text="correction: a rank per seat."
        )
        team_score = serializers.FloatField(required=False, help_text="correction: a cooperative table's score.")

    @extend_schema(request=InputSerializer, responses={200: JudgeCallOutputSerializer})
    def post(self, request, tournament_id: int, call_number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        call = services.judge_call_resolve(
            tournament_id=tournament_id, user=request.user, call_number=call_number, ruling=dict(data.validated_data)
        )
        return Response(JudgeCallOutputSerializer(selectors.judge_call_of(call)).data)


class JudgesApi(JsonApiView):
    """The organiser names a person (by username) to judge the tournament."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)

    @extend_schema(request=InputSerializer, responses={201: PersonSerializer})
    def post(self, request, tournament_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judge = services.judge_name(tournament_id=tournament_id, user=request.user, **data.validated_data)
        return Response({"id": judge.user.pk, "name": judge.user.shown_name}, status=status.HTTP_201_CREATED)


class JudgeRemoveApi(JsonApiView):
    """The organiser takes a judge off the tournament."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, tournament_id: int, user_id: int):
        services.judge_remove(tournament_id=tournament_id, user=request.user, judge_user_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TableExtendApi(JsonApiView):
    """A judge adds time to a table still playing: it plays on past the round's deadline."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seconds = serializers.IntegerField(min_value=EXTENSION_SECONDS_MIN, max_value=EXTENSION_SECONDS_MAX)

    class OutputSerializer(serializers.Serializer):
        extra_seconds = serializers.IntegerField(help_text="The table's time added in all.")

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer})
    def post(self, request, tournament_id: int, round_number: int, table_number: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        extra = services.table_time_extend(
            tournament_id=tournament_id, user=request.user, round_number=round_number, table_number=table_number,
            seconds=data.validated_data["seconds"],
        )
        return Response({"extra_seconds": extra})


class TableJudgingOutputSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    round = serializers.IntegerField()
    table = serializers.IntegerField()
    deadline = serializers.DateTimeField(allow_null=True, help_text="When the table must end (deadline and time added).")
    extra_seconds = serializers.IntegerField(help_text="Time judges added to the table past the round's deadline.")
    can_call = serializers.BooleanField(help_text="Whether the reader may call a judge to the table.")
    judges = serializers.BooleanField(help_text="Whether the reader judges the tournament.")
    calls = JudgeCallOutputSerializer(many=True, help_text="The table's calls: for its players and the judges only.")


class TableJudgingApi(JsonApiView):
    """A tournament table's judging as its page shows it: when it must end, the time judges added,
    and the calls to it that the reader may read (404 `not_tournament_table` for another table)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: TableJudgingOutputSerializer})
    def get(self, request, match_id: int):
        judging = selectors.table_judging(match_id, request.user)
        if judging is None:
            raise not_found("not_tournament_table", _("Table %(match_id)s is not a tournament's.") % {"match_id": match_id})
        return Response(TableJudgingOutputSerializer(judging).data)
