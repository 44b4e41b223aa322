"""Tournaments over HTTP: one thin view per operation, parse -> one service or selector -> serialise.

Anyone may read a tournament; only its organiser changes it (403 `not_organiser`). One module per
topic, as `tournaments.services` has them, each with its serializers beside its views; `_common`
holds what they share. The views are named here for `tournaments.urls`.
"""

from tournaments.api.field import (
    EntrantDisqualifyApi,
    TournamentBotAddApi,
    TournamentCheckInApi,
    TournamentDecisionsApi,
    TournamentEntrantsApi,
    TournamentReenterApi,
    TournamentRegisterApi,
    TournamentWithdrawApi,
)
from tournaments.api.judging import (
    JudgeCallClaimApi,
    JudgeCallResolveApi,
    JudgeCallsApi,
    JudgeRemoveApi,
    JudgesApi,
    TableExtendApi,
    TableJudgingApi,
)
from tournaments.api.results import TableCorrectApi, TableForfeitApi, TournamentStandingApi, TournamentStandingsApi
from tournaments.api.rounds import (
    TableShuffleContributeApi,
    TournamentBracketApi,
    TournamentCalendarApi,
    TournamentExportApi,
    TournamentRoundsApi,
)
from tournaments.api.series import (
    SeriesDecisionsApi,
    SeriesDetailApi,
    SeriesEventAddApi,
    SeriesEventChangeApi,
    SeriesListCreateApi,
    SeriesRulesSetApi,
)
from tournaments.api.tournaments import (
    TournamentDetailApi,
    TournamentEventsApi,
    TournamentFormatsApi,
    TournamentListCreateApi,
    TournamentMatchTablesApi,
    TournamentStartApi,
)
from tournaments.api.webhooks import (
    SeriesWebhookDeleteApi,
    SeriesWebhookListCreateApi,
    WebhookDeleteApi,
    WebhookListCreateApi,
)

__all__ = [
    "SeriesDecisionsApi",
    "SeriesDetailApi",
    "SeriesEventAddApi",
    "SeriesEventChangeApi",
    "SeriesListCreateApi",
    "SeriesRulesSetApi",
    "SeriesWebhookDeleteApi",
    "SeriesWebhookListCreateApi",
    "EntrantDisqualifyApi",
    "JudgeCallClaimApi",
    "JudgeCallResolveApi",
    "JudgeCallsApi",
    "JudgeRemoveApi",
    "JudgesApi",
    "TableExtendApi",
    "TableJudgingApi",
    "TableCorrectApi",
    "TableForfeitApi",
    "TableShuffleContributeApi",
    "TournamentBotAddApi",
    "TournamentBracketApi",
    "TournamentCalendarApi",
    "TournamentCheckInApi",
    "TournamentDecisionsApi",
    "TournamentDetailApi",
    "TournamentEntrantsApi",
    "TournamentEventsApi",
    "TournamentExportApi",
    "TournamentFormatsApi",
    "TournamentListCreateApi",
    "TournamentMatchTablesApi",
    "TournamentReenterApi",
    "TournamentRegisterApi",
    "TournamentRoundsApi",
    "TournamentStandingApi",
    "TournamentStandingsApi",
    "TournamentStartApi",
    "TournamentWithdrawApi",
    "WebhookDeleteApi",
    "WebhookListCreateApi",
]
