"""API tokens expire, can be listed and revoked by their owner, are stored only as hashes, and
sockets authenticate without one in the URL: a single-use ticket, the session, or a header.
Every refusal holds on REST, on the fast lane's moves and on sockets."""
from __future__ import annotations

import asyncio
import json
import time
from datetime import timedelta

import httpx
import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.services import user_token
from accounts.tokens import key_hash
from server.asgi import application
from tests.accounts.helpers import NEW_PASSWORD, PASSWORD
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def bearer(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def expire(key: str) -> None:
    ApiToken.objects.filter(key_hash=key_hash(key)).update(expires=timezone.now() - timedelta(seconds=1))


def revoke(key: str) -> None:
    token_id = ApiToken.objects.get(key_hash=key_hash(key)).pk
    assert bearer(key).delete(f"/api/auth/tokens/{token_id}").status_code == 204


async def move_posted(key: str, match_id: int, move: dict, *, via_django: bool = False) -> httpx.Response:
    transport = httpx.ASGITransport(app=application)
    path = f"/api/matches/{match_id}/moves" + ("?via=django" if via_django else "")
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        return await client.post(path, json={"move": move}, headers={"authorization": f"Token {key}"})


async def socket_seat(path: str, headers=None) -> int | None:
    socket = WebsocketCommunicator(application, path, headers=headers or [])
    connected, _ = await socket.connect()
    assert connected
    while (frame := await socket.receive_json_from(timeout=5))["type"] != "snapshot":
        pass
    await socket.disconnect()
    return frame["seat"]


@pytest.fixture
def table(alice, bob):
    return started_match("the-game", [alice, bob])


def legal_move(user, match_id: int) -> dict:
    return client_for(user).get(f"/api/matches/{match_id}/view").json()["legal_moves"][0]


@pytest.mark.parametrize("refusal", [expire, revoke])
async def test_an_expired_or_revoked_token_is_refused_on_rest_the_fast_lane_and_sockets(refusal, alice, table):
    """Regression: tokens never expired, and one could not revoke a single token."""
    key = await sync_to_async(user_token)(user=alice)
    move = await sync_to_async(legal_move)(alice, table)
    assert await socket_seat(f"/ws/matches/{table}/?token={key}") == 0
    await sync_to_async(refusal)(key)
    assert (await sync_to_async(bearer(key).get)("/api/auth/me")).status_code == 401
    lane, django = await move_posted(key, table, move), await move_posted(key, table, move, via_django=True)
    assert lane.status_code == django.status_code == 401 and lane.json() == django.json()
    assert await socket_seat(f"/ws/matches/{table}/?token={key}") is None  # a spectator at most
    assert await socket_seat(f"/ws/matches/{table}/", headers=[(b"authorization", f"Token {key}".encode())]) is None


def test_a_token_lasts_api_token_days(alice, settings):
    settings.API_TOKEN_DAYS = 2
    key = user_token(user=alice)
    expires = ApiToken.objects.get(key_hash=key_hash(key)).expires
    assert abs(expires - (timezone.now() + timedelta(days=2))) < timedelta(minutes=1)


def test_the_database_holds_no_working_token(alice):
    """Regression: the token table held the keys themselves: one read of it, from a backup or a
    replica, gave working tokens for every account."""
    key = user_token(user=alice)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {ApiToken._meta.db_table}")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert key not in stored
    assert bearer(key).get("/api/auth/me").status_code == 200
    assert bearer(key_hash(key)).get("/api/auth/me").status_code == 401


def test_a_user_lists_their_tokens_and_revokes_one_without_the_others(alice):
    first, second = user_token(user=alice), user_token(user=alice)
    listed = bearer(first).get("/api/auth/tokens").json()["results"]
    assert len(listed) == 2 and set(listed[0]) == {"id", "created", "expires"}
    assert first not in str(listed) and key_hash(first) not in str(listed)
    second_id = ApiToken.objects.get(key_hash=key_hash(second)).pk
    assert bearer(first).delete(f"/api/auth/tokens/{second_id}").status_code == 204
    assert bearer(second).get("/api/auth/me").status_code == 401
    assert [t["id"] for t in bearer(first).get("/api/auth/tokens").json()["results"]] != [second_id]
    assert bearer(first).get("/api/auth/me").status_code == 200


def test_expired_tokens_are_not_listed_and_are_deleted_at_the_next_login(alice):
    old = user_token(user=alice)
    expire(old)
    current = user_token(user=alice)
    assert not ApiToken.objects.filter(key_hash=key_hash(old)).exists()
    assert len(bearer(current).get("/api/auth/tokens").json()["results"]) == 1


@pytest.mark.parametrize("persona", ["anonymous", "other_player", "staff"])
def test_nobody_but_the_owner_lists_or_revokes_a_token(persona, alice):
    key = user_token(user=alice)
    token_id = ApiToken.objects.get(key_hash=key_hash(key)).pk
    other = {"anonymous": None, "other_player": make_user("bob"), "staff": make_user("sam", staff=True)}[persona]
    client = client_for(other)
    listed = client.get("/api/auth/tokens")
    revoked = client.delete(f"/api/auth/tokens/{token_id}")
    if other is None:
        assert listed.status_code == revoked.status_code == 401
    else:
        assert listed.status_code == 200 and token_id not in [t["id"] for t in listed.json()["results"]]
        assert revoked.status_code == 404 and revoked.json()["error"]["code"] == "token_not_found"
    assert client.delete(f"/api/auth/tokens/{10**30}").status_code == (401 if other is None else 404)
    assert bearer(key).get("/api/auth/me").status_code == 200


def test_only_a_logged_in_user_gets_a_socket_ticket(alice):
    assert APIClient().post("/api/auth/socket-ticket").status_code == 401
    answer = client_for(alice).post("/api/auth/socket-ticket")
    assert answer.status_code == 201 and answer.json()["expires_in"] == settings.SOCKET_TICKET_SECONDS


async def test_a_socket_ticket_opens_one_socket_once(alice, table):
    """Sockets authenticate without the API token in the URL, where access logs keep it."""
    client = await sync_to_async(client_for)(alice)
    ticket = (await sync_to_async(client.post)("/api/auth/socket-ticket")).json()["ticket"]
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") == 0
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") is None  # used: a spectator


async def test_a_session_gets_a_ticket_and_a_ticket_expires(alice, table, settings):
    settings.SOCKET_TICKET_SECONDS = 1
    browser = APIClient()
    await sync_to_async(browser.force_login)(alice)
    ticket = (await sync_to_async(browser.post)("/api/auth/socket-ticket")).json()["ticket"]
    time.sleep(1.5)
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") is None


@pytest.mark.parametrize("ending", ["password changed elsewhere", "logged out"])
async def test_a_ticket_made_in_a_session_dies_with_that_session(alice, table, ending):
    """Regression (#39): a ticket made in a session still opened a socket after the password was
    changed from another device, which ends that session everywhere else."""
    browser = APIClient()
    await sync_to_async(browser.force_login)(alice)
    ticket = (await sync_to_async(browser.post)("/api/auth/socket-ticket")).json()["ticket"]
    if ending == "logged out":
        await sync_to_async(browser.post)("/api/auth/logout")
    else:
        elsewhere = await sync_to_async(bearer)(await sync_to_async(user_token)(user=alice))
        body = {"old_password": PASSWORD, "new_password": NEW_PASSWORD}
        changed = await sync_to_async(elsewhere.post)("/api/auth/password", body, format="json")
        assert changed.status_code == 200, changed.json()
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") is None  # a spectator


async def test_a_ticket_made_in_a_session_still_standing_opens_a_seat(alice, table):
    browser = APIClient()
    await sync_to_async(browser.force_login)(alice)
    ticket = (await sync_to_async(browser.post)("/api/auth/socket-ticket")).json()["ticket"]
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") == 0


async def test_a_ticket_dies_with_the_token_it_was_made_with(alice, table):
    key = await sync_to_async(user_token)(user=alice)
    ticket = (await sync_to_async(bearer(key).post)("/api/auth/socket-ticket")).json()["ticket"]
    await sync_to_async(revoke)(key)
    assert await socket_seat(f"/ws/matches/{table}/?ticket={ticket}") is None


async def test_a_socket_authenticates_with_a_token_header(alice, table):
    key = await sync_to_async(user_token)(user=alice)
    assert await socket_seat(f"/ws/matches/{table}/", headers=[(b"authorization", f"Token {key}".encode())]) == 0


async def closed_after(socket: WebsocketCommunicator) -> dict:
    """The frames up to the socket's close: the last is the close itself."""
    while True:
        output = await socket.receive_output(timeout=5)
        if output["type"] == "websocket.close":
            return output
        frame = json.loads(output["text"])
        if frame["type"] == "error":
            assert frame["code"] == "credential_revoked", frame


@pytest.mark.parametrize("how", ["query", "header", "ticket"])
async def test_an_open_socket_is_closed_once_its_token_is_revoked(how, alice, table, settings):
    """Regression: a socket opened with a token was served for as long as it stayed open, after
    its token was revoked or had expired."""
    settings.SOCKET_CREDENTIAL_CHECK_SECONDS = 0.2
    key = await sync_to_async(user_token)(user=alice)
    path, headers = f"/ws/matches/{table}/", []
    if how == "query":
        path += f"?token={key}"
    elif how == "header":
        headers = [(b"authorization", f"Token {key}".encode())]
    else:
        path += "?ticket=" + (await sync_to_async(bearer(key).post)("/api/auth/socket-ticket")).json()["ticket"]
    socket = WebsocketCommunicator(application, path, headers=headers)
    assert (await socket.connect())[0]
    while (await socket.receive_json_from(timeout=5))["type"] != "snapshot":
        pass
    await asyncio.sleep(0.6)  # checked a few times meanwhile: still open
    await socket.send_json_to({"type": "ping"})
    while (await socket.receive_json_from(timeout=5))["type"] != "pong":
        pass
    await sync_to_async(revoke)(key)
    assert (await closed_after(socket))["code"] == 4401


async def test_an_open_socket_is_closed_once_its_session_logs_out(alice, table, settings):
    settings.SOCKET_CREDENTIAL_CHECK_SECONDS = 0.2
    browser = Client()
    await sync_to_async(browser.force_login)(alice)
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    socket = WebsocketCommunicator(application, f"/ws/matches/{table}/", headers=[(b"cookie", cookie.encode())])
    assert (await socket.connect())[0]
    while (frame := await socket.receive_json_from(timeout=5))["type"] != "snapshot":
        pass
    assert frame["seat"] == 0
    await sync_to_async(browser.logout)()
    assert (await closed_after(socket))["code"] == 4401
