"""Finds English left on a page meant for a Welsh reader.

`english_words(text)` splits text into words and returns those in a curated list of common
English words that are not also Welsh words: the site's own vocabulary (pages, games, tables,
tournaments, accounts) and English's function words. A word that is both ("a", "i", "am", "at",
"do", "does", "draw", "hen", "dim", "man", "can", "all", "well", "ran", "ail", "hi", "go", "be", "pen") is
left out of the list, because a correct Welsh page is full of them. So a page can still hold
English that this misses; what it finds is English.

The names every page may show in any language ("Card League", "API", "English" in the language
switcher) are always allowed; the caller passes the rest (people's and bots' names) as `allowed`,
single words or phrases.
"""
from __future__ import annotations

import re
from collections.abc import Iterable

# Shown on every page whatever the language: the site's name, the API link, and the switcher's
# language names (each written in its own language).
SITE_NAMES = frozenset({"Card League", "API", "English", "Cymraeg"})

# Letters (any script, so â ê ŵ ŷ too) joined by apostrophes or hyphens: Welsh "i'r", "a'r",
# "e-bost" and English "don't", "player's" stay one word each.
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")

_FUNCTION_WORDS = """
the an and or but if then than that this these those there here where when what which who whom whose
why how of to in into on onto off from with without by for about above below over under after before
between through during until since against among along around across within upon per
is are was were been being has have had having did doing done will would should could might must
shall may not no yes nor only also just very too more most less least some any every each either
neither other others another same own such both few many much several
you your yours yourself we our ours us they their theirs them he him his she hers it its me my
mine myself nothing none nobody someone somebody something anyone anything everyone everybody
everything
isn't aren't wasn't weren't don't doesn't didn't can't cannot won't wouldn't shouldn't couldn't
haven't hasn't hadn't it's that's there's you're you've you'll we're they're let's i'm i've i'll
now never always often again already still yet soon once twice ago later today tomorrow yesterday
please thanks thank sorry ok okay hello welcome goodbye
one two three four five six seven eight nine ten eleven twelve twenty hundred thousand first second
third last next previous
""".split()

_SITE_WORDS = """
play plays played playing player players game games table tables match matches round rounds
tournament tournaments league leagues leaderboard leaderboards standings bracket brackets seat seats
seated sit sitting move moves moved turn turns card cards pile piles hand hands deck decks discard
discarded pass passed passes bid bids auction tokens token score scores scored points point win wins
won winner winners lose loses lost loss losses losing tie tied result results rating ratings rated
casual private public open opened opens closed close join joined joining leave left start started
starts starting finish finished finishing waiting wait waits live watch watching watched replay
replays chat send sent message messages notification notifications invite invited invites invitation
invitations signup sign signed login logout log logged account accounts password passwords username
usernames email e-mail mail name names display save saved saving cancel cancelled delete deleted
change changed changes profile avatar history recent status loading error errors try back home lobby
clock time times minute minutes second seconds hour hours day days week weeks month months year years
bots people person rules rule language settings help forgot create created creator choose chosen
pick use used give given found address link links page pages site read unread allow desktop browser
kind kinds optional required shuffle random seed seeded deal dealt options option provisional board
boards empty spectator spectators organiser organizer entrant entrants pairing pairings bye check
checked skip content ready sent expired works ask asked server full slow fast rest
yours new old show shown hide hidden more less fewer estimate conservative separate together count
counts counted event events immutable hash chained
monday tuesday wednesday thursday friday saturday sunday january february march april june july
august september october november december pm
""".split()

# Welsh words too, in lists written as English: "is" (lower), "to" (roof), "her" (a challenge).
_ALSO_WELSH = frozenset({"is", "to", "her"})
WORDS = (frozenset(_FUNCTION_WORDS) | frozenset(_SITE_WORDS)) - _ALSO_WELSH


def english_words(text: str, allowed: Iterable[str] = frozenset()) -> list[str]:
    """The English words in `text` (each once, as first written), less `allowed` and SITE_NAMES.

    An allowed entry with a space is a phrase, taken out of the text before it is split."""
    allowed_words = set()
    for entry in [*SITE_NAMES, *allowed]:
        if " " in entry.strip():
            text = re.sub(re.escape(entry), " ", text, flags=re.IGNORECASE)
        else:
            allowed_words.add(entry.strip().casefold())
    found: dict[str, str] = {}
    for match in _WORD.finditer(text.replace("\u2019", "'")):
        word = match.group()
        key = word.casefold()
        if key in allowed_words or key in found:
            continue
        if _is_english(key):
            found[key] = word
    return list(found.values())


def _is_english(word: str) -> bool:
    if word in WORDS:
        return True
    if word.endswith("'s") and word[:-2] in WORDS:  # "player's"
        return True
    # "hash-chained" whole, or a compound all of whose parts are English ("move-by-move"); a
    # Welsh compound with an English-looking part ("is-deitl") is not.
    parts = word.split("-")
    return len(parts) > 1 and all(part in WORDS for part in parts)
