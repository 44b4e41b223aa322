"""Ratings over HTTP: one thin view per read, parse -> one selector -> serialise. All public.

A player in a path or a query is a username (or user id), `bot:<name>` for a bot, or
`game:<players>` for The Game's own pseudo-player at that many players.
"""
from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from games.engines import ENGINES
from ratings import math as rmath
from ratings import selectors
from ratings.models import Kind, Pool
from server.db_router import replica_reads
from server.pagination import PAGE_PARAMETERS, Page, PageSerializer

_GAME = OpenApiParameter("game", str, OpenApiParameter.PATH, enum=sorted(ENGINES), description="The game's slug.")
_PLAYER = OpenApiParameter(
    "player", str, OpenApiParameter.PATH, description="A username (or user id), bot:<name>, or game:<players>."
)
_DETAIL_POOL_HELP = (
    "Default: bots for a bot; for a person, people, unless all their rated matches in the game had a bot."
)
_POOL_HELP = (
    "people: matches with no bot (the default); bots: matches with a bot, where the people who played "
    "there are rated beside the bots."
)
_MIN_GAMES_HELP = (
    f"List only competitors with at least this many rated games (default {selectors.DEFAULT_MIN_GAMES}: "
    "everyone rated)."
)


_Row = TypeVar("_Row")


def _query(serializer_class: type[serializers.Serializer], request) -> dict:
    data = serializer_class(data=request.query_params)
    data.is_valid(raise_exception=True)
    return data.validated_data


class RatingRowSerializer(serializers.Serializer):
    position = serializers.IntegerField(
        allow_null=True,
        help_text="Place on the board, provisional rows included; null when the board does not list the "
        "competitor (below min_games, or of a kind the board leaves out).",
    )
    competitor = serializers.CharField(help_text="user:<id>, bot:<name> or game:<players>")
    kind = serializers.ChoiceField(choices=Kind.values, help_text="user: a person; bot; game: The Game itself.")
    user = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField(help_text="The conservative rating μ − 3σ the board is ordered by.")
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    provisional = serializers.BooleanField(
        help_text=f"Fewer than {selectors.PROVISIONAL_GAMES} rated games: the rating may still move a lot."
    )
    games_to_settle = serializers.IntegerField(help_text="Rated games still to play until the rating is not provisional.")
    shown_rating = serializers.FloatField(
        help_text="The rating the site writes beside the name: μ while provisional (shown as μ?), then μ − 3σ, "
        "never below 0. The board is ordered by `rating` all the same."
    )
    last_played_at = serializers.DateTimeField(allow_null=True)


def _page_rows(paginator: Page, rows: QuerySet[Any, _Row], request, view: APIView) -> list[_Row]:
    """The rows of the page asked for."""
    page = paginator.paginate_queryset(rows, request, view=view)
    assert page is not None  # DRF leaves a request unpaged only without a page size; PAGE_SIZE is set
    return page


def _page(paginator: Page, results: list, **extra) -> dict:
    return {
        "count": paginator.count,
        "next": paginator.get_next_link(),
        "previous": paginator.get_previous_link(),
        "results": results,
        **extra,
    }


class HistoryRowSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    position = serializers.IntegerField(help_text="The match's place in the game's rating order.")
    finished_at = serializers.DateTimeField()
    players = serializers.IntegerField()
    seat = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(help_text="The rank rated at (cooperative: 1 won, 2 lost, 3 abandoned).")
    mu_before = serializers.FloatField()
    sigma_before = serializers.FloatField()
    mu_after = serializers.FloatField()
    sigma_after = serializers.FloatField()
    rating_after = serializers.FloatField(help_text="μ − 3σ after the match.")
    revision = serializers.IntegerField(
        help_text="0: the match as played; n: rated again with the n-th result its tournament gave it since."
    )
    reversal = serializers.BooleanField(
        help_text="This row takes back the rating of revision − 1 (the organiser changed the result)."
    )


class RecordSerializer(serializers.Serializer):
    opponent = serializers.CharField(help_text="user:<id> or bot:<name>")
    user = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Matches the player ranked above the opponent.")
    losses = serializers.IntegerField()
    draws = serializers.IntegerField()


class PredictedPlayerSerializer(serializers.Serializer):
    player = serializers.CharField()
    competitor = serializers.CharField()
    name = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField()
    games = serializers.IntegerField()
    win_probability = serializers.FloatField(allow_null=True, help_text="Chance to finish first (null: cooperative).")


class TeamMemberSerializer(serializers.Serializer):
    user = serializers.IntegerField(allow_null=True)
    name = serializers.CharField()
    bot = serializers.CharField(allow_blank=True)


class TeamResultSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    players = serializers.IntegerField()
    cards_left = serializers.IntegerField()
    won = serializers.BooleanField()
    finished_at = serializers.DateTimeField()
    team = TeamMemberSerializer(many=True)


class GameRatingSerializer(serializers.Serializer):
    players = serializers.IntegerField()
    competitor = serializers.CharField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    rating = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Matches the game won.")


class LeaderboardApi(APIView):
    """A game's leaderboard, best conservative rating (μ − 3σ) first, with a player's own place.

    The people's board lists people; the bots' pool's board lists the people who played at tables
    with a bot and the bots, each row with its `kind` (`kind` keeps one of them). Everyone rated
    is listed and numbered, players with fewer than `provisional_games` games marked provisional.
    `player` (default: the caller, when signed in) adds that player's row and position.
    """

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        pool = serializers.ChoiceField(choices=Pool.values, default=Pool.PEOPLE, help_text=_POOL_HELP)
        kind = serializers.ChoiceField(
            choices=[Kind.USER, Kind.BOT], required=False,
            help_text="Only people (user) or only bots (bot); default: everyone the board lists.",
        )
        min_games = serializers.IntegerField(min_value=0, default=selectors.DEFAULT_MIN_GAMES, help_text=_MIN_GAMES_HELP)
        player = serializers.CharField(required=False, max_length=150)

    class OutputSerializer(PageSerializer):
        results = RatingRowSerializer(many=True)
        player = RatingRowSerializer(allow_null=True, help_text="The asked-for player's row (null: not rated).")
        provisional_games = serializers.IntegerField(help_text="A row is provisional below this many rated games.")

    @extend_schema(parameters=[_GAME, InputSerializer, *PAGE_PARAMETERS], responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, game: str):
        query = _query(self.InputSerializer, request)
        board_filter = {"min_games": query["min_games"], "kind": query.get("kind")}
        board = selectors.leaderboard_ids(game, query["pool"], **board_filter)
        paginator = Page()
        page = selectors.ratings_in_order(_page_rows(paginator, board, request, self))
        assert paginator.offset is not None  # set with the page
        rows = [selectors.rating_row(game, r, paginator.offset + i + 1) for i, r in enumerate(page)]
        asked = query.get("player") or (request.user.username if request.user.is_authenticated else None)
        player = None
        if asked is not None:
            ref = selectors.competitor_ref(game, asked)
            player = selectors.leaderboard_row(game, query["pool"], ref.competitor, **board_filter)
        body = _page(paginator, rows, player=player, provisional_games=selectors.PROVISIONAL_GAMES)
        return Response(self.OutputSerializer(body).data)


class RatingDetailApi(APIView):
    """One player's current rating in a game, with their place on the pool's board (as
    `LeaderboardApi` numbers it without `kind`)."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        pool = serializers.ChoiceField(
            choices=Pool.values, required=False,
            help_text="Default: bots for a bot; people for a person, or bots if they have only played bots here.",
        )
        min_games = serializers.IntegerField(min_value=0, default=selectors.DEFAULT_MIN_GAMES, help_text=_MIN_GAMES_HELP)

    class OutputSerializer(RatingRowSerializer):
        pool = serializers.ChoiceField(choices=Pool.values, help_text="The pool the rating is from.")

    @extend_schema(parameters=[_GAME, _PLAYER, InputSerializer], responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, game: str, player: str):
        query = _query(self.InputSerializer, request)
        selectors.game_check(game)
        ref = selectors.competitor_ref(game, player)
        pool = selectors.detail_pool(game, ref, query.get("pool"))
        row = selectors.rating_detail(game, ref, pool, min_games=query["min_games"])
        return Response(self.OutputSerializer(row).data)


class RatingHistoryApi(APIView):
    """A player's rating history in a game: one row per rated match, oldest first."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        pool = serializers.ChoiceField(choices=Pool.values, required=False, help_text=_DETAIL_POOL_HELP)

    class OutputSerializer(PageSerializer):
        results = HistoryRowSerializer(many=True)

    @extend_schema(parameters=[_GAME, _PLAYER, InputSerializer, *PAGE_PARAMETERS], responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, game: str, player: str):
        query = _query(self.InputSerializer, request)
        selectors.game_check(game)
        ref = selectors.competitor_ref(game, player)
        history = selectors.rating_history(game, selectors.detail_pool(game, ref, query.get("pool")), ref.competitor)
        paginator = Page()
        page = _page_rows(paginator, history, request, self)
        rows = [selectors.history_row(entry) for entry in page]
        return Response(self.OutputSerializer(_page(paginator, rows)).data)


class HeadToHeadApi(APIView):
    """A player's record against each opponent they met in rated matches (most matches first).

    In a cooperative game the record is with each partner: wins are matches won together.
    """

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        pool = serializers.ChoiceField(choices=Pool.values, required=False, help_text=_DETAIL_POOL_HELP)
        opponent = serializers.CharField(required=False, max_length=150, help_text="Only this opponent.")

    class OutputSerializer(PageSerializer):
        results = RecordSerializer(many=True)

    @extend_schema(parameters=[_GAME, _PLAYER, InputSerializer, *PAGE_PARAMETERS], responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, game: str, player: str):
        query = _query(self.InputSerializer, request)
        selectors.game_check(game)
        ref = selectors.competitor_ref(game, player)
        opponent = selectors.competitor_ref(game, query["opponent"]).competitor if "opponent" in query else None
        records = selectors.head_to_head(
            game, selectors.detail_pool(game, ref, query.get("pool")), ref.competitor, opponent=opponent
        )
        paginator = Page()
        page = _page_rows(paginator, records, request, self)
        rows = [selectors.head_to_head_row(game, row) for row in page]
        return Response(self.OutputSerializer(_page(paginator, rows)).data)


class TablePredictApi(APIView):
    """A proposed table's predicted quality (trueskill.quality) and each player's chance to win.

    Competitive games: each player's chance to finish first (draws aside). The Game: the team's
    chance to beat the game at that player count. Unrated players count as new players.
    """

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        players = serializers.CharField(help_text="Comma-separated players, e.g. alice,bob,bot:tight.")
        pool = serializers.ChoiceField(
            choices=Pool.values, required=False, help_text="Default: bots if a bot is named, else people."
        )

    class OutputSerializer(serializers.Serializer):
        game = serializers.CharField()
        pool = serializers.CharField()
        cooperative = serializers.BooleanField()
        quality = serializers.FloatField(help_text="trueskill.quality: 1 is a perfectly even table.")
        players = PredictedPlayerSerializer(many=True)
        team_win_probability = serializers.FloatField(allow_null=True)

    @extend_schema(parameters=[_GAME, InputSerializer], responses={200: OutputSerializer})
    def get(self, request, game: str):
        query = _query(self.InputSerializer, request)
        selectors.game_check(game)
        names = [name.strip() for name in query["players"].split(",") if name.strip()]
        refs = [selectors.competitor_ref(game, name) for name in names]
        prediction = selectors.table_prediction(game, refs, pool=query.get("pool"))
        return Response(self.OutputSerializer(prediction).data)


class BestResultsApi(APIView):
    """The Game's best results: fewest cards left first, per player count, and the game's own ratings."""

    permission_classes = [AllowAny]

    class InputSerializer(serializers.Serializer):
        players = serializers.IntegerField(required=False, min_value=1, max_value=10)
        pool = serializers.ChoiceField(choices=Pool.values, default=Pool.PEOPLE, help_text=_POOL_HELP)

    class OutputSerializer(PageSerializer):
        results = TeamResultSerializer(many=True)
        game_ratings = GameRatingSerializer(many=True, help_text="The game's own rating per player count.")

    @extend_schema(parameters=[_GAME, InputSerializer, *PAGE_PARAMETERS], responses={200: OutputSerializer})
    @replica_reads
    def get(self, request, game: str):
        query = _query(self.InputSerializer, request)
        results = selectors.best_results(game, query["pool"], players=query.get("players"))
        paginator = Page()
        page = _page_rows(paginator, results, request, self)
        body = _page(
            paginator, selectors.best_result_rows(page), game_ratings=selectors.game_ratings(game, query["pool"])
        )
        return Response(self.OutputSerializer(body).data)


class ParamsOutputSerializer(serializers.Serializer):
    mu = serializers.FloatField(help_text="A new competitor's μ.")
    sigma = serializers.FloatField(help_text="A new competitor's σ.")
    beta = serializers.FloatField()
    tau = serializers.FloatField()
    draw_probability = serializers.FloatField()


class RatingParamsApi(APIView):
    """Every game's TrueSkill parameters (`ratings.math.Params`) as the ledger is rated with them:
    published so that anyone can recompute the ledger from the logged results (`verify_league`)."""

    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: inline_serializer("RatingParams", {game: ParamsOutputSerializer() for game in sorted(ENGINES)})}
    )
    def get(self, request):
        # The floats as they are (JSON keeps a double exactly): a recomputation must be bit for bit.
        params: dict[str, rmath.Params] = {game: selectors.game_params(game) for game in sorted(ENGINES)}
        return Response({game: dataclasses.asdict(values) for game, values in params.items()})
