"""How a match is dealt: the server's committed seeds for contributed shuffles and what seated
people add to them, the seed a match starts from (`_deal`), and its opening fact, MatchStarted.
"""
from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games.chain import seed_sha256
from games.engines import ENGINES
from games.models import (
    Match,
    Seat,
    Shuffle,
    ShuffleContribution,
)
from games.shuffle import DERIVATION, contribution_valid, contributions_canonical, deck_seed
from server.errors import bad_request, conflict


def shuffles_commit(count: int) -> list[Shuffle]:
    """The server draws and commits to the seeds of contributed shuffles, before anyone sends one."""
    seeds = [secrets.randbits(62) for _ in range(count)]
    return Shuffle.objects.bulk_create([Shuffle(seed=seed, seed_sha256=seed_sha256(seed)) for seed in seeds])


def shuffle_contribution_save(*, shuffle_id: int, user: User, value: str) -> None:
    """Keeps a person's contribution (the last one sent counts); the caller checked they may send it.

    The shuffle's row is locked, as the deal locks it before reading the contributions: one sent
    while its table starts is either dealt with or refused, never taken and then left out.
    """
    if not contribution_valid(value):
        raise bad_request("bad_contribution", _("A contribution is 64 lowercase hex digits (32 random bytes)."))
    with transaction.atomic():
        Shuffle.objects.select_for_update().filter(pk=shuffle_id).first()
        if Match.objects.filter(shuffle_id=shuffle_id).exclude(status=Match.Status.OPEN).exists():
            raise conflict("shuffle_dealt", _("The cards have been dealt: the shuffle takes no more contributions."))
        ShuffleContribution.objects.update_or_create(shuffle_id=shuffle_id, user=user, defaults={"value": value})


@dataclass(frozen=True)
class _Deal:
    """How a match is dealt: the match's seed (its SHA-256 published, revealed at the end), the seed
    the engine shuffles with, and MatchStarted's record of a contributed shuffle."""

    seed: int
    deck_seed: int
    shuffle: dict | None = None


def _deal(shuffle: Shuffle | None, seat_users: list[int | None], given: dict[int, str]) -> _Deal:
    """A new seed from `secrets`, or `shuffle`'s committed one mixed with the contributions `given`
    (user id to value) of the people seated now: one who left the table does not count."""
    if shuffle is None:
        seed = secrets.randbits(62)
        return _Deal(seed, seed)
    by_seat = {seat: given[user] for seat, user in enumerate(seat_users) if user in given}
    contributions = contributions_canonical(by_seat)
    record = {"derivation": DERIVATION, "contributions": contributions}
    return _Deal(shuffle.seed, deck_seed(shuffle.seed, contributions), record)


def _contributions(shuffle_ids: list[int]) -> dict[int, dict[int, str]]:
    """Each shuffle's contributions, user id to value, in one read, the shuffles locked (see
    `shuffle_contribution_save`) until the caller's transaction that deals ends: `match_start`'s,
    or the one a tournament opens a round's tables in."""
    found: dict[int, dict[int, str]] = {shuffle_id: {} for shuffle_id in shuffle_ids}
    with transaction.atomic():
        list(Shuffle.objects.select_for_update().filter(pk__in=shuffle_ids).order_by("pk").values_list("pk", flat=True))
        rows = ShuffleContribution.objects.filter(shuffle_id__in=shuffle_ids).values_list("shuffle_id", "user_id", "value")
        for shuffle_id, user_id, value in rows:
            found[shuffle_id][user_id] = value
    return found


def _match_started_fact(match: Match, seats: list[Seat], deal: _Deal) -> dict:
    """The table's opening fact: who sits where, the public commitment to the seed and, for a
    contributed shuffle, what the deck's seed was derived from.

    A person sits by account id (`user`) and a bot by its name (`bot`); no person's name is
    written: the log never changes, and a deleted account's name must not outlive it there
    (issue #39). Readers take the name from the account (`Seat.shown_name`). Matches started
    before carry a `name` per seat too, the name shown then."""
    fact = {
        "type": "MatchStarted",
        "game": match.game,
        "engine_version": getattr(ENGINES[match.game], "version", 1),
        "players": match.players,
        "rated": match.rated,
        "seats": [
            {"seat": s.seat, "user": s.user_id, "bot": s.bot}
            for s in seats
        ],
        "seed_sha256": seed_sha256(deal.seed),
    }
    if deal.shuffle is not None:
        fact["shuffle"] = deal.shuffle
    return fact
