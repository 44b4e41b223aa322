"""The embedded default's demo: known users to try the API with, and bot tables at play."""
from __future__ import annotations

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


def demo_tables_ensure() -> list[Match]:
    """One running bot table per game (the stronger bot against random ones), started if missing."""
    house = User.objects.get(username=HOUSE)
    tables = []
    for slug in sorted(BOTS):
        engine = ENGINES[slug]
        running = Match.objects.filter(game=slug, status=Match.Status.RUNNING, created_by=house).first()
        if running is not None:
            tables.append(running)
            continue
        players = max(2, engine.min_players)
        bots = [STRONG_BOT[slug]] + ["random"] * (players - 1)
        tables.append(services.match_start_seated(game=slug, seats=bots, created_by=house, rated=False))
    return tables
