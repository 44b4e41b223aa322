"""What a name may be, and when two names are the same to a reader's eye.

Pure: sign-up, display names and match import all check names here. "@" is kept out of
local names: it marks a player of another server, shown as `name@server` (games.exchange).
"""
from __future__ import annotations

import re
import unicodedata

USERNAME_MAX = 150
_USERNAME = re.compile(r"[\w.+-]+")  # Django's username characters without "@"
_HOST_LABEL = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
HOST_MAX = 100

# Look-alikes folded onto one letter, after NFKC and casefold: the common Cyrillic and Greek
# letters that pass for Latin ones, and the digits that pass for letters (UTS #39 prototypes
# where they are Latin). A short table on purpose: it covers what a copied name would use.
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


def name_key(name: str) -> str:
    """The name as a reader sees it: two names with the same key are one name to a person.

    NFKC then casefold (fullwidth and styled letters, case), marks and invisible characters
    dropped (accents, zero-width joiners, bidi controls), look-alike letters folded, and the
    separators people overlook (`_ - .` and spaces) removed.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    bare = "".join(
        c for c in unicodedata.normalize("NFD", folded) if unicodedata.category(c) not in ("Mn", "Me", "Cf", "Cc")
    )
    return unicodedata.normalize("NFKC", bare).casefold().translate(_CONFUSABLES)


def username_problem(username: object) -> str | None:
    """Why `username` cannot be a player's name (as sign-up checks it), or None."""
    if not isinstance(username, str) or not username:
        return "a username must be a non-empty string"
    if len(username) > USERNAME_MAX:
        return f"a username has at most {USERNAME_MAX} characters"
    if not _USERNAME.fullmatch(username):
        return "a username has only letters, digits and . + - _"
    return None


def host_problem(host: object) -> str | None:
    """Why `host` is not a server's name (a DNS host name, lower case), or None."""
    if not isinstance(host, str) or not 0 < len(host) <= HOST_MAX:
        return f"a server's name is a host name of 1 to {HOST_MAX} characters"
    if not all(_HOST_LABEL.fullmatch(label) for label in host.split(".")):
        return "a server's name is a host name: lower-case letters, digits, - and dots"
    return None
