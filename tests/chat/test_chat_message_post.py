"""Posting a message: its limits (length, control characters, rate) and a retry's first answer."""
from __future__ import annotations

import json
from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from chat import services
from chat.models import ChatEvent
from server.errors import ApplicationError
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def post(world, text, persona="seated", **fields):
    """As a client would send it: JSON with \\u escapes, which may carry a lone surrogate."""
    body = json.dumps({"text": text, **fields})
    return client_for(world["users"][persona]).post(f"/api/matches/{world['match']}/chat", body, content_type="application/json")


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "chat_text_empty"),
        ("  \n\t ", "chat_text_empty"),
        ("a\tb", "chat_text_invalid"),
        ("x" * 501, "chat_text_too_long"),
        ("bell\x07", "chat_text_invalid"),
        ("nul\x00", "nul_character"),  # refused by the JSON parser (server.limits) first
        ("esc \x1b[31m red", "chat_text_invalid"),
        ("lone \ud800 surrogate", "invalid_input"),  # DRF's own check; the socket's path meets ours below
    ],
)
def test_it_refuses_empty_long_and_control_text_and_writes_nothing(open_world, text, code):
    answer = post(open_world, text)
    assert (answer.status_code, answer.json()["error"]["code"]) == (400, code)
    assert not ChatEvent.objects.exists()


def test_the_service_refuses_a_lone_surrogate_which_no_database_stores(open_world):
    """Prevents a 500: JSON may carry one (a socket frame does), PostgreSQL's UTF-8 cannot."""
    with pytest.raises(ApplicationError) as refused:
        services.chat_message_post(match_id=open_world["match"], user=open_world["users"]["seated"], text="a\ud800")
    assert refused.value.code == "chat_text_invalid"


def test_it_keeps_newlines_and_strips_the_ends(open_world):
    text = post(open_world, "  first line\r\nsecond <b>line</b>  " + "y" * 400).json()["message"]["text"]
    assert text == "first line\nsecond <b>line</b>  " + "y" * 400
    assert len(post(open_world, "z" * 500).json()["message"]["text"]) == 500


def test_a_retry_with_the_same_id_gets_the_first_answer(open_world):
    first = post(open_world, "gg", id="m-1")
    again = post(open_world, "gg", id="m-1")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert ChatEvent.objects.count() == 1
    reused = post(open_world, "something else", id="m-1")
    assert (reused.status_code, reused.json()["error"]["code"]) == (409, "chat_id_reused")
    # The id is the poster's own: another person's message with the same id is another message.
    assert post(open_world, "gg", persona="spectator", id="m-1").json()["seq"] == 2


def test_it_refuses_more_messages_a_minute_than_the_setting(open_world, settings):
    settings.CHAT_MESSAGES_PER_MINUTE = 3
    assert [post(open_world, f"n{i}").status_code for i in range(3)] == [201, 201, 201]
    answer = post(open_world, "one too many")
    assert (answer.status_code, answer.json()["error"]["code"]) == (429, "chat_rate_limited")
    assert answer.json()["error"]["extra"] == {"per_minute": 3}
    assert post(open_world, "others still talk", persona="spectator").status_code == 201
    assert ChatEvent.objects.count() == 4
    a_minute_on = timezone.now() + timedelta(seconds=61)
    with mock.patch("chat.services.timezone.now", return_value=a_minute_on):
        assert post(open_world, "and again").status_code == 201
