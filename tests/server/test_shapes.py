"""Each JSON shape the API sends is written once as a TypedDict (`<app>/shapes.py`), which its
selector returns and its serializer renders: the two must name the same keys, nested ones too."""
from __future__ import annotations

import types
import typing

import pytest
from rest_framework import serializers

from accounts import api as accounts_api
from accounts import shapes as accounts_shapes
from games import api as games_api
from games import shapes as games_shapes
from notifications import serializers as notifications_serializers
from notifications import shapes as notifications_shapes
from ratings import api as ratings_api
from ratings import shapes as ratings_shapes
from tournaments import shapes as tournaments_shapes
from tournaments.api import field as tournaments_field_api
from tournaments.api import results as tournaments_results_api
from tournaments.api import rounds as tournaments_rounds_api
from tournaments.api import series as tournaments_series_api
from tournaments.api import tournaments as tournaments_api

PAIRS = [
    (games_shapes.MatchSummary, games_api.MatchOutputSerializer),
    (games_shapes.MatchView, games_api.ViewOutputSerializer),
    (tournaments_shapes.TournamentSummary, tournaments_api.TournamentOutputSerializer),
    (tournaments_shapes.EntrantShown, tournaments_field_api.EntrantOutputSerializer),
    (tournaments_shapes.StandingShown, tournaments_results_api.StandingOutputSerializer),
    (tournaments_shapes.RoundShown, tournaments_rounds_api.RoundOutputSerializer),
    (ratings_shapes.LeaderboardRow, ratings_api.RatingRowSerializer),
    (ratings_shapes.HistoryRow, ratings_api.HistoryRowSerializer),
    (games_shapes.MoveAnswer, games_api.MoveOutputSerializer),
    (games_shapes.RawEvent, games_api.RawEventSerializer),
    (games_shapes.InvitationShown, games_api.InvitationOutputSerializer),
    (games_shapes.DecisionPoint, games_api.DecisionPointSerializer),
    (tournaments_shapes.BracketShown, tournaments_rounds_api.BracketOutputSerializer),
    (tournaments_shapes.FieldDecision, tournaments_field_api.DecisionOutputSerializer),
    (tournaments_shapes.TableState, tournaments_results_api.TableStateOutputSerializer),
    (tournaments_shapes.TournamentExport, tournaments_rounds_api.TournamentExportSerializer),
    (tournaments_shapes.TournamentEventShown, tournaments_api.EventOutputSerializer),
    (tournaments_shapes.SeriesShown, tournaments_series_api.SeriesOutputSerializer),
    (tournaments_shapes.SeriesWithStandings, tournaments_series_api.SeriesWithStandingsOutputSerializer),
    (tournaments_shapes.Matchday, tournaments_rounds_api.MatchdayOutputSerializer),
    (ratings_shapes.CooperativeRecord, ratings_api.RecordSerializer),
    (ratings_shapes.PredictedPlayer, ratings_api.PredictedPlayerSerializer),
    (ratings_shapes.TeamResultShown, ratings_api.TeamResultSerializer),
    (ratings_shapes.GameRatingShown, ratings_api.GameRatingSerializer),
    (ratings_shapes.RatingParams, ratings_api.ParamsOutputSerializer),
    (notifications_shapes.NotificationShown, notifications_serializers.NotificationOutputSerializer),
    (accounts_shapes.UserShown, accounts_api.UserOutputSerializer),
    (accounts_shapes.TokenShown, accounts_api.TokenOutputSerializer),
    (accounts_shapes.MutedSenderShown, accounts_api.MutedSenderOutputSerializer),
]


def _typed_dict_in(hint: object) -> type | None:
    """The TypedDict a field's hint holds (through `list[...]` and `| None`), if any."""
    if typing.is_typeddict(hint):
        return hint  # type: ignore[return-value]
    if typing.get_origin(hint) in (list, typing.Union, types.UnionType):
        return next(filter(None, map(_typed_dict_in, typing.get_args(hint))), None)
    return None


def differences(shape: type, serializer: serializers.Serializer, path: str = "") -> list[str]:
    hints = typing.get_type_hints(shape)
    fields = serializer.fields
    found = [f"{path}{key}: only in {shape.__name__}" for key in hints.keys() - fields.keys()]
    found += [f"{path}{key}: only in {type(serializer).__name__}" for key in fields.keys() - hints.keys()]
    for key in hints.keys() & fields.keys():
        field = fields[key]
        field = field.child if isinstance(field, serializers.ListSerializer) else field
        nested = _typed_dict_in(hints[key])
        if isinstance(field, serializers.Serializer) != (nested is not None):
            found.append(f"{path}{key}: nested on one side only")
        elif nested is not None:
            found += differences(nested, field, f"{path}{key}.")
    return found


@pytest.mark.parametrize(("shape", "serializer"), PAIRS, ids=lambda v: v.__name__)
def test_a_shape_and_its_serializer_name_the_same_keys(shape, serializer):
    assert differences(shape, serializer()) == []


def test_the_check_finds_a_key_missing_on_either_side():
    class Shown(typing.TypedDict):
        a: int
        b: int

    class ShownSerializer(serializers.Serializer):
        a = serializers.IntegerField()
        c = serializers.IntegerField()

    assert sorted(differences(Shown, ShownSerializer())) == ["b: only in Shown", "c: only in ShownSerializer"]
