from django.urls import path

from accounts import api

urlpatterns = [
    path("auth/register", api.UserRegisterApi.as_view(), name="register"),
    path("auth/login", api.UserLoginApi.as_view(), name="login"),
    path("auth/logout", api.UserLogoutApi.as_view(), name="logout"),
    path("auth/me", api.UserMeApi.as_view(), name="me"),
]
