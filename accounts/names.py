"""What a name may be, and when two names are the same to a reader's eye.

Pure: sign-up, display names and match import all check names here. "@" is kept out of
local names: it marks a player of another server, shown as `name@server` (games.exchange).
"""
from __future__ import annotations

import re
import unicodedata
from functools import cache
from pathlib import Path

USERNAME_MAX = 150
_USERNAME = re.compile(r"[\w.+-]+")  # Django's username characters without "@"
_HOST_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
HOST_MAX = 100

# Unicode's own confusables data (UTS #39, version 17.0.0, shipped verbatim under Unicode's
# licence: see its header). No maintained PyPI package ships it with the mapping's direction:
# `confusable-homoglyphs` keeps a two-way table without versions, and a skeleton needs one way.
CONFUSABLES_TXT = Path(__file__).parent / "data" / "confusables.txt"

# Characters that show nothing, or nothing of their own, in a name: fillers that Unicode counts
# as letters or symbols (Hangul fillers, the Braille blank), variation selectors and the combining
# grapheme joiner. Format (Cf), control, private-use, unassigned and separator characters other
# than the plain space are refused by category in `invisible_problem`.
_BLANKS = frozenset(
    "\u115f\u1160\u3164\uffa0\u2800\u034f\u17b4\u17b5\u180b\u180c\u180d\u180e\u180f"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
_REFUSED_CATEGORIES = frozenset({"Cf", "Cc", "Co", "Cs", "Cn", "Zl", "Zp", "Zs"})
_MARKS = frozenset({"Mn", "Me", "Mc"})
_MARKS_IN_A_ROW = 3  # Welsh, Vietnamese and Greek need at most 2 or 3 on one letter; more is stacking

# After the skeleton, casefold and the mapping below: lower-case look-alikes that confusables.txt
# only lists in capitals or not at all (Cyrillic н, п, г, и, л), capital I read as l, and the
# separators people overlook (`_ - .` and spaces).
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
        "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q",
        "ԝ": "w", "ӏ": "l", "ү": "y", "ь": "b", "г": "r", "п": "n", "и": "u", "л": "n", "ш": "w",
        "α": "a", "β": "b", "γ": "y", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p",
        "τ": "t", "υ": "u", "χ": "x", "ω": "w", "ς": "c", "σ": "o", "μ": "u", "ϲ": "c", "ϳ": "j",
        "0": "o", "1": "l", "i": "l", "|": "l", "5": "s", "$": "s",
        "_": "", "-": "", ".": "", " ": "",
    }
)


@cache
def _prototypes() -> dict[str, str]:
    """confusables.txt as {character: its prototype}: `source ; target ; type # comment`."""
    table = {}
    with CONFUSABLES_TXT.open(encoding="utf-8-sig") as lines:
        for line in lines:
            fields = line.split("#", 1)[0].split(";")
            if len(fields) >= 2 and fields[0].strip():
                table[chr(int(fields[0], 16))] = "".join(chr(int(code, 16)) for code in fields[1].split())
    return table


def skeleton(text: str) -> str:
    """UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again."""
    prototypes = _prototypes()
    return unicodedata.normalize("NFD", "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", text)))


def _small_capitals() -> dict[str, str]:
    """Small capitals (ᴀ, ʙ, ɢ ...) as their lower-case letter: UTS #39 makes them prototypes of
    their own, yet in a name they read as the letter."""
    letter = re.compile(r"LATIN LETTER SMALL CAPITAL ([A-Z])")
    found = {}
    for code in [*range(0x0250, 0x02B0), *range(0x1D00, 0x1D2C), *range(0xA720, 0xA800)]:
        match = letter.fullmatch(unicodedata.name(chr(code), ""))
        if match:
            found[chr(code)] = match.group(1).lower()
    return found


_CONFUSABLES.update(str.maketrans(_small_capitals()))


def _fold_once(name: str) -> str:
    folded = unicodedata.normalize("NFKC", name).casefold().translate(_CONFUSABLES)
    bare = "".join(c for c in unicodedata.normalize("NFD", folded) if unicodedata.category(c) not in _MARKS)
    shown = "".join(c for c in skeleton(bare) if unicodedata.category(c) not in _MARKS)
    return unicodedata.normalize("NFKC", shown).casefold().translate(_CONFUSABLES)


def name_key(name: str) -> str:
    """The name as a reader sees it: two names with the same key are one name to a person.

    NFKC then casefold (fullwidth and styled letters, case), marks and invisible characters
    dropped (accents, zero-width joiners, bidi controls), UTS #39's skeleton (Unicode's
    confusables: Armenian օ, Latin ɑ, small capital ᴀ ...), casefold again, then the short table
    above. Repeated until nothing changes, because a prototype may itself fold (ᴀ's prototype is
    Cherokee ꭺ, whose case fold Ꭺ has the prototype A).
    """
    key = name
    for _round in range(4):
        folded = _fold_once(key)
        if folded == key:
            break
        key = folded
    return key


def invisible_problem(name: str) -> str | None:
    """Why `name` holds characters a reader cannot see or tell apart from nothing, or None:
    fillers and blanks, format and control characters, separators other than a plain space,
    a mark with no letter under it, or marks stacked on one letter."""
    run = 0
    previous = " "
    for c in name:
        category = unicodedata.category(c)
        if c in _BLANKS or (category in _REFUSED_CATEGORIES and c != " "):
            return f"U+{ord(c):04X} ({unicodedata.name(c, 'unnamed')}) shows nothing"
        if category in _MARKS:
            run += 1
            if previous == " " or run > _MARKS_IN_A_ROW:
                return f"U+{ord(c):04X} ({unicodedata.name(c, 'unnamed')}) is a mark with no letter of its own"
        else:
            run = 0
            previous = c
    return None


def username_problem(username: object) -> str | None:
    """Why `username` cannot be a player's name (as sign-up checks it), or None."""
    if not isinstance(username, str) or not username:
        return "a username must be a non-empty string"
    if len(username) > USERNAME_MAX:
        return f"a username has at most {USERNAME_MAX} characters"
    if not _USERNAME.fullmatch(username) or invisible_problem(username) is not None:
        return "a username has only letters, digits and . + - _"
    return None


def host_problem(host: object) -> str | None:
    """Why `host` is not a server's name (a DNS host name, lower case), or None."""
    if not isinstance(host, str) or not 0 < len(host) <= HOST_MAX:
        return f"a server's name is a host name of 1 to {HOST_MAX} characters"
    if not all(_HOST_LABEL.fullmatch(label) for label in host.split(".")):
        return "a server's name is a host name: lower-case letters, digits, - and dots"
    return None
