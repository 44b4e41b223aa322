"""Accounts over HTTP: thin views that call accounts.services."""
from __future__ import annotations

from collections.abc import Mapping

from django.conf import settings
from django.contrib.auth import SESSION_KEY, login, logout, update_session_auth_hash
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.avatars import AVATAR_VARIANTS
from server.pagination import PAGE_PARAMETERS, PageSerializer, paged


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()
    email = serializers.CharField(allow_blank=True, help_text="Where password reset links go; empty: none can be sent.")
    avatar = serializers.IntegerField(help_text=f"The generated avatar picked, 0 to {AVATAR_VARIANTS - 1}.")
    avatar_url = serializers.SerializerMethodField()
    language = serializers.CharField(help_text="The site's language for this person (`en-gb`, `cy`); empty: the browser's.")
    invitations_from = serializers.CharField(
        help_text="Whose invitations by name reach this person: `anyone`, `played_with` (people they sat at a "
        "started match with) or `nobody`."
    )
    sound_volume = serializers.IntegerField(help_text="The table's sound cues, 0 (muted) to 100.")

    def get_avatar_url(self, user) -> str:
        return reverse("avatar", kwargs={"user_id": user.pk})


class SessionOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    token = serializers.CharField(
        help_text="Send as `Authorization: Token <token>`. Shown this once; it expires after `API_TOKEN_DAYS` days."
    )


class UserRegisterApi(APIView):
    """Creates an account and logs it in (session cookie and API token)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "signup"

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.+-]+$", max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)
        display_name = serializers.CharField(max_length=40, required=False, allow_blank=True, default="")
        email = serializers.EmailField(
            required=False, allow_blank=True, default="", help_text="Optional: where password reset links go."
        )

    @extend_schema(request=InputSerializer, responses={201: SessionOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_register(**data.validated_data)
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        body = {"user": user, "token": services.user_token(user=user)}
        return Response(SessionOutputSerializer(body).data, status=status.HTTP_201_CREATED)


class UserLoginApi(APIView):
    """Logs in with username and password; returns a new API token and sets the session cookie.

    Throttled per address and per account tried (429 `throttled`)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "login"
    account_throttle_scope = "login_account"

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=128, trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={200: SessionOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_authenticate(request=request, **data.validated_data)
        login(request, user)
        body = {"user": user, "token": services.user_token(user=user)}
        return Response(SessionOutputSerializer(body).data)


class UserLogoutApi(APIView):
    """Ends the session and revokes every API token of the user."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def post(self, request):
        services.user_tokens_revoke(user=request.user)
        logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserMeApi(APIView):
    """The logged-in user; PATCH changes the display name, e-mail, avatar, language, whose
    invitations reach them or the table's sound volume."""

    permission_classes = [IsAuthenticated]

    class InputSerializer(serializers.Serializer):
        display_name = serializers.CharField(
            max_length=40, required=False, allow_blank=True,
            help_text="Under the sign-up's rules: no bot's name, nobody else's or a look-alike (409 `name_taken`, "
            "422 `name_reserved`). Empty: shown by the username.",
        )
        email = serializers.EmailField(required=False, allow_blank=True, help_text="Needs `password` to change.")
        avatar = serializers.IntegerField(required=False, help_text=f"0 to {AVATAR_VARIANTS - 1}: see /avatars/<id>/<n>.svg.")
        password = serializers.CharField(
            max_length=128, required=False, trim_whitespace=False,
            help_text="The current password: required to change the e-mail (403 `wrong_password`).",
        )
        language = serializers.CharField(
            max_length=8, required=False, allow_blank=True,
            help_text="`en-gb` or `cy` (400 `unknown_language` otherwise); empty: follow the browser.",
        )
        invitations_from = serializers.CharField(
            max_length=16, required=False,
            help_text="`anyone`, `played_with` or `nobody` (400 `unknown_invitations_from` otherwise). An invitation "
            "by name from anyone else is answered to its sender as any other, and never reaches this person.",
        )
        sound_volume = serializers.IntegerField(
            required=False, help_text="0 (muted) to 100 (400 `invalid_sound_volume` otherwise): how loud the table's "
            "sound cues play for this person, on every device.",
        )

    def get_throttles(self):
        # A PATCH that checks the password (an e-mail change) counts with the other password checks.
        body = self.request.data if self.request.method == "PATCH" else None
        checks_password = isinstance(body, Mapping) and "password" in body  # a JSON body may be any value
        self.throttle_scope = "password_check" if checks_password else None
        return super().get_throttles()

    @extend_schema(responses={200: UserOutputSerializer})
    def get(self, request):
        return Response(UserOutputSerializer(request.user).data)

    @extend_schema(request=InputSerializer, responses={200: UserOutputSerializer})
    def patch(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_profile_update(user=request.user, **data.validated_data)
        return Response(UserOutputSerializer(user).data)


class PasswordChangeApi(APIView):
    """Changes the logged-in user's password (the old one is required; Django's validators).

    This session stays logged in; every other session ends and every API token is revoked,
    this request's too: the answer carries a new token. Throttled per user (429 `throttled`)."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "password_check"

    class InputSerializer(serializers.Serializer):
        old_password = serializers.CharField(max_length=128, trim_whitespace=False)
        new_password = serializers.CharField(max_length=128, trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={200: SessionOutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token = services.user_password_change(user=request.user, **data.validated_data)
        if request.session.get(SESSION_KEY) == str(request.user.pk):  # this user's session: it stays
            update_session_auth_hash(request, request.user)
        return Response(SessionOutputSerializer({"user": request.user, "token": token}).data)


class PasswordResetApi(APIView):
    """Sends a link to set a new password to the accounts with this e-mail, if there are any.

    The answer is the same whether or not an account has the e-mail. Throttled per address and
    per e-mail (429 `throttled`). The link opens `/account/reset/<uid>/<token>`, once, within
    `PASSWORD_RESET_TIMEOUT` seconds."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "password_reset"
    account_throttle_scope = "password_reset_account"
    account_throttle_field = "email"

    class InputSerializer(serializers.Serializer):
        email = serializers.EmailField()

    class OutputSerializer(serializers.Serializer):
        detail = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={202: OutputSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.password_reset_request(email=data.validated_data["email"])
        body = {"detail": "If an account has this e-mail, a link to set a new password is on its way."}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_202_ACCEPTED)


class UserDeleteApi(APIView):
    """Deletes the logged-in user's account (the password is required, 403 `wrong_password`).

    Its matches, tournaments and ratings stay, credited to "deleted player <id>"; its names can
    no longer be taken by anyone; the e-mail is cleared; every session and token ends."""

    permission_classes = [IsAuthenticated]
    throttle_scope = "password_check"

    class InputSerializer(serializers.Serializer):
        password = serializers.CharField(max_length=128, trim_whitespace=False)

    @extend_schema(request=InputSerializer, responses={204: None})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_delete(user=request.user, **data.validated_data)
        logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    created = serializers.DateTimeField()
    expires = serializers.DateTimeField()


class TokenPageSerializer(PageSerializer):
    results = TokenOutputSerializer(many=True)


class TokenListApi(APIView):
    """The logged-in user's API tokens that still work (never their keys)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=PAGE_PARAMETERS, responses={200: TokenPageSerializer})
    def get(self, request):
        tokens = selectors.token_list(user=request.user)
        return paged(tokens, request, self, lambda page: TokenOutputSerializer(page, many=True).data)


class TokenRevokeApi(APIView):
    """Revokes one of the logged-in user's API tokens; it fails on its very next use."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, token_id: int):
        services.user_token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SocketTicketCreateApi(APIView):
    """A single-use ticket for opening a socket as the logged-in user: `/ws/...?ticket=<ticket>`,
    within `expires_in` seconds. The API token itself never goes in a URL."""

    permission_classes = [IsAuthenticated]

    class OutputSerializer(serializers.Serializer):
        ticket = serializers.CharField()
        expires_in = serializers.IntegerField(help_text="Seconds the ticket is good for.")

    @extend_schema(request=None, responses={201: OutputSerializer})
    def post(self, request):
        token_key = request.auth if isinstance(request.auth, str) else None  # None: the session's
        ticket = services.socket_ticket_issue(user=request.user, token_key=token_key,
                                              session_key=request.session.session_key)
        body = {"ticket": ticket, "expires_in": settings.SOCKET_TICKET_SECONDS}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_201_CREATED)


class MutedSenderOutputSerializer(serializers.Serializer):
    username = serializers.CharField(source="sender.username")
    display_name = serializers.CharField(source="sender.display_name")
    created = serializers.DateTimeField(help_text="When they were muted.")


class MutedSenderPageSerializer(PageSerializer):
    results = MutedSenderOutputSerializer(many=True)


class MutedSenderListApi(APIView):
    """The people the logged-in user muted: their invitations by name never reach them."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=PAGE_PARAMETERS, responses={200: MutedSenderPageSerializer})
    def get(self, request):
        muted = selectors.muted_sender_list(user=request.user)
        return paged(muted, request, self, lambda page: MutedSenderOutputSerializer(page, many=True).data)


class MutedSenderApi(APIView):
    """POST mutes a person: their invitations by name are answered to them as any other and never
    reach the logged-in user. DELETE unmutes. Both may be repeated. Oneself (400
    `cannot_mute_yourself`), a bot (400 `cannot_mute_bot`), nobody by that name (404 `user_not_found`)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={200: MutedSenderOutputSerializer})
    def post(self, request, username: str):
        muted = services.sender_mute(user=request.user, username=username)
        return Response(MutedSenderOutputSerializer(muted).data)

    @extend_schema(request=None, responses={204: None})
    def delete(self, request, username: str):
        services.sender_unmute(user=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)
