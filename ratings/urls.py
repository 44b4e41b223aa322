from django.urls import path

from ratings import api

urlpatterns = [
    path("ratings/params", api.RatingParamsApi.as_view(), name="rating-params"),
    path("ratings/<slug:game>/leaderboard", api.LeaderboardApi.as_view(), name="rating-leaderboard"),
    path("ratings/<slug:game>/predict", api.TablePredictApi.as_view(), name="rating-predict"),
    path("ratings/<slug:game>/best-results", api.BestResultsApi.as_view(), name="rating-best-results"),
    path("ratings/<slug:game>/players/<str:player>", api.RatingDetailApi.as_view(), name="rating-detail"),
    path("ratings/<slug:game>/players/<str:player>/history", api.RatingHistoryApi.as_view(), name="rating-history"),
    path(
        "ratings/<slug:game>/players/<str:player>/head-to-head", api.HeadToHeadApi.as_view(), name="rating-head-to-head"
    ),
]
