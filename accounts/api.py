"""Accounts over HTTP: thin views that call accounts.services."""
from __future__ import annotations

from django.conf import settings
from django.contrib.auth import login, logout
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from server.pagination import PAGE_PARAMETERS, Page


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()


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
    """The logged-in user."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: UserOutputSerializer})
    def get(self, request):
        return Response(UserOutputSerializer(request.user).data)


class TokenOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    created = serializers.DateTimeField()
    expires = serializers.DateTimeField()


class TokenPageSerializer(serializers.Serializer):
    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = TokenOutputSerializer(many=True)


class TokenListApi(APIView):
    """The logged-in user's API tokens that still work (never their keys)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(parameters=PAGE_PARAMETERS, responses={200: TokenPageSerializer})
    def get(self, request):
        paginator = Page()
        page = paginator.paginate_queryset(selectors.token_list(user=request.user), request, view=self)
        return paginator.get_paginated_response(TokenOutputSerializer(page, many=True).data)


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
        ticket = services.socket_ticket_issue(user=request.user, token_key=token_key)
        body = {"ticket": ticket, "expires_in": settings.SOCKET_TICKET_SECONDS}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_201_CREATED)
