"""Finds English left in a Welsh page: common English words that are not also Welsh words.

Words that are both ("a", "i", "am", "at", "to", "is", "as", "all", "go", "hen", "dim", "man",
"main", "had", "bore", "dig", "car", "gem") are left out, so the list never flags good Welsh.
"""
from __future__ import annotations

import re

ENGLISH = frozenset("""
the and your you yours turn turns play plays played playing card cards table tables round rounds wait waiting
join start score scores point points player players move moves tournament tournaments standings pile piles
hand hands draw drawn pass bid bids log sign account match matches game games win wins won lost lose seat seats
open closed chat send new next back leaderboard leaderboards rules rule of with for on no yes not this that
these those it its are was were from by or but if then when what which who how each every more most less only
one two three four five six seven eight nine ten first last aim set up down take takes stop red blue green
orange black white wild number numbers currency token tokens bust auction market buy buying discard deck stack
stacks chip chips skip reverse block steal upgrade perfect strong weak team trick backwards end ends home read
welsh english language change content notifications out bots event here there they them their
""".split())

_WORD = re.compile(r"[^\W\d_]+")


def english_words(text: str, allowed: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The English words in `text`, in order; each phrase in `allowed` (a name, "Card League") is
    taken out of the text first."""
    for phrase in allowed:
        text = text.replace(phrase, " ")
    return [word for word in _WORD.findall(text) if word.lower() in ENGLISH]
