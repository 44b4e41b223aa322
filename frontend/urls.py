from django.urls import path

from frontend import views

urlpatterns = [
    path("", views.home, name="home"),
    path("signup", views.signup, name="page-signup"),
    path("login", views.login_page, name="page-login"),
    path("logout", views.logout_page, name="page-logout"),
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
    path("tournaments", views.tournaments, name="tournaments"),
    path("tournaments/<int:tournament_id>", views.tournament, name="tournament"),
]
