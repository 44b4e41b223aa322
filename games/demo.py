"""The embedded default's demo: known users to try the API with, and bot tables always at play."""
from __future__ import annotations

from collections import Counter

from django.conf import settings
from django.db import transaction

from accounts.models import User
from games import services
from games.bots import BOTS, STRONG_BOT
from games.engines import ENGINES
from games.models import Match

DEMO_PASSWORD = "demo-password-1"
DEMO_USERS = ("alice", "bob", "carol")
HOUSE = "house"


def demo_users_ensure() -> list[User]:
    """alice, bob and carol (password `DEMO_PASSWORD`), and the house that opens bot tables."""
    users = []
    for username in (*DEMO_USERS, HOUSE):
        user, created = User.objects.get_or_create(username=username, defaults={"display_name": username.title()})
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        users.append(user)
    return users


def demo_tables_live() -> list[Match]:
    """The demo's bot tables at play (the house's running tables), oldest first."""
    return list(Match.objects.filter(status=Match.Status.RUNNING, created_by__username=HOUSE).order_by("id"))


def demo_tables_top_up(*, live: int | None = None) -> list[Match]:
    """Starts bot tables until `live` (DEMO_LIVE_TABLES) are at play and returns those it started;
    each new one is of the game with the fewest tables at play, so the first `len(BOTS)` are one
    per game. Never more than `live`: a table that ends is replaced at the next call.

    Holds the house's row locked while it counts and starts, so two calls at once (the serve
    command and the worker's beat) cannot both start the same missing tables.
    """
    wanted = settings.DEMO_LIVE_TABLES if live is None else live
    with transaction.atomic():
        house = User.objects.select_for_update().get(username=HOUSE)
        per_game = Counter({slug: 0 for slug in BOTS})
        per_game.update(
            Match.objects.filter(status=Match.Status.RUNNING, created_by=house).values_list("game", flat=True)
        )
        started = []
        for _ in range(wanted - per_game.total()):
            slug = min(sorted(BOTS), key=lambda game: per_game[game])
            started.append(_bot_table_start(slug, house))
            per_game[slug] += 1
    return started


def demo_table_replace(match_id: int) -> list[Match]:
    """A match has ended: if it was a demo table, its place is filled at once (`demo_tables_top_up`)
    rather than at the beat's next call, so a game's watchers do not find it gone for seconds."""
    if not Match.objects.filter(pk=match_id, created_by__username=HOUSE).exists():
        return []
    return demo_tables_top_up()


def _bot_table_start(slug: str, house: User) -> Match:
    """A casual table of `slug` with the stronger bot in every seat: a newcomer watches good play
    (beside a random bot, The Game's team lost within half a minute)."""
    players = max(2, ENGINES[slug].min_players)
    bots: list[User | str] = [STRONG_BOT[slug]] * players
    return services.match_start_seated(game=slug, seats=bots, created_by=house, rated=False)
