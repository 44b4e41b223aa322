"""The README's configuration tables and .env.example, generated from server/environment.py.

`make settings-doc` (`python -m server.settings_doc`) rewrites both; `--check` exits 1 when either
differs from what the declarations give (tests/server/test_settings_declared.py does the same).
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

from server.environment import SECTIONS, Computed, Variable

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
ENV_EXAMPLE = ROOT / ".env.example"
BEGIN = "<!-- settings-doc: begin (generated from server/environment.py by `make settings-doc`; edit it there) -->"
END = "<!-- settings-doc: end -->"

_READ_BY = {
    "compose": " (read by docker/compose.yaml, not the settings)",
    "uvicorn": " (read by uvicorn)",
    "prometheus_client": " (read by server/metrics.py and prometheus_client)",
}


def readme_tables() -> str:
    """One table per section: variable, what it expects, default, meaning."""
    lines: list[str] = []
    for section in SECTIONS:
        lines += ["", f"**{section.title}**", "", "| variable | expects | default | meaning |", "| --- | --- | --- | --- |"]
        for variable in section.variables:
            meaning = ("**Required in production**: " if variable.required else "") + variable.meaning
            meaning += _READ_BY.get(variable.read_by, "")
            cells = [f"`{variable.name}`", variable.kind.shown, variable.default_shown(), meaning]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines[1:])


def readme_with_tables(readme: str) -> str:
    """The README with the text between the markers replaced by `readme_tables()`."""
    head, begin, rest = readme.partition(BEGIN)
    _old, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"README.md: the markers {BEGIN!r} and {END!r} are missing")
    return f"{head}{BEGIN}\n{readme_tables()}\n{END}{tail}"


def env_example() -> str:
    """.env.example: each variable's meaning as a comment, then its line (set, or commented out)."""
    lines = [
        "# Generated from server/environment.py by `make settings-doc`: change the declarations there, not this file.",
        "# Copy to .env for docker/compose.yaml (or export these for any deployment). Uncommented lines are what",
        "# production sets; `# NAME=value` lines give the default or an example to uncomment. An empty value is",
        "# the default; a value of the wrong kind stops the process, naming the variable.",
    ]
    for section in SECTIONS:
        lines += ["", f"# --- {section.title} ---"]
        for variable in section.variables:
            if not variable.retired:
                lines += _env_lines(variable)
    return "\n".join(lines) + "\n"


def _env_lines(variable: Variable) -> list[str]:
    words = variable.meaning.replace("**", "") + _READ_BY.get(variable.read_by, "")
    words += " (required in production)" if variable.required else ""
    if variable.example is None or not variable.example_set:
        words += f". Default: {variable.default_shown()}."
    comment = textwrap.wrap(words, width=104, initial_indent="# ", subsequent_indent="# ", break_on_hyphens=False)
    if variable.example is not None:
        line = f"{variable.name}={variable.example}" if variable.example_set else f"# {variable.name}={variable.example}"
    else:
        line = f"# {variable.name}={_raw_default(variable)}"
    return [*comment, line]


def _raw_default(variable: Variable) -> str:
    """The default as the variable's own text (empty where the settings work it out)."""
    default = variable.default
    if default is None or isinstance(default, Computed):
        return ""
    if isinstance(default, bool):
        return "1" if default else "0"
    if isinstance(default, tuple):
        return ",".join(default)
    if isinstance(default, float):
        return f"{default:g}"
    return str(default)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if README.md or .env.example has drifted")
    check = parser.parse_args(argv).check
    wanted = {README: readme_with_tables(README.read_text()), ENV_EXAMPLE: env_example()}
    drifted = [path.name for path, text in wanted.items() if path.read_text() != text]
    if check:
        for name in drifted:
            print(f"{name} differs from server/environment.py: run `make settings-doc`", file=sys.stderr)
        return 1 if drifted else 0
    for path, text in wanted.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
