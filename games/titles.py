"""The games' titles in the reader's language (the slugs stay English: they are identifiers).

The games came to us in Welsh (Deg, Y Gêm, Pentyrrau Dilyniant, Hollti): each is called by its
name in the reader's language.
"""
from __future__ import annotations

from django.utils.translation import pgettext_lazy

GAME_TITLES = {
    "the-game": pgettext_lazy("game title", "The Game"), "ten": pgettext_lazy("game title", "Ten"),
    "sequence-stacks": pgettext_lazy("game title", "Sequence Stacks"), "split": pgettext_lazy("game title", "Split"),
}


def game_title(slug: str) -> str:
    """The game's title in the active language; an unknown slug as it is."""
    return str(GAME_TITLES.get(slug, slug))
