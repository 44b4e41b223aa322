"""The league log's benchmark runs end to end on a small log: every entry integrated, every proof
within its log2 bound (the figures themselves are the benchmark's, never asserted here)."""
from __future__ import annotations

import pytest

from bench import log

pytestmark = [pytest.mark.postgres, pytest.mark.processes]


def test_a_small_run_integrates_everything_and_keeps_proofs_within_their_bound(bench_database):
    results = log.main(["--entries", "300", "--sizes", "1000", "--database-url", bench_database])
    entries, _size, rate, bare, _ratio = results["integration"]
    assert entries == 300 and rate > 0 and bare > 0
    proofs = [row for row in results["proofs"] if row[0] in ("inclusion", "consistency")]
    assert {row[0] for row in proofs} == {"inclusion", "consistency"}
    assert all(row[2] <= row[3] for row in proofs)
