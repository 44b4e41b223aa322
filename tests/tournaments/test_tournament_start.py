"""Starting: the field and its ratings are frozen, round 1 is paired and its tables start at once."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.utils import timezone

from games.engines import ENGINES
from games.models import Match, Seat
from ratings.models import Kind, Ladder, Pool, Rating
from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.tournaments.builders import event_types, events_of, make_tournament, reloaded
from tournaments import selectors, services
from tournaments.models import Entrant, Round

pytestmark = pytest.mark.django_db


def test_starting_pairs_round_one_and_starts_its_tables_with_people_and_bots(alice, bob, carol):
    tournament = make_tournament(
        alice, people=(bob, carol), bots=2, options={"rounds": 2}, clock_seconds=45, rated=True
    )
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert event_types(tournament) == ["TournamentCreated"] + ["PlayerRegistered"] * 4 + [
        "TournamentStarted",
        "RoundPaired",
        "RoundStarted",
    ]
    rnd = Round.objects.get(tournament=tournament, number=1)
    assert rnd.started_at is not None
    assert abs(rnd.deadline - rnd.started_at - dt.timedelta(hours=2)) < dt.timedelta(seconds=5)
    tables = list(rnd.tables.order_by("number"))
    assert len(tables) == 2 and all(t.match_id for t in tables)
    for table in tables:
        match = table.match
        assert (match.status, match.clock_seconds, match.rated, match.created_by) == (
            "running",
            45,
            True,
            alice,
        )
        assert match.options == {"turn_limit": 2}
        seated = list(Seat.objects.filter(match=match).order_by("seat"))
        entrants = [Entrant.objects.get(pk=e) for e in table.seats]
        assert [(s.user_id, s.bot) for s in seated] == [(e.user_id, e.bot) for e in entrants]
    assert reloaded(tournament).status == "running"


def test_only_the_organiser_starts_it(alice, bob):
    tournament = make_tournament(alice, people=(bob,), bots=1)
    answer = client_for(bob).post(f"/api/tournaments/{tournament.pk}/start")
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_organiser"
    assert reloaded(tournament).status == "registration"
    answer = client_for(alice).post(f"/api/tournaments/{tournament.pk}/start")
    assert answer.status_code == 200 and answer.json()["status"] == "running"


def test_starting_twice_is_a_409(alice):
    tournament = make_tournament(alice, bots=2)
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    with pytest.raises(ApplicationError) as refused:
        services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert (refused.value.code, refused.value.status) == ("already_started", 409)


def test_a_field_of_one_cannot_start(alice):
    tournament = make_tournament(alice, bots=1)
    with pytest.raises(ApplicationError) as refused:
        services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert refused.value.code == "too_few_entrants"
    assert event_types(tournament) == ["TournamentCreated", "PlayerRegistered"]


def test_it_starts_by_itself_at_its_start_time(alice):
    starts = timezone.now() + dt.timedelta(minutes=5)
    tournament = make_tournament(alice, bots=4, starts_at=starts)
    assert (
        services.tournament_advance(tournament_id=tournament.pk, now=starts - dt.timedelta(seconds=1)) == []
    )
    assert services.tournament_advance(tournament_id=tournament.pk, now=starts) == ["started"]
    assert reloaded(tournament).status == "running"
    assert Match.objects.filter(status="running").count() == 2
    assert events_of(tournament, "TournamentStarted")[0]["field"] == list(
        Entrant.objects.filter(tournament=tournament).order_by("pk").values_list("pk", flat=True)
    )


def test_a_tournament_nobody_entered_is_cancelled_at_its_start_time(alice):
    starts = timezone.now() - dt.timedelta(seconds=1)
    tournament = make_tournament(alice, bots=1, starts_at=starts)
    assert services.tournament_advance(tournament_id=tournament.pk) == ["cancelled"]
    assert reloaded(tournament).status == "cancelled"
    assert "at least two entrants" in events_of(tournament, "TournamentCancelled")[0]["reason"]
    assert services.tournament_advance(tournament_id=tournament.pk) == []


def test_seeding_by_rating_uses_each_players_conservative_rating_and_keeps_the_order_for_the_unrated(alice):
    people = [make_user(f"p{n}") for n in range(4)]
    ladder = Ladder.objects.create(game="sequence-stacks", pool=Pool.PEOPLE)
    Rating.objects.create(
        ladder=ladder, competitor=f"user:{people[2].pk}", kind=Kind.USER, user=people[2], mu=30, sigma=2
    )
    Rating.objects.create(
        ladder=ladder, competitor=f"user:{people[3].pk}", kind=Kind.USER, user=people[3], mu=20, sigma=1
    )
    tournament = make_tournament(alice, people=tuple(people), options={"seeding": "rating", "rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    entrants = {e["user"]: e for e in selectors.entrant_list(tournament)}
    assert [entrants[p.pk]["rating"] for p in people] == [None, None, 24.0, 17.0]
    assert [entrants[p.pk]["seed"] for p in people] == [3, 4, 1, 2]


def test_seeding_looks_a_bot_up_in_the_bots_ladder_and_a_person_in_the_peoples(alice, bob):
    """A bot is rated as its bot in the bots' pool, a person in the people's (ratings.selectors.rated_as):
    a rating in the other pool is not theirs to seed with."""
    people, bots = (Ladder.objects.create(game="sequence-stacks", pool=pool) for pool in (Pool.PEOPLE, Pool.BOTS))
    Rating.objects.create(ladder=bots, competitor="bot:random", kind=Kind.BOT, mu=30, sigma=2)
    Rating.objects.create(ladder=bots, competitor=f"user:{bob.pk}", kind=Kind.USER, user=bob, mu=40, sigma=1)
    Rating.objects.create(ladder=people, competitor=f"user:{bob.pk}", kind=Kind.USER, user=bob, mu=20, sigma=1)
    tournament = make_tournament(alice, people=(bob,), bots=1, options={"rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    ratings = {(e["user"], e["bot"]): e["rating"] for e in selectors.entrant_list(tournament)}
    assert ratings == {(bob.pk, ""): 17.0, (None, "random"): 24.0}


def test_duplicate_deals_give_every_table_of_a_size_the_same_deck(alice):
    tournament = make_tournament(alice, bots=4, options={"duplicate": True, "rounds": 1})
    services.tournament_start(tournament_id=tournament.pk, user=alice)
    tables = list(Round.objects.get(tournament=tournament, number=1).tables.order_by("number"))
    decks = [t.match.options["deck"] for t in tables]
    assert tables[0].deal == tables[1].deal is not None
    assert decks[0] == decks[1] == services.duplicate_deck("sequence-stacks", 2, tables[0].deal)
    assert decks[0] != services.canonical_deck("sequence-stacks", 2)
    assert all(t.match.rated is False for t in tables)


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_canonical_deck_is_exactly_the_deck_each_game_deals(game):
    engine = ENGINES[game]
    for players in range(max(2, engine.min_players), engine.max_players + 1):
        dealt = engine.start(players, 7)[0]["deck"]
        assert Counter(services.canonical_deck(game, players)) == Counter(dealt)
        engine.start(
            players, 0, {"deck": services.duplicate_deck(game, players, 12345)}
        )  # accepted as a deck
