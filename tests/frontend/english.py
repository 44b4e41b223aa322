"""Finds English left on a page meant to be in Welsh.

A practical detector, not a dictionary: a set of common English words (those the site's pages
use) that are not also Welsh words. Words that are both ("a", "i", "am", "hen", "dim", "tan",
"pan", "bot", "ar", "o", "all", "at", "does") are left out, so a Welsh sentence never trips it.
"""
from __future__ import annotations

import re

# Words and names allowed on a Welsh page wherever they appear.
ALWAYS_ALLOWED = frozenset({"Card League", "API", "English", "JSON", "SHA-256"})

ENGLISH = frozenset("""
the and or but your you yours our their they them his her its it it's we us me my mine
this that these those there here what which who whom whose when where why how
is are was were be been being has have had do did done will would can could should must may might
not no yes nobody nothing everyone everything someone something anyone anything
of to in on by for with from into onto about after before over under up down out off again
any each every some more most less least many much few first last next previous new old
turn turns your play plays played playing player players card cards table tables round rounds
wait waiting join joined start starts started score scores scored points point move moves moved
tournament tournaments standings pile piles hand hands draw drew drawn pass passed passing bid bids
log sign account match matches game games win wins won lose lost loss seat seats open closed
chat send new back leaderboard rules replay watch watching spectator spectators live
finished finish ended end ends empty full team result results place total winner winners
take took taken buy bought pay paid market auction currency bust wild token tokens chip chips
stack stacks blue red green orange black skip skipped reverse block blocked blocks steal stole
discard discarded discards upgrade upgraded trade traded penalize penalized dealer deals dealt
deck shuffle shuffled seed contribution contributions server link copy copied invite invitation
rematch offer accept accepted leave left sit sat fill bots add rated casual private
connecting reconnecting disconnected online away profile settings language
mute hide hidden muted message messages say something loading could be loaded
position event events show download first previous pause practice practise
choose pick then now only just yet still also even so than too very
left right direction supply set aside actions action played stalemate limit
spades hearts diamonds clubs ace jack queen king top bottom half perfect strong weak covered
keep kept stop numbers busted bonus done went lay last matches row oldest
watching spectators everyone's view saw opponents complete waiting blocks
""".split())

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def english_words(text: str, allowed: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The English words in `text`, in order, apart from the allowed names and phrases."""
    for phrase in sorted({*ALWAYS_ALLOWED, *allowed}, key=len, reverse=True):
        text = text.replace(phrase, " ")
    return [word for word in _WORD.findall(text) if word.lower() in ENGLISH]
