from django.contrib import admin

from tournaments.models import (
    Entrant,
    Round,
    RoundTable,
    Tournament,
    TournamentEvent,
    Webhook,
    WebhookDelivery,
)


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("id", "name", "game", "format", "status", "organiser", "starts_at", "last_seq")
    list_filter = ("game", "format", "status")
    search_fields = ("name",)


@admin.register(Entrant)
class EntrantAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "name", "user", "bot", "status")
    list_filter = ("status",)


@admin.register(TournamentEvent)
class TournamentEventAdmin(admin.ModelAdmin):
    """Read only: the event store is append-only (the database refuses changes)."""

    list_display = ("tournament", "seq", "type", "actor", "created")
    list_filter = ("type",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ("tournament", "number", "starts_at", "started_at", "deadline", "completed_at")


@admin.register(RoundTable)
class RoundTableAdmin(admin.ModelAdmin):
    list_display = ("round", "number", "match", "seats", "result")


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    list_display = ("id", "tournament", "url", "active", "created_at")


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = ("id", "webhook", "kind", "status", "attempts", "last_status", "delivered_at")
    list_filter = ("status", "kind")
