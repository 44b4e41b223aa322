"""A scripted open Swiss of 64 with everything a real field does: no-shows at check-in, a waitlist
of 5, 3 late entries, 2 drops and 1 re-entry, run to its end with no organiser action after the
setup. Every change to the field is in its decisions log with the rule that made it, each was
offered to the organiser's webhook, and the rebuild from the log equals the incremental rows.

The scheduler's and the workers' parts are played here synchronously: `tournament_advance` at the
start time, and each round's tables played out and reported as the match-finished task would.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest
from django.utils import timezone

from tests.conftest import make_user
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    finish_round,
    play_to_end,
    reloaded,
)
from tournaments import selectors, services, webhooks
from tournaments.field_rules import RULES
from tournaments.models import Entrant, Round, RoundTable, TournamentEvent, WebhookDelivery

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

_FIELD_EVENTS = set(webhooks.KINDS) - {"RoundPaired", "TableResult", "ForfeitAwarded", "ResultCorrected",
                                       "TournamentFinished"}


def test_an_open_swiss_of_64_runs_itself_with_every_decision_logged_with_its_rule(alice):
    starts = timezone.now() + dt.timedelta(minutes=10)
    tournament = services.tournament_create(
        organiser=alice, name="Open 64", game="sequence-stacks", format="swiss", match_options={"turn_limit": 2},
        rated=False, starts_at=starts, max_entrants=64,
        field_rules={"check_in_minutes": 30, "waitlist": 5, "late_entry": True, "reentry": True},
    )
    hook = webhooks.webhook_create(
        tournament_id=tournament.pk, user=alice, url="https://example.org/hook", kinds=["field.changed"]
    )
    players = [make_user(f"player{n}") for n in range(24)]
    waiters = [make_user(f"waiter{n}") for n in range(5)]
    late = [make_user(f"late{n}") for n in range(3)]
    for person in players:
        services.entrant_register(tournament_id=tournament.pk, user=person)
    for _ in range(40):
        services.entrant_bot_add(tournament_id=tournament.pk, user=alice, bot="random")
    for person in waiters:
        assert services.entrant_register(tournament_id=tournament.pk, user=person).status == "waitlisted"

    # Check-in: 6 of the 64 (10 %) never do; 3 of the 5 waiting do.
    no_shows, present = players[:6], players[6:]
    for person in present + waiters[:3]:
        services.entrant_check_in(tournament_id=tournament.pk, user=person, now=starts - dt.timedelta(minutes=5))

    # From here on, nobody organises: the server starts it at its time.
    assert services.tournament_advance(tournament_id=tournament.pk, now=starts)[0] == "started"
    organiser_seq = reloaded(tournament).last_seq
    field = TournamentEvent.objects.get(tournament=tournament, type="TournamentStarted").data["field"]
    assert len(field) == 64 - 6 + 3
    assert TournamentEvent.objects.get(tournament=tournament, type="TournamentStarted").data["rounds"] == 6

    services.entrant_register(tournament_id=tournament.pk, user=late[0])  # during round 1: plays from 2
    finish_round(tournament)
    for person in late[1:]:  # during round 2: from round 3, the last a late entrant may join
        services.entrant_register(tournament_id=tournament.pk, user=person)
    dropping = present[:2]
    for person in dropping:
        services.entrant_withdraw(tournament_id=tournament.pk, user=person)
    finish_round(tournament)
    services.entrant_reenter(tournament_id=tournament.pk, user=dropping[0])
    tournament = play_to_end(tournament)

    assert tournament.status == "finished"
    assert Round.objects.filter(tournament=tournament).count() == 6
    organised = TournamentEvent.objects.filter(tournament=tournament, seq__gt=organiser_seq, actor=f"user:{alice.pk}")
    assert not organised.exists()

    decisions = selectors.field_decisions(tournament)
    assert all(d["rule"] in RULES and d["why"] for d in decisions)
    counted = Counter(d["rule"] for d in decisions)
    assert counted == {
        "waitlist.joined": 5,
        "check_in.checked_in": 18 + 3,
        "check_in.missed": 6,
        "waitlist.promoted": 3,
        "waitlist.closed": 1,
        "late_entry.joined": 3,
        "drop.requested": 2,
        "reentry.player": 1,
    }
    named = {(d["rule"], e["id"]) for d in decisions for e in d["entrants"]}
    entrant = {e.user_id: e.pk for e in Entrant.objects.filter(tournament=tournament, user__isnull=False)}
    assert {("check_in.missed", entrant[p.pk]) for p in no_shows} <= named
    assert {("waitlist.closed", entrant[p.pk]) for p in waiters[3:]} <= named
    # Every decision of the field is an event with its rule, and went to the webhook.
    field_events = TournamentEvent.objects.filter(tournament=tournament, type__in=_FIELD_EVENTS)
    assert all(event.data.get("rule") in RULES for event in field_events)
    assert WebhookDelivery.objects.filter(webhook=hook).count() == field_events.count() == len(decisions)

    standings = {row["entrant"]["id"]: row for row in selectors.standings(tournament)}
    assert len(standings) == 64
    assert standings[entrant[dropping[1].pk]]["withdrawn"] is True
    assert standings[entrant[dropping[0].pk]]["withdrawn"] is False
    for person in late:
        assert standings[entrant[person.pk]]["byes"] >= 1  # the one bye for the rounds missed
    seated_late = {
        seat for table in RoundTable.objects.filter(round__tournament=tournament, round__number__gte=4)
        for seat in table.seats
    }
    assert {entrant[p.pk] for p in late} | {entrant[dropping[0].pk]} <= seated_late
    assert entrant[dropping[1].pk] not in seated_late
    assert_rebuild_equals_incremental(tournament)
