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
