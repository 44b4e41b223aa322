"""Builders for rating tests: games played by bots in memory, stored whole or as their facts only.

`recorded` stores a whole match through `games.services.match_record` (every move decided again
by the engine): the real path, for the tests that check single updates. `stored` writes only
what ratings read (the match row, its seats, the MatchStarted fact, a MovePlayed fact per seat,
the MatchFinished fact, hash chained), so the tests that need hundreds of matches stay fast; the outcomes are still those of
real games played by bots.
"""
from __future__ import annotations

import random
from functools import lru_cache

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games.bots import BOTS, STRONG_BOT, MixedBot
from games.chain import canonical_time, event_hash, seed_sha256
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.services import match_record
from ratings.services import match_rate
from tests.conftest import client_for


def bot_for(game: str, name: str):
    """A bot by name: the game's own (`random`, its strong bot) or `<strong>@<p>` (a MixedBot)."""
    if "@" in name:
        strong, p = name.split("@")
        return MixedBot(BOTS[game][strong], float(p))
    return BOTS[game][name]


@lru_cache(maxsize=4096)
def played(game: str, bots: tuple[str, ...], seed: int) -> tuple[dict, tuple[tuple[int, dict], ...]]:
    """One game played in memory by the named bots (one per seat): its outcome and moves."""
    engine = ENGINES[game]
    players = [bot_for(game, name) for name in bots]
    rng = random.Random(seed)
    state = engine.replay(engine.start(len(bots), seed))
    moves = []
    while engine.outcome(state) is None:
        seat = engine.to_act(state)[0]
        move = players[seat].choose(engine.view(state, seat), engine.legal_moves(state, seat), rng)
        for event in engine.decide(state, seat, move):
            state = engine.evolve(state, event)
        moves.append((seat, move))
    return engine.outcome(state), tuple(moves)


def recorded(game: str, seats: list[User | str], *, seed: int, bots: tuple[str, ...] | None = None,
             rated: bool = True) -> Match:
    """A finished match stored through `match_record`, played by `bots` (default: random ones)."""
    bots = bots or ("random",) * len(seats)
    _, moves = played(game, bots, seed)
    owner = next((who for who in seats if isinstance(who, User)), None) or User.objects.get_or_create(username="house")[0]
    return match_record(game=game, seats=seats, created_by=owner, seed=seed, moves=list(moves), rated=rated)


def stored(game: str, seats: list[User | str], outcome: dict, *, seed: int = 0, rated: bool = True,
           abandoned: tuple[int, ...] = (), never_moved: tuple[int, ...] = (), without_turn: tuple[int, ...] = (),
           finished_at=None, actors: dict[int, str] | None = None) -> Match:
    """A finished match with only its facts: match row, seats, MatchStarted, one MovePlayed per seat
    (its own; the clock's for the seats in `never_moved`; none for those `without_turn`; the one
    in `actors` for those seats) and MatchFinished."""
    owner = next((who for who in seats if isinstance(who, User)), None) or User.objects.get_or_create(username="house")[0]
    now = finished_at or timezone.now()
    with transaction.atomic():
        match = Match.objects.create(
            game=game, players=len(seats), rated=rated, created_by=owner, status=Match.Status.FINISHED,
            started_at=now, finished_at=now, seed=seed, seed_sha256=seed_sha256(seed), outcome=outcome,
        )
        Seat.objects.bulk_create(
            [
                Seat(match=match, seat=i, user=who if isinstance(who, User) else None,
                     bot="" if isinstance(who, User) else who, abandoned=i in abandoned)
                for i, who in enumerate(seats)
            ]
        )
        started = {
            "type": "MatchStarted", "game": game, "players": len(seats), "rated": rated,
            "seats": [
                {"seat": i, "user": who.pk if isinstance(who, User) else None, "bot": "" if isinstance(who, User) else who}
                for i, who in enumerate(seats)
            ],
            "seed_sha256": seed_sha256(seed),
        }
        actors = actors or {}
        moves = [
            ({"type": "MovePlayed", "seat": i, "move": {"action": "pass"}},
             actors[i] if i in actors else "clock" if i in never_moved
             else f"user:{who.pk}" if isinstance(who, User) else f"bot:{who}")
            for i, who in enumerate(seats)
            if i not in without_turn
        ]
        finished = {"type": "MatchFinished", "outcome": outcome, "seed": seed}
        previous = ""
        rows = []
        for seq, (data, actor) in enumerate([(started, "server"), *moves, (finished, "server")], start=1):
            previous = event_hash(previous, version=match.chain_version, seq=seq, kind=Event.Kind.TABLE,
                                  type=data["type"], actor=actor, data=data, created=canonical_time(now))
            rows.append(Event(match=match, seq=seq, kind=Event.Kind.TABLE, type=data["type"], data=data,
                              actor=actor, created=now, hash=previous))
        Event.objects.bulk_create(rows)
        match.last_seq, match.head_hash = len(rows), previous
        match.save(update_fields=["last_seq", "head_hash"])
    return match


def random_bots(game: str, players: int, rng: random.Random) -> tuple[str, ...]:
    """Mostly random bots, some strong ones; The Game's strong teams play whole (a random member loses)."""
    strong = STRONG_BOT[game]
    if game == "the-game":
        return (strong if players > 2 and rng.random() < 0.15 else "random",) * players
    # Split's strong bot ends games sooner than random play does; elsewhere it is the slower one.
    share = 0.6 if game == "split" else 0.1
    return tuple(strong if rng.random() < share else "random" for _ in range(players))


def random_matches(game: str, users: list[User], count: int, *, seed: int = 0, never_moved: float = 0.0) -> list[Match]:
    """`count` stored matches of random size, random people and random play; some seats abandoned,
    and with `never_moved` that share of seats played by the clock only (those matches are not rated)."""
    engine = ENGINES[game]
    low = engine.min_players if ENGINES[game].slug == "the-game" else max(2, engine.min_players)
    rng = random.Random(f"{game}:{seed}")
    matches = []
    for index in range(count):
        players = rng.randint(low, min(engine.max_players, len(users)))
        outcome, _ = played(game, random_bots(game, players, rng), seed * 100_000 + index)
        seats = rng.sample(users, players)
        abandoned = tuple(s for s in range(players) if rng.random() < 0.05)
        idle = tuple(s for s in range(players) if never_moved and rng.random() < never_moved)
        matches.append(stored(game, seats, outcome, seed=index, abandoned=abandoned, never_moved=idle))
    return matches


WIN = {"finished": True, "ranks": [1, 2], "scores": [2, 1], "winners": [0], "cooperative": False}


def beat(winner, loser, times=1, game="ten"):
    """`winner` beats `loser` (people or bot names) in `times` rated two-seat matches, each rated at once."""
    for _ in range(times):
        match_rate(match_id=stored(game, [winner, loser], WIN).pk)


def board(game="ten", user=None, **params):
    """The game's leaderboard as `user` (default: anonymous) reads it."""
    answer = client_for(user).get(f"/api/ratings/{game}/leaderboard", params)
    assert answer.status_code == 200, answer.json()
    return answer.json()
