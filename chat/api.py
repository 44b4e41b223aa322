"""Table chat over HTTP: one thin view per operation, parse -> one service or selector -> serialise."""
from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from chat import selectors, services
from chat.models import ChatEvent


class ChatPersonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class ChatMessageSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The message's seq in the table's chat stream.")
    channel = serializers.ChoiceField(choices=ChatEvent.Channel.choices)
    author = ChatPersonSerializer()
    text = serializers.CharField(allow_null=True, help_text="Plain text, never HTML. Null: hidden (staff still read it).")
    created = serializers.DateTimeField()
    hidden = serializers.BooleanField()
    hidden_by = ChatPersonSerializer(allow_null=True, help_text="Who hid it: shown to staff only.")


class ChatItemSerializer(serializers.Serializer):
    seq = serializers.IntegerField(help_text="The chat event's seq.")
    type = serializers.ChoiceField(choices=ChatEvent.Type.choices)
    message = ChatMessageSerializer(help_text="The message posted, or the message hidden, as the caller may see it.")


class MatchChatApi(APIView):
    """The table's chat as the caller may read it (GET), and a message of the caller's (POST).

    Seated players write in `players`, everyone else signed in in `spectators`. Players of a sealed
    table (a duplicate deal other tables still play) are not sent the spectators' channel.
    """

    class OutputSerializer(serializers.Serializer):
        head = serializers.IntegerField(help_text="The last chat seq this page covers: ask again with since=head.")
        more = serializers.BooleanField(help_text="More events follow: ask again with since=head now.")
        items = ChatItemSerializer(many=True)

    class InputSerializer(serializers.Serializer):
        text = serializers.CharField(
            trim_whitespace=False, allow_blank=True,
            help_text=f"1 to {services.TEXT_MAX} characters once stripped; no control characters but newlines.",
        )
        channel = serializers.ChoiceField(
            choices=ChatEvent.Channel.choices, required=False, help_text="Your own channel (the default) or 403."
        )
        id = serializers.CharField(
            max_length=64, required=False, help_text="Your id for the message: a retry with it gets the first answer."
        )

    def get_permissions(self):
        return [AllowAny()] if self.request.method == "GET" else [IsAuthenticated()]

    @extend_schema(
        parameters=[
            OpenApiParameter("since", {"type": "integer", "minimum": 0}, description="Only chat events with a greater seq."),
            OpenApiParameter("spectators", bool, description="false: leave out the spectators' channel."),
        ],
        responses={200: OutputSerializer},
        operation_id="matches_chat_list",
    )
    def get(self, request, match_id: int):
        since = serializers.IntegerField(min_value=0).run_validation(request.query_params.get("since", 0))
        spectators = serializers.BooleanField().run_validation(request.query_params.get("spectators", True))
        page = selectors.chat_page_for_user(match_id, request.user, since=since, spectators_shown=spectators)
        return Response(self.OutputSerializer(page).data)

    @extend_schema(request=InputSerializer, responses={201: ChatItemSerializer}, operation_id="matches_chat_create")
    def post(self, request, match_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        item = services.chat_message_post(
            match_id=match_id, user=request.user, text=data.validated_data["text"],
            channel=data.validated_data.get("channel"), client_id=data.validated_data.get("id"),
        )
        return Response(ChatItemSerializer(item).data, status=status.HTTP_201_CREATED)


class MatchChatHideApi(APIView):
    """The tournament's organiser or staff hides a message: recorded as a `MessageHidden` event.
    Hiding it again answers with the first hide."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: ChatItemSerializer})
    def post(self, request, match_id: int, seq: int):
        return Response(ChatItemSerializer(services.chat_message_hide(match_id=match_id, seq=seq, user=request.user)).data)


class ChatMuteListApi(APIView):
    """The people whose messages the caller is not sent, at any table."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: ChatPersonSerializer(many=True)}, operation_id="chat_mutes_list")
    def get(self, request):
        return Response(ChatPersonSerializer(selectors.chat_mutes(request.user), many=True).data)


class ChatMuteApi(APIView):
    """Mutes (POST) or unmutes (DELETE) a person, named by username or id, for the caller only."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: ChatPersonSerializer})
    def post(self, request, user: str):
        return Response(ChatPersonSerializer(services.chat_mute_add(user=request.user, muted=user)).data)

    @extend_schema(responses={204: None})
    def delete(self, request, user: str):
        services.chat_mute_remove(user=request.user, muted=user)
        return Response(status=status.HTTP_204_NO_CONTENT)
