"""Series of tournaments, the writes: each is one decision in the series' stream (and so in the
league log's outbox); a refused one raises its coded error and writes nothing; the organiser
manages their own series, staff any."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import DatabaseError, transaction
from django.utils import timezone

from leaguelog.models import LogPending
from leaguelog.verify import series_folded
from server.errors import ApplicationError
from tests.tournaments.builders import make_tournament
from tournaments import services
from tournaments.models import Series, SeriesDecision, SeriesEvent
from tournaments.series import rules_json

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()
SEASON = {"starts_on": TODAY - dt.timedelta(days=30), "ends_on": TODAY + dt.timedelta(days=30)}


def a_series(organiser, **kwargs) -> Series:
    return services.series_create(
        organiser=organiser, name="Spring circuit", games=kwargs.pop("games", ["sequence-stacks"]),
        **{**SEASON, **kwargs},
    )


def decisions(series: Series) -> list[tuple[int, str, dict]]:
    return list(SeriesDecision.objects.filter(series=series).order_by("seq").values_list("seq", "type", "data"))


def written(series: Series) -> tuple:
    """Everything a write could change, to compare before and after a refusal."""
    series.refresh_from_db()
    return (decisions(series), list(SeriesEvent.objects.filter(series=series).values_list("tournament_id", "tier")),
            series.rules, series.last_seq, LogPending.objects.filter(kind="series_decision").count())


def refused(code: str, operation, series: Series | None = None) -> ApplicationError:
    before = written(series) if series is not None else Series.objects.count()
    with pytest.raises(ApplicationError) as caught:
        operation()
    assert caught.value.code == code
    assert (written(series) if series is not None else Series.objects.count()) == before
    return caught.value


def test_creating_a_series_records_series_created_with_the_circuit_table_by_default(alice):
    series = a_series(alice, games=["sequence-stacks", "sequence-stacks"])
    assert series.games == ["sequence-stacks"] and series.organiser == alice
    assert series.rules == {"points": {"1": [1000, 600, 400, 200], "2": [500, 300, 200, 100], "3": [250, 150, 100, 50]},
                            "best": None, "field_scaling": None}
    (created,) = decisions(series)
    assert created == (1, "SeriesCreated", {
        "name": "Spring circuit", "games": ["sequence-stacks"], "starts_on": SEASON["starts_on"].isoformat(),
        "ends_on": SEASON["ends_on"].isoformat(), "organiser": alice.pk, "rules": series.rules,
    })
    assert SeriesDecision.objects.get(series=series).actor == f"user:{alice.pk}"
    # The trigger queued it for the league log in the same transaction.
    assert LogPending.objects.filter(kind="series_decision", source_id=SeriesDecision.objects.get(series=series).pk).exists()


def test_every_write_is_a_decision_in_order(alice):
    series = a_series(alice)
    tournament = make_tournament(alice)
    services.series_rules_set(series_id=series.pk, user=alice, rules={"points": {"1": [10, 5], "2": [4, 2]}, "best": 2})
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1)
    services.series_event_tier_change(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=2)
    services.series_event_remove(series_id=series.pk, user=alice, tournament_id=tournament.pk)
    assert decisions(series) == [
        (1, "SeriesCreated", decisions(series)[0][2]),
        (2, "SeriesRulesSet", {"rules": {"points": {"1": [10, 5], "2": [4, 2]}, "best": 2, "field_scaling": None}}),
        (3, "SeriesEventAdded", {"tournament": tournament.pk, "tier": 1}),
        (4, "SeriesEventTierChanged", {"tournament": tournament.pk, "tier": 2, "from": 1}),
        (5, "SeriesEventRemoved", {"tournament": tournament.pk}),
    ]
    series.refresh_from_db()
    assert series.last_seq == 5 and not SeriesEvent.objects.filter(series=series).exists()


def test_the_same_rules_or_tier_again_decide_nothing(alice):
    series = a_series(alice)
    tournament = make_tournament(alice)
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1)
    services.series_rules_set(series_id=series.pk, user=alice, rules=series.rules)
    services.series_event_tier_change(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1)
    assert [kind for _seq, kind, _data in decisions(series)] == ["SeriesCreated", "SeriesEventAdded"]


def test_staff_manage_any_series_and_another_user_none(alice, bob, staff):
    series = a_series(alice)
    tournament = make_tournament(bob)
    services.series_event_add(series_id=series.pk, user=staff, tournament_id=tournament.pk, tier=2)
    assert SeriesDecision.objects.get(series=series, seq=2).actor == f"user:{staff.pk}"
    refused("not_series_organiser", lambda: services.series_event_remove(
        series_id=series.pk, user=bob, tournament_id=tournament.pk), series)
    refused("not_series_organiser", lambda: services.series_rules_set(series_id=series.pk, user=bob, rules={}), series)


def test_an_organiser_may_count_another_organisers_tournament(alice, bob):
    series = a_series(alice)
    event = services.series_event_add(series_id=series.pk, user=alice, tournament_id=make_tournament(bob).pk, tier=3)
    assert event.tier == 3


@pytest.mark.parametrize("rules, detail", [
    ({"points": {}}, "at least one tier"),
    ({"points": {"1": [100, 200]}}, "rise with a worse place"),
    ({"points": {"0": [1]}}, "positive integer"),
    ({"points": {"one": [1]}}, "whole number"),
    ({"points": {"1": [-1]}}, "none negative"),
    ({"points": {"1": "1000"}}, "whole number with a list"),
    ({"best": 0}, "best N"),
    ({"best": True}, "best N"),
    ({"field_scaling": 1}, "field_scaling"),
    ({"bonus": 5}, "no bonus"),
])
def test_bad_rules_are_refused_naming_the_problem(alice, rules, detail):
    error = refused("bad_series_rules", lambda: a_series(alice, rules=rules))
    assert detail in str(error.message)
    series = a_series(alice)
    refused("bad_series_rules", lambda: services.series_rules_set(series_id=series.pk, user=alice, rules=rules), series)


def test_bad_games_and_seasons_are_refused(alice):
    refused("unknown_game", lambda: a_series(alice, games=["chess"]))
    refused("unknown_game", lambda: a_series(alice, games=[]))
    refused("bad_season", lambda: a_series(alice, starts_on=TODAY, ends_on=TODAY - dt.timedelta(days=1)))


def test_a_tournament_must_fit_the_series(alice):
    series = a_series(alice, rules={"points": {"1": [3, 2, 1]}})
    refused("series_not_found", lambda: services.series_event_add(
        series_id=series.pk + 1, user=alice, tournament_id=make_tournament(alice).pk, tier=1))
    refused("tournament_not_found", lambda: services.series_event_add(
        series_id=series.pk, user=alice, tournament_id=999_999, tier=1), series)
    other_game = make_tournament(alice, game="ten", match_options={})
    refused("series_game_mismatch", lambda: services.series_event_add(
        series_id=series.pk, user=alice, tournament_id=other_game.pk, tier=1), series)
    later = make_tournament(alice, starts_at=timezone.now() + dt.timedelta(days=60))
    refused("outside_season", lambda: services.series_event_add(
        series_id=series.pk, user=alice, tournament_id=later.pk, tier=1), series)
    tournament = make_tournament(alice)
    refused("unknown_tier", lambda: services.series_event_add(
        series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=2), series)
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1)
    refused("already_in_series", lambda: services.series_event_add(
        series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1), series)
    refused("unknown_tier", lambda: services.series_event_tier_change(
        series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=4), series)


def test_changing_or_removing_a_tournament_not_counted_is_not_found(alice):
    series = a_series(alice)
    tournament = make_tournament(alice)
    refused("series_event_not_found", lambda: services.series_event_tier_change(
        series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=1), series)
    refused("series_event_not_found", lambda: services.series_event_remove(
        series_id=series.pk, user=alice, tournament_id=tournament.pk), series)


def test_rules_may_not_drop_a_tier_in_use(alice):
    series = a_series(alice)
    tournament = make_tournament(alice)
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=3)
    error = refused("tier_in_use", lambda: services.series_rules_set(
        series_id=series.pk, user=alice, rules={"points": {"1": [10], "2": [5]}}), series)
    assert error.extra == {"tiers": [3]}


def test_the_database_refuses_to_change_a_decision(alice):
    decision = SeriesDecision.objects.get(series=a_series(alice))
    with pytest.raises(DatabaseError), transaction.atomic():
        SeriesDecision.objects.filter(pk=decision.pk).update(type="SeriesRulesSet")
    with pytest.raises(DatabaseError), transaction.atomic():
        SeriesDecision.objects.filter(pk=decision.pk).delete()


def test_the_decisions_alone_give_the_series_rules_and_tiers(alice, staff):
    """The rows the writes keep are what the decisions say: the league log's verifier folds the
    decisions (`leaguelog.verify.series_folded`) and must find the same rules and tiers."""
    series = a_series(alice)
    first, second, third = (make_tournament(alice) for _ in range(3))
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=first.pk, tier=1)
    services.series_event_add(series_id=series.pk, user=staff, tournament_id=second.pk, tier=3)
    services.series_event_add(series_id=series.pk, user=alice, tournament_id=third.pk, tier=2)
    services.series_event_tier_change(series_id=series.pk, user=alice, tournament_id=second.pk, tier=1)
    services.series_rules_set(series_id=series.pk, user=alice, rules={"points": {"1": [9, 3], "2": [4]}, "best": 1})
    services.series_event_remove(series_id=series.pk, user=staff, tournament_id=first.pk)
    stream = {seq: (seq, {"event": kind, "data": data}) for seq, kind, data in decisions(series)}
    folded = series_folded(series.pk, stream)
    series.refresh_from_db()
    assert rules_json(folded.rules) == series.rules
    assert folded.tiers == dict(SeriesEvent.objects.filter(series=series).values_list("tournament_id", "tier"))
    assert folded.tiers == {second.pk: 1, third.pk: 2}
