from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup", views.signup, name="page-signup"),
    path("login", views.login_page, name="page-login"),
    path("logout", views.logout_page, name="page-logout"),
    path("language", views.language, name="language"),
    path("account", views.account, name="account"),
    path("notifications", views.notifications, name="notifications"),
    path("account/reset", views.PasswordResetPage.as_view(), name="password-reset-page"),
    path("account/reset/sent", views.PasswordResetSentPage.as_view(), name="password-reset-sent"),
    path("account/reset/done", views.PasswordResetDonePage.as_view(), name="password-reset-done"),
    path("account/reset/<uidb64>/<token>", views.PasswordResetConfirmPage.as_view(), name="password-reset-confirm"),
    path("avatars/<int:user_id>.svg", views.avatar, name="avatar"),
    path("avatars/<int:user_id>/<int:variant>.svg", views.avatar_variant, name="avatar-variant"),
    path("players/search", views.player_search, name="player-search"),
    path("players/by-id/<int:user_id>", views.profile_by_id, name="profile-by-id"),
    path("players/<str:username>", views.profile, name="profile"),
    path("tables/<int:match_id>", views.table, name="table"),
    path("invite/<str:token>", views.invite, name="invite"),
    path("tables/<int:match_id>/replay", views.replay, name="replay"),
    path("leaderboards", views.leaderboard, name="leaderboards"),
    path("leaderboards/<slug:game>", views.leaderboard, name="leaderboard"),
    path("bots", views.leaderboard, {"pool": "bots"}, name="bots-boards"),
    path("bots/<slug:game>", views.leaderboard, {"pool": "bots"}, name="bots"),
    path("rules", views.rules, name="rules-index"),
    path("rules/<slug:game>", views.rules, name="rules"),
    path("tournaments", views.tournaments, name="tournaments"),
    path("tournaments/<int:tournament_id>", views.tournament, name="tournament"),
]
