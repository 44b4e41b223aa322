"""Builders for table tests: open, fill and start a table through the API; play it out."""
from __future__ import annotations

import random

from games.engines import ENGINES
from tests.conftest import client_for


def started_match(game: str, users: list, *, options: dict | None = None, rated: bool = True) -> int:
    """A running match with `users` in seats 0..n-1 (the first user creates it)."""
    owner = client_for(users[0])
    body = {"game": game, "players": len(users), "options": options or {}, "rated": rated}
    created = owner.post("/api/matches", body, format="json")
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    for user in users[1:]:
        joined = client_for(user).post(f"/api/matches/{match_id}/join", {}, format="json")
        assert joined.status_code == 200, joined.json()
    started = owner.post(f"/api/matches/{match_id}/start")
    assert started.status_code == 200, started.json()
    return match_id


def play_to_end(match_id: int, users: list, *, seed: int = 0, max_moves: int = 5000) -> dict:
    """Every seat plays a random legal move read from its own view until the match ends."""
    rng = random.Random(seed)
    clients = [client_for(u) for u in users]
    for _ in range(max_moves):
        views = [c.get(f"/api/matches/{match_id}/view").json() for c in clients]
        if views[0]["view"]["finished"]:
            return views[0]["view"]
        seat = rng.choice(views[0]["view"]["to_act"])
        legal = views[seat]["legal_moves"]
        answer = clients[seat].post(
            f"/api/matches/{match_id}/moves", {"move": rng.choice(legal), "expected_seq": views[seat]["seq"]}, format="json"
        )
        assert answer.status_code == 200, answer.json()
    raise AssertionError("the match did not end")


def game_params() -> list[tuple[str, int]]:
    """Each registered game at its smallest table of at least two seats."""
    return [(slug, max(2, engine.min_players)) for slug, engine in sorted(ENGINES.items())]
