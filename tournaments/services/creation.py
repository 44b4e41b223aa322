"""Creating a tournament: its format, options, field rules and seed, checked once and for all."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import User
from games import services as game_services
from games.engines import ENGINES
from games.models import SPECTATOR_DELAY_MOVES_DEFAULT, SpectatorPolicy
from server.errors import bad_request, english_or
from tournaments.field_rules import FieldRules
from tournaments.formats import FORMATS
from tournaments.models import Tournament
from tournaments.selectors import format_options_raw
from tournaments.services._stream import _append, _schedule, actor_of

DEFAULT_CLOCK_SECONDS = 120
DEFAULT_ROUND_SECONDS = 2 * 3600

# Option keys the server sets itself (from the game and the tournament's seed).
_SERVER_OPTIONS = frozenset({"min_players", "max_players", "cooperative", "seed"})


def tournament_create(
    *,
    organiser: User,
    name: str,
    game: str,
    format: str,
    options: dict[str, Any] | None = None,
    match_options: dict[str, Any] | None = None,
    starts_at: dt.datetime | None = None,
    round_seconds: int | None = DEFAULT_ROUND_SECONDS,
    clock_seconds: int = DEFAULT_CLOCK_SECONDS,
    rated: bool = True,
    max_entrants: int | None = None,
    contributed_shuffle: bool = False,
    field_rules: dict[str, Any] | None = None,
    spectator_policy: str = SpectatorPolicy.OPEN,
    spectator_delay_moves: int = SPECTATOR_DELAY_MOVES_DEFAULT,
) -> Tournament:
    """Creates a tournament open for registration; with `starts_at` it starts by itself then.
    Its tables are watched as `spectator_policy` says (`games.services.spectator_policy_checked`).

    With `contributed_shuffle` each round's tables are dealt from the server's seed committed at
    the pairing and what their seated people send before the round starts (`games.shuffle`); the
    round then starts `TOURNAMENT_SHUFFLE_SECONDS` after its pairing, at the earliest."""
    if game not in ENGINES:
        raise bad_request("unknown_game", _("No game is called %(game)s.") % {"game": repr(game)}, games=sorted(ENGINES))
    if format not in FORMATS:
        raise bad_request(
            "unknown_format", _("No format is called %(format)s.") % {"format": repr(format)}, formats=sorted(FORMATS)
        )
    options = dict(options or {})
    reserved = sorted(_SERVER_OPTIONS & set(options))
    if reserved:
        raise bad_request("bad_options", _("The server sets %(options)s itself.") % {"options": ', '.join(reserved)})
    full = format_options_raw(game=game, options=options)
    try:
        FORMATS[format].options(full)
    except ValueError as exc:
        raise bad_request("bad_options", english_or(str(exc), _("The format does not take those options."))) from None
    if contributed_shuffle and full.get("duplicate"):
        raise bad_request(
            "duplicate_with_contributed_shuffle",
            _("Duplicate deals give every table of a round one deck, so no table's players can add to its shuffle."),
        )
    match_options = dict(match_options or {})
    _check_match_options(game, match_options)
    rules = _field_rules_checked(format, field_rules)
    spectator_policy, spectator_delay_moves = game_services.spectator_policy_checked(spectator_policy, spectator_delay_moves)
    seed = secrets.randbits(62)
    seed_sha256 = hashlib.sha256(str(seed).encode()).hexdigest()
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=name,
            game=game,
            format=format,
            options=full,
            match_options=match_options,
            organiser=organiser,
            starts_at=starts_at,
            round_seconds=round_seconds,
            clock_seconds=clock_seconds,
            rated=rated,
            max_entrants=max_entrants,
            field_rules=rules,
            seed=seed,
            seed_sha256=seed_sha256,
            contributed_shuffle=contributed_shuffle,
            spectator_policy=spectator_policy,
            spectator_delay_moves=spectator_delay_moves,
        )
        _append(
            tournament,
            "TournamentCreated",
            {
                "name": name,
                "game": game,
                "format": format,
                "options": full,
                "match_options": match_options,
                "starts_at": starts_at.isoformat() if starts_at else None,
                "round_seconds": round_seconds,
                "clock_seconds": clock_seconds,
                "rated": rated,
                "organiser": organiser.pk,
                "seed_sha256": seed_sha256,
                "contributed_shuffle": contributed_shuffle,
                **({"field_rules": rules} if rules else {}),
                # Only when not open, so an open tournament's first event is as it always was.
                **({"spectator_policy": spectator_policy} if spectator_policy != SpectatorPolicy.OPEN else {}),
                **({"spectator_delay_moves": spectator_delay_moves} if spectator_policy == SpectatorPolicy.DELAYED else {}),
            },
            actor=actor_of(organiser),
            key="created",
        )
        if starts_at is not None:
            _schedule(tournament.pk, starts_at)
    return tournament


def _field_rules_checked(format: str, raw: dict[str, Any] | None) -> dict[str, Any]:
    """The organiser's field rules, validated; {} when none were given (nothing changes)."""
    if not raw:
        return {}
    try:
        return FieldRules.parse(raw, format=format).as_dict()
    except (TypeError, ValueError) as exc:
        raise bad_request(
            "bad_field_rules", english_or(str(exc), _("The check-in, waitlist, late entry or no-show rules are not valid."))
        ) from None


def _check_match_options(game: str, match_options: dict[str, Any]) -> None:
    if "deck" in match_options:
        raise bad_request("bad_options", _("A tournament's tables are dealt by the server: no deck."))
    engine = ENGINES[game]
    try:
        engine.start(max(2, engine.min_players), 0, match_options)
    except ValueError as exc:
        raise bad_request(
            "bad_options", english_or(f"match_options: {exc}", _("The game does not take those match_options."))
        ) from None
