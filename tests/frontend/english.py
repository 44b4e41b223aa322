"""An English detector for the Welsh pages' tests: which words of a text are common English words.

The list holds only words that are not also Welsh (so not "a", "i", "am", "at", "be", "dim", "hen",
"hi", "is", "log", "man", "pan", "draw", "to"), nor "bot", which Welsh borrows.
"""
from __future__ import annotations

import re

ENGLISH = frozenset("""
the and or of in on for with from by into your you are has have had was were not no yes this that these those
there here what when where who why how which it its all any some more most only also just then than
play played playing plays player players game games match matches table tables seat seats round rounds
turn wait waiting join joined start starts started finish finished running cancelled open closed
tournament tournaments standings bracket brackets pairing pairings paired bye byes seed seeded winner
winners loser losers final semi third grand reset won win wins lost loss drawn result results points
score rating ratings rated casual league calendar matchday matchdays entrant entrants entry registration
register registered withdraw withdrew waitlist check checked organiser organise create add remove
people only least find show page pages previous next loading chart leaderboard leaderboards board
provisional games last nobody yet happened created entered over second seconds minute minutes hour hours
day days optional name format seeding clock filter replay watch live deadline champion champions
card cards pile hand move moves pass bid sign account send new back rules rule event team place
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday
jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun
""".split())

WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def english_words(text: str, allowed: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The words of `text` (letters only, case ignored) in the English list and not `allowed`."""
    allowed_lower = {word.lower() for word in allowed}
    return [word for word in WORD.findall(text) if word.lower() in ENGLISH and word.lower() not in allowed_lower]
