"""Private tables and invitation links: a private table stays out of the lobby and takes people
only through a link; a link sits its holder in its seat or any free one, until it expires or is
revoked; only the table's creator makes, lists and revokes them."""
from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from games import services
from games.models import Invitation, Seat
from tests.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

GAME = "ten"


@pytest.fixture
def private(alice):
    return services.match_create(user=alice, game=GAME, players=3, rated=False, private=True)


def link(user, match_id: int, **body) -> tuple[int, dict]:
    answer = client_for(user).post(f"/api/matches/{match_id}/invitations", body, format="json")
    return answer.status_code, answer.json()


def accept(user, token: str) -> tuple[int, str | None]:
    answer = client_for(user).post(f"/api/invitations/{token}/accept", {}, format="json")
    return answer.status_code, answer.json().get("error", {}).get("code")


def seated(match_id: int) -> dict[int, str]:
    return {s.seat: s.user.username for s in Seat.objects.filter(match_id=match_id).select_related("user")}


def test_a_private_table_stays_out_of_the_lobby_but_not_its_players_lists(private, alice, bob):
    public = services.match_create(user=bob, game=GAME, players=2)
    listed = [m["id"] for m in client_for(None).get("/api/matches", {"status": "open"}).json()["results"]]
    assert listed == [public.pk]
    mine = [m["id"] for m in client_for(alice).get("/api/matches", {"player": "alice"}).json()["results"]]
    assert mine == [private.pk]
    assert client_for(alice).get(f"/api/matches/{private.pk}").json()["private"] is True
    assert client_for(None).get(f"/api/matches/{private.pk}").status_code == 404  # known to its own people only


def test_nobody_sits_at_a_private_table_without_a_link(private, bob):
    answer = client_for(bob).post(f"/api/matches/{private.pk}/join", {}, format="json")
    # To bob the private table is no table at all (issue #39: not 403, which says the number is one).
    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "match_not_found")
    assert seated(private.pk) == {0: "alice"}


def test_a_link_sits_its_holder_in_its_seat_or_any_free_one(private, alice, bob, carol):
    status, for_two = link(alice, private.pk, seat=2)
    assert status == 201 and for_two["url"] == f"/invite/{for_two['token']}" and for_two["seat"] == 2
    _, anyone = link(alice, private.pk)
    assert not Invitation.objects.filter(token_sha256=for_two["token"]).exists()  # only its SHA-256 is kept
    shown = client_for(None).get(f"/api/invitations/{for_two['token']}").json()
    assert shown["seat"] == 2 and shown["match"]["id"] == private.pk
    assert accept(bob, for_two["token"]) == (200, None)
    assert accept(carol, for_two["token"]) == (409, "seat_taken")
    assert accept(carol, anyone["token"]) == (200, None)
    assert seated(private.pk) == {0: "alice", 1: "carol", 2: "bob"}
    assert accept(make_user("dora"), anyone["token"]) == (409, "table_full")


def test_an_expired_or_revoked_link_sits_nobody(private, alice, bob):
    _, old = link(alice, private.pk, expires_in=60)
    Invitation.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    assert accept(bob, old["token"]) == (409, "invitation_expired")
    _, fresh = link(alice, private.pk)
    answer = client_for(alice).delete(f"/api/matches/{private.pk}/invitations/{fresh['id']}")
    assert answer.status_code == 200 and answer.json()["revoked_at"]
    assert accept(bob, fresh["token"]) == (409, "invitation_revoked")
    assert client_for(None).get(f"/api/invitations/{fresh['token']}").json()["error"]["code"] == "invitation_revoked"
    assert accept(bob, "no-such-link") == (404, "invitation_not_found")
    assert seated(private.pk) == {0: "alice"}


def test_a_link_to_a_started_table_sits_nobody(alice, bob, carol):
    match = services.match_create(user=alice, game=GAME, players=2, rated=False)
    _, made = link(alice, match.pk)
    services.match_seat_bot(match_id=match.pk, user=alice, bot="random")
    services.match_start(match_id=match.pk, user=alice)
    assert accept(bob, made["token"]) == (409, "match_not_open")


def test_who_may_make_list_and_revoke_links(private, alice, bob):
    staff = make_user("judge", staff=True)
    _, made = link(alice, private.pk)
    for user, status in ((None, 401), (bob, 404), (staff, 403)):  # to bob, a stranger, there is no such table
        answer = client_for(user).post(f"/api/matches/{private.pk}/invitations", {}, format="json")
        assert answer.status_code in ((401, 403) if user is None else (status,))
        assert client_for(user).get(f"/api/matches/{private.pk}/invitations").status_code in (
            (401, 403) if user is None else (status,)
        )
        answer = client_for(user).delete(f"/api/matches/{private.pk}/invitations/{made['id']}")
        assert answer.status_code in ((401, 403) if user is None else (status,))
    assert Invitation.objects.count() == 1 and Invitation.objects.get().revoked_at is None
    assert [i["id"] for i in client_for(alice).get(f"/api/matches/{private.pk}/invitations").json()] == [made["id"]]
    assert "token" not in client_for(alice).get(f"/api/matches/{private.pk}/invitations").json()[0]
    assert accept(None, made["token"])[0] in (401, 403)


@pytest.mark.parametrize(
    ("body", "code"),
    [({"seat": 0}, "seat_taken"), ({"seat": 7}, "bad_seat"), ({"expires_in": 10}, None), ({"seat": "x"}, None)],
)
def test_bad_links_are_refused_and_make_nothing(private, alice, body, code):
    status, answer = link(alice, private.pk, **body)
    assert status in (400, 409)
    if code:
        assert answer["error"]["code"] == code
    assert not Invitation.objects.exists()

