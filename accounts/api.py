"""Accounts over HTTP: thin views that call accounts.services."""
from __future__ import annotations

from django.contrib.auth import login, logout
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import services


class UserOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()


class SessionOutputSerializer(serializers.Serializer):
    user = UserOutputSerializer()
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`.")


class UserRegisterApi(APIView):
    """Creates an account and logs it in (session cookie and API token)."""

    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_scope = "signup"

    class InputSerializer(serializers.Serializer):
        username = serializers.RegexField(r"^[\w.@+-]+$", max_length=150)
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
    """Logs in with username and password; returns the API token and sets the session cookie.

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
    """Ends the session and revokes the API token."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None})
    def post(self, request):
        services.user_token_revoke(user=request.user)
        logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class UserMeApi(APIView):
    """The logged-in user."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: UserOutputSerializer})
    def get(self, request):
        return Response(UserOutputSerializer(request.user).data)
