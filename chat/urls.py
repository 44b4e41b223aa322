from django.urls import path

from chat import api

urlpatterns = [
    path("matches/<int:match_id>/chat", api.MatchChatApi.as_view(), name="match-chat"),
    path("matches/<int:match_id>/chat/<int:seq>/hide", api.MatchChatHideApi.as_view(), name="match-chat-hide"),
    path("chat/mutes", api.ChatMuteListApi.as_view(), name="chat-mute-list"),
    path("chat/mutes/<str:user>", api.ChatMuteApi.as_view(), name="chat-mute"),
]
