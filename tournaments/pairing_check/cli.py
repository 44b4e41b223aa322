"""The pairing checker's command line, shared with `manage.py pairing_check` (`__main__` runs it)."""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Sequence
from io import TextIOBase
from typing import IO

from tournaments.pairing_check.export import Export, ExportError, read_export
from tournaments.pairing_check.rules import RULES, Finding, check_export, counted, rules_for


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The command's arguments (shared with `manage.py pairing_check`)."""
    parser.add_argument("file", help="the export (JSON); - reads standard input")
    parser.add_argument("--json", action="store_true", dest="as_json", help="print the findings as JSON")


def report_findings(export: Export, findings: Sequence[Finding], *, as_json: bool) -> str:
    """The findings round by round with a summary line (or as a JSON document)."""
    rules, left_out = rules_for(export.format, export.options)
    real = [finding for finding in findings if not finding.note]
    notes = [finding for finding in findings if finding.note]
    by_rule = Counter(finding.rule for finding in real)
    counts = ", ".join(f"{rule} {by_rule[rule]}" for rule in RULES if by_rule[rule])
    summary = (f"{counted(len(real), 'finding')} in {counted(len(export.rounds), 'round')}"
               f"{f' ({counts})' if counts else ''}; {counted(len(notes), 'note')}")
    if as_json:
        return json.dumps({
            "format": export.format, "rules": list(rules), "left_out": left_out,
            "rounds": [{"round": rnd.number,
                        "findings": [f.as_dict() for f in real if f.round == rnd.number],
                        "notes": [f.as_dict() for f in notes if f.round == rnd.number]}
                       for rnd in export.rounds],
            "summary": {"rounds": len(export.rounds), "findings": len(real), "notes": len(notes),
                        "by_rule": {rule: by_rule[rule] for rule in RULES if by_rule[rule]}},
        }, indent=2)
    lines = [f"{export.format}: {len(export.entrants)} entrants, {len(export.rounds)} rounds; "
             f"rules checked: {', '.join(rules)}"]
    if left_out:
        lines.append(f"note: {left_out}")
    for rnd in export.rounds:
        mine = [f for f in findings if f.round == rnd.number]
        if not mine:
            lines.append(f"round {rnd.number}: no findings")
        for finding in mine:
            label = f"note {finding.rule}" if finding.note else finding.rule
            lines.append(f"round {rnd.number}: [{label}] {finding.message}")
    lines.append(f"summary: {summary}")
    return "\n".join(lines)


def run(file: str, *, as_json: bool = False, stdout: IO[str] | TextIOBase | None = None,
        stdin: IO[str] | None = None) -> int:
    """Checks one export and prints the findings: 0 without findings, 1 with (ExportError if unreadable)."""
    export = read_export(file, stdin)
    findings = check_export(export)
    (stdout or sys.stdout).write(report_findings(export, findings, as_json=as_json) + "\n")
    return 1 if any(not finding.note for finding in findings) else 0


def main(argv: Sequence[str] | None = None, stdout: IO[str] | None = None, stderr: IO[str] | None = None,
         stdin: IO[str] | None = None) -> int:
    """`python -m tournaments.pairing_check FILE [--json]`: the exit status (0, 1, or 2 if unreadable)."""
    parser = argparse.ArgumentParser(prog="python -m tournaments.pairing_check",
                                     description="Checks the pairings of a tournament export (version 1).")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args.file, as_json=args.as_json, stdout=stdout, stdin=stdin)
    except ExportError as error:
        print(f"pairing_check: {error}", file=stderr or sys.stderr)
        return 2
