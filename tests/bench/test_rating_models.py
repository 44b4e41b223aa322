"""The rating-models benchmark: a tiny run completes, and its tables have every model."""
from __future__ import annotations

import pytest

from bench import rating_models
from ratings import model_compare


@pytest.mark.processes
def test_a_tiny_run_completes_with_every_model_in_its_tables(capsys):
    figures = rating_models.main(["--matches", "20", "--game", "sequence-stacks", "--game", "the-game",
                                  "--players", "2", "--resamples", "20", "--workers", "2"])
    printed = capsys.readouterr().out
    assert [(row["game"], row["players"]) for row in figures] == [("sequence-stacks", 2), ("the-game", 2)]
    for row in figures:
        assert (row["train"], row["test"]) == (16, 4)
        assert set(row["models"]) == set(model_compare.MODELS)
    table = printed.split("## Per row: the best model")[0]
    model_cells = [line.split("|")[3].strip() for line in table.splitlines() if line.startswith("|") and "---" not in line]
    for name in model_compare.MODELS:
        assert model_cells.count(name) == 2
    assert "## Per row: the best model" in printed and "team wins" in printed


def test_the_league_is_seeded_and_newcomers_join_late():
    plan = rating_models.schedule("ten", 3, 100, seed=1)
    assert plan == rating_models.schedule("ten", 3, 100, seed=1)
    late = set(rating_models.newcomers())
    join = int(rating_models.JOIN_AT * rating_models.TRAIN_SHARE * 100)
    assert not any(late & set(seats) for seats, _ in plan[:join])
    assert any(late & set(seats) for seats, _ in plan[join:])
    assert len(late) == rating_models.NEWCOMERS


def test_every_player_count_of_every_game_is_a_row():
    rows = rating_models.rows_to_run(["the-game", "ten"], None)
    assert rows == [("the-game", n) for n in range(2, 6)] + [("ten", n) for n in range(2, 6)]
    with pytest.raises(SystemExit):
        rating_models.main(["--game", "ten", "--players", "9"])
