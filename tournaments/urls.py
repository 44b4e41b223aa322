from django.urls import path

from tournaments import api

_ONE = "tournaments/<int:tournament_id>"
_SERIES = "series/<int:series_id>"
_TABLE = f"{_ONE}/rounds/<int:round_number>/tables/<int:table_number>"

urlpatterns = [
    path("tournaments", api.TournamentListCreateApi.as_view(), name="tournament-list"),
    path("tournaments/tables", api.TournamentMatchTablesApi.as_view(), name="tournament-match-tables"),
    path("tournaments/tables/<int:match_id>/judging", api.TableJudgingApi.as_view(), name="tournament-table-judging"),
    path("tournaments/formats", api.TournamentFormatsApi.as_view(), name="tournament-formats"),
    path(_ONE, api.TournamentDetailApi.as_view(), name="tournament-detail"),
    path(f"{_ONE}/entrants", api.TournamentEntrantsApi.as_view(), name="tournament-entrants"),
    path(f"{_ONE}/register", api.TournamentRegisterApi.as_view(), name="tournament-register"),
    path(f"{_ONE}/withdraw", api.TournamentWithdrawApi.as_view(), name="tournament-withdraw"),
    path(f"{_ONE}/bots", api.TournamentBotAddApi.as_view(), name="tournament-bot-add"),
    path(f"{_ONE}/check-in", api.TournamentCheckInApi.as_view(), name="tournament-check-in"),
    path(f"{_ONE}/reenter", api.TournamentReenterApi.as_view(), name="tournament-reenter"),
    path(f"{_ONE}/decisions", api.TournamentDecisionsApi.as_view(), name="tournament-decisions"),
    path(f"{_ONE}/start", api.TournamentStartApi.as_view(), name="tournament-start"),
    path(f"{_ONE}/standings", api.TournamentStandingsApi.as_view(), name="tournament-standings"),
    path(
        f"{_ONE}/standings/<int:entrant_id>", api.TournamentStandingApi.as_view(), name="tournament-standing"
    ),
    path(f"{_ONE}/rounds", api.TournamentRoundsApi.as_view(), name="tournament-rounds"),
    path(f"{_ONE}/export", api.TournamentExportApi.as_view(), name="tournament-export"),
    path(f"{_ONE}/bracket", api.TournamentBracketApi.as_view(), name="tournament-bracket"),
    path(f"{_ONE}/calendar", api.TournamentCalendarApi.as_view(), name="tournament-calendar"),
    path(f"{_ONE}/events", api.TournamentEventsApi.as_view(), name="tournament-events"),
    path(f"{_TABLE}/correction", api.TableCorrectApi.as_view(), name="tournament-table-correct"),
    path(f"{_TABLE}/forfeit", api.TableForfeitApi.as_view(), name="tournament-table-forfeit"),
    path(f"{_TABLE}/extension", api.TableExtendApi.as_view(), name="tournament-table-extend"),
    path(f"{_ONE}/judges", api.JudgesApi.as_view(), name="tournament-judges"),
    path(f"{_ONE}/judges/<int:user_id>", api.JudgeRemoveApi.as_view(), name="tournament-judge-remove"),
    path(f"{_ONE}/judge-calls", api.JudgeCallsApi.as_view(), name="tournament-judge-calls"),
    path(f"{_ONE}/judge-calls/<int:call_number>/claim", api.JudgeCallClaimApi.as_view(), name="tournament-judge-call-claim"),
    path(
        f"{_ONE}/judge-calls/<int:call_number>/resolve", api.JudgeCallResolveApi.as_view(), name="tournament-judge-call-resolve"
    ),
    path(f"{_TABLE}/shuffle", api.TableShuffleContributeApi.as_view(), name="tournament-table-shuffle"),
    path(
        f"{_ONE}/entrants/<int:entrant_id>/disqualify",
        api.EntrantDisqualifyApi.as_view(),
        name="tournament-entrant-disqualify",
    ),
    path(f"{_ONE}/webhooks", api.WebhookListCreateApi.as_view(), name="tournament-webhooks"),
    path(
        f"{_ONE}/webhooks/<int:webhook_id>", api.WebhookDeleteApi.as_view(), name="tournament-webhook-delete"
    ),
    path("series", api.SeriesListCreateApi.as_view(), name="series-list"),
    path(_SERIES, api.SeriesDetailApi.as_view(), name="series-detail"),
    path(f"{_SERIES}/rules", api.SeriesRulesSetApi.as_view(), name="series-rules"),
    path(f"{_SERIES}/decisions", api.SeriesDecisionsApi.as_view(), name="series-decisions"),
    path(f"{_SERIES}/webhooks", api.SeriesWebhookListCreateApi.as_view(), name="series-webhooks"),
    path(f"{_SERIES}/webhooks/<int:webhook_id>", api.SeriesWebhookDeleteApi.as_view(), name="series-webhook-delete"),
    path(f"{_SERIES}/events", api.SeriesEventAddApi.as_view(), name="series-event-add"),
    path(
        f"{_SERIES}/events/<int:tournament_id>", api.SeriesEventChangeApi.as_view(), name="series-event-change"
    ),
]
