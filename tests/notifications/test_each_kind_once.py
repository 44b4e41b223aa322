"""Each kind of notification is made once per fact and person, however often its producer runs:
a match's end, a round paired and started, an invitation by name, and a turn waited on."""
from __future__ import annotations

import datetime as dt
import importlib
from types import SimpleNamespace

import pytest
from django.apps import apps as django_apps
from django.core import mail
from django.db import connection

from games import services as game_services
from games.models import Seat
from notifications import services
from notifications.models import Notification, NotificationPreference
from tests.conftest import client_for
from tests.games.builders import finished_match
from tests.games.helpers import play_to_end, started_match
from tests.tournaments.builders import make_tournament
from tournaments import services as tournament_services
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db


def told(user, kind: str) -> list[Notification]:
    return list(Notification.objects.filter(user=user, kind=kind))


def test_a_finished_match_tells_each_person_seated_once(alice, bob):
    match = finished_match("the-game", [alice, bob], seed=3)
    assert len(services.match_finished_notify(match_id=match.pk)) == 2
    assert services.match_finished_notify(match_id=match.pk) == []  # a repeated task
    [note] = told(alice, "match_finished")
    assert note.key == str(match.pk) and note.data["url"] == f"/tables/{match.pk}" and note.read_at is None
    # A game whose name starts with "The" reads once ("The The Game match" before).
    assert note.data["body"] == f"Your match of The Game at table {match.pk} has ended: see how it finished."


def test_a_running_match_is_not_told_as_finished(alice, bob):
    assert services.match_finished_notify(match_id=started_match("the-game", [alice, bob])) == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_match_played_to_its_end_tells_its_players_through_the_match_finished_hook(alice, bob, eager_tasks):
    match_id = started_match("the-game", [alice, bob])
    play_to_end(match_id, [alice, bob])
    assert [n.key for n in told(alice, "match_finished")] == [str(match_id)]
    assert [n.key for n in told(bob, "match_finished")] == [str(match_id)]


def test_a_round_paired_and_started_tells_each_person_once_and_no_bot(alice, bob, carol):
    tournament = make_tournament(alice, people=(alice, bob, carol), bots=1)
    tournament_services.tournament_start(tournament_id=tournament.pk, user=alice)
    paired = TournamentEvent.objects.get(tournament=tournament, type="RoundPaired")
    started = TournamentEvent.objects.get(tournament=tournament, type="RoundStarted")
    assert len(services.round_notify(tournament_id=tournament.pk, seq=paired.seq)) == 3
    assert len(services.round_notify(tournament_id=tournament.pk, seq=started.seq)) == 3
    for event in (paired, started):
        assert services.round_notify(tournament_id=tournament.pk, seq=event.seq) == []
    [note] = told(bob, "round_paired")
    assert note.data["title"] == f"Round 1 of {tournament.name} is paired"
    assert note.data["body"].startswith("You play at table ")
    [note] = told(bob, "round_started")
    assert note.data["url"].startswith("/tables/")
    # The table's number in the round, as the pairing told it (the match's id before).
    [table] = [t for t in paired.data["tables"] if bob_entrant(tournament, bob) in t["seats"]]
    assert note.data["body"] == f"Your table is open: table {table['table']}."
    assert Notification.objects.count() == 6  # the bot is told nothing


def bob_entrant(tournament, user) -> int:
    return tournament.entrants.get(user=user).pk


def test_a_round_started_in_batches_tells_the_people_of_every_batch(alice, bob, carol, settings):
    """Regression: only the last batch's tables (RoundStarted) were told; the earlier batches'
    (TablesStarted) never heard that their table had opened."""
    settings.TOURNAMENT_TABLES_PER_BATCH = 1
    tournament = make_tournament(alice, people=(alice, bob, carol), bots=1)
    tournament_services.tournament_start(tournament_id=tournament.pk, user=alice)
    assert tournament_services.tournament_advance(tournament_id=tournament.pk) == ["tables-started", "round-started"]
    started = list(TournamentEvent.objects.filter(tournament=tournament, type__in=["TablesStarted", "RoundStarted"]))
    assert [e.type for e in started] == ["TablesStarted", "RoundStarted"]
    told_people = [services.round_notify(tournament_id=tournament.pk, seq=e.seq) for e in started]
    assert all(told_people) and sum(map(len, told_people)) == 3
    assert Notification.objects.filter(kind="round_started").count() == 3


def test_a_tournament_event_of_another_type_tells_nobody(alice, bob):
    tournament = make_tournament(alice, people=(alice, bob))
    created = TournamentEvent.objects.filter(tournament=tournament).first()
    assert services.round_notify(tournament_id=tournament.pk, seq=created.seq) == []


def test_an_invitation_by_name_tells_the_invitee_alone_and_keeps_no_copy_of_its_secret(alice, bob, carol):
    """Regression (#39): the link's secret sat in clear in the invitee's notification row, where
    the README promises the server keeps only its SHA-256."""
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    made = client_for(alice).post(f"/api/matches/{match.pk}/invitations", {"username": "bob", "seat": 2}, format="json")
    assert made.status_code == 201 and made.json()["invitee"] == "bob"
    [note] = told(bob, "invited")
    assert note.data["url"] == f"/tables/{match.pk}" and note.key == str(made.json()["id"])
    token = made.json()["token"]
    assert not Notification.objects.filter(data__icontains=token).exists()
    assert not Notification.objects.exclude(user=bob).exists()
    refused = client_for(carol).post(f"/api/invitations/{token}/accept", {}, format="json")
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "invitation_for_someone_else")
    assert client_for(bob).post(f"/api/invitations/{token}/accept", {}, format="json").status_code == 200


def test_the_invitee_sits_down_from_the_table_in_the_invited_seat_and_nobody_else_does(alice, bob, carol):
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    client_for(alice).post(f"/api/matches/{match.pk}/invitations", {"username": "bob", "seat": 2}, format="json")
    join = f"/api/matches/{match.pk}/join"
    stranger = client_for(carol).post(join, {}, format="json")
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (404, "match_not_found")  # no table to her
    other_seat = client_for(bob).post(join, {"seat": 1}, format="json")
    assert (other_seat.status_code, other_seat.json()["error"]["code"]) == (403, "private_table")
    assert client_for(bob).post(join, {"seat": 2}, format="json").status_code == 200
    assert Seat.objects.get(match=match, user=bob).seat == 2


def test_a_revoked_addressed_invitation_sits_nobody_from_the_table(alice, bob):
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    made = client_for(alice).post(f"/api/matches/{match.pk}/invitations", {"username": "bob"}, format="json").json()
    client_for(alice).delete(f"/api/matches/{match.pk}/invitations/{made['id']}")
    refused = client_for(bob).post(f"/api/matches/{match.pk}/join", {}, format="json")
    # Revoked: bob is a stranger to the table again, and to a stranger it is no table (issue #39).
    assert (refused.status_code, refused.json()["error"]["code"]) == (404, "match_not_found")
    assert not Seat.objects.filter(match=match, user=bob).exists()


@pytest.mark.parametrize(("username", "status", "code"), [("nobody", 404, "user_not_found"), ("alice", 409, "already_seated")])
def test_an_invitation_to_an_unknown_or_seated_person_is_refused_and_makes_nothing(alice, username, status, code):
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    answer = client_for(alice).post(f"/api/matches/{match.pk}/invitations", {"username": username}, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (status, code)
    assert not match.invitations.exists() and not Notification.objects.exists()


def test_an_invitation_without_a_name_is_a_link_for_anyone_and_tells_nobody(alice, carol):
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    made = client_for(alice).post(f"/api/matches/{match.pk}/invitations", {}, format="json").json()
    assert made["invitee"] is None and not Notification.objects.exists()
    assert client_for(carol).post(f"/api/invitations/{made['token']}/accept", {}, format="json").status_code == 200


def _age_head(match_id: int, seconds: float) -> None:
    """Moves the head event's time back (the event table refuses UPDATE: as a replica would)."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            "UPDATE games_event SET created = created - %s WHERE match_id = %s AND seq = "
            "(SELECT last_seq FROM games_match WHERE id = %s)",
            [dt.timedelta(seconds=seconds), match_id, match_id],
        )
        cursor.execute("SET LOCAL session_replication_role = DEFAULT")


@pytest.mark.postgres
def test_your_turn_is_told_after_the_delay_once_and_only_to_the_person_awaited(alice, bob, settings):
    settings.NOTIFY_TURN_DELAY_SECONDS = 60
    match_id = started_match("the-game", [alice, bob])
    assert services.turn_notify_sweep() == 0  # not before the delay
    _age_head(match_id, 61)
    assert services.turn_notify_sweep() == 1
    assert services.turn_notify_sweep() == 0  # the same decision is told once
    awaited = client_for(alice).get(f"/api/matches/{match_id}/view").json()["view"]["to_act"]
    [note] = Notification.objects.filter(kind="your_turn")
    assert note.user == [alice, bob][awaited[0]] and note.key.startswith(f"{match_id}:")


@pytest.mark.postgres
def test_your_turn_is_never_told_to_a_seat_the_bot_plays_nor_when_the_delay_is_zero(alice, bob, settings):
    match_id = started_match("the-game", [alice, bob])
    Seat.objects.filter(match_id=match_id).update(abandoned=True)  # the fallback bot plays both
    _age_head(match_id, 3600)
    settings.NOTIFY_TURN_DELAY_SECONDS = 0
    assert services.turn_notify_sweep() == 0
    settings.NOTIFY_TURN_DELAY_SECONDS = 60
    assert services.turn_notify_sweep() == 0
    assert not Notification.objects.exists()


def test_the_browser_off_keeps_the_row_read_and_email_on_mails_exactly_once(alice, bob, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_URL = "https://cards.example.org"
    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])
    NotificationPreference.objects.create(user=alice, kind="match_finished", browser=False, email=True)
    match = finished_match("the-game", [alice, bob], seed=3)
    [mine, theirs] = sorted(services.match_finished_notify(match_id=match.pk))
    assert Notification.objects.get(pk=mine).read_at is not None  # kept, never counted as new
    assert Notification.objects.get(pk=theirs).read_at is None
    assert services.notification_email_send(notification_id=mine) is True
    assert services.notification_email_send(notification_id=mine) is False  # a task run twice
    [sent] = mail.outbox
    assert sent.to == ["alice@example.org"] and f"https://cards.example.org/tables/{match.pk}" in sent.body


def test_no_mail_without_the_choice_or_without_an_address(alice, bob, settings, django_capture_on_commit_callbacks):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    NotificationPreference.objects.create(user=bob, kind="match_finished", email=True)  # bob has no e-mail
    alice.email = "alice@example.org"
    alice.save(update_fields=["email"])  # alice has one, but chose no mail
    match = finished_match("the-game", [alice, bob], seed=3)
    with django_capture_on_commit_callbacks() as callbacks:
        services.match_finished_notify(match_id=match.pk)
    assert len(callbacks) == 1  # the push to the sockets; no mail queued
    assert mail.outbox == []


def test_the_migration_takes_the_secret_out_of_invitation_notifications_made_before(alice, bob):
    match = game_services.match_create(user=alice, game="ten", players=3, rated=False, private=True)
    _invitation, token = game_services.invitation_create(match_id=match.pk, user=alice, username="bob")
    Notification.objects.filter(user=bob, kind="invited").update(data={"title": "t", "body": "b", "url": f"/invite/{token}"})
    scrub = importlib.import_module("notifications.migrations.0002_invited_links_without_secrets").links_to_tables
    scrub(django_apps, SimpleNamespace(connection=connection))
    [note] = told(bob, "invited")
    assert note.data == {"title": "t", "body": "b", "url": f"/tables/{match.pk}"}
