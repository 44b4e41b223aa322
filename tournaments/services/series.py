"""Series of tournaments (circuits): creating one, its rules, and the tournaments it counts.

Each write is one decision appended to the series' own stream (`SeriesDecision`, gapless from 1,
append-only, taken into the league log by its trigger) and applied to the `Series` row and its
`SeriesEvent`s in the same transaction, under the series' row lock: one writer at a time per
series, so `seq` stays gapless. A refused write raises a coded error and writes nothing. The
organiser manages their own series; staff manage any. Any tournament of the series' games held
in its season may be counted: its results are public, whoever organised it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import User
from games.engines import ENGINES
from server.errors import ApplicationError, bad_request, conflict, english_or, forbidden, not_found
from tournaments import webhooks
from tournaments.models import Series, SeriesDecision, SeriesEvent, Tournament
from tournaments.series import SeriesRules, rules_from_json, rules_json
from tournaments.services._stream import actor_of


def series_create(
    *, organiser: User, name: str, games: Sequence[str], starts_on: dt.date, ends_on: dt.date,
    rules: dict[str, Any] | None = None,
) -> Series:
    """Creates a series organised by `organiser`; without `rules` it counts by the circuit's
    table (`tournaments.series.CIRCUIT_POINTS`), every result counting."""
    chosen = sorted(set(games))
    unknown = [game for game in chosen if game not in ENGINES]
    if unknown or not chosen:
        raise bad_request(
            "unknown_game", _("No game is called %(game)s.") % {"game": repr(unknown[0] if unknown else "")},
            games=sorted(ENGINES),
        )
    if ends_on < starts_on:
        raise bad_request("bad_season", _("A season ends on or after the day it starts."))
    checked = _rules_checked(rules or {})
    with transaction.atomic():
        series = Series.objects.create(
            name=name, games=chosen, starts_on=starts_on, ends_on=ends_on, organiser=organiser, rules=rules_json(checked)
        )
        _decide(series, "SeriesCreated", {
            "name": name, "games": chosen, "starts_on": starts_on.isoformat(), "ends_on": ends_on.isoformat(),
            "organiser": organiser.pk, "rules": series.rules,
        }, user=organiser)
    return series


def series_rules_set(*, series_id: int, user: User, rules: dict[str, Any]) -> Series:
    """Sets the series' points table, best N and field scaling. Every tier a counted tournament is
    at must stay in the table (409 `tier_in_use`). The same rules again decide nothing."""
    with transaction.atomic():
        series = _managed(series_id, user)
        checked = rules_json(_rules_checked(rules))
        in_use = set(series.events.values_list("tier", flat=True))
        dropped = sorted(tier for tier in in_use if str(tier) not in checked["points"])
        if dropped:
            raise conflict(
                "tier_in_use",
                _("The series counts tournaments at tier %(tiers)s: change their tier before dropping it.")
                % {"tiers": ", ".join(map(str, dropped))},
                tiers=dropped,
            )
        if checked != series.rules:
            series.rules = dict(checked)
            series.save(update_fields=["rules"])
            _decide(series, "SeriesRulesSet", {"rules": series.rules}, user=user)
    return series


def series_event_add(*, series_id: int, user: User, tournament_id: int, tier: int) -> SeriesEvent:
    """Counts a tournament in the series at `tier`: one of the series' games, held within its
    season (its start time if set, else when it was created), at a tier of its points table."""
    with transaction.atomic():
        series = _managed(series_id, user)
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            raise not_found(
                "tournament_not_found", _("There is no tournament %(tournament_id)s.") % {"tournament_id": tournament_id}
            )
        if tournament.game not in series.games:
            raise ApplicationError("series_game_mismatch", _("The series is of %(games)s, the tournament of %(game)s.") % {
                "games": ", ".join(series.games), "game": tournament.game,
            })
        held = timezone.localdate(tournament.starts_at or tournament.created_at)
        if not series.starts_on <= held <= series.ends_on:
            raise ApplicationError("outside_season", _("The tournament is held on %(day)s, outside the season "
                                                       "(%(starts)s to %(ends)s).") % {
                "day": held.isoformat(), "starts": series.starts_on.isoformat(), "ends": series.ends_on.isoformat(),
            })
        _require_tier(series, tier)
        if SeriesEvent.objects.filter(series=series, tournament=tournament).exists():
            raise conflict("already_in_series", _("The series already counts tournament %(tournament_id)s.")
                           % {"tournament_id": tournament_id})
        event = SeriesEvent.objects.create(series=series, tournament=tournament, tier=tier)
        _decide(series, "SeriesEventAdded", {"tournament": tournament.pk, "tier": tier}, user=user)
    return event


def series_event_tier_change(*, series_id: int, user: User, tournament_id: int, tier: int) -> SeriesEvent:
    """Moves a counted tournament to another tier of the series' table (its own tier: no decision)."""
    with transaction.atomic():
        series = _managed(series_id, user)
        event = _series_event(series, tournament_id)
        _require_tier(series, tier)
        if event.tier != tier:
            _decide(series, "SeriesEventTierChanged", {"tournament": tournament_id, "tier": tier, "from": event.tier},
                    user=user)
            event.tier = tier
            event.save(update_fields=["tier"])
    return event


def series_event_remove(*, series_id: int, user: User, tournament_id: int) -> None:
    """The series stops counting the tournament."""
    with transaction.atomic():
        series = _managed(series_id, user)
        _series_event(series, tournament_id).delete()
        _decide(series, "SeriesEventRemoved", {"tournament": tournament_id}, user=user)


# --- helpers --------------------------------------------------------------------------------


def _managed(series_id: int, user: User) -> Series:
    """The series' row, locked until the transaction ends (its stream's single writer), once the
    caller may manage it: its organiser, or staff."""
    series = Series.objects.select_for_update().filter(pk=series_id).first()
    if series is None:
        raise not_found("series_not_found", _("There is no series %(series_id)s.") % {"series_id": series_id})
    if not (user.is_staff or user.pk == series.organiser_id):
        raise forbidden("not_series_organiser", _("Only the series' organiser (or staff) may do that."))
    return series


def _decide(series: Series, kind: str, data: dict[str, Any], *, user: User) -> SeriesDecision:
    """Appends one decision at the head of the series' stream. Lock: the caller holds the row."""
    seq = series.last_seq + 1
    decision = SeriesDecision.objects.create(series=series, seq=seq, type=kind, data=data, actor=actor_of(user))
    Series.objects.filter(pk=series.pk).update(last_seq=seq)
    series.last_seq = seq
    webhooks.series_deliveries_create(series, decision)
    return decision


def _rules_checked(rules: dict[str, Any]) -> SeriesRules:
    try:
        return rules_from_json(rules)
    except (ValueError, TypeError) as error:
        raise bad_request(
            "bad_series_rules", english_or(f"The series' rules are not valid: {error}", _("The series' rules are not valid."))
        ) from None


def _require_tier(series: Series, tier: int) -> None:
    if str(tier) not in series.rules["points"]:
        raise ApplicationError("unknown_tier", _("The series' points table has no tier %(tier)s (it has %(tiers)s).") % {
            "tier": tier, "tiers": ", ".join(series.rules["points"]),
        })


def _series_event(series: Series, tournament_id: int) -> SeriesEvent:
    event = SeriesEvent.objects.filter(series=series, tournament_id=tournament_id).first()
    if event is None:
        raise not_found("series_event_not_found", _("The series does not count tournament %(tournament_id)s.")
                        % {"tournament_id": tournament_id})
    return event
