from django.urls import path

from games import api

urlpatterns = [
    path("games", api.GameListApi.as_view(), name="game-list"),
    path("matches", api.MatchListCreateApi.as_view(), name="match-list"),
    path("matches/<int:match_id>", api.MatchDetailApi.as_view(), name="match-detail"),
    path("matches/<int:match_id>/join", api.MatchJoinApi.as_view(), name="match-join"),
    path("matches/<int:match_id>/leave", api.MatchLeaveApi.as_view(), name="match-leave"),
    path("matches/<int:match_id>/bots", api.MatchBotSeatApi.as_view(), name="match-bot-seat"),
    path("matches/<int:match_id>/start", api.MatchStartApi.as_view(), name="match-start"),
    path("matches/<int:match_id>/moves", api.MoveSubmitApi.as_view(), name="move-submit"),
    path("matches/<int:match_id>/invitations", api.MatchInvitationsApi.as_view(), name="match-invitations"),
    path(
        "matches/<int:match_id>/invitations/<int:invitation_id>",
        api.MatchInvitationRevokeApi.as_view(),
        name="match-invitation-revoke",
    ),
    path("invitations/<str:token>", api.InvitationDetailApi.as_view(), name="invitation-detail"),
    path("invitations/<str:token>/accept", api.InvitationAcceptApi.as_view(), name="invitation-accept"),
    path("matches/<int:match_id>/rematch", api.MatchRematchOfferApi.as_view(), name="match-rematch"),
    path("matches/<int:match_id>/accept", api.MatchRematchAcceptApi.as_view(), name="match-rematch-accept"),
    path("matches/<int:match_id>/shuffle", api.MatchShuffleContributeApi.as_view(), name="match-shuffle-contribute"),
    path("matches/<int:match_id>/auto-pass", api.SeatAutoPassApi.as_view(), name="seat-auto-pass"),
    path("matches/<int:match_id>/resign", api.MatchResignApi.as_view(), name="match-resign"),
    path("matches/<int:match_id>/claim", api.MatchClaimApi.as_view(), name="match-claim"),
    path("matches/<int:match_id>/concede", api.MatchConcedeApi.as_view(), name="match-concede"),
    path("matches/<int:match_id>/view", api.MatchViewApi.as_view(), name="match-view"),
    path("matches/<int:match_id>/log", api.MatchLogApi.as_view(), name="match-log"),
    path("matches/<int:match_id>/events", api.MatchEventsApi.as_view(), name="match-events"),
    path("matches/<int:match_id>/replay", api.MatchReplayApi.as_view(), name="match-replay"),
    path("matches/<int:match_id>/review", api.MatchReviewApi.as_view(), name="match-review"),
    path("matches/<int:match_id>/export", api.MatchExportApi.as_view(), name="match-export"),
    path("matches/<int:match_id>/practice", api.MatchPracticeApi.as_view(), name="match-practice"),
    path("matches/import", api.MatchImportApi.as_view(), name="match-import"),
]
