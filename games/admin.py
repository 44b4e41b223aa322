"""Matches and events in the admin, read-only: the log is never edited by hand."""
from django.contrib import admin

from games.models import Event, Match, Seat
from server.admin import ReadOnlyAdmin


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    can_delete = False
    readonly_fields = ("seat", "user", "bot", "joined_at")

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(ReadOnlyAdmin):
    list_display = ("id", "game", "status", "players", "rated", "last_seq", "created_at", "finished_at")
    list_filter = ("game", "status", "rated")
    inlines = [SeatInline]


@admin.register(Event)
class EventAdmin(ReadOnlyAdmin):
    list_display = ("match", "seq", "kind", "type", "actor", "created", "short_hash")
    list_filter = ("kind", "type")
    search_fields = ("match__id",)

    @admin.display(description="hash")
    def short_hash(self, obj: Event) -> str:
        return obj.hash[:12]
