"""Every message in the code has its Welsh.

`make messages` run over a copy of the project (so the real catalogues stay as they are) finds
every marked message in the Python, the templates and the pages' scripts; the test fails on one
that locale/cy does not translate, on a fuzzy (unchecked) translation, and on a catalogue that
msgfmt --check refuses (a placeholder lost or added, a plural with too few forms).
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# What `make messages` leaves out of the search (MAKEMESSAGES_IGNORE) and what a copy needs not.
NOT_COPIED = (".venv", "var", ".git", "test-artifacts", "node_modules", "__pycache__", "*.mo")
IGNORED = ("--ignore=.venv", "--ignore=var", "--ignore=tests", "--ignore=bench", "--ignore=test-artifacts",
           "--ignore=docker")
DOMAINS = ("django", "djangojs")
WELSH_PLURALS = 6

pytestmark = [
    pytest.mark.skipif(shutil.which("xgettext") is None, reason="needs GNU gettext (apt: gettext)"),
    pytest.mark.processes,
]


@pytest.fixture(scope="module")
def fresh_catalogues(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("messages") / "project"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    for domain in DOMAINS:
        subprocess.run(
            [sys.executable, "manage.py", "makemessages", "-l", "cy", "-d", domain, "--no-obsolete",
             "--add-location=file", *IGNORED],
            cwd=copy, check=True, capture_output=True,
        )
    return copy / "locale" / "cy" / "LC_MESSAGES"


def _entries(po: Path, *flags: str) -> list[str]:
    found = subprocess.run(["msgattrib", *flags, "--no-obsolete", "--no-wrap", str(po)],
                           check=True, capture_output=True, text=True).stdout
    return [msgid for msgid in re.findall(r'^msgid "(.*)"$', found, re.M) if msgid]


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_has_welsh(fresh_catalogues: Path, domain: str):
    po = fresh_catalogues / f"{domain}.po"
    if domain == "djangojs" and not po.exists():
        pytest.fail("no message in the pages' scripts is marked for translation")
    assert _entries(po, "--untranslated") == [], f"messages without Welsh in {domain}.po (run `make messages`)"
    assert _entries(po, "--only-fuzzy") == [], f"fuzzy (unchecked) translations in {domain}.po"


@pytest.mark.parametrize("domain", DOMAINS)
def test_catalogues_compile_with_their_placeholders_and_six_plural_forms(domain: str):
    po = ROOT / "locale" / "cy" / "LC_MESSAGES" / f"{domain}.po"
    subprocess.run(["msgfmt", "--check", "-o", "/dev/null", str(po)], check=True, capture_output=True)
    text = po.read_text()
    assert f"nplurals={WELSH_PLURALS};" in text
    for block in text.split("\n\n"):
        if "msgid_plural" in block:
            forms = re.findall(r"^msgstr\[(\d)\]", block, re.M)
            assert forms == [str(n) for n in range(WELSH_PLURALS)], block
