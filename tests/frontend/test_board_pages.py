"""The board and profile pages mark provisional players and bots, and name the bots' pool's
board for what it lists (people and bots). Django's test client: the profile's rating cards
come rendered by the server; the board's rows are built by js/leaderboard.js from the API (the
browser test in test_replay_and_boards.py reads them), so here its page data and legend."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from ratings.selectors import PROVISIONAL_GAMES, user_ratings
from ratings.services import match_rate
from tests.conftest import make_user
from tests.ratings.builders import stored

pytestmark = pytest.mark.django_db

WIN = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}


def page(path: str, user=None) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    answer = client.get(path)
    assert answer.status_code == 200, path
    return answer.content.decode()


def page_data(html: str, element_id: str) -> dict:
    found = re.search(rf'<script id="{element_id}" type="application/json">(.*?)</script>', html, re.S)
    assert found, element_id
    return json.loads(found.group(1))


def cards(html: str) -> dict[tuple[str, str], str]:
    """(game, pool) -> the card's HTML."""
    return {
        (game, pool): body
        for game, pool, body in re.findall(r'<div class="rating-card" data-game="([\w-]+)" data-pool="(\w+)">(.*?)</div>',
                                           html, re.S)
    }


def test_the_bots_pool_board_is_labelled_people_and_bots_and_explains_its_marks():
    html = page("/bots/ten")
    assert "<h1>People and bots</h1>" in html and "ten: people and bots" in html.lower()
    assert 'class="badge badge-bot"' in html and 'class="badge badge-provisional"' in html
    assert f'title="Fewer than {PROVISIONAL_GAMES} rated games' in html
    assert '<select id="kind" name="kind">' in html and '<option value="user">People only</option>' in html
    data = page_data(html, "board-data")
    assert data["pool"] == "bots" and data["provisional_games"] == PROVISIONAL_GAMES


def test_the_peoples_board_explains_the_provisional_mark_and_lists_everyone_by_default():
    html = page("/leaderboards/ten")
    assert 'class="badge badge-provisional"' in html and 'class="badge badge-bot"' not in html
    assert 'id="kind"' not in html
    assert '<option value="1" selected>1 game (everyone)</option>' in html
    assert page_data(html, "board-data")["pool"] == "people"


def test_a_profile_shows_the_rating_in_both_pools_with_its_place_and_the_provisional_mark(alice):
    dora = make_user("dora")
    match_rate(match_id=stored("ten", [dora, alice], WIN).pk)
    match_rate(match_id=stored("ten", ["run_builder", dora], WIN).pk)
    html = page("/players/dora", user=alice)
    found = cards(html)
    assert set(found) == {("ten", "people"), ("ten", "bots")}
    people, against_bots = found["ten", "people"], found["ten", "bots"]
    assert "People" in people and "#1 on the people's board" in people
    assert "Against bots" in against_bots and "#2 on the people-and-bots board" in against_bots
    for card in (people, against_bots):
        assert 'class="badge badge-provisional"' in card and "1 rated game so far" in card
    assert 'href="/bots/ten?offset=0&amp;highlight=user%3A' in against_bots
    rated = page_data(html, "player-data")["rated"]
    assert sorted((r["game"], r["pool"]) for r in rated) == [("ten", "bots"), ("ten", "people")]


def test_a_profile_drops_the_mark_after_five_games_and_says_when_nothing_is_rated(alice, bob):
    for _ in range(PROVISIONAL_GAMES):
        match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    card = cards(page("/players/alice"))["ten", "people"]
    assert "badge-provisional" not in card and "#1 on the people's board" in card
    make_user("erin")
    html = page("/players/erin")
    assert not cards(html) and "No rated games yet." in html


def test_the_board_tells_a_player_missing_from_it_that_their_bot_games_count_on_the_other_board(alice):
    """A person with games against bots only opens the people's board: the page data says how many
    rated games they have on the People and bots board, so the page can point them there."""
    match_rate(match_id=stored("ten", [alice, "run_builder"], WIN).pk)
    people = page_data(page("/leaderboards/ten", user=alice), "board-data")
    assert people["other_board_games"] == 1 and people["user"]["id"] == alice.pk
    assert people["title"] == "Ten"
    assert page_data(page("/bots/ten", user=alice), "board-data")["other_board_games"] is None


def test_an_anonymous_visitor_has_no_standing_to_look_up():
    data = page_data(page("/leaderboards/split"), "board-data")
    assert data["user"] is None and data["other_board_games"] is None


def test_a_profile_never_shows_a_negative_rating(alice, bob):
    """A first loss takes μ − 3σ below zero: the card shows μ with a "?" and the games left to
    settle it; five losses later, μ − 3σ from 0 up (tests/ratings/test_shown_rating.py)."""
    match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    (row,) = user_ratings(bob.pk)
    assert row["rating"] < 0
    card = cards(page("/players/bob"))["ten", "people"]
    assert f'<p class="big rating-shown">{row["mu"]:.1f}?</p>' in card
    assert f"{PROVISIONAL_GAMES - 1} more rated games to settle" in card and "badge-provisional" in card
    for _ in range(PROVISIONAL_GAMES - 1):
        match_rate(match_id=stored("ten", [alice, bob], WIN).pk)
    card = cards(page("/players/bob"))["ten", "people"]
    assert '<p class="big rating-shown">0.0</p>' in card and "to settle" not in card
    assert not re.search(r"[-−]\d", card)
    assert page_data(page("/players/bob"), "player-data")["provisional_games"] == PROVISIONAL_GAMES
