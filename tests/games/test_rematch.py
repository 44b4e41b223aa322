"""Rematches: any player of a finished match offers one; the same people and bots sit at a new
table with the seats rotated; it starts when every person has accepted."""
from __future__ import annotations

import pytest

from games import services, turns
from games.models import Event, Match, Seat
from tests.conftest import client_for, make_user
from tests.games.builders import finished_match

pytestmark = pytest.mark.django_db

GAME = "ten"


def post(user, path: str) -> tuple[int, dict]:
    answer = client_for(user).post(path, {}, format="json")
    return answer.status_code, answer.json()


def who(match_id: int) -> list[tuple[str, bool]]:
    return [
        (seat.user.username if seat.user else f"bot:{seat.bot}", seat.ready)
        for seat in Seat.objects.filter(match_id=match_id).select_related("user").order_by("seat")
    ]


def test_a_rematch_rotates_the_seats_and_starts_when_everyone_accepted(alice, bob, carol):
    source = finished_match(GAME, [alice, bob, carol], seed=4, rated=False)
    status, offered = post(bob, f"/api/matches/{source.pk}/rematch")
    assert status == 201 and offered["status"] == "open" and offered["rematch_of"] == source.pk
    assert who(offered["id"]) == [("bob", True), ("carol", False), ("alice", False)]
    assert client_for(None).get(f"/api/matches/{source.pk}").json()["rematch"] == offered["id"]
    rematch = Match.objects.get(pk=offered["id"])
    assert (rematch.game, rematch.players, rematch.rated, rematch.options) == (GAME, 3, False, source.options)
    status, answer = post(bob, f"/api/matches/{offered['id']}/start")  # the offerer cannot start it alone
    assert (status, answer["error"]["code"], answer["error"]["extra"]["seats"]) == (409, "rematch_not_accepted", [1, 2])
    assert post(alice, f"/api/matches/{offered['id']}/accept")[1]["status"] == "open"
    status, answer = post(carol, f"/api/matches/{offered['id']}/accept")
    assert (status, answer["status"]) == (200, "running")
    assert Event.objects.get(match_id=offered["id"], seq=1).data["seats"][0] == {"seat": 0, "user": bob.pk, "bot": ""}


def test_against_bots_a_rematch_starts_at_once(alice):
    source = services.match_create(user=alice, game=GAME, players=2, rated=False)
    services.match_seat_bot(match_id=source.pk, user=alice, bot="random")
    services.match_start(match_id=source.pk, user=alice)
    assert turns.match_play_out(match_id=source.pk)
    status, offered = post(alice, f"/api/matches/{source.pk}/rematch")
    assert (status, offered["status"]) == (201, "running")
    assert who(offered["id"]) == [("bot:random", True), ("alice", True)]


def test_one_rematch_a_match(alice, bob):
    source = finished_match(GAME, [alice, bob], seed=5, rated=False)
    _, first = post(alice, f"/api/matches/{source.pk}/rematch")
    status, answer = post(bob, f"/api/matches/{source.pk}/rematch")
    assert (status, answer["error"]["code"], answer["error"]["extra"]["rematch"]) == (409, "rematch_exists", first["id"])
    assert Match.objects.filter(rematch_of=source).count() == 1


def test_who_may_offer_and_accept(alice, bob, carol):
    staff = make_user("judge", staff=True)
    source = finished_match(GAME, [alice, bob], seed=6, rated=False)
    assert post(None, f"/api/matches/{source.pk}/rematch")[0] in (401, 403)
    for outsider in (carol, staff):
        status, answer = post(outsider, f"/api/matches/{source.pk}/rematch")
        assert (status, answer["error"]["code"]) == (403, "not_seated")
    assert not Match.objects.filter(rematch_of=source).exists()
    _, offered = post(alice, f"/api/matches/{source.pk}/rematch")
    assert post(None, f"/api/matches/{offered['id']}/accept")[0] in (401, 403)
    for outsider in (carol, staff):
        status, answer = post(outsider, f"/api/matches/{offered['id']}/accept")
        assert (status, answer["error"]["code"]) == (403, "not_seated")
    assert who(offered["id"]) == [("bob", False), ("alice", True)]
    assert post(alice, "/api/matches/999999/rematch")[1]["error"]["code"] == "match_not_found"


def test_no_rematch_of_a_running_match_nor_acceptance_of_a_plain_table(alice, bob):
    running = services.match_create(user=alice, game=GAME, players=2, rated=False)
    services.match_join(match_id=running.pk, user=bob)
    status, answer = post(bob, f"/api/matches/{running.pk}/accept")
    assert (status, answer["error"]["code"]) == (409, "not_a_rematch")
    services.match_start(match_id=running.pk, user=alice)
    status, answer = post(alice, f"/api/matches/{running.pk}/rematch")
    assert (status, answer["error"]["code"]) == (409, "rematch_not_possible")


def test_declining_is_leaving(alice, bob, carol):
    source = finished_match(GAME, [alice, bob], seed=7, rated=False)
    _, offered = post(alice, f"/api/matches/{source.pk}/rematch")
    services.match_leave(match_id=offered["id"], user=bob)
    assert who(offered["id"]) == [("alice", True)]
    services.match_join(match_id=offered["id"], user=carol)  # an open table again: anyone may sit
    status, answer = post(alice, f"/api/matches/{offered['id']}/start")
    assert (status, answer["status"]) == (200, "running")
