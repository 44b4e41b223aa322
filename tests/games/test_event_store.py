"""The event store: append-only in the database itself, hash-chained, verified by `verify_events`."""
from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction

from games.chain import canonical_time, event_hash
from games.models import Event, Match
from games.selectors import verify_match
from tests.conftest import client_for
from tests.games.helpers import play_to_end, started_match

pytestmark = pytest.mark.django_db


def rehashed(previous: str, row: Event, data: dict) -> str:
    """The hash a forger would give `row` with `data`, under its match's chain version."""
    return event_hash(
        previous, version=row.match.chain_version, seq=row.seq, kind=row.kind, type=row.type, actor=row.actor,
        data=data, created=canonical_time(row.created),
    )


@pytest.fixture
def finished_match(alice):
    match_id = started_match("the-game", [alice])
    play_to_end(match_id, [alice])
    return match_id


def test_a_raw_sql_update_of_an_event_fails(finished_match):
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE games_event SET actor = 'forger' WHERE match_id = %s", [finished_match])
    assert not Event.objects.filter(actor="forger").exists()


def test_a_raw_sql_delete_of_an_event_fails(finished_match):
    count = Event.objects.filter(match_id=finished_match).count()
    with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM games_event WHERE match_id = %s", [finished_match])
    assert Event.objects.filter(match_id=finished_match).count() == count


def test_the_orm_cannot_update_an_event_either(finished_match):
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(match_id=finished_match).update(type="Nothing")


def test_each_event_hash_chains_to_the_previous_one(finished_match):
    previous = ""
    for event in Event.objects.filter(match_id=finished_match).select_related("match").order_by("seq"):
        assert event.hash == rehashed(previous, event, event.data)
        previous = event.hash
    assert Match.objects.get(pk=finished_match).head_hash == previous


def test_verify_events_passes_an_untouched_log(finished_match, capsys):
    call_command("verify_events", "--match", str(finished_match), verbosity=0)
    assert "1 matches checked" in capsys.readouterr().out


def _drop_triggers(cursor):
    if connection.vendor == "postgresql":
        cursor.execute("DROP TRIGGER games_event_append_only ON games_event")
    else:
        cursor.execute("DROP TRIGGER games_event_no_update")
        cursor.execute("DROP TRIGGER games_event_no_delete")


def _tamper_and_verify(match_id, sql, params, capsys):
    """Alters the log behind the trigger's back (rolled back afterwards) and runs verify_events."""
    with pytest.raises(SystemExit) as exit_info:
        with transaction.atomic():
            with connection.cursor() as cursor:
                _drop_triggers(cursor)
                cursor.execute(sql, params)
            try:
                call_command("verify_events", "--match", str(match_id), verbosity=0)
            finally:
                transaction.set_rollback(True)
    assert exit_info.value.code == 1
    return capsys.readouterr()


def test_verify_events_reports_an_event_altered_behind_the_triggers_back(finished_match, capsys):
    event = Event.objects.filter(match_id=finished_match, type="CardPlayed").order_by("seq").first()
    forged = dict(event.data, pile=(event.data["pile"] + 1) % 4)

    out = _tamper_and_verify(
        finished_match, "UPDATE games_event SET data = %s WHERE id = %s", [json.dumps(forged), event.pk], capsys
    )
    assert f"seq {event.seq}: hash does not match" in out.err
    assert "1 mismatches" in out.out


def test_verify_events_reports_a_deleted_event(finished_match, capsys):
    out = _tamper_and_verify(
        finished_match, "DELETE FROM games_event WHERE match_id = %s AND seq = 5", [finished_match], capsys
    )
    assert "seq 5: found seq 6 instead" in out.err


def test_verify_events_reports_a_rehashed_forgery_that_breaks_the_rules(alice, capsys):
    """Rewriting an event and every hash after it still fails: the move no longer causes the events."""
    match_id = started_match("the-game", [alice])
    play_to_end(match_id, [alice])
    rows = list(Event.objects.filter(match_id=match_id).select_related("match").order_by("seq"))
    target = next(r for r in rows if r.type == "CardPlayed")
    previous = ""
    updates = []
    for row in rows:
        data = dict(row.data, pile=(row.data["pile"] + 1) % 4) if row.pk == target.pk else row.data
        previous = rehashed(previous, row, data)
        updates.append((data, previous, row.pk))

    with pytest.raises(SystemExit), transaction.atomic():
        with connection.cursor() as cursor:
            _drop_triggers(cursor)
            for data, new_hash, pk in updates:
                cursor.execute("UPDATE games_event SET data = %s, hash = %s WHERE id = %s", [json.dumps(data), new_hash, pk])
            cursor.execute("UPDATE games_match SET head_hash = %s WHERE id = %s", [previous, match_id])
        try:
            call_command("verify_events", "--match", str(match_id), verbosity=0)
        finally:
            transaction.set_rollback(True)
    assert "not what the move causes" in capsys.readouterr().err


def test_verify_events_checks_the_shuffle_against_the_revealed_seed(alice, capsys):
    match_id = started_match("the-game", [alice])
    play_to_end(match_id, [alice])
    with pytest.raises(SystemExit), transaction.atomic():
        with connection.cursor() as cursor:
            _drop_triggers(cursor)
            # A forger who swaps the seed (and re-hashes) cannot match the commitment made at the start.
            rows = list(Event.objects.filter(match_id=match_id).select_related("match").order_by("seq"))
            previous = ""
            for row in rows:
                data = dict(row.data, seed=row.data["seed"] + 1) if row.type == "GameStarted" else row.data
                previous = rehashed(previous, row, data)

                cursor.execute("UPDATE games_event SET data = %s, hash = %s WHERE id = %s", [json.dumps(data), previous, row.pk])
            cursor.execute("UPDATE games_match SET head_hash = %s WHERE id = %s", [previous, match_id])
        try:
            call_command("verify_events", "--match", str(match_id), verbosity=0)
        finally:
            transaction.set_rollback(True)
    assert "SHA-256 published at the start" in capsys.readouterr().err


# --- chain versions: version 2 covers each event's time ------------------------------------


def _shift_time_sql(event: Event, delta: timedelta) -> tuple[str, list]:
    moved = Event._meta.get_field("created").get_db_prep_save(event.created + delta, connection)
    return "UPDATE games_event SET created = %s WHERE id = %s", [moved, event.pk]


def test_a_new_match_hashes_each_events_type_and_time_under_chain_version_2(finished_match):
    assert Match.objects.get(pk=finished_match).chain_version == 2
    previous = ""
    for event in Event.objects.filter(match_id=finished_match).order_by("seq"):
        assert event.hash == event_hash(
            previous, version=2, seq=event.seq, kind=event.kind, type=event.type, actor=event.actor, data=event.data,
            created=canonical_time(event.created),
        )
        previous = event.hash


@pytest.mark.parametrize("delta", [timedelta(microseconds=1), timedelta(hours=-1)], ids=["1 µs", "an hour earlier"])
def test_verify_events_reports_a_moves_time_changed_in_the_database_naming_its_seq(finished_match, delta, capsys):
    """The point of version 2: a move's time is no longer the database owner's to change unseen."""
    event = Event.objects.filter(match_id=finished_match, type="MovePlayed").order_by("seq")[3]
    out = _tamper_and_verify(finished_match, *_shift_time_sql(event, delta), capsys)
    assert f"match {finished_match}: seq {event.seq}: hash does not match" in out.err
    assert "1 mismatches" in out.out


def test_a_changed_type_column_is_found_under_version_2(finished_match, capsys):
    event = Event.objects.filter(match_id=finished_match, type="CardPlayed").order_by("seq").first()
    out = _tamper_and_verify(
        finished_match, "UPDATE games_event SET type = 'CardsPlayed' WHERE id = %s", [event.pk], capsys
    )
    assert f"seq {event.seq}: hash does not match" in out.err


def test_a_match_opened_before_version_2_keeps_chain_version_1_and_verifies_under_it(alice, bob, capsys):
    """A table stored before the upgrade (the migration gave it version 1) is played on under version
    1, and verifies as its old events always did; its times stay outside its hash, as documented."""
    owner = client_for(alice)
    match_id = owner.post("/api/matches", {"game": "the-game", "players": 2}, format="json").json()["id"]
    Match.objects.filter(pk=match_id).update(chain_version=1)
    assert client_for(bob).post(f"/api/matches/{match_id}/join", {}, format="json").status_code == 200
    assert owner.post(f"/api/matches/{match_id}/start").status_code == 200
    play_to_end(match_id, [alice, bob])
    match = Match.objects.get(pk=match_id)
    assert match.chain_version == 1 and verify_match(match).ok
    previous = ""
    for event in Event.objects.filter(match_id=match_id).order_by("seq"):
        assert event.hash == event_hash(
            previous, version=1, seq=event.seq, kind=event.kind, type="", actor=event.actor, data=event.data, created=""
        )
        previous = event.hash
    event = Event.objects.filter(match_id=match_id, type="MovePlayed").first()
    with transaction.atomic():
        with connection.cursor() as cursor:
            _drop_triggers(cursor)
            cursor.execute(*_shift_time_sql(event, timedelta(hours=1)))
        try:
            call_command("verify_events", "--match", str(match_id), verbosity=0)
        finally:
            transaction.set_rollback(True)
    assert "0 mismatches" in capsys.readouterr().out
