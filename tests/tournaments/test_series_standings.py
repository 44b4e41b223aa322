"""Series standings read from the finished tournaments (`selectors.series_standings_shown`): places
from the bracket, else the standings' ranks; people as `user:<id>`, bots as `bot:<name>`;
withdrawn players keep their place, disqualified and no-show ones are void; a correction after
the end flows through; tournaments not finished are not counted yet."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from tests.conftest import make_user
from tests.tournaments.builders import finish_round, make_tournament, play_to_end, reloaded
from tests.tournaments.series_builders import finished_in_order
from tournaments import selectors, services
from tournaments.models import Entrant, Series, Tournament
from tournaments.series import StandingFacts, event_placings, placings

pytestmark = pytest.mark.django_db

TODAY = timezone.localdate()


def a_series(organiser, **rules) -> Series:
    return services.series_create(
        organiser=organiser, name="Circuit", games=["sequence-stacks"], starts_on=TODAY - dt.timedelta(days=1),
        ends_on=TODAY + dt.timedelta(days=1), rules=rules,
    )


def bracket(organiser, people, **kwargs) -> Tournament:
    """A finished single-elimination bracket with a third-place match: every table is a draw, so
    the higher seed goes through and the places follow the registration order."""
    tournament = make_tournament(organiser, format="single-elimination", people=tuple(people),
                                 options={"third_place": True}, **kwargs)
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    return play_to_end(reloaded(tournament))


def standings(series: Series) -> list[tuple[int, str, str, list[tuple[int, str, str]]]]:
    return [
        (row["rank"], row["player"], row["total"], [(res["place"], res["points"], res["mark"]) for res in row["results"]])
        for row in selectors.series_standings_shown(series)
    ]


def counted(series: Series, tournament: Tournament, tier: int = 1) -> None:
    services.series_event_add(series_id=series.pk, user=series.organiser, tournament_id=tournament.pk, tier=tier)


@pytest.fixture
def four(db):
    return [make_user(name) for name in ("dora", "ed", "fay", "gus")]


def test_places_come_from_the_bracket_and_people_are_named_as_the_log_names_them(alice, four):
    series = a_series(alice)
    tournament = bracket(alice, four)
    counted(series, tournament)
    places = {f"user:{user}": place for user, place in tournament.standings.values_list("entrant__user", "place")}
    assert sorted(places.values()) == [1, 2, 3, 4]  # the third-place match splits 3 and 4
    table = dict(enumerate(["1000", "600", "400", "200"], start=1))
    assert [(row[1], row[3]) for row in standings(series)] == sorted(
        ((player, [(place, table[place], "counting")]) for player, place in places.items()), key=lambda r: r[1][0][0]
    )
    names = {f"user:{user.pk}": user.shown_name for user in four}
    assert all(row["name"] == names[row["player"]] for row in selectors.series_standings_shown(series))


def test_a_tournament_not_finished_is_listed_but_not_counted(alice, four):
    series = a_series(alice)
    waiting = make_tournament(alice, people=tuple(four))
    counted(series, waiting)
    assert standings(series) == []
    assert [(e["tournament"], e["counted"]) for e in selectors.series_shown(series)["events"]] == [(waiting.pk, False)]


def test_bots_are_listed_by_their_name_in_the_event(alice, bob):
    series = a_series(alice)
    counted(series, finished_in_order(alice, [bob], bots=3, order=["random 2", "Bob", "random 1", "random 3"]))
    assert [(row[0], row[1]) for row in standings(series)] == [
        (1, "bot:random 2"), (2, f"user:{bob.pk}"), (3, "bot:random 1"), (4, "bot:random 3")
    ]
    assert selectors.series_standings_shown(series)[0]["name"] == "random 2"


def test_shared_ranks_of_a_swiss_share_the_points_of_the_places_they_cover(alice, four):
    series = a_series(alice)
    swiss = make_tournament(alice, people=tuple(four), options={"rounds": 1})
    services.tournament_start(tournament_id=swiss.pk, user=alice)
    swiss = play_to_end(reloaded(swiss))
    for table in (1, 2):  # both tables drawn: all four share first
        services.result_correct(tournament_id=swiss.pk, user=alice, round_number=1, table_number=table, ranks=[1, 1],
                                reason="drawn")
    counted(series, swiss)
    assert {(row[0], row[2]) for row in standings(series)} == {(1, "550")}  # (1000 + 600 + 400 + 200) / 4


def test_a_correction_after_the_end_flows_through(alice, four):
    series = a_series(alice)
    swiss = make_tournament(alice, people=tuple(four), options={"rounds": 1})
    services.tournament_start(tournament_id=swiss.pk, user=alice)
    swiss = play_to_end(reloaded(swiss))
    counted(series, swiss)
    for table in (1, 2):
        services.result_correct(tournament_id=swiss.pk, user=alice, round_number=1, table_number=table, ranks=[1, 1],
                                reason="drawn")
    assert [row[2] for row in standings(series)] == ["550"] * 4
    services.result_correct(tournament_id=swiss.pk, user=alice, round_number=1, table_number=1, ranks=[1, 2],
                            reason="the sheet says so")
    assert [(row[0], row[2]) for row in standings(series)] == [(1, "1000"), (2, "500"), (2, "500"), (4, "200")]
    assert selectors.series_shown(series)["events"][0]["tournament_seq"] == reloaded(swiss).last_seq


def test_withdrawn_players_keep_their_place_and_disqualified_ones_are_void(alice, four):
    dora, ed, fay, gus = four
    series = a_series(alice)
    swiss = make_tournament(alice, people=(dora, ed, fay, gus), options={"rounds": 2})
    services.tournament_start(tournament_id=swiss.pk, user=alice)
    finish_round(reloaded(swiss))
    services.entrant_withdraw(tournament_id=swiss.pk, user=fay)
    gus_entry = Entrant.objects.get(tournament=swiss, user=gus)
    services.entrant_disqualify(tournament_id=swiss.pk, user=alice, entrant_id=gus_entry.pk, reason="conduct")
    counted(series, play_to_end(reloaded(swiss)))
    rows = {row["player"]: row for row in selectors.series_standings_shown(series)}
    assert rows[f"user:{fay.pk}"]["results"][0]["status"] == "withdrawn"
    assert rows[f"user:{fay.pk}"]["results"][0]["mark"] == "counting"
    assert rows[f"user:{gus.pk}"]["results"][0]["status"] == "disqualified"
    assert (rows[f"user:{gus.pk}"]["total"], rows[f"user:{gus.pk}"]["results"][0]["mark"]) == ("0", "void")


def test_tier_changes_and_removals_show_at_once(alice, four):
    series = a_series(alice)
    tournament = finished_in_order(alice, four)
    counted(series, tournament)
    services.series_event_tier_change(series_id=series.pk, user=alice, tournament_id=tournament.pk, tier=2)
    assert standings(series)[0][2] == "500"
    services.series_event_remove(series_id=series.pk, user=alice, tournament_id=tournament.pk)
    assert standings(series) == []


# --- the pure reading of a standings row ------------------------------------------------------------


def row(entrant: int, rank: int, *, place: int | None = None, played: int = 2, forfeits: int = 0,
        withdrawn: bool = False, disqualified: bool = False) -> StandingFacts:
    return {"entrant": entrant, "rank": rank, "place": place, "played": played, "forfeits": forfeits,
            "withdrawn": withdrawn, "disqualified": disqualified}


def test_event_placings_read_each_way_of_leaving():
    rows = [
        row(1, 1), row(2, 2, withdrawn=True, played=1), row(3, 3, played=1, forfeits=1, withdrawn=True),
        row(4, 4, played=0, withdrawn=True), row(5, 5, played=2, forfeits=2), row(6, 6, disqualified=True),
    ]
    names = {entrant: f"user:{entrant}" for entrant in range(1, 7)}
    assert event_placings(9, 1, rows, names, revision=4) == placings(
        9, 1, 6, {f"user:{n}": n for n in range(1, 7)}, revision=4,
        status={"user:2": "withdrawn", "user:3": "forfeited", "user:4": "forfeited", "user:5": "forfeited",
                "user:6": "disqualified"},
    )


def test_event_placings_take_the_bracket_place_over_the_rank():
    rows = [row(1, 1, place=1), row(2, 2, place=2), row(3, 3, place=3), row(4, 3, place=3)]
    placed = event_placings(1, 1, rows, {n: f"user:{n}" for n in range(1, 5)})
    assert [p.place for p in placed.placings] == [1, 2, 3, 3] and placed.field_size == 4


def test_the_builder_finishes_players_in_the_order_given(alice, four):
    dora, ed, fay, gus = four
    tournament = finished_in_order(alice, [fay, dora, gus, ed])
    assert list(tournament.standings.order_by("position").values_list("entrant__name", "rank")) == [
        ("Fay", 1), ("Dora", 2), ("Gus", 3), ("Ed", 4)
    ]
