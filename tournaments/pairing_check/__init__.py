"""Pairing checker: reads a tournament export and lists, round by round, every pairing rule broken.

Pure Python (no Django): `python -m tournaments.pairing_check FILE [--json]` (FILE may be `-`
for stdin) or `python manage.py pairing_check FILE`. Exit status 0: no findings; 1: findings;
2: the input could not be read (one line on stderr says why).

`export` reads and validates the export (its format is documented there); `rules` holds the
five rules and the quality report the server stores with each round it pairs; `search` is the
exhaustive search the rematch rule relies on; `cli` is the command line, which `__main__` runs.
"""
from tournaments.pairing_check.cli import add_arguments, main, report_findings, run
from tournaments.pairing_check.export import (
    MAX_TABLE_SEATS,
    Export,
    ExportEntrant,
    ExportError,
    ExportRound,
    ExportTable,
    load_export,
    read_export,
)
from tournaments.pairing_check.rules import (
    CHECK_NODE_BUDGET,
    EXACT_LIMIT,
    LARGE_NODE_BUDGET,
    REPORT_NODE_BUDGET,
    RULES,
    Finding,
    check_export,
    round_report,
    rules_for,
)
from tournaments.pairing_check.search import SearchBudgetExceeded, fewest_repeats

__all__ = [
    "CHECK_NODE_BUDGET", "EXACT_LIMIT", "LARGE_NODE_BUDGET", "MAX_TABLE_SEATS", "REPORT_NODE_BUDGET", "RULES",
    "Export", "ExportEntrant", "ExportError", "ExportRound", "ExportTable", "Finding", "SearchBudgetExceeded",
    "add_arguments", "check_export", "fewest_repeats", "load_export", "main", "read_export", "report_findings",
    "round_report", "rules_for", "run",
]
