"""Tournaments with contributed shuffles: each table's commitment is published with the round's
pairing, its seated people send their contributions before the round starts, and the round
waits for them (`TOURNAMENT_SHUFFLE_SECONDS`)."""
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games.models import Event, Match, Shuffle, ShuffleContribution
from games.selectors import verify_match
from games.shuffle import deck_seed
from tests.conftest import client_for, make_user
from tests.tournaments.builders import assert_rebuild_equals_incremental, events_of, make_tournament, play_to_end
from tournaments import services
from tournaments.models import RoundTable

pytestmark = pytest.mark.django_db

MINE = "c" * 64


@pytest.fixture
def paired(alice, bob, staff, settings):
    """A contributed Swiss of alice, bob and two bots, started: round 1 is paired, not yet dealt."""
    settings.TOURNAMENT_SHUFFLE_SECONDS = 30
    tournament = make_tournament(staff, people=(alice, bob), bots=2, options={"rounds": 2}, contributed_shuffle=True)
    services.tournament_start(tournament_id=tournament.pk, user=staff)
    return tournament


def table_of(tournament, user) -> RoundTable:
    return next(
        t for t in RoundTable.objects.filter(round__tournament=tournament, round__number=1)
        if tournament.entrants.filter(pk__in=t.seats, user=user).exists()
    )


def contribute(user, tournament, table: RoundTable, value=MINE) -> tuple[int, str | None]:
    response = client_for(user).post(
        f"/api/tournaments/{tournament.pk}/rounds/1/tables/{table.number}/shuffle", {"value": value}, format="json"
    )
    return response.status_code, response.json()["error"]["code"] if response.status_code >= 400 else None


def test_the_pairing_publishes_each_table_s_commitment_and_the_round_waits(paired):
    (round_paired,) = events_of(paired, "RoundPaired")
    commitments = [t["seed_sha256"] for t in round_paired["tables"]]
    assert len(commitments) == 2 and all(Shuffle.objects.filter(seed_sha256=c).exists() for c in commitments)
    assert not Match.objects.exists()
    shown = client_for(None).get(f"/api/tournaments/{paired.pk}/rounds").json()
    assert [t["seed_sha256"] for t in shown[0]["tables"]] == commitments
    assert client_for(None).get(f"/api/tournaments/{paired.pk}").json()["contributed_shuffle"] is True
    assert services.tournament_advance(tournament_id=paired.pk) == []  # within the window
    assert_rebuild_equals_incremental(paired)


def test_the_tables_are_dealt_from_the_commitment_and_the_contributions(paired, alice, settings):
    alices = table_of(paired, alice)
    assert contribute(alice, paired, alices) == (204, None)
    later = timezone.now() + dt.timedelta(seconds=31)
    assert "round-started" in services.tournament_advance(tournament_id=paired.pk, now=later)
    alices.refresh_from_db()
    started, game_started = (e.data for e in Event.objects.filter(match=alices.match, seq__lte=2).order_by("seq"))
    seat = next(s for s, e in enumerate(alices.seats) if paired.entrants.get(pk=e).user_id == alice.pk)
    contributions = [{"seat": seat, "value": MINE}]  # bob sent none
    shuffle = Shuffle.objects.get(seed_sha256=alices.seed_sha256)
    assert started["seed_sha256"] == alices.seed_sha256
    assert started["shuffle"]["contributions"] == contributions
    assert game_started["seed"] == deck_seed(shuffle.seed, contributions)
    # Closed once dealt: a contribution now is refused, not taken and left out.
    assert contribute(alice, paired, alices) == (409, "shuffle_dealt")
    settings.TOURNAMENT_SHUFFLE_SECONDS = 0  # no window: the next round is dealt as soon as it is paired
    play_to_end(paired)
    for match in Match.objects.all():
        assert verify_match(match).ok, verify_match(match).problems
    assert_rebuild_equals_incremental(paired)


def test_who_may_contribute_to_a_tournament_table(paired, alice, bob, staff):
    alices = table_of(paired, alice)
    stranger = make_user("stranger")
    assert contribute(None, paired, alices)[0] in (401, 403)
    assert contribute(stranger, paired, alices) == (403, "not_seated")
    assert contribute(staff, paired, alices) == (403, "not_seated")  # the organiser does not sit there
    assert table_of(paired, bob) != alices  # round 1 pairs each person with a bot
    assert contribute(bob, paired, alices) == (403, "not_seated")  # another entrant's table
    assert contribute(alice, paired, alices, value="nope") == (400, "bad_contribution")
    assert not ShuffleContribution.objects.exists()
    response = client_for(alice).post(f"/api/tournaments/{paired.pk}/rounds/1/tables/99/shuffle", {"value": MINE}, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "table_not_found")
    response = client_for(alice).post("/api/tournaments/999999/rounds/1/tables/1/shuffle", {"value": MINE}, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (404, "tournament_not_found")


def test_a_tournament_without_the_option_takes_none(alice, staff):
    tournament = make_tournament(staff, people=(alice,), bots=1)
    services.tournament_start(tournament_id=tournament.pk, user=staff)
    table = RoundTable.objects.get(round__tournament=tournament)
    assert table.seed_sha256 == ""
    assert contribute(alice, tournament, table) == (409, "shuffle_not_contributed")


def test_duplicate_deals_cannot_take_contributions(staff):
    response = client_for(staff).post(
        "/api/tournaments",
        {"name": "dup", "game": "ten", "format": "swiss", "options": {"duplicate": True}, "contributed_shuffle": True},
        format="json",
    )
    assert (response.status_code, response.json()["error"]["code"]) == (400, "duplicate_with_contributed_shuffle")
