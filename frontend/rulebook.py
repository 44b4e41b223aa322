"""The games' rules for players: one Markdown file per game and language, frontend/rules/<slug>.<language>.md.

The specification of each game (the engine's rules page) decides every case; these files say the
same thing shorter, for players, in English and in Welsh.
"""
from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt

RULES_DIR = Path(__file__).resolve().parent / "rules"
# The files' languages: the site's languages without their region (en-gb reads the .en files).
RULES_LANGUAGES = ("en", "cy")

# Our own files, yet no raw HTML in them either: they are text for translators to edit.
_markdown = MarkdownIt("commonmark", {"html": False})


def rules_language(language_code: str) -> str:
    """The rules files' language for one of the site's language codes."""
    language = language_code.split("-")[0].lower()
    return language if language in RULES_LANGUAGES else RULES_LANGUAGES[0]


def rules_html(slug: str, language: str) -> str | None:
    """A game's rules as HTML in `language` (one of RULES_LANGUAGES); None if there are none."""
    path = RULES_DIR / f"{slug}.{language}.md"
    if language not in RULES_LANGUAGES or not path.is_file():
        return None
    return _markdown.render(path.read_text(encoding="utf-8"))
