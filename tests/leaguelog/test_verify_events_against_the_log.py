"""verify_events holds each logged match's head against the league log: a match rewritten in the
database so that another account played it, every hash recomputed, no longer passes."""
from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from games.models import Event
from leaguelog import services
from tests.conftest import make_user
from tests.games.builders import finished_match
from tests.games.test_event_store import _drop_triggers, rehashed

pytestmark = pytest.mark.django_db


def test_a_match_rewritten_for_another_player_and_rehashed_disagrees_with_the_log(alice, bob, capsys):
    match = finished_match("sequence-stacks", [alice, bob])
    services.log_integrate()
    call_command("verify_events", "--match", str(match.pk), verbosity=0)  # as stored: no problem
    mallory = make_user("mallory")
    rows = list(Event.objects.filter(match=match).select_related("match").order_by("seq"))
    with pytest.raises(SystemExit), transaction.atomic():
        with connection.cursor() as cursor:
            _drop_triggers(cursor)
            previous = ""
            for row in rows:
                row.actor = f"user:{mallory.pk}" if row.actor == f"user:{alice.pk}" else row.actor
                previous = rehashed(previous, row, row.data)
                cursor.execute("UPDATE games_event SET actor = %s, hash = %s WHERE id = %s", [row.actor, previous, row.pk])
            cursor.execute("UPDATE games_match SET head_hash = %s WHERE id = %s", [previous, match.pk])
            cursor.execute("UPDATE games_seat SET user_id = %s WHERE match_id = %s AND user_id = %s",
                           [mallory.pk, match.pk, alice.pk])
        try:
            call_command("verify_events", "--match", str(match.pk), verbosity=0)
        finally:
            transaction.set_rollback(True)
    assert "the league log holds head" in capsys.readouterr().err
