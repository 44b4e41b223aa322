"""The game engines (shared/ENGINE.md): `ENGINES` by slug, and `IllegalMove`.

Importing this package needs no Django settings.
"""
from __future__ import annotations

from games.engines._common import Engine, IllegalMove
from games.engines.sequence_stacks import ENGINE as _SEQUENCE_STACKS
from games.engines.split import ENGINE as _SPLIT
from games.engines.ten import ENGINE as _TEN
from games.engines.the_game import ENGINE as _THE_GAME

# One line per game; each engine module exposes ENGINE.
ENGINES: dict[str, Engine] = {
    _THE_GAME.slug: _THE_GAME,
    _SEQUENCE_STACKS.slug: _SEQUENCE_STACKS,
    _SPLIT.slug: _SPLIT,
    _TEN.slug: _TEN,
}

__all__ = ["ENGINES", "Engine", "IllegalMove"]
