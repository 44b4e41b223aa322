"""At a duplicate-deal table the spectators' talk could carry the deal: while the round runs, its
players are never given the spectators' channel, over REST or in an export; once the round is
over and the match revealed, they may read it. (The socket: test_chat_consumer.py.)"""
from __future__ import annotations

import json

import pytest

from games.verification import parse_match_file, verify_file_contents
from tests.conftest import client_for
from tests.games.helpers import play_to_end
from tests.tournaments.builders import finish_round

pytestmark = pytest.mark.django_db

SECRET = "psst, the next card is 42"


def texts(user, match_id, **params) -> list:
    page = client_for(user).get(f"/api/matches/{match_id}/chat", params).json()
    return [item["message"]["text"] for item in page["items"]]


def test_nobody_outside_a_running_sealed_table_writes_in_its_chat_so_its_head_counts_only_theirs(sealed_world):
    """Issue #39, finding 2: the players' `head` and item seqs counted the spectators' messages they
    were not sent (a count anyone outside could move). Now only the players write there."""
    users, match_id = sealed_world["users"], sealed_world["match"]
    for persona in ("spectator", "other_player", "organiser", "staff"):
        answer = client_for(users[persona]).post(f"/api/matches/{match_id}/chat", {"text": SECRET}, format="json")
        assert (answer.status_code, answer.json()["error"]["code"]) == (403, "chat_table_sealed"), persona
    client_for(users["seated"]).post(f"/api/matches/{match_id}/chat", {"text": "gl hf"}, format="json")
    for player in sealed_world["players"]:
        page = client_for(player).get(f"/api/matches/{match_id}/chat").json()
        assert (page["head"], [item["seq"] for item in page["items"]]) == (1, [1])
        assert texts(player, match_id) == ["gl hf"]
        assert texts(player, match_id, spectators="true", since=0) == ["gl hf"]
        assert client_for(player).get(f"/api/matches/{match_id}/export", {"chat": "true"}).status_code == 403
    for persona in ("organiser", "staff"):
        assert texts(users[persona], match_id) == ["gl hf"], persona
    for persona in ("anonymous", "spectator", "other_player"):  # the table is closed to them (test_spectator_policy)
        assert client_for(users[persona]).get(f"/api/matches/{match_id}/chat").status_code == 403, persona
    # Staff may export a running match, but not its chat: it is exported once revealed.
    answer = client_for(users["staff"]).get(f"/api/matches/{match_id}/export", {"chat": "true"})
    assert (answer.status_code, answer.json()["error"]["code"]) == (403, "chat_not_exportable")


def test_once_the_round_is_over_the_players_may_read_and_export_it(sealed_world):
    users, match_id = sealed_world["users"], sealed_world["match"]
    finish_round(sealed_world["tournament"])  # the last round: the tournament ends, its matches unsealed
    client_for(users["spectator"]).post(f"/api/matches/{match_id}/chat", {"text": SECRET}, format="json")
    player = sealed_world["players"][0]
    assert texts(player, match_id) == [SECRET]
    assert texts(player, match_id, spectators="false") == []  # still the player's own choice
    lines = b"".join(client_for(player).get(f"/api/matches/{match_id}/export", {"chat": "true"}).streaming_content)
    chat = [json.loads(line)["chat"] for line in lines.decode().splitlines() if line.startswith('{"chat"')]
    assert [(entry["channel"], entry["text"]) for entry in chat] == [("spectators", SECRET)]


def test_an_export_with_chat_shows_hidden_messages_as_hidden_and_still_verifies(open_world):
    users, match_id = open_world["users"], open_world["match"]
    said = client_for(users["spectator"]).post(
        f"/api/matches/{match_id}/chat", {"text": "<img src=x onerror=alert(1)>"}, format="json"
    )
    client_for(users["staff"]).post(f"/api/matches/{match_id}/chat/{said.json()['seq']}/hide")
    client_for(users["seated"]).post(f"/api/matches/{match_id}/chat", {"text": "gg"}, format="json")
    play_to_end(match_id, open_world["players"])
    plain = b"".join(client_for().get(f"/api/matches/{match_id}/export").streaming_content).decode().splitlines()
    lines = b"".join(client_for().get(f"/api/matches/{match_id}/export", {"chat": "1"}).streaming_content).decode().splitlines()
    header = json.loads(lines[0])
    assert header["chat"] == 3 and "chat" not in json.loads(plain[0])
    assert lines[1:len(plain)] == plain[1:]  # the events as without chat, the chat after them
    chat = [json.loads(line)["chat"] for line in lines[len(plain):]]
    assert [(c["type"], c.get("text"), c.get("hidden"), c.get("message")) for c in chat] == [
        ("MessagePosted", None, True, None), ("MessageHidden", None, None, 1), ("MessagePosted", "gg", False, None)
    ]
    assert [c["author"] for c in chat] == ["eve", "sam", "alice"]
    # Checkers and import read the file with parse_match_file, which passes over the chat.
    parsed_header, events, _ = parse_match_file(lines)
    assert len(events) == len(plain) - 1 and verify_file_contents(parsed_header, events).ok
