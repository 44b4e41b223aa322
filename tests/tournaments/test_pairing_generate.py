"""The random tournament generator (tournaments/pairing_generate.py) and the checker run over it."""
from __future__ import annotations

import io
import json
import multiprocessing
import os
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest
from django.core.management import CommandError, call_command

from tests.sweeps import sweep_size
from tests.untraced import coverage_paused
from tournaments.formats import FORMATS
from tournaments.pairing_check import check_export, load_export, round_report
from tournaments.pairing_generate import generate, main

SEEDS = range(80)
# Volume: the generator pairs whole random tournaments, code the formats' own tests cover; the
# tests that check many of them run untraced (tests/untraced.py).
volume = pytest.mark.no_cover


@pytest.fixture(scope="module")
def exports(request):
    with coverage_paused(request.config):
        return {seed: generate(seed) for seed in SEEDS}


@volume
def test_the_same_seed_gives_the_same_tournament():
    assert generate(11) == generate(11)
    assert json.dumps(generate(12)) == json.dumps(generate(12))
    assert generate(11) != generate(12)


@volume
def test_every_generated_export_loads_and_survives_json(exports):
    for data in exports.values():
        assert load_export(json.loads(json.dumps(data))) == load_export(data)


@volume
def test_the_exports_are_what_the_format_pairs(exports):
    """Replaying each round's inputs, as the checker rebuilds them, gives the stored pairing back."""
    for seed in range(0, 80, 3):
        export = load_export(exports[seed])
        fmt = FORMATS[export.format]
        for rnd in export.rounds:
            pairing = fmt.next_round(export.entrants_in(rnd.number), export.options,
                                     export.history_before(rnd.number))
            assert pairing == rnd.pairing(), (seed, rnd.number)


@volume
def test_the_generator_covers_what_the_checker_must_handle(exports):
    seen: Counter = Counter()
    for data in exports.values():
        entered_late = {e["id"] for e in data["entrants"] if e["entered"] > 1}
        tables = [t for r in data["rounds"] for t in r["tables"]]
        seated = {p for t in tables for p in t["seats"]}
        seen["format " + data["format"]] += 1
        seen["cooperative"] += bool(data["options"].get("cooperative"))
        seen["more than 24 entrants"] += len(data["entrants"]) > 24
        seen["byes"] += any(r["byes"] for r in data["rounds"])
        seen["forfeits"] += any(t["forfeited"] for t in tables)
        seen["whole table forfeited"] += any(len(t["forfeited"]) == len(t["seats"]) for t in tables)
        seen["ties"] += any(t["ranks"] and len(set(t["ranks"])) < len(t["ranks"]) for t in tables)
        seen["withdrawals"] += bool(data["withdrawn"])
        seen["disqualifications"] += bool(data["disqualified"])
        seen["late entrant seated"] += bool(entered_late & seated)
        seen["table size 2 in swiss-tables"] += data["options"].get("table_size") == 2
        seen["table size 6"] += data["options"].get("table_size") == 6
        seen["seven rounds"] += len(data["rounds"]) == 7
        seen["one round"] += len(data["rounds"]) == 1
    assert all(seen[what] >= 3 for what in (
        "format swiss", "format swiss-tables", "cooperative", "more than 24 entrants", "byes", "forfeits",
        "whole table forfeited", "ties", "withdrawals", "disqualifications", "late entrant seated",
        "table size 2 in swiss-tables", "table size 6", "seven rounds", "one round")), seen


@volume
def test_the_round_report_agrees_with_the_checker_on_generated_rounds(exports):
    """Where the report says a round's repeat cost is not the least, the checker finds a rematch."""
    for seed in range(0, 80, 2):
        export = load_export(exports[seed])
        rematch_rounds = {f.round for f in check_export(export) if f.rule == "rematch" and not f.note}
        for rnd in export.rounds:
            report = round_report(export.format, export.entrants_in(rnd.number), export.options,
                                  export.history_before(rnd.number), rnd.pairing())
            json.dumps(report)
            assert report["table_sizes"] == [len(t.seats) for t in rnd.tables]
            if report["repeat_cost_minimal"] is False:
                assert rnd.number in rematch_rounds, (seed, rnd.number)


def _findings_of(seed: int) -> list[str]:
    return [f"seed {seed} round {finding.round} [{finding.rule}] {finding.message}"
            for finding in check_export(load_export(generate(seed))) if not finding.note]


@pytest.mark.slow
@pytest.mark.processes
def test_random_tournaments_have_no_findings():
    """Issue #27's promise: 1,000 random tournaments, zero findings (notes allowed); CI's `ci`
    profile checks the first 250 of them (tests/sweeps.py), `make test-thorough` all 1,000.

    The tournaments are independent, so they are generated and checked on every core; the
    workers are spawned, not forked, as a fork of the test process (its threads, its
    connections) can hang."""
    with ProcessPoolExecutor(mp_context=multiprocessing.get_context("spawn")) as pool:
        found = [line for lines in pool.map(_findings_of, range(sweep_size(1000)), chunksize=10) for line in lines]
    by_rule = Counter(line.split("[")[1].split("]")[0] for line in found)
    assert not found, f"findings by rule: {dict(by_rule)}; first: " + " | ".join(found[:5])


# --- the command line and the management command --------------------------------------------


def test_the_cli_prints_one_export(capsys):
    assert main(["--seed", "4"]) == 0
    assert json.loads(capsys.readouterr().out) == generate(4)


@volume
def test_the_cli_writes_many_exports(tmp_path, capsys):
    assert main(["--seed", "10", "--count", "3", "--output", str(tmp_path)]) == 0
    names = sorted(os.listdir(tmp_path))
    assert names == ["tournament-10.json", "tournament-11.json", "tournament-12.json"]
    with open(tmp_path / "tournament-11.json") as handle:
        assert json.load(handle) == generate(11)
    assert capsys.readouterr().out.splitlines() == [str(tmp_path / name) for name in names]


def test_the_cli_refuses_many_exports_without_a_directory(capsys):
    assert main(["--seed", "1", "--count", "2"]) == 2
    assert capsys.readouterr().err == "tournament_generate: --count above 1 needs --output DIR\n"
    with pytest.raises(SystemExit) as usage:
        main([])
    assert usage.value.code == 2


def test_the_management_command_generates_and_keeps_the_exit_code(tmp_path):
    out = io.StringIO()
    call_command("tournament_generate", "--seed", "4", stdout=out)
    assert json.loads(out.getvalue()) == generate(4)
    call_command("tournament_generate", "--seed", "4", "--count", "2", "--output", str(tmp_path),
                 stdout=io.StringIO())
    assert sorted(os.listdir(tmp_path)) == ["tournament-4.json", "tournament-5.json"]
    with pytest.raises(CommandError) as refused:
        call_command("tournament_generate", "--seed", "4", "--count", "2", stdout=io.StringIO())
    assert refused.value.returncode == 2
