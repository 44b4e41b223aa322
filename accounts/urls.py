from django.urls import path

from accounts import api

urlpatterns = [
    path("auth/register", api.UserRegisterApi.as_view(), name="register"),
    path("auth/login", api.UserLoginApi.as_view(), name="login"),
    path("auth/logout", api.UserLogoutApi.as_view(), name="logout"),
    path("auth/me", api.UserMeApi.as_view(), name="me"),
    path("auth/me/delete", api.UserDeleteApi.as_view(), name="me-delete"),
    path("auth/password", api.PasswordChangeApi.as_view(), name="password-change"),
    path("auth/password-reset", api.PasswordResetApi.as_view(), name="password-reset"),
    path("auth/tokens", api.TokenListApi.as_view(), name="token-list"),
    path("auth/tokens/<int:token_id>", api.TokenRevokeApi.as_view(), name="token-revoke"),
    path("auth/muted", api.MutedSenderListApi.as_view(), name="muted-sender-list"),
    path("auth/muted/<str:username>", api.MutedSenderApi.as_view(), name="muted-sender"),
    path("auth/socket-ticket", api.SocketTicketCreateApi.as_view(), name="socket-ticket"),
]
