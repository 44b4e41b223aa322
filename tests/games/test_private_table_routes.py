"""Issue #39: what "private" promises. A private table is known only to its seats, its creator,
staff and the invitee of a live invitation to it; to anyone else every route of it by id (a
guessable number) answers as for a number that names no table: 404 `match_not_found`, never 403."""
from __future__ import annotations

import datetime as dt
import secrets

import pytest
from django.test import Client
from django.utils import timezone

from games import services
from games.models import Invitation, Match
from tests.conftest import client_for, make_user
from tests.games.builders import finished_match

pytestmark = pytest.mark.django_db

GAME = "ten"
STRANGERS = ["anonymous", "another player", "spectator with the id"]
KNOWN = ["creator", "seat", "invitee", "staff"]


def invite(match: Match, invitee, *, expires_in: float = 3600, revoked: bool = False) -> Invitation:
    """A live invitation by name (made as `invitation_create` makes one; here also to a started table)."""
    return Invitation.objects.create(
        match=match, token_sha256=secrets.token_hex(32), invitee=invitee, created_by=match.created_by,
        expires_at=timezone.now() + dt.timedelta(seconds=expires_in), revoked_at=timezone.now() if revoked else None,
    )


@pytest.fixture
def people(alice, bob, carol):
    dave = make_user("dave")
    services.match_create(user=dave, game=GAME, players=2)  # another player, with a table of his own
    return {
        "anonymous": None, "another player": dave, "spectator with the id": make_user("eve"),
        "creator": alice, "seat": bob, "invitee": carol, "staff": make_user("sam", staff=True),
    }


@pytest.fixture
def running(alice, bob, carol):
    """alice's private table, bob seated through a link, a bot in seat 2, carol invited by name."""
    match = services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)
    _, token = services.invitation_create(match_id=match.pk, user=alice, seat=1)
    services.invitation_accept(token=token, user=bob)
    services.match_seat_bot(match_id=match.pk, user=alice, bot="random", seat=2)
    services.match_start(match_id=match.pk, user=alice)
    invite(match, carol)
    return Match.objects.get(pk=match.pk)


@pytest.fixture
def finished(alice, bob, carol):
    match = finished_match(GAME, [alice, bob], rated=False)
    Match.objects.filter(pk=match.pk).update(private=True)
    invite(match, carol)
    return Match.objects.get(pk=match.pk)


READS = ["", "/view", "/log", "/chat"]
FINISHED_READS = ["", "/events", "/replay", "/export", "/chat"]
WRITES = [
    ("post", "/join", {}), ("post", "/leave", {}), ("post", "/bots", {"bot": "random"}), ("post", "/start", {}),
    ("post", "/moves", {"move": {"action": "pass"}}), ("get", "/invitations", None), ("post", "/invitations", {}),
    ("delete", "/invitations/1", None), ("post", "/shuffle", {"value": "0" * 64}),
    ("post", "/auto-pass", {"enabled": True}), ("post", "/chat", {"text": "hello"}), ("post", "/chat/1/hide", {}),
]
FINISHED_WRITES = [("post", "/rematch", {}), ("post", "/accept", {}), ("post", "/practice", {"seq": 3})]


def answer(user, method: str, path: str, body=None):
    client = client_for(user)
    return getattr(client, method)(path, body, format="json") if body is not None else getattr(client, method)(path)


def assert_not_found(response, match_id: int) -> None:
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "match_not_found"
    assert str(match_id) in response.json()["error"]["message"]


@pytest.mark.parametrize("persona", STRANGERS)
@pytest.mark.parametrize("suffix", READS)
def test_a_stranger_finds_no_running_private_table(running, people, persona, suffix):
    """Prevents a guessed number showing a private table, its players or its play (it was 200)."""
    assert_not_found(answer(people[persona], "get", f"/api/matches/{running.pk}{suffix}"), running.pk)


@pytest.mark.parametrize("persona", STRANGERS)
@pytest.mark.parametrize("suffix", FINISHED_READS)
def test_a_stranger_finds_no_finished_private_table(finished, people, persona, suffix):
    assert_not_found(answer(people[persona], "get", f"/api/matches/{finished.pk}{suffix}"), finished.pk)


@pytest.mark.parametrize("persona", ["another player", "spectator with the id"])
@pytest.mark.parametrize(("method", "suffix", "body"), WRITES)
def test_a_strangers_writes_find_no_private_table(running, people, persona, method, suffix, body):
    """Not 403 `private_table` or `not_seated`: that would say the number is a table."""
    assert_not_found(answer(people[persona], method, f"/api/matches/{running.pk}{suffix}", body), running.pk)


@pytest.mark.parametrize("persona", ["another player", "spectator with the id"])
@pytest.mark.parametrize(("method", "suffix", "body"), FINISHED_WRITES)
def test_a_strangers_rematch_or_practice_finds_no_private_table(finished, people, persona, method, suffix, body):
    assert_not_found(answer(people[persona], method, f"/api/matches/{finished.pk}{suffix}", body), finished.pk)


def test_an_open_private_tables_join_is_not_found_for_a_stranger(alice, people):
    match = services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)
    assert_not_found(answer(people["another player"], "post", f"/api/matches/{match.pk}/join", {}), match.pk)


@pytest.mark.parametrize("persona", KNOWN)
@pytest.mark.parametrize("suffix", READS)
def test_its_own_people_still_see_the_running_table(running, people, persona, suffix):
    assert answer(people[persona], "get", f"/api/matches/{running.pk}{suffix}").status_code == 200


@pytest.mark.parametrize("persona", KNOWN)
@pytest.mark.parametrize("suffix", FINISHED_READS)
def test_its_own_people_still_see_the_finished_table(finished, people, persona, suffix):
    assert answer(people[persona], "get", f"/api/matches/{finished.pk}{suffix}").status_code == 200


def test_a_seat_still_plays_and_writes(running, bob):
    assert answer(bob, "post", f"/api/matches/{running.pk}/chat", {"text": "hello"}).status_code in (200, 201)
    assert answer(bob, "post", f"/api/matches/{running.pk}/auto-pass", {"enabled": True}).status_code == 200


@pytest.mark.parametrize("state", ["revoked", "expired"])
def test_an_invitation_no_longer_live_makes_nobody_known(alice, carol, state):
    match = services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)
    invite(match, carol, expires_in=-1 if state == "expired" else 3600, revoked=state == "revoked")
    assert_not_found(answer(carol, "get", f"/api/matches/{match.pk}"), match.pk)


def test_a_link_holder_reaches_it_through_the_invitation_route(alice, carol):
    match = services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)
    _, token = services.invitation_create(match_id=match.pk, user=alice)
    assert answer(None, "get", f"/api/invitations/{token}").json()["match"]["id"] == match.pk
    assert answer(carol, "post", f"/api/invitations/{token}/accept", {}).status_code == 200
    assert answer(carol, "get", f"/api/matches/{match.pk}").status_code == 200  # a seat now


def test_a_public_table_and_a_bad_id_are_as_before(alice, people):
    public = services.match_create(user=alice, game=GAME, players=2)
    assert answer(None, "get", f"/api/matches/{public.pk}").status_code == 200
    assert answer(people["another player"], "get", f"/api/matches/{public.pk}/chat").status_code == 200
    for missing in (987654, public.pk + 1000):
        assert_not_found(answer(None, "get", f"/api/matches/{missing}"), missing)
        assert_not_found(answer(people["staff"], "get", f"/api/matches/{missing}/view"), missing)


def page_client(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.mark.parametrize("persona", STRANGERS + KNOWN)
def test_the_table_and_replay_pages(running, finished, people, persona):
    """Prevents the table page showing a private table to a stranger (it drew it for anyone)."""
    expected = 200 if persona in KNOWN else 404
    assert page_client(people[persona]).get(f"/tables/{running.pk}").status_code == expected
    assert page_client(people[persona]).get(f"/tables/{finished.pk}/replay").status_code == expected


def test_a_private_table_cannot_be_rated(alice):
    """Private tables are casual: `rated: true` is refused, and `private: true` alone opens it unrated."""
    refused = answer(alice, "post", "/api/matches", {"game": GAME, "players": 2, "private": True, "rated": True})
    assert refused.status_code == 422 and refused.json()["error"]["code"] == "private_table_rated"
    assert not Match.objects.filter(created_by=alice).exists()
    opened = answer(alice, "post", "/api/matches", {"game": GAME, "players": 2, "private": True})
    assert opened.status_code == 201 and opened.json()["rated"] is False and opened.json()["private"] is True
    public = answer(alice, "post", "/api/matches", {"game": GAME, "players": 2})
    assert public.json()["rated"] is True  # the default is unchanged for a public table


def test_a_practice_from_a_private_table_is_private(finished, alice, people):
    """Its first event copies the private table's play: it is as private."""
    made = answer(alice, "post", f"/api/matches/{finished.pk}/practice", {"seq": 3})
    assert made.status_code == 201, made.json()
    assert made.json()["private"] is True
    assert_not_found(answer(people["another player"], "get", f"/api/matches/{made.json()['id']}"), made.json()["id"])
