"""The venue kit's pages (issue #46): the big screen `/tournaments/<id>/screen` and the printouts
`/tournaments/<id>/print/<kind>`. Anyone reads them, as anyone reads the tournament page: no
login, the same for a player, a spectator, the organiser and staff; a tournament that does not
exist is not found, and a duplicate deal's result held from the public (issue #39) stays out of
the printouts as it stays out of the API."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from games import turns
from tests.conftest import make_user
from tests.games.test_spectator_policy import duplicate_round
from tests.tournaments.builders import finish_round, make_tournament, running_matches
from tournaments import services
from tournaments.models import Round

pytestmark = pytest.mark.django_db

PERSONAS = ["anonymous", "other_player", "spectator", "organiser", "staff"]
PRINTOUTS = ["pairings", "standings", "cards"]


@pytest.fixture
def running(db) -> dict:
    """A Swiss tournament of four people, its first round being played at two tables."""
    olga = make_user("olga")
    people = [make_user(name) for name in ("alice", "bob", "carol", "dan")]
    tournament = make_tournament(olga, people=tuple(people), options={"rounds": 2})
    services.tournament_start(tournament_id=tournament.pk, user=olga)
    users = {"anonymous": None, "other_player": people[0], "spectator": make_user("eve"), "organiser": olga,
             "staff": make_user("sam", staff=True)}
    return {"tournament": tournament, "users": users, "people": people}


def browser_of(user=None) -> Client:
    """A browser's client: the pages read the session's user (an API token is the API's only)."""
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def page_of(user, path: str) -> str:
    answer = browser_of(user).get(path)
    assert answer.status_code == 200, answer.content[:500]
    return answer.content.decode()


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_screen_is_open_to_anyone_and_links_its_qr_code_to_the_tournament(running, persona):
    tournament = running["tournament"]
    page = page_of(running["users"][persona], f"/tournaments/{tournament.pk}/screen")
    assert '<svg role="img" aria-label="QR code: http://testserver/tournaments/' in page
    assert f"http://testserver/tournaments/{tournament.pk}</p>" in page
    assert f'"id": {tournament.pk}' in page and 'src="/static/frontend/js/screen.js"' in page
    assert "site-nav" not in page  # a screen for a room: no site navigation


@pytest.mark.parametrize("persona", PERSONAS)
@pytest.mark.parametrize("kind", PRINTOUTS)
def test_the_printouts_are_open_to_anyone_and_name_every_table_and_player(running, persona, kind):
    tournament = running["tournament"]
    page = page_of(running["users"][persona], f"/tournaments/{tournament.pk}/print/{kind}")
    for person in running["people"]:
        assert person.shown_name in page
    if kind != "standings":
        assert re.search(r'data-table="1"', page) and re.search(r'data-table="2"', page)
    if kind == "cards":
        for match in running_matches(tournament):
            assert f'aria-label="http://testserver/tables/{match}"' in page
        assert page.count('class="place-card"') == 2


def test_pairings_by_name_are_sorted_by_name_and_say_each_table(running):
    tournament = running["tournament"]
    page = page_of(None, f"/tournaments/{tournament.pk}/print/pairings")
    by_name = page[page.index('id="pairings-by-name"'):]
    names = re.findall(r'<tr><th scope="row">([^<]+)</th>', by_name)
    assert names == sorted(names, key=str.casefold) and len(names) == 4


def test_the_tournament_page_links_to_the_screen_and_the_printouts(running):
    tournament = running["tournament"]
    page = page_of(None, f"/tournaments/{tournament.pk}")
    assert f'href="/tournaments/{tournament.pk}/screen"' in page
    assert f'href="/tournaments/{tournament.pk}/print/pairings"' in page


def test_a_tournament_before_its_first_round_prints_that_it_has_none(db):
    tournament = make_tournament(make_user("olga"), people=(make_user("alice"), make_user("bob")))
    page = page_of(None, f"/tournaments/{tournament.pk}/print/cards")
    assert "Round 1 is paired when the tournament starts." in page
    assert 'class="place-card"' not in page


@pytest.mark.parametrize("path", ["screen", "print/pairings", "print/standings", "print/cards"])
def test_a_tournament_that_does_not_exist_is_not_found(db, path):
    assert browser_of().get(f"/tournaments/999999/{path}").status_code == 404


def test_an_unknown_printout_is_not_found(running):
    assert browser_of().get(f"/tournaments/{running['tournament'].pk}/print/badges").status_code == 404


def test_printouts_are_read_only(running):
    answer = browser_of(running["users"]["organiser"]).post(f"/tournaments/{running['tournament'].pk}/print/cards")
    assert answer.status_code == 405


HELD_FROM = ["anonymous", "other_player", "spectator", "seated"]
LIVE = ["organiser", "staff"]


@pytest.mark.parametrize("persona", HELD_FROM + LIVE)
def test_a_duplicate_deals_held_result_stays_out_of_the_printouts(db, persona):
    """Regression guard: the printouts read the standings as the reader may (held for the public
    while the deal is still played at another table), and no table's result while it is sealed."""
    found = duplicate_round()
    turns.match_play_out(match_id=found["match"])
    services.tournament_match_finished(match_id=found["match"])
    tournament = Round.objects.get(tables__match=found["match"]).tournament
    user = found["users"][persona]
    standings = page_of(user, f"/tournaments/{tournament.pk}/print/standings")
    played = [int(n) for n in re.findall(r'data-played="(\d+)"', standings)]
    assert len(played) == 4
    assert (sum(played) > 0) is (persona in LIVE)
    pairings = page_of(user, f"/tournaments/{tournament.pk}/print/pairings")
    assert " won</td>" not in pairings and "Draw</td>" not in pairings


def test_the_standings_printout_counts_only_rounds_played_out(running):
    """Regression: the standings printed while round 1 was played said "after round 1"."""
    tournament = running["tournament"]
    assert "after round" not in page_of(None, f"/tournaments/{tournament.pk}/print/standings")
    finish_round(tournament)
    assert "after round 1" in page_of(None, f"/tournaments/{tournament.pk}/print/standings")


def test_a_table_awarded_by_forfeit_prints_who_forfeited(running):
    """Regression: the pairings printout said only who won a forfeited table, where the tournament
    page says who forfeited it too."""
    tournament, organiser = running["tournament"], running["users"]["organiser"]
    table = Round.objects.get(tournament=tournament, number=1).tables.get(number=1)
    gone = table.seats[0]
    services.forfeit_award(tournament_id=tournament.pk, user=organiser, round_number=1, table_number=1,
                           forfeited=[gone], reason="did not come")
    name = tournament.entrants.get(pk=gone).name
    pairings = page_of(None, f"/tournaments/{tournament.pk}/print/pairings")
    assert f"won ({name} forfeited)</td>" in pairings
    welsh = browser_of().get(f"/tournaments/{tournament.pk}/print/pairings", HTTP_ACCEPT_LANGUAGE="cy").content.decode()
    assert f"(fforffedodd {name})</td>" in welsh
