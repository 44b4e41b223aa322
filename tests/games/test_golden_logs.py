"""Golden logs: one finished match per game, committed, must replay to the same outcome forever.

A changed engine that breaks one of these has changed the meaning of stored matches: it
needs a new engine version that still replays the old ones, not a new golden file.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from games.engines import ENGINES
from games.verification import file_chain_version, parse_match_file, verify_file_contents

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"


def test_every_game_has_a_golden_log():
    assert sorted(p.stem for p in GOLDEN.glob("*.jsonl")) == sorted(ENGINES)


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.jsonl")), ids=lambda p: p.stem)
def test_a_golden_log_verifies_and_replays_to_its_recorded_outcome(path):
    with open(path, encoding="utf-8") as lines:
        header, events, _ = parse_match_file(lines)
    report = verify_file_contents(header, events)
    assert report.ok, report.problems
    finished = json.loads(path.read_text().splitlines()[-1])["data"]
    assert report.outcome == header["outcome"] == finished["outcome"]
    engine = ENGINES[header["game"]]
    started = next(e.data for e in events if e.data["type"] == "GameStarted")
    assert started["version"] <= engine.version


def test_the_golden_logs_of_before_chain_versions_are_version_1():
    """They were written before version 2 (format 1, no chain in the header) and are kept as they
    are: they show that version 1 matches verify forever."""
    for path in GOLDEN.glob("*.jsonl"):
        with open(path, encoding="utf-8") as lines:
            header, _, _ = parse_match_file(lines)
        assert file_chain_version(header) == 1 and "chain" not in header


def test_a_chain_version_2_golden_log_verifies_with_every_events_time_covered():
    with open(GOLDEN / "chain-v2" / "the-game.jsonl", encoding="utf-8") as lines:
        header, events, _ = parse_match_file(lines)
    assert file_chain_version(header) == 2 and header["chain"]["covers"][-1] == "created"
    report = verify_file_contents(header, events)
    assert report.ok, report.problems
    assert report.outcome == header["outcome"]
