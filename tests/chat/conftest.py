"""A table's people for the chat tests, each persona as the chat tells them apart."""
from __future__ import annotations

import pytest

from games.models import Match, Seat
from tests.conftest import make_user
from tests.games.helpers import started_match
from tests.tournaments.builders import make_tournament, running_matches
from tournaments import services as tournament_services

PERSONAS = ["anonymous", "other_player", "spectator", "seated", "organiser", "staff"]


def seated_users(match_id: int) -> list:
    return [seat.user for seat in Seat.objects.filter(match_id=match_id, user__isnull=False).select_related("user")]


@pytest.fixture
def open_world(db):
    """A casual running table (alice, bob), another table where carol sits, a spectator and staff."""
    alice, bob, carol = make_user("alice"), make_user("bob"), make_user("carol")
    match_id = started_match("the-game", [alice, bob])
    started_match("the-game", [carol])
    users = {"anonymous": None, "other_player": carol, "spectator": make_user("eve"), "seated": alice,
             "organiser": None, "staff": make_user("sam", staff=True)}
    return {"match": match_id, "users": users, "players": [alice, bob]}


@pytest.fixture
def sealed_world(db):
    """A running table of a duplicate-deal round (sealed), its organiser olga, a player of the
    round's other table, a spectator and staff."""
    olga = make_user("olga")
    people = [make_user(name) for name in ("alice", "bob", "carol", "dan")]
    tournament = make_tournament(olga, people=tuple(people), options={"duplicate": True, "rounds": 1})
    tournament_services.tournament_start(tournament_id=tournament.pk, user=olga)
    first, second = running_matches(tournament)
    assert Match.objects.get(pk=first).sealed
    players = seated_users(first)
    users = {"anonymous": None, "other_player": seated_users(second)[0], "spectator": make_user("eve"),
             "seated": players[0], "organiser": olga, "staff": make_user("sam", staff=True)}
    return {"match": first, "users": users, "players": players, "tournament": tournament}
