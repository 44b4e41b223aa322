"""Errors in the reader's language: a client sending `Accept-Language: cy` reads every error
message in Welsh (the codes and the field names stay as they are), one sending nothing reads
English. Also the sockets' error frames, and the mails a person is sent in their own language.
"""
from __future__ import annotations

import pytest
from celery.signals import task_prerun
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.core import mail
from django.utils import translation
from rest_framework import exceptions, fields, relations, serializers
from rest_framework.test import APIClient

from accounts.services import user_token
from games import services as game_services
from notifications import services as notification_services
from notifications.models import Notification, NotificationPreference
from server.asgi import application
from server.drf_errors import api_exception_handler
from server.errors import CATALOGUE
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match
from tournaments.field_rules import RULES
from tournaments.selectors import RULE_SENTENCES

pytestmark = pytest.mark.django_db
WELSH = {"HTTP_ACCEPT_LANGUAGE": "cy"}


def error_of(answer) -> dict:
    body = answer.json()["error"]
    assert answer.status_code == CATALOGUE[body["code"]].status
    return body


def test_a_missing_match_is_told_in_welsh_and_in_english_by_default(alice):
    client = client_for(alice)
    welsh, english = error_of(client.get("/api/matches/987654", **WELSH)), error_of(client.get("/api/matches/987654"))
    assert welsh == {"code": "match_not_found", "message": "Nid oes gornest 987654."}
    assert english == {"code": "match_not_found", "message": "There is no match 987654."}


def test_field_errors_are_welsh_and_keep_their_field_names(alice):
    welsh = error_of(client_for(alice).post("/api/matches", {"game": "ten"}, format="json", **WELSH))
    assert welsh["code"] == "invalid_input" and welsh["message"] == "Nid yw meysydd y cais yn ddilys."
    assert welsh["extra"]["fields"] == {"players": ["Mae angen y maes hwn."]}
    english = error_of(client_for(alice).post("/api/matches", {"game": "ten"}, format="json"))
    assert english["extra"]["fields"] == {"players": ["This field is required."]}


def test_a_conflict_and_a_refusal_in_welsh(alice, bob):
    match_id = started_match("the-game", [alice, bob])
    again = error_of(client_for(bob).post(f"/api/matches/{match_id}/join", {}, format="json", **WELSH))
    assert again == {"code": "match_not_open", "message": "Mae'r ornest eisoes wedi dechrau."}
    anonymous = error_of(APIClient().post("/api/matches", {"game": "ten", "players": 2}, format="json", **WELSH))
    assert anonymous == {"code": "not_authenticated", "message": "Ni roddwyd manylion dilysu."}
    carol = make_user("carol")
    outsider = error_of(client_for(carol).post(f"/api/matches/{match_id}/moves", {"move": {}}, format="json", **WELSH))
    assert outsider == {"code": "not_seated", "message": "Nid ydych yn eistedd wrth y bwrdd hwn."}


def test_an_engines_refusal_through_the_move_endpoint_is_welsh_and_keeps_its_english_detail(alice, bob):
    match_id = started_match("the-game", [alice, bob])
    view = client_for(bob).get(f"/api/matches/{match_id}/view").json()
    move = {"move": {"action": "end_turn"}, "expected_seq": view["seq"]}
    welsh = error_of(client_for(bob).post(f"/api/matches/{match_id}/moves", move, format="json", **WELSH))
    assert welsh == {"code": "not_your_turn", "message": "Nid eich tro chi yw hi."}
    english = error_of(client_for(bob).post(f"/api/matches/{match_id}/moves", move, format="json"))
    assert english == {"code": "not_your_turn", "message": "it is seat 0's turn"}  # the engine's own words


def test_the_accounts_language_is_not_the_apis_when_the_client_asks_for_another(alice):
    alice.language = "cy"
    alice.save(update_fields=["language"])
    asked = client_for(alice).get("/api/matches/987654", HTTP_ACCEPT_LANGUAGE="en")
    unasked = client_for(alice).get("/api/matches/987654")
    assert error_of(asked)["message"] == "There is no match 987654."
    assert error_of(unasked)["message"] == "Nid oes gornest 987654."


def test_a_weak_password_is_refused_in_welsh():
    answer = APIClient().post(
        "/api/auth/register", {"username": "dafydd", "password": "12345"}, format="json", **WELSH
    )
    body = error_of(answer)
    assert body["code"] == "weak_password"
    assert "Mae'r cyfrinair hwn yn rhy fyr" in body["message"] and "rhifau i gyd" in body["message"]


def _drf_messages() -> list[tuple[str, object]]:
    """DRF's own messages that an API answer can carry: every field's and every exception's."""
    found: list[tuple[str, object]] = []
    for module in (fields, relations, serializers):
        for name, field in vars(module).items():
            if isinstance(field, type) and issubclass(field, fields.Field):
                found += [(f"{name}.{key}", message) for key, message in field.default_error_messages.items()]
    for name, exception in vars(exceptions).items():
        if isinstance(exception, type) and issubclass(exception, exceptions.APIException):
            found.append((name, exception.default_detail))
    return found


@pytest.mark.parametrize(("where", "message"), _drf_messages(), ids=lambda value: value if isinstance(value, str) else "")
def test_every_drf_message_has_its_welsh(where, message):
    with translation.override("cy"):
        welsh = str(message)
    with translation.override("en-gb"):
        english = str(message)
    assert welsh != english, where


def test_the_reset_mail_is_written_in_the_requesters_language(eager_tasks, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    make_user("dafydd").__class__.objects.filter(username="dafydd").update(email="dafydd@example.org")
    languages: list[str] = []

    def record(sender=None, args=None, **kwargs):
        if sender is not None and sender.name == "accounts.tasks.password_reset_email_task":
            languages.append(args[1])

    task_prerun.connect(record, weak=False)
    try:
        for header in ("cy", "en"):
            answer = APIClient(REMOTE_ADDR=f"198.51.100.{len(languages) + 7}").post(
                "/api/auth/password-reset", {"email": "dafydd@example.org"}, format="json", HTTP_ACCEPT_LANGUAGE=header
            )
            assert answer.status_code in (200, 202, 204)
    finally:
        task_prerun.disconnect(record)
    assert languages == ["cy", "en-gb"] and len(mail.outbox) == 2


def test_an_invitation_is_told_and_mailed_in_the_invitees_language(alice, bob, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    bob.email, bob.language = "bob@example.org", "cy"
    bob.save(update_fields=["email", "language"])
    NotificationPreference.objects.create(user=bob, kind="invited", email=True)
    created = client_for(alice).post("/api/matches", {"game": "ten", "players": 2}, format="json").json()
    game_services.invitation_create(match_id=created["id"], user=alice, username="bob")  # tells bob
    [notification] = Notification.objects.filter(user=bob, kind="invited")
    assert notification_services.notification_email_send(notification_id=notification.pk)
    [sent] = mail.outbox
    assert sent.subject == "Card League: Mae Alice wedi eich gwahodd at fwrdd"
    assert sent.body.startswith("Bwrdd Deg i 2 (unrhyw sedd rydd).")
    assert 'e-byst ar gyfer "cawsoch eich gwahodd at fwrdd"' in sent.body


@database_sync_to_async
def _table_of_two() -> tuple[int, str]:
    alice, bob = make_user("alice"), make_user("bob")
    return started_match("the-game", [alice, bob]), user_token(user=bob)


async def _socket(match_id: int, token: str, language: str) -> WebsocketCommunicator:
    socket = WebsocketCommunicator(
        application, f"/ws/matches/{match_id}/?token={token}", headers=[(b"accept-language", language.encode())]
    )
    connected, _ = await socket.connect()
    assert connected
    return socket


async def _error_frame(socket: WebsocketCommunicator) -> dict:
    while (frame := await socket.receive_json_from(timeout=5))["type"] != "error":
        pass
    return frame


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
async def test_each_socket_reads_its_error_frames_in_its_own_language():
    """Two sockets of one person at one table, one Welsh and one English, their frames handled in
    turn: neither's language leaks into the other's answers."""
    match_id, token = await _table_of_two()
    welsh, english = await _socket(match_id, token, "cy"), await _socket(match_id, token, "en")
    for _round in range(2):
        for socket in (welsh, english):
            await socket.send_json_to({"type": "move", "id": "m1", "move": {"action": "end_turn"}})
            await socket.send_to(text_data="[]")
    for _round in range(2):
        refused, malformed = await _error_frame(welsh), await _error_frame(welsh)
        assert (refused["code"], refused["message"]) == ("not_your_turn", "Nid eich tro chi yw hi.")
        assert (malformed["code"], malformed["message"]) == ("malformed_frame", 'Gwrthrych JSON gyda "type" yw ffrâm.')
        refused, malformed = await _error_frame(english), await _error_frame(english)
        assert (refused["code"], refused["message"]) == ("not_your_turn", "it is seat 0's turn")
        assert malformed["message"] == 'A frame is a JSON object with a "type".'
    for socket in (welsh, english):
        await socket.disconnect()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
async def test_the_notification_socket_refuses_in_the_readers_language():
    socket = WebsocketCommunicator(application, "/ws/notifications/", headers=[(b"accept-language", b"cy")])
    connected, _ = await socket.connect()
    assert connected
    frame = await socket.receive_json_from(timeout=5)
    assert frame == {"type": "error", "code": "not_authenticated", "message": "Mewngofnodwch i gael eich hysbysiadau."}
    await socket.disconnect()


def test_every_field_rule_has_its_sentence_in_welsh():
    """A tournament's field decisions are stored with English sentences (`field_rules.RULES`);
    a Welsh reader gets each rule's own."""
    assert set(RULE_SENTENCES) == set(RULES)
    with translation.override("cy"):
        welsh = {rule: str(sentence) for rule, sentence in RULE_SENTENCES.items()}
    assert all(welsh[rule] != english for rule, english in RULES.items())
    with translation.override("en-gb"):
        assert {rule: str(sentence) for rule, sentence in RULE_SENTENCES.items()} == RULES


def test_a_throttled_client_is_told_how_long_to_wait_in_welsh():
    """DRF words the wait into its message before it could be translated: the handler words it."""
    with translation.override("cy"):
        answer = api_exception_handler(exceptions.Throttled(wait=3), {})
    assert answer is not None and answer.status_code == 429
    assert answer.data["error"] == {"code": "throttled", "message": "Gormod o geisiadau: arhoswch 3 eiliad."}
