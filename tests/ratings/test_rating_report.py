"""`manage.py rating_report --game SLUG`: how well each TrueSkill setting predicted the next result."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from ratings.services import match_rate
from tests.conftest import make_user
from tests.ratings.builders import random_matches

pytestmark = pytest.mark.django_db


def report(*args) -> str:
    out = io.StringIO()
    call_command("rating_report", *args, stdout=out)
    return out.getvalue()


def test_it_prints_accuracy_and_log_loss_by_games_played_for_each_setting():
    people = [make_user(f"player{i}") for i in range(6)]
    matches = random_matches("sequence-stacks", people, 60, seed=7)
    match_rate(match_id=matches[-1].pk)
    output = report("--game", "sequence-stacks", "--alt", "beta=8", "--alt", "tau*4")
    assert "60 rated matches" in output
    assert output.count("| all | 60 |") == 3
    assert "## configured: mu=25" in output and "beta=8 " in output
    assert "| 0 |" in output and "| 5-9 |" in output
    assert "ties between neighbours" in output
    assert output.count("<- best") == 1


def test_it_reports_an_empty_history_and_refuses_a_bad_alternative():
    assert "0 rated matches" in report("--game", "ten")
    people = [make_user("ann"), make_user("ben")]
    random_matches("ten", people, 2, seed=1)
    with pytest.raises(CommandError):
        report("--game", "ten", "--alt", "beta")
    with pytest.raises(CommandError):
        report("--game", "ten", "--alt", "gamma=2")


def test_models_compares_every_rating_model_on_the_history():
    people = [make_user(f"player{i}") for i in range(6)]
    random_matches("sequence-stacks", people, 50, seed=3)
    output = report("--game", "sequence-stacks", "--models", "--resamples", "40")
    assert "50 rated matches" in output
    assert "trained on the first 40 matches in rating order, tested on the last 10" in output
    for model in ("trueskill", "openskill", "elo", "trueskill-seat", "ttt"):
        assert f"| {model} | " in output
    assert "| ttt |" in output and "| offline |" in output
    assert "best by full-order log-likelihood:" in output
    assert "## configured" not in output  # the parameter replay is not run with --models


def test_models_rates_the_game_as_a_team_against_the_game():
    people = [make_user(f"player{i}") for i in range(5)]
    random_matches("the-game", people, 30, seed=4)  # some seats abandoned: a last-ranked third group
    output = report("--game", "the-game", "--models", "--resamples", "20")
    assert "tested on the last 6" in output
    assert output.count(" | ") > 5 * 6


def test_models_runs_only_the_models_asked_for():
    people = [make_user(f"player{i}") for i in range(4)]
    random_matches("split", people, 20, seed=5)
    output = report("--game", "split", "--models", "--model", "elo", "--model", "trueskill", "--resamples", "10")
    assert "| elo | " in output and "| trueskill | " in output
    assert "| openskill |" not in output and "| ttt |" not in output


def test_models_refuses_a_history_too_short_to_test_on():
    people = [make_user("ann"), make_user("ben")]
    random_matches("ten", people, 2, seed=1)
    with pytest.raises(CommandError):
        report("--game", "ten", "--models")
