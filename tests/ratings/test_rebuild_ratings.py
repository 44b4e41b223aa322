"""`manage.py rebuild_ratings`: from the event log, exactly the incremental result."""
from __future__ import annotations

import io
import random

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings

from games.engines import ENGINES
from games.selectors import seats_never_moved
from ratings import math as rmath
from ratings import projections
from ratings.models import Ladder, Rating, RatingEntry, TeamResult
from ratings.selectors import game_params, ratable_matches
from ratings.services import match_rate
from tests.conftest import make_user
from tests.ratings.builders import random_matches, stored

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db):
    return [make_user(f"player{i}") for i in range(8)]


def projection_state():
    """Everything the rebuild writes or must leave as it was."""
    return {
        "ratings": sorted(
            Rating.objects.values_list(
                "ladder__game", "ladder__pool", "competitor", "kind", "user_id", "mu", "sigma", "games", "wins",
                "last_position", "last_played_at",
            )
        ),
        "team_results": sorted(TeamResult.objects.values_list("match_id", "players", "cards_left", "won", "finished_at")),
        "ladders": sorted(
            Ladder.objects.filter(position__gt=0).values_list(
                "game", "pool", "epoch", "position", "last_finished_at", "last_match_id"
            )
        ),
        "ledger": sorted(
            RatingEntry.objects.values_list(
                "id", "epoch", "position", "match_id", "competitor", "rank", "mu_before", "sigma_before", "mu_after",
                "sigma_after",
            )
        ),
    }


def rate_as_workers_would(matches, rng: random.Random) -> None:
    """Tasks arrive out of order and some never arrive; the last match's task always runs."""
    ids = [m.pk for m in matches]
    for start in range(0, len(ids), 7):
        window = ids[start:start + 7]
        rng.shuffle(window)
        for match_id in window:
            if rng.random() > 0.1:
                match_rate(match_id=match_id)
    match_rate(match_id=ids[-1])


def rebuild(*args) -> str:
    out = io.StringIO()
    call_command("rebuild_ratings", *args, stdout=out, verbosity=1)
    return out.getvalue()


@pytest.mark.no_cover  # volume: 200 random matches (tests/untraced.py)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_rebuild_after_200_random_matches_equals_the_incremental_ratings_exactly(game, people):
    matches = random_matches(game, people, 200)
    rate_as_workers_would(matches, random.Random(game))
    assert RatingEntry.objects.values("match").distinct().count() == 200
    incremental = projection_state()

    output = rebuild("--game", game)

    assert projection_state() == incremental
    assert "epoch 1 reproduced, 0 ledger rows appended" in output
    assert Rating.objects.filter(ladder__game=game).count() >= len(people)


@pytest.mark.no_cover  # volume: 120 random matches (tests/untraced.py)
@pytest.mark.parametrize("game", sorted(ENGINES))
def test_a_rebuild_leaves_out_the_matches_where_a_person_never_moved_exactly_as_the_tasks_do(game, people):
    """Regression (rating farming with a second account that never moves): the incremental task
    and a rebuild decide from the same MovePlayed facts, so both leave out the same matches."""
    matches = random_matches(game, people, 120, never_moved=0.1)
    idle = {m.pk for m in matches if seats_never_moved(m.pk)}
    assert 10 < len(idle) < 100
    rate_as_workers_would(matches, random.Random(game))
    rated = set(RatingEntry.objects.values_list("match", flat=True))
    assert rated == {m.pk for m in matches} - idle
    incremental = projection_state()

    assert "epoch 1 reproduced, 0 ledger rows appended" in rebuild("--game", game)
    assert projection_state() == incremental


def test_after_a_rebuild_from_an_empty_ledger_no_task_rates_a_match_where_a_person_never_moved(people):
    """Regression (rating farming): the other way round, a rebuild first, then every task."""
    matches = random_matches("ten", people, 40, seed=8, never_moved=0.1)
    idle = {m.pk for m in matches if seats_never_moved(m.pk)}
    assert idle
    rebuild("--game", "ten")
    assert set(RatingEntry.objects.values_list("match", flat=True)) == {m.pk for m in matches} - idle
    assert all(match_rate(match_id=m.pk) == 0 for m in matches)


def test_a_rebuild_appends_the_matches_whose_tasks_never_ran_in_match_end_order(people):
    matches = random_matches("ten", people, 30, seed=1)
    assert match_rate(match_id=matches[19].pk) == 20

    output = rebuild("--game", "ten")

    assert "epoch 1 reproduced, " in output and "0 ledger rows appended" not in output
    positions = dict(RatingEntry.objects.values_list("match_id", "position").distinct())
    assert [positions[m.pk] for m in matches] == list(range(1, 31))
    assert all(match_rate(match_id=m.pk) == 0 for m in matches)
    replayed = rmath.replay([m.table for m in ratable_matches("ten")], game_params("ten"))
    assert {r.competitor: (r.mu, r.sigma) for r in Rating.objects.all()} == replayed.ratings
    assert "0 ledger rows appended" in rebuild("--game", "ten")


def test_a_rebuild_from_an_empty_ledger_gives_what_the_tasks_give(people):
    outcome = {"finished": True, "ranks": [2, 1, 2], "scores": [1, 3, 1], "winners": [1], "cooperative": False}
    for i in range(12):
        stored("split", [people[i % 8], people[(i + 3) % 8], people[(i + 5) % 8]], outcome)
    rebuild("--game", "split")
    rebuilt = projection_state()
    assert len(rebuilt["ledger"]) == 36 and rebuilt["ladders"][0][2:4] == (1, 12)


def test_new_parameters_start_a_new_epoch_and_leave_the_old_ledger_as_it_was(people):
    matches = random_matches("ten", people, 20, seed=3)
    match_rate(match_id=matches[-1].pk)
    first = projection_state()

    with override_settings(RATINGS_TRUESKILL={"ten": {"beta": 8.0, "draw_probability": 0.03}}):
        output = rebuild("--game", "ten")
        assert "new epoch 2" in output
        changed = projection_state()
        assert changed["ratings"] != first["ratings"]
        assert changed["ledger"][: len(first["ledger"])] == first["ledger"]
        # The next match continues the new epoch, with the new parameters.
        more = random_matches("ten", people, 1, seed=4)
        assert match_rate(match_id=more[0].pk) == 1
        assert RatingEntry.objects.filter(match=more[0]).values_list("epoch", flat=True).distinct().get() == 2
        assert "epoch 2 reproduced" in rebuild("--game", "ten")


def test_the_command_rebuilds_every_game_by_default_and_refuses_an_unknown_one(people):
    random_matches("the-game", people, 5, seed=5)
    output = rebuild()
    assert "the-game (people): 5 matches" in output
    with pytest.raises(CommandError):
        call_command("rebuild_ratings", "--game", "chess")


def test_a_rebuild_that_reproduces_the_ledger_leaves_the_current_ratings_rows_as_they_were(people):
    """Regression: the rebuild compares the ratings it computes with the stored ones and only
    rewrites them when they differ, so the rows (and the ids leaderboard ties are ordered by) stay."""
    matches = random_matches("ten", people, 40, seed=6)
    match_rate(match_id=matches[-1].pk)
    before = sorted(Rating.objects.values_list("id", "competitor", "mu", "sigma", "games", "wins", "last_position"))

    assert "epoch 1 reproduced, 0 ledger rows appended" in rebuild("--game", "ten")

    assert sorted(Rating.objects.values_list("id", "competitor", "mu", "sigma", "games", "wins", "last_position")) == before


def test_a_rebuild_writes_the_ledger_in_batches_and_loses_no_row(people, monkeypatch):
    """Regression: the rows go to the database a batch at a time while the rating goes on; every
    row must arrive, the last, partial batch too."""
    matches = random_matches("split", people, 25, seed=7)
    match_rate(match_id=matches[-1].pk)
    incremental = projection_state()["ledger"]
    monkeypatch.setattr(projections, "_INSERT_BATCH", 7)

    with override_settings(RATINGS_TRUESKILL={"split": {"beta": 7.0}}):
        assert "new epoch 2" in rebuild("--game", "split")

    new_epoch = [row for row in projection_state()["ledger"] if row[1] == 2]
    # (position, match, competitor, rank) row for row; the ratings differ with the parameters.
    assert [row[2:6] for row in new_epoch] == [row[2:6] for row in incremental]
