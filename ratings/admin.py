"""Ratings in the admin, read-only: the ledger is append-only and the rest is rebuilt from it."""
from django.contrib import admin

from ratings.models import Ladder, Rating, RatingEntry, TeamResult
from server.admin import ReadOnlyAdmin


@admin.register(Ladder)
class LadderAdmin(ReadOnlyAdmin):
    list_display = ("game", "pool", "epoch", "position", "last_finished_at", "last_match_id")


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("competitor", "ladder", "mu", "sigma", "conservative", "games", "wins", "last_played_at")
    list_filter = ("ladder", "kind")
    search_fields = ("competitor", "user__username")


@admin.register(RatingEntry)
class RatingEntryAdmin(ReadOnlyAdmin):
    list_display = ("match", "competitor", "ladder", "epoch", "position", "rank", "mu_after", "sigma_after", "created")
    list_filter = ("ladder", "epoch", "kind")
    search_fields = ("competitor", "match__id")


@admin.register(TeamResult)
class TeamResultAdmin(ReadOnlyAdmin):
    list_display = ("match", "ladder", "players", "cards_left", "won", "finished_at")
    list_filter = ("ladder", "players", "won")
