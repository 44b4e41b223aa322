"""The pairing-quality report of each round: judged when the round is paired, kept in its
RoundPaired event and on the round, served by the rounds API and shown on the tournament page."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from tests.conftest import client_for
from tests.tournaments.builders import finish_round, make_tournament, play_to_end, reloaded
from tournaments import fold, pairing_check, projections, selectors, services, webhooks
from tournaments.api.rounds import PairingQualitySerializer
from tournaments.formats import Pairing, Table
from tournaments.models import Entrant, Round, TournamentEvent, WebhookDelivery
from tournaments.services._stream import _append

pytestmark = pytest.mark.django_db

QUALITY_KEYS = {
    "tables", "table_sizes", "byes", "rematches", "repeat_cost_minimal", "seat_balance", "score_spread",
}


def swiss_tables(organiser, *, bots: int = 7, rounds: int = 3):
    tournament = make_tournament(
        organiser, format="swiss-tables", options={"table_size": 3, "rounds": rounds}, bots=bots
    )
    services.tournament_start(tournament_id=tournament.pk, user=organiser)
    return reloaded(tournament)


def paired_events(tournament) -> list[dict]:
    events = TournamentEvent.objects.filter(tournament=tournament, type="RoundPaired").order_by("seq")
    return [event.data for event in events]


def test_each_rounds_report_is_judged_on_what_the_format_was_given(alice):
    tournament = play_to_end(swiss_tables(alice))
    state = projections.state_of(tournament)
    options = fold.format_options(state, seed=tournament.seed)
    events = paired_events(tournament)
    assert [e["round"] for e in events] == [1, 2, 3]
    for data in events:
        tables = tuple(Table(tuple(t["seats"])) for t in data["tables"])
        pairing = Pairing(data["round"], tables, tuple(data["byes"]))
        before = fold.history(state, upto_round=data["round"] - 1)
        expected = pairing_check.round_report(
            "swiss-tables", fold.entrants(state), options, before, pairing
        )
        assert data["quality"] == json.loads(json.dumps(expected))
        assert set(data["quality"]) == QUALITY_KEYS
        stored = Round.objects.get(tournament=tournament, number=data["round"]).quality
        assert stored == data["quality"]
        assert stored["byes"] == data["byes"] and stored["tables"] == len(data["tables"])


def test_the_rounds_api_serves_the_report_with_every_key_documented(alice):
    tournament = swiss_tables(alice)
    finish_round(tournament)
    rounds = client_for().get(f"/api/tournaments/{tournament.pk}/rounds").json()
    stored = {r.number: r.quality for r in Round.objects.filter(tournament=tournament)}
    assert [r["round"] for r in rounds] == [1, 2]
    for rnd in rounds:
        assert rnd["quality"] == stored[rnd["round"]]  # nothing dropped by the serializer
        assert rnd["quality_summary"].startswith("Pairing: ")
    assert set(PairingQualitySerializer().fields) == QUALITY_KEYS


def test_a_round_paired_before_reports_were_kept_has_none(alice):
    """Events recorded before the report existed have no `quality`: both folds leave it null."""
    tournament = make_tournament(alice, bots=4, options={"rounds": 1})
    field = list(Entrant.objects.filter(tournament=tournament).order_by("pk").values_list("pk", flat=True))
    with transaction.atomic():
        _append(tournament, "TournamentStarted", {"field": field, "ratings": {}}, actor="server")
        _append(
            tournament,
            "RoundPaired",
            {
                "round": 1,
                "tables": [{"table": 1, "seats": field[:2]}, {"table": 2, "seats": field[2:]}],
                "byes": [],
                "starts_at": timezone.now().isoformat(),
                "date": None,
            },
            actor="server",
        )
    rounds = client_for().get(f"/api/tournaments/{tournament.pk}/rounds").json()
    assert rounds[0]["quality"] is None and rounds[0]["quality_summary"] is None
    assert Round.objects.get(tournament=tournament).quality is None
    assert projections.rebuild(reloaded(tournament))["rounds"]["1"]["quality"] is None
    assert Round.objects.get(tournament=tournament).quality is None
    assert "Pairing:" not in Client().get(f"/tournaments/{tournament.pk}").content.decode()


def test_a_rebuild_gives_the_same_reports(alice):
    tournament = play_to_end(swiss_tables(alice))
    kept = dict(Round.objects.filter(tournament=tournament).values_list("number", "quality"))
    Round.objects.filter(tournament=tournament).update(quality=None)  # a read model lost
    state = projections.rebuild(reloaded(tournament))
    assert dict(Round.objects.filter(tournament=tournament).values_list("number", "quality")) == kept
    assert {int(k): rnd["quality"] for k, rnd in state["rounds"].items()} == kept
    assert projections.state_of(reloaded(tournament)) == state


def test_a_round_paired_again_gets_a_new_report(alice):
    """A withdrawal before a league's first matchday pairs it again, judged on the field without them."""
    tournament = make_tournament(
        alice, format="league", bots=7,
        options={"format": "swiss-tables", "table_size": 3, "rounds": 2, "start": "2031-01-06"},
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    gone = Entrant.objects.filter(tournament=tournament).order_by("pk").first().pk
    services.entrant_withdraw(tournament_id=tournament.pk, user=alice, entrant_id=gone)
    first, again = paired_events(tournament)
    stored = Round.objects.get(tournament=tournament, number=1).quality
    assert stored == again["quality"] != first["quality"]
    seated = {p for t in again["tables"] for p in t["seats"]}
    assert gone not in seated | set(stored["byes"]) and stored["tables"] == len(again["tables"])


def test_the_tournament_page_shows_each_rounds_pairing_line(alice):
    tournament = swiss_tables(alice)
    finish_round(tournament)
    page = Client().get(f"/tournaments/{tournament.pk}").content.decode()
    names = {e.pk: e.name for e in Entrant.objects.filter(tournament=tournament)}
    for rnd in Round.objects.filter(tournament=tournament).order_by("number"):
        line = selectors.pairing_summary(rnd.quality, {pk: {"name": name} for pk, name in names.items()})
        assert f"<strong>Round {rnd.number}</strong>" in page
        assert line in page.replace("&#x27;", "'")
        for bye in rnd.byes:
            assert names[bye] in line


def test_the_round_paired_webhook_carries_the_report(alice):
    tournament = make_tournament(alice, format="swiss-tables", options={"table_size": 3, "rounds": 1}, bots=4)
    hook = webhooks.webhook_create(
        tournament_id=tournament.pk, user=alice, url="https://example.org/hook", kinds=["round.paired"]
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    delivery = WebhookDelivery.objects.get(webhook=hook)
    body = json.loads(webhooks.body_of(delivery))
    assert body["event"]["data"]["quality"] == Round.objects.get(tournament=tournament).quality


NAMES = {1: {"name": "Ann"}, 2: {"name": "Bob"}, 3: {"name": "Cy"}, 4: {"name": "Di"}, 5: {"name": "Ed"}}


def report(**changes) -> dict:
    base = {
        "tables": 2,
        "table_sizes": [2, 2],
        "byes": [5],
        "rematches": [],
        "repeat_cost_minimal": True,
        "seat_balance": {"max_deviation": 0.5, "out_of_balance": [], "first_seat_spread": 1},
        "score_spread": {"per_table": [0.0, 0.667], "mean": 0.333, "max": 0.667},
    }
    return {**base, **changes}


def test_the_line_says_rematches_seats_spread_and_byes():
    assert selectors.pairing_summary(report(), NAMES) == (
        "Pairing: 0 rematches · seats in balance · score spread 0.33 (max 0.67) · byes: Ed"
    )


def test_the_line_names_each_rematch_and_whether_it_was_avoidable():
    line = selectors.pairing_summary(
        report(
            byes=[],
            rematches=[
                {"players": [1, 2], "meeting": 2, "avoidable": True},
                {"players": [3, 4], "meeting": 3, "avoidable": False},
                {"players": [1, 3], "meeting": 2, "avoidable": None},
            ],
            seat_balance={"max_deviation": 1.5, "out_of_balance": [2, 4], "first_seat_spread": 2},
        ),
        NAMES,
    )
    assert line == (
        "Pairing: 3 rematches: Ann – Bob (2nd meeting, avoidable); Cy – Di (3rd meeting, unavoidable); "
        "Ann – Cy (2nd meeting, undecided) · seats out of balance: Bob, Di (by up to 1.50) · "
        "score spread 0.33 (max 0.67)"
    )


def test_a_long_list_in_the_line_names_the_first_few_and_counts_the_rest():
    many = {n: {"name": f"P{n}"} for n in range(1, 21)}
    line = selectors.pairing_summary(report(byes=list(range(1, 21))), many)
    assert line.endswith("byes: P1, P2, P3, P4, P5, P6, P7, P8 and 12 more")
    eleventh = report(rematches=[{"players": [1, 2], "meeting": 11, "avoidable": False}])
    assert "(11th meeting, unavoidable)" in selectors.pairing_summary(eleventh, many)


TABLES = [(1, [1, 2]), (2, [3, 4])]


def test_the_details_say_what_the_checker_measured_with_names():
    assert selectors.pairing_details(report(), NAMES, TABLES) == [
        "2 tables, players at each: 2, 2.",
        "Bye: Ed.",
        "No rematches: nobody sits with someone they have met before.",
        "Seats in balance: everyone is within a turn of their fair share of each seat (the largest gap is 0.50).",
        "Turns in the first seat: the most and the fewest differ by 1.",
        "Tables whose players came with different scores: table 2 (Cy – Di), 0.67 apart "
        "(on average 0.33 apart, at most 0.67).",
    ]


def test_the_details_explain_each_rematch_and_the_seats_out_of_balance():
    details = selectors.pairing_details(
        report(
            byes=[],
            rematches=[
                {"players": [1, 2], "meeting": 2, "avoidable": True},
                {"players": [3, 4], "meeting": 3, "avoidable": None},
            ],
            repeat_cost_minimal=False,
            seat_balance={"max_deviation": 1.5, "out_of_balance": [2, 4], "first_seat_spread": 2},
            score_spread={"per_table": [0.0, 0.0], "mean": 0.0, "max": 0.0},
        ),
        NAMES, TABLES,
    )
    assert details[1:] == [
        "No byes.",
        "Ann – Bob meet for the 2nd time: avoidable, some other grouping into the same table sizes has no rematch.",
        "Cy – Di meet for the 3rd time: the checker could not tell whether it was avoidable.",
        "Another grouping into the same table sizes has fewer repeat meetings.",
        "Seats out of balance (a player a turn or more past their fair share of a seat): Bob, Di; the largest gap is 1.50.",
        "Turns in the first seat: the most and the fewest differ by 2.",
        "At every table the players came with the same score.",
    ]


def test_the_rounds_api_serves_the_details_under_the_line(alice):
    tournament = swiss_tables(alice)
    finish_round(tournament)
    rounds = client_for().get(f"/api/tournaments/{tournament.pk}/rounds").json()
    assert [r["round"] for r in rounds] == [1, 2]
    for rnd in rounds:
        details = rnd["quality_details"]
        sizes = rnd["quality"]["table_sizes"]
        assert sizes == [len(table["seats"]) for table in rnd["tables"]]
        assert details[0] == f"{len(sizes)} tables, players at each: {', '.join(map(str, sizes))}."
        byes = [bye["name"] for bye in rnd["byes"]]
        assert details[1] == (f"Bye: {', '.join(byes)}." if byes else "No byes.")
        for table, apart in zip(rnd["tables"], rnd["quality"]["score_spread"]["per_table"]):
            named = f"table {table['table']} ({' – '.join(seat['name'] for seat in table['seats'])})"
            assert (named in details[-1]) == (apart > 0)
