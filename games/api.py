"""Tables over HTTP: one thin view per operation, parse -> one service or selector -> serialise."""
from __future__ import annotations

from django.http import StreamingHttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FileUploadParser, MultiPartParser
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from games import exchange, replay, reviews, selectors, services
from games.engines import ENGINES
from games.models import (
    SPECTATOR_DELAY_MOVES_DEFAULT,
    SPECTATOR_DELAY_MOVES_MAX,
    SPECTATOR_DELAY_MOVES_MIN,
    Match,
    SpectatorPolicy,
)
from server.db_router import replica_reads
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged


class SeatOutputSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    user = serializers.IntegerField(allow_null=True)
    name = serializers.CharField(allow_null=True)
    bot = serializers.CharField(allow_blank=True)
    ready = serializers.BooleanField(help_text="False for a person who has not accepted the rematch yet.")
    abandoned = serializers.BooleanField(
        help_text="The game's fallback bot plays the seat: its person resigned, left (claimed) or timed out.",
    )


class RatingOutputSerializer(serializers.Serializer):
    rated = serializers.BooleanField(help_text="Whether the finished match counts for ratings.")
    reason = serializers.ChoiceField(
        choices=["casual", "seat_never_moved"], allow_null=True,
        help_text="Why not: a casual table, or a person who never played a move of their own.",
    )
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="The seats that never moved.")


class ContributionSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    value = serializers.CharField(help_text="64 lowercase hex digits.")


class ShuffleOutputSerializer(serializers.Serializer):
    derivation = serializers.CharField(help_text="How the deck's seed follows from the server's seed and the contributions.")
    contributed_seats = serializers.ListField(child=serializers.IntegerField(), help_text="Seats that sent a contribution.")
    contributions = ContributionSerializer(
        many=True, allow_null=True, help_text="Once dealt: what the deck's seed was derived from, in seat order."
    )


class ConcessionOutputSerializer(serializers.Serializer):
    agreed = serializers.ListField(child=serializers.IntegerField(), help_text="The seats that agree to concede.")
    waiting = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats a person still plays that have not agreed yet."
    )


class MatchOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    game = serializers.CharField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    players = serializers.IntegerField()
    rated = serializers.BooleanField(help_text="Opened as a rated table.")
    private = serializers.BooleanField(help_text="Left out of the lobby; people sit down through invitation links.")
    rating = RatingOutputSerializer(allow_null=True, help_text="Once finished: whether it counts for ratings.")
    options = serializers.DictField()
    deck_chosen = serializers.BooleanField(
        help_text="The table's creator fixed the deck (shown at the end), so may know every hand."
    )
    created_by = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    seats = SeatOutputSerializer(many=True)
    seq = serializers.IntegerField(help_text="The sequence number of the match's last event.")
    seed_sha256 = serializers.CharField(allow_blank=True, help_text="SHA-256 of the seed, public from the start.")
    seed = serializers.IntegerField(allow_null=True, help_text="Revealed when the match ends.")
    shuffle = ShuffleOutputSerializer(
        allow_null=True,
        help_text="A player-contributed shuffle: `seed` is the server's committed seed and the deck's seed is "
        "HMAC-SHA-256 of it and the contributions (see the README's league log section).",
    )
    outcome = serializers.DictField(allow_null=True)
    ranks = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True,
        help_text="Once finished: the rank per seat the match counts at, for its tournament and ratings "
        "(the outcome's, with abandoned seats after the seats that played on).",
    )
    clock_seconds = serializers.IntegerField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True, help_text="When the decision awaited now runs out.")
    rematch_of = serializers.IntegerField(allow_null=True, help_text="The finished match this table is a rematch of.")
    rematch = serializers.IntegerField(allow_null=True, help_text="This finished match's rematch table, once offered.")
    spectator_policy = serializers.ChoiceField(
        choices=SpectatorPolicy.choices,
        help_text="open: anyone watches it live; delayed: spectators see it `spectator_delay_moves` moves behind "
        "(`seq` and `deadline` as they are shown); closed: only its seats, organiser or creator and staff until it "
        "has finished (README, Security).",
    )
    spectator_delay_moves = serializers.IntegerField(allow_null=True, help_text="A delayed table's delay in moves.")
    concession = ConcessionOutputSerializer(
        allow_null=True,
        help_text="A running cooperative match's pending proposal to concede (null: none): who agrees, who is still to.",
    )


class MatchPageSerializer(PageSerializer):
    results = MatchOutputSerializer(many=True)


class ViewOutputSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seq = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    view = serializers.DictField(allow_null=True, help_text="ENGINE.view for the caller's seat (null before the start).")
    legal_moves = serializers.ListField(child=serializers.DictField(), help_text="The moves the caller may play now.")


class LoggedEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    event = serializers.DictField()


class MoveOutputSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seq = serializers.IntegerField()
    events = LoggedEventSerializer(many=True, help_text="The move's events as the mover's seat sees them.")
    view = serializers.DictField()
    legal_moves = serializers.ListField(child=serializers.DictField())


class RawEventSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    kind = serializers.CharField()
    type = serializers.CharField()
    # A declared field (DRF's metaclass takes it off the class), not Serializer.data as the stubs see it.
    data = serializers.DictField()  # type: ignore[assignment]
    actor = serializers.CharField()
    created = serializers.DateTimeField()
    hash = serializers.CharField()


def _summary(match: Match, viewer=None) -> dict:
    """The table's summary as `viewer` is shown it (a running delayed table's `seq`: `match_summary`)."""
    return MatchOutputSerializer(selectors.match_summary(match, viewer)).data


class MatchRouteApi(APIView):
    """A route of one table by its id. A private table is no match to anyone it is not known to
    (`selectors.match_get_known`: 404 `match_not_found`, as for a number that names none), checked
    after authentication and before anything is read or written, on every method."""

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)
        selectors.match_get_known(kwargs["match_id"], request.user)


class GameListApi(APIView):
    """The games this server runs, their player counts and bots."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        slug = serializers.CharField()
        min_players = serializers.IntegerField()
        max_players = serializers.IntegerField()
        bots = serializers.ListField(child=serializers.CharField())
        strong_bot = serializers.CharField(allow_null=True)

    @extend_schema(responses={200: OutputSerializer(many=True)})
    def get(self, request):
        return Response(self.OutputSerializer(selectors.game_list(), many=True).data)


class MatchListCreateApi(APIView):
    """Lists tables (filters: game, status, player) and opens a new one."""

    class InputSerializer(serializers.Serializer):
        game = serializers.ChoiceField(choices=sorted(ENGINES))
        players = serializers.IntegerField(min_value=1, max_value=10)
        options = serializers.DictField(required=False, default=dict)
        rated = serializers.BooleanField(
            required=False, help_text="Default true; false for a private table, which cannot be rated (422 private_table_rated).",
        )
        clock_seconds = serializers.IntegerField(
            required=False, allow_null=True, min_value=5, max_value=7 * 24 * 3600,
            help_text="Seconds a person has for each decision; when it runs out the fallback bot plays for them.",
        )
        private = serializers.BooleanField(
            required=False, default=False,
            help_text="Keep the table out of the lobby: people sit down through its invitation links.",
        )
        contributed_shuffle = serializers.BooleanField(
            required=False, default=False,
            help_text="The server commits to its seed now; each seated person may add a random contribution "
            "before the start, and the deal follows from all of them.",
        )
        spectator_policy = serializers.CharField(
            required=False, default=SpectatorPolicy.OPEN, max_length=16, allow_blank=True,
            help_text="open (default), delayed or closed (400 bad_spectator_policy otherwise).",
        )
        spectator_delay_moves = serializers.IntegerField(
            required=False, default=SPECTATOR_DELAY_MOVES_DEFAULT,
            help_text=f"For a delayed table: how many moves behind its spectators see it, "
            f"{SPECTATOR_DELAY_MOVES_MIN} to {SPECTATOR_DELAY_MOVES_MAX} (400 bad_spectator_delay otherwise).",
        )

        def validate(self, attrs):
            attrs.setdefault("rated", not attrs.get("private", False))  # a private table is casual
            return attrs

    @extend_schema(
        parameters=[
            OpenApiParameter("game", str, enum=sorted(ENGINES)),
            OpenApiParameter("status", str, enum=[c for c, _ in Match.Status.choices]),
            OpenApiParameter("player", str, description="A username or user id."),
            OpenApiParameter(
                "attended", bool,
                description="true: leave out running tables their people have all left (the lobby's \"Playing now\").",
            ),
            *PAGE_PARAMETERS,
        ],
        responses={200: MatchPageSerializer},
        operation_id="matches_list",
    )
    @replica_reads
    def get(self, request):
        status_filter = request.query_params.get("status")
        if status_filter and status_filter not in Match.Status.values:
            raise serializers.ValidationError({"status": _("one of %(values)s") % {"values": Match.Status.values}})
        attended = request.query_params.get("attended", "false")
        if attended not in ("true", "false"):
            raise serializers.ValidationError({"attended": _("true or false")})
        matches = selectors.match_list(
            game=request.query_params.get("game"), status=status_filter, player=request.query_params.get("player"),
            viewer=request.user,
        )
        if attended == "true":
            matches = matches.exclude(pk__in=selectors.deserted_match_ids(matches))
        return paged(
            matches, request, self,
            lambda page: MatchOutputSerializer(selectors.match_summaries(page, request.user), many=True).data,
        )

    @extend_schema(request=InputSerializer, responses={201: MatchOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = services.match_create(user=request.user, **data.validated_data)
        return Response(_summary(match), status=status.HTTP_201_CREATED)


class MatchDetailApi(MatchRouteApi):
    """One table's public facts."""

    @extend_schema(responses={200: MatchOutputSerializer})
    def get(self, request, match_id: int):
        return Response(_summary(selectors.match_get_known(match_id, request.user), request.user))


class MatchJoinApi(MatchRouteApi):
    """Takes a seat at an open table (the given one, or the first free)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=10)
        confirm_chosen_deck = serializers.BooleanField(
            required=False, default=False,
            help_text="Required (true) at a table whose creator chose the deck (`deck_chosen`): else 409.",
        )

    @extend_schema(request=InputSerializer, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_join(match_id=match_id, user=request.user, **data.validated_data)
        return Response(_summary(selectors.match_get(match_id)))


class MatchLeaveApi(MatchRouteApi):
    """Leaves an open table."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        services.match_leave(match_id=match_id, user=request.user)
        return Response(_summary(selectors.match_get(match_id)))


class MatchBotSeatApi(MatchRouteApi):
    """The table's creator seats a bot."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        bot = serializers.CharField(max_length=40)
        seat = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=10)

    @extend_schema(request=InputSerializer, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_seat_bot(match_id=match_id, user=request.user, **data.validated_data)
        return Response(_summary(selectors.match_get(match_id)))


class MatchStartApi(MatchRouteApi):
    """The table's creator starts a full table; the server draws the seed."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        return Response(_summary(services.match_start(match_id=match_id, user=request.user), request.user))


class MatchResignApi(MatchRouteApi):
    """A seated person resigns a running match: the game's fallback bot plays their seat to the end
    and it ranks after every seat that played on."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        services.seat_resign(match_id=match_id, user=request.user)
        return Response(_summary(selectors.match_get(match_id), request.user))


class MatchClaimApi(MatchRouteApi):
    """A seated person claims the seat of a person who has left the table, once the table has waited
    on it `CLAIM_SEAT_AFTER_SECONDS` with nobody there: the fallback bot plays it from then on."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(min_value=0, max_value=10)

    @extend_schema(request=InputSerializer, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.seat_claim(
            match_id=match_id, user=request.user, seat=data.validated_data["seat"],
            present=selectors.seats_present(match_id),
        )
        return Response(_summary(selectors.match_get(match_id), request.user))


class MatchConcedeApi(MatchRouteApi):
    """The team of a running cooperative match concedes together: a seated person who still plays
    their seat proposes or agrees (POST), and the match ends at once as the team's loss once every
    person still playing a seat has; anyone still playing withdraws the proposal (DELETE). Another
    game refuses with 409 `game_not_cooperative`."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        services.concession_agree(match_id=match_id, user=request.user)
        return Response(_summary(selectors.match_get(match_id), request.user))

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def delete(self, request, match_id: int):
        services.concession_withdraw(match_id=match_id, user=request.user)
        return Response(_summary(selectors.match_get(match_id), request.user))


class MatchShuffleContributeApi(MatchRouteApi):
    """A seated person adds a random contribution to an open table's shuffle (the last one sent counts)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        value = serializers.CharField(max_length=64, help_text="32 random bytes as 64 lowercase hex digits.")

    @extend_schema(request=InputSerializer, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.match_shuffle_contribute(match_id=match_id, user=request.user, **data.validated_data)
        return Response(_summary(selectors.match_get(match_id)))


class InvitationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    match = serializers.IntegerField(source="match_id")
    seat = serializers.IntegerField(allow_null=True, help_text="The seat it sits its holder in (null: any free one).")
    invitee = serializers.CharField(
        source="invitee.username", allow_null=True, default=None,
        help_text="The player it was sent to, who alone may accept it (null: whoever holds the link).",
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    revoked_at = serializers.DateTimeField(allow_null=True)


class InvitationCreatedSerializer(InvitationOutputSerializer):
    token = serializers.CharField(help_text="Shown this once: the server keeps only its SHA-256.")
    url = serializers.CharField(help_text="The page that sits whoever opens it: /invite/<token>.")


class MatchInvitationsApi(MatchRouteApi):
    """The table's creator lists its invitations, or makes one: a link for a seat or any free seat."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=10)
        expires_in = serializers.IntegerField(
            required=False, default=7 * 24 * 3600, min_value=60, max_value=services.INVITATION_SECONDS_MAX,
            help_text="Seconds until the link stops working (default a week).",
        )
        username = serializers.CharField(
            required=False, max_length=150,
            help_text="Send the link to this player (a notification), and let nobody else use it.",
        )

    @extend_schema(responses={200: InvitationOutputSerializer(many=True)}, operation_id="matches_invitations_list")
    def get(self, request, match_id: int):
        invitations = selectors.match_invitations(match_id=match_id, user=request.user)
        return Response(InvitationOutputSerializer(invitations, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: InvitationCreatedSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        invitation, token = services.invitation_create(match_id=match_id, user=request.user, **data.validated_data)
        shown = {**InvitationOutputSerializer(invitation).data, "token": token, "url": f"/invite/{token}"}
        return Response(shown, status=status.HTTP_201_CREATED)


class MatchInvitationRevokeApi(MatchRouteApi):
    """The table's creator revokes an invitation: its link sits nobody from now on."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: InvitationOutputSerializer})
    def delete(self, request, match_id: int, invitation_id: int):
        invitation = services.invitation_revoke(match_id=match_id, invitation_id=invitation_id, user=request.user)
        return Response(InvitationOutputSerializer(invitation).data)


class InvitationDetailApi(APIView):
    """What an invitation link offers (its table and seat), to whoever holds the link."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        seat = serializers.IntegerField(allow_null=True)
        expires_at = serializers.DateTimeField()
        match = MatchOutputSerializer()

    @extend_schema(responses={200: OutputSerializer})
    def get(self, request, token: str):
        invitation = services.invitation_valid(token)
        shown = {"seat": invitation.seat, "expires_at": invitation.expires_at, "match": _summary(invitation.match)}
        return Response(self.OutputSerializer(shown).data)


class InvitationAcceptApi(APIView):
    """Sits the caller at the invitation's table, in its seat or the first free one."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        confirm_chosen_deck = serializers.BooleanField(required=False, default=False)

    @extend_schema(request=InputSerializer, responses={200: MatchOutputSerializer})
    def post(self, request, token: str):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        seat = services.invitation_accept(token=token, user=request.user, **data.validated_data)
        return Response(_summary(selectors.match_get(seat.match_id)))


class MatchRematchOfferApi(MatchRouteApi):
    """A player of a finished match offers a rematch: a new table of the same players, seats rotated,
    started once every person has accepted (at once against bots only)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={201: MatchOutputSerializer})
    def post(self, request, match_id: int):
        match = services.rematch_offer(match_id=match_id, user=request.user)
        return Response(_summary(match, request.user), status=status.HTTP_201_CREATED)


class MatchRematchAcceptApi(MatchRouteApi):
    """A person seated at a rematch accepts it; the last acceptance starts the match."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MatchOutputSerializer})
    def post(self, request, match_id: int):
        return Response(_summary(services.rematch_accept(match_id=match_id, user=request.user), request.user))


class SeatAutoPassApi(MatchRouteApi):
    """Sets whether the caller's seat passes at once in interrupt windows (e.g. a Block window)."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        enabled = serializers.BooleanField()

    @extend_schema(request=InputSerializer, responses={200: InputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        enabled = services.seat_auto_pass_set(match_id=match_id, user=request.user, **data.validated_data)
        return Response({"enabled": enabled})


class MoveSubmitApi(MatchRouteApi):
    """Plays a move for the caller's seat.

    Send `expected_seq` (the `seq` you last saw) to have the move refused with 409 `stale_seq`
    if the match has moved on. An `Idempotency-Key` header makes a retry return the first answer.
    """

    permission_classes = [IsAuthenticated]
    throttle_scope = "moves"

    class InputSerializer(serializers.Serializer):
        move = serializers.JSONField(help_text='The move object, e.g. {"action": "play", "card": "42", "pile": 2}.')
        expected_seq = serializers.IntegerField(required=False, allow_null=True, min_value=0)

    @extend_schema(
        request=InputSerializer,
        parameters=[OpenApiParameter("Idempotency-Key", str, location=OpenApiParameter.HEADER, required=False)],
        responses={200: MoveOutputSerializer},
    )
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        key = request.headers.get("Idempotency-Key") or None
        if key is not None and len(key) > 128:
            raise serializers.ValidationError({"Idempotency-Key": _("at most 128 characters")})
        result = services.move_submit(
            match_id=match_id,
            user=request.user,
            move=data.validated_data["move"],
            expected_seq=data.validated_data.get("expected_seq"),
            idempotency_key=key,
        )
        # Already the documented shape: passing it through the serializer copied every view and
        # legal move field by field, a third of the endpoint's own time (bench/moves.py).
        return Response(result)


class MatchViewApi(MatchRouteApi):
    """The caller's own view of the match (a spectator's view for anyone not seated: at a delayed
    table, as it was `spectator_delay_moves` moves ago for all but its organiser, creator and staff)."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: ViewOutputSerializer})
    def get(self, request, match_id: int):
        match = selectors.match_get(match_id)
        watch = selectors.watch_required(match, request.user)
        return Response(ViewOutputSerializer(selectors.match_view_for_user(match, request.user, watch)).data)


class MatchLogApi(MatchRouteApi):
    """The move log as the caller's seat may see it (public for spectators), after `since` (a delayed
    table's spectators' stops `spectator_delay_moves` moves before the head)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("since", int, description="Only events with a greater seq.")],
        responses={200: LoggedEventSerializer(many=True)},
    )
    def get(self, request, match_id: int):
        since = serializers.IntegerField(min_value=0).run_validation(request.query_params.get("since", 0))
        match = selectors.match_get(match_id)
        watch = selectors.watch_required(match, request.user)
        log = selectors.match_log_for_user(match, request.user, watch, since=since)
        return Response(LoggedEventSerializer(log, many=True).data)


class MatchEventsApi(MatchRouteApi):
    """Every stored event with its hash: for anyone once the match has ended, for staff before."""

    permission_classes = [AllowAny]

    @extend_schema(responses={200: RawEventSerializer(many=True)})
    @replica_reads
    def get(self, request, match_id: int):
        match = selectors.match_get(match_id)
        events = selectors.match_raw_events(match, request.user)
        return Response(RawEventSerializer(events, many=True).data)


class DecisionPointSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The position the move was made in.")
    after = serializers.IntegerField(help_text="The position the move led to.")
    seat = serializers.IntegerField()
    move = serializers.DictField()
    actor = serializers.CharField()


class MatchReplayApi(MatchRouteApi):
    """A finished match at any position: every hand shown (`seat=all`) or as one seat saw it then."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        seq = serializers.IntegerField()
        last_seq = serializers.IntegerField()
        seat = serializers.JSONField(help_text='"all", a seat number, or null for a spectator.')
        views = serializers.ListField(child=serializers.DictField(), allow_null=True, help_text="Every seat's view (all).")
        view = serializers.DictField(allow_null=True, help_text="The seat's view, or the spectator's (all).")
        log = LoggedEventSerializer(many=True)
        decisions = DecisionPointSerializer(many=True)

    @extend_schema(
        parameters=[
            OpenApiParameter("seq", int, description="The position (default: the end)."),
            OpenApiParameter("seat", str, description='"all" (default), "spectator" or a seat number.'),
        ],
        responses={200: OutputSerializer},
    )
    @replica_reads
    def get(self, request, match_id: int):
        raw_seq = request.query_params.get("seq")
        seq = None if raw_seq in (None, "") else serializers.IntegerField().run_validation(raw_seq)
        raw_seat = request.query_params.get("seat", "all")
        seat = {"all": "all", "spectator": None}.get(raw_seat)
        if raw_seat not in ("all", "spectator"):
            seat = serializers.IntegerField(min_value=0).run_validation(raw_seat)
        match = selectors.match_get(match_id)
        position = replay.replay_position(match, request.user, seq=seq, seat=seat)
        return Response(self.OutputSerializer(position).data)


class EstimateSerializer(serializers.Serializer):
    value = serializers.FloatField(help_text="A win chance (0 to 1), or in The Game the team's expected cards left.")
    low = serializers.FloatField(help_text="The 95% interval's lower end (Wilson's for a win chance).")
    high = serializers.FloatField()


class DecisionReviewSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The position the move was made in.")
    after = serializers.IntegerField(help_text="The position the move led to.")
    seat = serializers.IntegerField()
    move = serializers.DictField(help_text="The move played.")
    options = serializers.IntegerField(help_text="How many legal moves the seat had.")
    best = serializers.DictField(help_text="The best move the review found (the move played, when it is).")
    played = EstimateSerializer()
    best_value = EstimateSerializer()
    loss = serializers.FloatField(help_text="How much worse the move played was than the best (win chance or cards).")
    loss_low = serializers.FloatField(help_text="The paired 95% interval's lower end of the loss.")
    mistake = serializers.BooleanField(help_text="The loss is at least `threshold` and its interval lies above 0.")


class MatchReviewApi(MatchRouteApi):
    """A finished match's review by the search bot: at each decision of each seat, from that seat's
    view then, the best move and the win chance (The Game: expected cards left) of the move played
    and of the best; 404 before the end, 202 `pending` while it is computed."""

    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer):
        match = serializers.IntegerField()
        status = serializers.ChoiceField(
            choices=["pending", "done", "none"],
            help_text="none: no review is kept and only the table's players (or staff) may ask for one.",
        )
        metric = serializers.ChoiceField(choices=["win", "cards_left"], required=False)
        playouts = serializers.IntegerField(required=False, help_text="Playouts of each compared move at a decision.")
        threshold = serializers.FloatField(required=False, help_text="The loss from which a move is a mistake.")
        decisions = DecisionReviewSerializer(many=True, required=False)

    @extend_schema(responses={200: OutputSerializer, 202: OutputSerializer})
    def get(self, request, match_id: int):
        match = selectors.match_get(match_id)
        user = request.user if request.user.is_authenticated else None
        state, analysis = reviews.review_read(match, user)
        if state == "none":
            return Response({"match": match.pk, "status": state})
        if analysis is None:
            return Response({"match": match.pk, "status": state}, status=status.HTTP_202_ACCEPTED)
        return Response(self.OutputSerializer({"match": match.pk, "status": state, **analysis}).data)


class MatchExportApi(MatchRouteApi):
    """The match as a JSON Lines file: a header, then one event per line with its hash; with
    `chat=true`, then the table's chat, a `{"chat": {...}}` line per chat event (revealed matches only)."""

    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[OpenApiParameter("chat", bool, description="Add the table's chat, hidden messages without their text.")],
        responses={(200, "application/jsonl"): OpenApiTypes.STR},
    )
    @replica_reads
    def get(self, request, match_id: int):
        with_chat = serializers.BooleanField().run_validation(request.query_params.get("chat", False))
        match = selectors.match_get(match_id)
        chat = exchange.export_section_lines(match, "chat") if with_chat else None
        lines = exchange.match_export_lines(match, request.user, chat=chat)
        first = next(lines)  # refusals are raised before the response starts
        body = (line + "\n" for chunk in ([first], lines) for line in chunk)
        response = StreamingHttpResponse(body, content_type="application/jsonl")
        response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.jsonl"'
        return response


class MatchImportApi(APIView):
    """Imports an exported match file after verifying it completely (refused with its line otherwise)."""

    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser, FileUploadParser]

    @extend_schema(
        request={"multipart/form-data": {"type": "object", "properties": {"file": {"type": "string", "format": "binary"}}}},
        responses={201: MatchOutputSerializer},
    )
    def post(self, request):
        upload = request.data.get("file")
        if not hasattr(upload, "read"):  # missing, or sent as a text field
            raise serializers.ValidationError({"file": _("attach the .jsonl file as `file`")})
        match = exchange.match_import_bytes(upload.read(), imported_by=request.user)
        return Response(_summary(match), status=status.HTTP_201_CREATED)


class MatchPracticeApi(MatchRouteApi):
    """Starts a new unrated match from a position of a finished one, the caller at `seat`, bots elsewhere."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        seq = serializers.IntegerField(min_value=1)
        seat = serializers.IntegerField(min_value=0, default=0)
        bot = serializers.CharField(max_length=40, required=False)

    @extend_schema(request=InputSerializer, responses={201: MatchOutputSerializer})
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        match = services.match_practice(match_id=match_id, user=request.user, **data.validated_data)
        return Response(_summary(match), status=status.HTTP_201_CREATED)
