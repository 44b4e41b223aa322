"""Computer players, per game (shared/ENGINE.md, Bots).

`BOTS[slug]` maps a bot name to a bot; `STRONG_BOT[slug]` names each game's stronger bot
(the table's default fallback when a clock runs out or a seat is abandoned).
"""
from __future__ import annotations

from games.bots import sequence_stacks as _sequence_stacks
from games.bots import split as _split
from games.bots import ten as _ten
from games.bots import the_game as _the_game
from games.bots._common import Bot, MixedBot, RandomBot

# One line per game; each bot module exposes BOTS and STRONG.
_MODULES = {
    "the-game": _the_game,
    "sequence-stacks": _sequence_stacks,
    "ten": _ten,
    "split": _split,
}

BOTS: dict[str, dict[str, Bot]] = {slug: module.BOTS for slug, module in _MODULES.items()}
STRONG_BOT: dict[str, str] = {slug: module.STRONG for slug, module in _MODULES.items()}

__all__ = ["BOTS", "STRONG_BOT", "Bot", "MixedBot", "RandomBot"]
