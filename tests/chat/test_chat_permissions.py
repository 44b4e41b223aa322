"""Who may do what with a table's chat, over every chat endpoint: each persona gets exactly what it
may, and a refusal writes nothing."""
from __future__ import annotations

import pytest

from chat.models import ChatEvent, ChatMute
from tests.chat.conftest import PERSONAS
from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def counts() -> tuple[int, int]:
    return ChatEvent.objects.count(), ChatMute.objects.count()


def test_its_people_read_and_only_its_players_post(sealed_world):
    """A duplicate deal's table is closed to spectators (games.selectors.can_watch): they may not
    read its chat; and until the deal is done only its players write there (chat_table_sealed:
    issue #39, the chat_seq its players were sent counted the messages they were not)."""
    url = f"/api/matches/{sealed_world['match']}/chat"
    expected = {"anonymous": 401, "other_player": 403, "spectator": 403, "seated": 201, "organiser": 403, "staff": 403}
    for persona in PERSONAS:
        client = client_for(sealed_world["users"][persona])
        assert client.get(url).status_code == (200 if persona in ("seated", "organiser", "staff") else 403), persona
        before = counts()
        answer = client.post(url, {"text": f"hello from {persona}"}, format="json")
        assert answer.status_code == expected[persona], persona
        if answer.status_code == 201:
            channel = "players" if persona == "seated" else "spectators"
            assert answer.json()["message"]["channel"] == channel, persona
        else:
            assert answer.json()["error"]["code"] in ("not_authenticated", "chat_table_sealed"), persona
            assert counts() == before


def test_everyone_signed_in_posts_in_their_own_channel_at_an_open_table(open_world):
    url = f"/api/matches/{open_world['match']}/chat"
    for persona in PERSONAS[1:]:
        user = open_world["users"][persona]
        if user is None:
            continue  # an open table has no organiser
        answer = client_for(user).post(url, {"text": f"hello from {persona}"}, format="json")
        assert answer.status_code == 201, persona
        assert answer.json()["message"]["channel"] == ("players" if persona == "seated" else "spectators"), persona


@pytest.mark.parametrize("persona", ["seated", "spectator", "other_player", "organiser", "staff"])
def test_nobody_writes_in_the_other_channel(sealed_world, persona):
    url = f"/api/matches/{sealed_world['match']}/chat"
    other = "spectators" if persona == "seated" else "players"
    before = counts()
    answer = client_for(sealed_world["users"][persona]).post(url, {"text": "hi", "channel": other}, format="json")
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "chat_channel_not_yours")
    assert counts() == before


def test_only_the_organiser_and_staff_hide_a_message(sealed_world):
    users, match_id = sealed_world["users"], sealed_world["match"]
    seq = client_for(users["seated"]).post(f"/api/matches/{match_id}/chat", {"text": "hm"}, format="json").json()["seq"]
    url = f"/api/matches/{match_id}/chat/{seq}/hide"
    expected = {"anonymous": 401, "other_player": 403, "spectator": 403, "seated": 403, "organiser": 200, "staff": 200}
    for persona in PERSONAS:
        before = counts()
        answer = client_for(users[persona]).post(url)
        assert answer.status_code == expected[persona], persona
        if persona in ("organiser", "staff"):
            assert answer.json()["type"] == "MessageHidden" and answer.json()["message"]["seq"] == seq
        else:
            assert answer.json()["error"]["code"] in ("not_authenticated", "chat_hide_forbidden")
            assert counts() == before
    # The organiser hid it; staff hiding it again got the same hide: one event.
    assert ChatEvent.objects.filter(type="MessageHidden").count() == 1


def test_a_casual_tables_creator_is_no_organiser(open_world):
    users, match_id = open_world["users"], open_world["match"]
    seq = client_for(users["spectator"]).post(f"/api/matches/{match_id}/chat", {"text": "hm"}, format="json").json()["seq"]
    answer = client_for(open_world["players"][0]).post(f"/api/matches/{match_id}/chat/{seq}/hide")
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "chat_hide_forbidden")


def test_mutes_are_for_signed_in_people_each_their_own(open_world):
    users = open_world["users"]
    bob = open_world["players"][1]
    for persona in PERSONAS:
        client = client_for(users[persona])
        if users[persona] is None:
            before = counts()
            assert client.get("/api/chat/mutes").status_code == 401
            assert client.post(f"/api/chat/mutes/{bob.pk}").status_code == 401
            assert client.delete(f"/api/chat/mutes/{bob.pk}").status_code == 401
            assert counts() == before
            continue
        if users[persona] == bob:
            continue
        assert client.post(f"/api/chat/mutes/{bob.username}").status_code == 200
        assert [person["id"] for person in client.get("/api/chat/mutes").json()] == [bob.pk]
    assert ChatMute.objects.filter(muted=bob).count() == len([p for p in PERSONAS if users[p] is not None])


def test_a_hide_or_a_post_at_a_match_that_is_not_there_is_404(open_world):
    client = client_for(open_world["users"]["staff"])
    assert client.get("/api/matches/999999/chat").status_code == 404
    assert client.post("/api/matches/999999/chat", {"text": "x"}, format="json").status_code == 404
    assert client.post(f"/api/matches/{open_world['match']}/chat/7/hide").json()["error"]["code"] == "chat_message_not_found"
