"""Every string a reader sees in a template or a page's script is marked for translation.

Templates: what is left after taking out comments, {% translate %} and {% blocktranslate %}
blocks, other tags, variables, <script> and <style> must hold no letters, in text and in the
attributes a reader meets (alt, title, placeholder, aria-label, a submit button's value); and a
literal handed to an include (`with submit="Save"`) or a `default:` filter is user text too.

Scripts: a string literal that reads as text (two words or more, or any literal shown as text:
a child of the dom.js helpers h() and s(), a `text`/`title`/`aria-label`/`placeholder`/`alt`
value, what is assigned to textContent/title/placeholder, flash()'s message) must be the
argument of gettext/ngettext/pgettext. The scanner is a tokenizer, not a parser: strings,
template literals (their ${…} parts taken out), comments, regular expressions and the
nesting of calls and brackets.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = ROOT / "frontend" / "templates"
SCRIPTS = ROOT / "frontend" / "static" / "frontend" / "js"

# Left in a template as written, in every language.
TEMPLATE_ALLOWED = {
    "Card League",  # the site's name
    "API",  # the footer's link to the API's documentation: a name
    "TrueSkill",  # the rating system's name
    "JSON",  # a format's name (the table's and tournament's event log links)
    "μ", "σ",  # the rating's mean and deviation: mathematical symbols
}

# Script literals that look like text and are not (each with its reason).
SCRIPT_ALLOWED = {
    "notification notification-unread",  # a CSS class list (notifications.js, a ternary's branch)
    "hand-panel waiting",  # a CSS class list passed to section() (the games' renderers)
    "μ − 3σ",  # the rating's formula, a chart's axis (profile.js)
    "μ", "σ", "#",  # column heads that are symbols (profile.js)
}

_LETTER = re.compile(r"[^\W\d_]")
_TWO_WORDS = re.compile(r"[^\W\d_]+\s+[^\W\d_]+")
# An SVG path's data (a drawn card's outline: "M1 ${y} V6 Q1 1 6 1 H44"): commands and numbers, no words.
_SVG_PATH = re.compile(r"[MLHVCSQTAZmlhvcsqtaz][\d\s.,\-]*(?:[MLHVCSQTAZmlhvcsqtaz][\d\s.,\-]*)*")


def _template_files() -> list[Path]:
    return sorted(p for p in TEMPLATES.rglob("*") if p.suffix in (".html", ".txt"))


def _script_files() -> list[Path]:
    return sorted(SCRIPTS.rglob("*.js"))


# --- templates ------------------------------------------------------------------------------------

_REMOVED = [
    re.compile(r"\{#.*?#\}", re.S),
    re.compile(r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}", re.S),
    re.compile(r"\{%\s*blocktrans(?:late)?\b.*?\{%\s*endblocktrans(?:late)?\s*%\}", re.S),
    re.compile(r"<(script|style)\b.*?</\1>", re.S | re.I),
    re.compile(r"<!--.*?-->", re.S),
    re.compile(r"\{%\s*block\s+\w*class\s*%\}.*?\{%\s*endblock\s*%\}", re.S),  # CSS classes: body_class, main_class
    re.compile(r"<kbd>\s*\S\s*</kbd>", re.I),  # a key to press (the screen-reader mode's "h"): the same in every language
]
_TAG_OR_VARIABLE = re.compile(r"\{%.*?%\}|\{\{.*?\}\}", re.S)
_TAG_LITERALS = re.compile(r"""\{%\s*include\b.*?%\}|\{\{.*?\}\}""", re.S)
# An include's arguments that its template shows as text (form.html's `submit`), and `default:`
# filters' arguments; other literals (form.html's `action="profile"`) are names, not text.
_USER_LITERAL = re.compile(r"""\b(?:submit|title|label|text|legend|help)=(["'])(.*?)\1|\|default(?:_if_none)?:(["'])(.*?)\3""")
_ATTRIBUTE = re.compile(r"""\s(alt|title|placeholder|aria-label)\s*=\s*(["'])(.*?)\2""", re.S | re.I)
_SUBMIT_VALUE = re.compile(r"""<input\b[^>]*type=["']?(?:submit|button)[^>]*>""", re.I)
_ELEMENT = re.compile(r"<[^>]*>", re.S)
_ENTITY = re.compile(r"&#?\w+;")


def _unmarked_in_template(source: str) -> list[str]:
    found = []
    for tag in _TAG_LITERALS.findall(source):
        for match in _USER_LITERAL.finditer(tag):
            literal = match.group(2) if match.group(2) is not None else match.group(4)
            if literal and _LETTER.search(literal):
                found.append(literal)
    for pattern in _REMOVED:
        source = pattern.sub(" ", source)
    source = _TAG_OR_VARIABLE.sub("", source)
    for match in _ATTRIBUTE.finditer(source):
        found += _leftover(match.group(3))
    for element in _SUBMIT_VALUE.findall(source):
        value = re.search(r"""\svalue=(["'])(.*?)\1""", element)
        if value:
            found += _leftover(value.group(2))
    found += _leftover(_ENTITY.sub(" ", _ELEMENT.sub("\n", source)))
    return found


def _leftover(text: str) -> list[str]:
    for name in sorted(TEMPLATE_ALLOWED, key=len, reverse=True):
        text = text.replace(name, " ")
    return [line.strip() for line in text.splitlines() if _LETTER.search(line)]


# --- scripts --------------------------------------------------------------------------------------

_TRANSLATING = {"gettext", "ngettext", "pgettext"}
# callee: its arguments that are text (h's and s's children, flash's message, a dialog's question)
_TEXT_CALLS = {"h": range(1, 1000), "s": range(1, 1000), "flash": range(1), "alert": range(1), "confirm": range(1)}
# Calls whose string arguments are selectors, ids or class names.
_SELECTOR_CALLS = {"querySelector", "querySelectorAll", "closest", "matches", "getElementById", "add", "remove",
                   "toggle", "contains"}
_TEXT_KEYS = {"text", "title", "aria-label", "placeholder", "alt", "label", "body"}
_TEXT_PROPERTIES = {"textContent", "innerText", "title", "placeholder", "alt"}
_TEXT_ATTRIBUTES = {"aria-label", "title", "placeholder", "alt"}
_NOT_TEXT_KEYS = {"class", "className", "type", "id", "href", "rel", "role", "name", "for", "inputmode",
                  "autocomplete", "method", "dataset", "scope", "viewBox", "d", "transform", "fill", "stroke"}
# A `/` after one of these starts a regular expression, not a division.
_BEFORE_REGEX = set("(,=:[!&|?{};+-*%<>~^") | {"return", "typeof", "case", "of", "in", "", "=>"}


@dataclass
class _Frame:
    opener: str
    callee: str = ""
    argument: int = 0
    first_literal: str | None = None
    key: str = ""  # in an object: the key whose value comes next


@dataclass
class _Scanner:
    source: str
    position: int = 0
    stack: list[_Frame] = field(default_factory=lambda: [_Frame("")])
    tokens: list[str] = field(default_factory=list)  # the significant tokens so far (literals as '"')
    found: list[str] = field(default_factory=list)

    def run(self) -> list[str]:
        source = self.source
        while self.position < len(source):
            char = source[self.position]
            if source.startswith("//", self.position):
                self._skip_to("\n")
            elif source.startswith("/*", self.position):
                self._skip_to("*/")
            elif char in "\"'":
                self._literal(self._quoted(char))
            elif char == "`":
                self._literal(self._template())
            elif char == "/" and self._last() in _BEFORE_REGEX:
                self._regex()
            elif char.isspace():
                self.position += 1
            elif char.isalnum() or char in "_$":
                word = re.match(r"[\w$]+", source[self.position:]).group()
                self.tokens.append(word)
                self.position += len(word)
            else:
                self._punctuation(source[self.position:self.position + 2])
        return self.found

    def _last(self, back: int = 1) -> str:
        return self.tokens[-back] if len(self.tokens) >= back else ""

    def _skip_to(self, end: str) -> None:
        at = self.source.find(end, self.position + 2)
        self.position = len(self.source) if at < 0 else at + len(end)

    def _quoted(self, quote: str) -> str:
        chars, at = [], self.position + 1
        while at < len(self.source) and self.source[at] != quote:
            if self.source[at] == "\\":
                at += 1
            chars.append(self.source[at])
            at += 1
        self.position = at + 1
        return "".join(chars)

    def _template(self) -> str:
        """A template literal's text, each ${…} (scanned for literals of its own) as a space."""
        chars, at = [], self.position + 1
        while at < len(self.source) and self.source[at] != "`":
            if self.source[at] == "\\":
                chars.append(self.source[at + 1])
                at += 2
            elif self.source.startswith("${", at):
                depth, start = 1, at + 2
                at = start
                while depth:
                    depth += {"{": 1, "}": -1}.get(self.source[at], 0)
                    at += 1
                self.found += _Scanner(self.source[start:at - 1]).run()
                chars.append(" ")
            else:
                chars.append(self.source[at])
                at += 1
        self.position = at + 1
        return "".join(chars)

    def _regex(self) -> None:
        at, in_class = self.position + 1, False
        while at < len(self.source) and (in_class or self.source[at] != "/"):
            if self.source[at] == "\\":
                at += 1
            elif self.source[at] == "[":
                in_class = True
            elif self.source[at] == "]":
                in_class = False
            at += 1
        self.position = at + 1
        self.tokens.append("regex")

    def _punctuation(self, two: str) -> None:
        char = two[0]
        frame = self.stack[-1]
        if two == "=>":
            self.tokens.append("=>")
            self.position += 2
            return
        if char in "([{":
            callee = self._last() if char == "(" and re.fullmatch(r"[\w$]+", self._last()) else ""
            self.stack.append(_Frame(char, callee))
        elif char in ")]}" and len(self.stack) > 1:
            self.stack.pop()
        elif char in ",;":
            frame.argument += char == ","
            frame.key = ""
        elif char == ":" and frame.opener == "{" and not frame.key:
            frame.key = self._last().strip("\"'")
        self.tokens.append(char)
        self.position += 1

    def _literal(self, text: str) -> None:
        frame = self.stack[-1]
        before = self.tokens[-3:]
        if frame.argument == 0 and frame.first_literal is None:
            frame.first_literal = text
        key = frame.key if frame.opener == "{" else ""
        self.tokens.append(f'"{text}')
        if not _LETTER.search(text) or frame.callee in _TRANSLATING or text.strip() in SCRIPT_ALLOWED:
            return
        if _SVG_PATH.fullmatch(text.strip()):
            return
        if frame.callee in _SELECTOR_CALLS or (len(before) >= 2 and before[-2] in "=!" and before[-1] == "="):
            return  # a selector, or a value compared with (`half === "t"`)
        shown = (
            frame.argument in _TEXT_CALLS.get(frame.callee, ())
            or (frame.opener == "{" and key in _TEXT_KEYS)
            or (len(before) >= 3 and before[-3] == "." and before[-2] in _TEXT_PROPERTIES and before[-1] == "=")
            or (frame.callee == "setAttribute" and frame.argument == 1 and frame.first_literal in _TEXT_ATTRIBUTES)
        )
        if frame.opener == "{" and key in _NOT_TEXT_KEYS and not shown:
            return
        if len(before) >= 2 and before[-2] in ("className",) and before[-1] == "=":
            return
        if shown or _TWO_WORDS.search(text):
            self.found.append(text.strip())


def _unmarked_in_script(source: str) -> list[str]:
    return _Scanner(source).run()


# --- the tests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", _template_files(), ids=lambda p: str(p.relative_to(TEMPLATES)))
def test_template_text_is_marked(path: Path):
    assert _unmarked_in_template(path.read_text()) == [], f"text not marked for translation in {path.name}"


@pytest.mark.parametrize("path", _script_files(), ids=lambda p: str(p.relative_to(SCRIPTS)))
def test_script_text_is_marked(path: Path):
    assert _unmarked_in_script(path.read_text()) == [], f"text not marked for translation in {path.name}"


def test_the_template_check_finds_unmarked_text():
    assert _unmarked_in_template('<p title="Your seat">{% translate "Ready" %} Waiting</p>') == ["Your seat", "Waiting"]
    assert _unmarked_in_template('{% include "frontend/form.html" with submit="Save" %}') == ["Save"]
    assert _unmarked_in_template('{{ name|default:"(empty)" }}') == ["(empty)"]
    marked = ('{% load i18n %}<h1 aria-label="{% translate "Play" %}">{% translate "Play" %}</h1>'
              '{% blocktranslate with n=count %}{{ n }} seats{% endblocktranslate %}{# a note #}'
              '{% include "frontend/form.html" with submit=_("Save") %}<script>let a = "b c";</script>'
              '<footer>Card League · <a href="/api/docs/">API</a></footer><li><kbd>h</kbd> {% translate "your hand" %}</li>')
    assert _unmarked_in_template(marked) == []


def test_the_script_check_finds_unmarked_text():
    source = """
    // a comment with words in it
    import { gettext } from "./i18n.js";
    const pattern = /it's "quoted" here/g;
    node.textContent = "Saved";
    h("p", { class: "muted small", title: "Hello" }, user ? "Join" : gettext("Look"), `${n} players`);
    flash(`Could not load: ${err.message}`, "error");
    status.setAttribute("aria-label", "Unread");
    document.querySelector("#board tbody").classList.add("is loading");
    h("span", {}, half === "t" ? "top" : "bottom half");
    const ok = [gettext("Two words"), pgettext("game title", "The Game"), "btn", "a-b c-d".length];
    const outline = `M1 ${h - 1} V6 Q1 1 6 1 H44 Z`;
    """
    assert _unmarked_in_script(source) == ["Saved", "Hello", "Join", "players", "Could not load:", "Unread",
                                           "top", "bottom half", "a-b c-d"]
