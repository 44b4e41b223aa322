"""Rating a finished match: exactly trueskill's update, once, for rated matches only, in match-end order."""
from __future__ import annotations

from datetime import timedelta

import pytest
import trueskill
from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.utils import DatabaseError

from games.engines import ENGINES
from games.services import match_create
from ratings.models import Ladder, Pool, Rating, RatingEntry, TeamResult
from ratings.services import match_rate, ratings_rebuild
from ratings.tasks import match_rate_task
from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.ratings.builders import played, recorded, stored

pytestmark = pytest.mark.django_db


def env_for(game: str) -> trueskill.TrueSkill:
    """The environment the settings describe, built here independently of ratings.math."""
    return trueskill.TrueSkill(**settings.RATINGS_TRUESKILL[game])


def pair(user, game="ten", pool=Pool.PEOPLE):
    rating = Rating.objects.get(ladder__game=game, ladder__pool=pool, competitor=f"user:{user.pk}")
    return rating.mu, rating.sigma


def snapshot():
    return (
        sorted(Rating.objects.values_list("ladder_id", "competitor", "mu", "sigma", "games", "wins", "last_position")),
        RatingEntry.objects.count(),
        sorted(Ladder.objects.values_list("game", "pool", "epoch", "position", "last_match_id")),
    )


def seed_with_tie(game: str, players: int) -> int:
    """The first seed whose random game ends with two seats sharing a rank."""
    for seed in range(200):
        outcome, _ = played(game, ("random",) * players, seed)
        if len(set(outcome["ranks"])) < players:
            return seed
    raise AssertionError("no tie found")


def test_a_two_player_match_updates_both_ratings_exactly_as_trueskill_rate(alice, bob):
    first = recorded("ten", [alice, bob], seed=1)
    assert match_rate(match_id=first.pk) == 1
    before = {alice: pair(alice), bob: pair(bob)}
    second = recorded("ten", [bob, alice], seed=2)
    match_rate(match_id=second.pk)

    env = env_for("ten")
    expected = env.rate(
        [(env.create_rating(*before[bob]),), (env.create_rating(*before[alice]),)], ranks=second.outcome["ranks"]
    )
    assert pair(bob) == (expected[0][0].mu, expected[0][0].sigma)
    assert pair(alice) == (expected[1][0].mu, expected[1][0].sigma)
    entry = RatingEntry.objects.get(match=second, competitor=f"user:{alice.pk}")
    assert (entry.mu_before, entry.sigma_before) == before[alice]
    assert (entry.mu_after, entry.sigma_after) == pair(alice)
    assert entry.rank == second.outcome["ranks"][1]
    assert entry.seat == 1 and entry.position == 2


def test_a_four_player_match_with_a_tie_updates_every_seat_at_once_exactly(alice, bob, carol):
    dave = make_user("dave")
    game = "sequence-stacks"
    seed = seed_with_tie(game, 4)
    warmup = recorded(game, [alice, bob, carol, dave], seed=seed + 1000)
    match_rate(match_id=warmup.pk)
    people = [dave, carol, alice, bob]
    before = [pair(p, game) for p in people]
    match = recorded(game, people, seed=seed)
    assert len(set(match.outcome["ranks"])) < 4
    match_rate(match_id=match.pk)

    env = env_for(game)
    expected = env.rate([(env.create_rating(*b),) for b in before], ranks=match.outcome["ranks"])
    assert [pair(p, game) for p in people] == [(g[0].mu, g[0].sigma) for g in expected]
    ranks = dict(RatingEntry.objects.filter(match=match).values_list("seat", "rank"))
    assert [ranks[s] for s in range(4)] == match.outcome["ranks"]


def test_a_replayed_task_changes_nothing(alice, bob):
    match = recorded("ten", [alice, bob], seed=3)
    assert match_rate_task(match.pk) == 1
    before = snapshot()
    assert match_rate_task(match.pk) == 0
    assert match_rate_task.apply(args=(match.pk,)).get() == 0
    assert snapshot() == before


def test_an_unrated_match_changes_nothing(alice, bob):
    casual = recorded("ten", [alice, bob], seed=4, rated=False)
    assert match_rate(match_id=casual.pk) == 0
    assert snapshot() == ([], 0, [])


def test_an_unfinished_match_changes_nothing(alice, bob):
    match = match_create(user=alice, game="ten", players=2)
    assert match_rate(match_id=match.pk) == 0
    assert RatingEntry.objects.count() == 0


def test_a_match_with_a_bot_is_rated_in_the_bots_pool_not_the_peoples(alice, bob):
    people = recorded("ten", [alice, bob], seed=5)
    match_rate(match_id=people.pk)
    alice_before = pair(alice)
    with_bot = recorded("ten", [alice, "run_builder"], seed=6, bots=("random", "run_builder"))
    match_rate(match_id=with_bot.pk)
    assert pair(alice) == alice_before  # the people's rating did not move
    bot = Rating.objects.get(ladder__game="ten", ladder__pool=Pool.BOTS, competitor="bot:run_builder")
    assert bot.games == 1 and bot.kind == "bot"
    assert Rating.objects.filter(ladder__pool=Pool.BOTS, competitor=f"user:{alice.pk}").exists()


def test_a_bot_at_two_seats_is_not_rated_by_the_match_and_the_person_is(alice):
    outcome = {"finished": True, "ranks": [2, 1, 3], "scores": [1, 2, 0], "winners": [1], "cooperative": False}
    match = stored("ten", ["random", alice, "random"], outcome)
    match_rate(match_id=match.pk)
    assert list(RatingEntry.objects.filter(match=match).values_list("competitor", "seat", "rank")) == [
        (f"user:{alice.pk}", 1, 1)
    ]
    assert not Rating.objects.filter(competitor="bot:random").exists()


def test_a_bot_against_itself_takes_no_position_and_the_rebuild_agrees(alice, bob):
    """The issue's case: stack against stack moved its rating; now nothing is written for it."""
    two = {"finished": True, "ranks": [2, 1], "scores": [1, 2], "winners": [1], "cooperative": False}
    itself = stored("ten", ["random", "random"], two)
    after = stored("ten", ["random", alice], two)
    assert match_rate(match_id=itself.pk) == 1
    assert match_rate(match_id=after.pk) == 1
    assert not RatingEntry.objects.filter(match=itself).exists()
    assert set(RatingEntry.objects.filter(match=after).values_list("position", flat=True)) == {1}
    assert Rating.objects.get(competitor="bot:random").games == 1
    assert match_rate(match_id=itself.pk) == 1  # a replayed task: still nothing to write
    assert RatingEntry.objects.filter(ladder__pool=Pool.BOTS).count() == 2
    (rebuilt,) = [r for r in ratings_rebuild(game="ten") if r.pool == Pool.BOTS]
    assert (rebuilt.new_epoch, rebuilt.appended) == (False, 0)


def test_an_abandoned_seat_is_rated_last(alice, bob, carol):
    outcome = {"finished": True, "ranks": [1, 2, 3], "scores": [30, 20, 10], "winners": [0], "cooperative": False}
    match = stored("ten", [alice, bob, carol], outcome, abandoned=(0,))
    match_rate(match_id=match.pk)
    ranks = dict(RatingEntry.objects.filter(match=match).values_list("competitor", "rank"))
    assert ranks == {f"user:{alice.pk}": 3, f"user:{bob.pk}": 1, f"user:{carol.pk}": 2}
    env = env_for("ten")
    fresh = env.create_rating()
    expected = env.rate([(fresh,), (fresh,), (fresh,)], ranks=[3, 1, 2])
    assert pair(alice) == (expected[0][0].mu, expected[0][0].sigma)


def test_the_game_rates_the_team_against_its_pseudo_player_for_that_player_count(alice, bob):
    won = {"finished": True, "ranks": [1, 1], "scores": [0, 0], "winners": [0, 1], "cooperative": True, "won": True}
    match = stored("the-game", [alice, bob], won)
    match_rate(match_id=match.pk)

    env = env_for("the-game")
    fresh = env.create_rating()
    (a, _), (house,) = env.rate([(fresh, fresh), (fresh,)], ranks=[1, 2], weights=[(0.5, 0.5), (1.0,)])
    assert pair(alice, "the-game") == (a.mu, a.sigma)
    game = Rating.objects.get(ladder__game="the-game", competitor="game:2")
    assert (game.mu, game.sigma) == (house.mu, house.sigma)
    assert a.mu > 25 > house.mu  # a win moves the team up and the game down
    assert TeamResult.objects.get(match=match).cards_left == 0

    lost = {**won, "scores": [7, 7], "winners": [], "won": False}
    match_rate(match_id=stored("the-game", [bob, alice], lost).pk)
    assert pair(alice, "the-game")[0] < a.mu
    assert Rating.objects.get(competitor="game:2").wins == 1


def test_a_real_match_of_the_game_is_rated(alice, bob):
    match = recorded("the-game", [alice, bob], seed=7)
    assert match.outcome["cooperative"] is True
    match_rate(match_id=match.pk)
    assert RatingEntry.objects.filter(match=match).count() == 3  # two people and the game
    assert TeamResult.objects.get(match=match).cards_left == match.outcome["scores"][0]


def test_a_task_rates_every_earlier_unrated_match_first_in_match_end_order(alice, bob):
    outcome = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}
    matches = [stored("ten", [alice, bob], outcome) for _ in range(3)]
    assert match_rate(match_id=matches[2].pk) == 3
    positions = dict(RatingEntry.objects.filter(competitor=f"user:{alice.pk}").values_list("match_id", "position"))
    assert positions == {matches[0].pk: 1, matches[1].pk: 2, matches[2].pk: 3}
    assert match_rate(match_id=matches[0].pk) == 0


def test_a_match_that_commits_after_a_later_ending_one_was_rated_takes_the_next_position(alice, bob):
    """Prevents a late-committing match from being dropped or from reordering the rated history."""
    outcome = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}
    later = stored("ten", [alice, bob], outcome)
    match_rate(match_id=later.pk)
    late = stored("ten", [bob, alice], outcome, finished_at=later.finished_at - timedelta(seconds=1))
    assert match_rate(match_id=late.pk) == 1
    assert RatingEntry.objects.filter(match=late).values_list("position", flat=True).distinct().get() == 2
    assert Rating.objects.get(competitor=f"user:{bob.pk}").last_position == 2


def test_the_ledger_refuses_update_and_delete(alice, bob):
    match_rate(match_id=recorded("ten", [alice, bob], seed=8).pk)
    entry = RatingEntry.objects.first()
    for change in (lambda: RatingEntry.objects.filter(pk=entry.pk).update(rank=9),
                   lambda: RatingEntry.objects.filter(pk=entry.pk).delete()):
        with pytest.raises((IntegrityError, DatabaseError)), transaction.atomic():
            change()
    assert RatingEntry.objects.get(pk=entry.pk).rank == entry.rank


def test_a_second_row_for_the_same_match_and_competitor_is_refused(alice, bob):
    match = recorded("ten", [alice, bob], seed=9)
    match_rate(match_id=match.pk)
    entry = RatingEntry.objects.filter(match=match).first()
    entry.pk = None
    with pytest.raises(IntegrityError), transaction.atomic():
        entry.save()


def test_an_unknown_match_is_not_found():
    with pytest.raises(ApplicationError) as error:
        match_rate(match_id=987654)
    assert error.value.code == "match_not_found"


def test_every_game_has_its_trueskill_parameters_in_settings():
    assert set(settings.RATINGS_TRUESKILL) == set(ENGINES)
    assert settings.RATINGS_TRUESKILL["the-game"]["draw_probability"] == 0
    assert "ratings.tasks.match_rate_task" in settings.MATCH_FINISHED_TASKS


def test_a_match_both_seats_left_is_rated_as_the_table_shows_it(alice, bob):
    """The issue's case: both seats abandoned gave both a win in ratings while the table named one winner."""
    outcome = {"finished": True, "ranks": [2, 1], "scores": [10, 20], "winners": [1], "cooperative": False}
    match = stored("ten", [alice, bob], outcome, abandoned=(0, 1))
    match_rate(match_id=match.pk)
    ranks = dict(RatingEntry.objects.filter(match=match).values_list("seat", "rank"))
    table = client_for().get(f"/api/matches/{match.pk}").json()
    assert [ranks[0], ranks[1]] == table["ranks"] == [2, 1]
    assert Rating.objects.get(competitor=f"user:{bob.pk}").wins == 1
    assert Rating.objects.get(competitor=f"user:{alice.pk}").wins == 0


def test_the_table_shows_the_ranks_ratings_use_when_a_seat_left(alice, bob, carol):
    outcome = {"finished": True, "ranks": [1, 2, 3], "scores": [30, 20, 10], "winners": [0], "cooperative": False}
    match = stored("ten", [alice, bob, carol], outcome, abandoned=(0,))
    match_rate(match_id=match.pk)
    ranks = dict(RatingEntry.objects.filter(match=match).values_list("seat", "rank"))
    assert client_for().get(f"/api/matches/{match.pk}").json()["ranks"] == [ranks[0], ranks[1], ranks[2]] == [3, 1, 2]
