"""A way out of a running game (issue #43 item 1): a seated person resigns, or another player claims
the seat of a person who walked away; the game's fallback bot plays that seat to the end and it
ranks after every seat that played on. Each route by persona, bad input, and nothing written when
refused."""
from __future__ import annotations

import pytest

from games import turns
from games.bots import STRONG_BOT
from games.engines import ENGINES
from games.models import Event, Match, Seat
from games.presence import presence
from games.selectors import match_summary
from games.state import state_at_head
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def to_act(match_id: int) -> list[int]:
    match = Match.objects.get(pk=match_id)
    return ENGINES[match.game].to_act(state_at_head(match.pk, match.game, match.last_seq))


def facts(match_id: int) -> list[tuple[str, dict, str]]:
    return [(e.type, e.data, e.actor) for e in Event.objects.filter(match_id=match_id, kind=Event.Kind.TABLE)
            if e.type in ("SeatResigned", "SeatClaimed")]


def test_a_resigned_seat_is_played_by_the_fallback_bot_and_ranks_last(alice, bob):
    match_id = started_match("ten", [alice, bob], rated=False)
    answer = client_for(bob).post(f"/api/matches/{match_id}/resign")
    assert answer.status_code == 200, answer.json()
    assert [s["abandoned"] for s in answer.json()["seats"]] == [False, True]
    assert facts(match_id) == [("SeatResigned", {"type": "SeatResigned", "seat": 1}, f"user:{bob.pk}")]
    # The turn comes to bob's seat: the fallback bot plays it.
    while 1 not in to_act(match_id):
        turns.clock_expire(match_id=match_id, seat=0, expected_seq=Match.objects.get(pk=match_id).last_seq)
    assert turns.bot_move(match_id=match_id, seat=1, expected_seq=Match.objects.get(pk=match_id).last_seq)
    assert Event.objects.filter(match_id=match_id).order_by("-seq").first().actor == f"bot:{STRONG_BOT['ten']}"
    Seat.objects.filter(match_id=match_id, seat=0).update(abandoned=False)  # the clock's moves do not make alice go
    assert turns.match_play_out(match_id=match_id)
    ranks = match_summary(Match.objects.get(pk=match_id))["ranks"]
    assert ranks == [1, 2], ranks  # after every seat that played on, whatever the score


def test_a_resigned_person_cannot_move_for_the_bot(alice, bob):
    match_id = started_match("ten", [alice, bob], rated=False)
    assert client_for(alice).post(f"/api/matches/{match_id}/resign").status_code == 200
    move = ENGINES["ten"].legal_moves(state_at_head(match_id, "ten", Match.objects.get(pk=match_id).last_seq), 0)[0]
    refused = client_for(alice).post(f"/api/matches/{match_id}/moves", {"move": move}, format="json")
    assert refused.status_code in (403, 409), refused.json()


@pytest.mark.parametrize("who", ["anonymous", "stranger", "staff"])
def test_only_a_seated_person_resigns_and_a_refusal_writes_nothing(alice, bob, staff, who):
    match_id = started_match("ten", [alice, bob], rated=False)
    head = Match.objects.get(pk=match_id).last_seq
    client = {"anonymous": client_for(), "stranger": client_for(make_user("stan")), "staff": client_for(staff)}[who]
    answer = client.post(f"/api/matches/{match_id}/resign")
    assert answer.status_code == (401 if who == "anonymous" else 403), answer.json()
    if who != "anonymous":
        assert answer.json()["error"]["code"] == "not_seated"
    assert Match.objects.get(pk=match_id).last_seq == head
    assert not Seat.objects.filter(match_id=match_id, abandoned=True).exists()


def test_resigning_twice_an_open_or_a_finished_table_or_no_table_is_refused(alice, bob):
    match_id = started_match("ten", [alice, bob], rated=False)
    assert client_for(bob).post(f"/api/matches/{match_id}/resign").status_code == 200
    again = client_for(bob).post(f"/api/matches/{match_id}/resign")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "seat_given_up")
    assert len(facts(match_id)) == 1

    opened = client_for(alice).post("/api/matches", {"game": "ten", "players": 2}, format="json").json()
    refused = client_for(alice).post(f"/api/matches/{opened['id']}/resign")
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "match_not_running")

    assert turns.match_play_out(match_id=match_id)
    over = client_for(alice).post(f"/api/matches/{match_id}/resign")
    assert (over.status_code, over.json()["error"]["code"]) == (409, "match_not_running")
    assert client_for(alice).post("/api/matches/999999/resign").status_code == 404


def _waiting_on(match_id: int) -> int:
    [seat] = to_act(match_id)
    return seat


def test_a_player_claims_the_seat_of_a_person_who_left_once_the_table_has_waited(alice, bob, settings):
    match_id = started_match("ten", [alice, bob], rated=False)
    awaited = _waiting_on(match_id)
    claimer, gone = (bob, alice) if awaited == 0 else (alice, bob)
    settings.CLAIM_SEAT_AFTER_SECONDS = 3600
    early = client_for(claimer).post(f"/api/matches/{match_id}/claim", {"seat": awaited}, format="json")
    assert (early.status_code, early.json()["error"]["code"]) == (409, "seat_not_claimable")
    assert 0 < early.json()["error"]["extra"]["seconds_left"] <= 3600

    settings.CLAIM_SEAT_AFTER_SECONDS = 1
    presence().join(match_id, "their-socket", {"user": gone.pk, "seat": awaited, "name": "x", "client": "c"})
    there = client_for(claimer).post(f"/api/matches/{match_id}/claim", {"seat": awaited}, format="json")
    assert (there.status_code, there.json()["error"]["extra"]["seconds_left"]) == (409, None)  # still at the table
    presence().leave(match_id, "their-socket")
    assert not facts(match_id)

    settings.CLAIM_SEAT_AFTER_SECONDS = 0
    claimed = client_for(claimer).post(f"/api/matches/{match_id}/claim", {"seat": awaited}, format="json")
    assert claimed.status_code == 200, claimed.json()
    assert claimed.json()["seats"][awaited]["abandoned"] is True
    assert facts(match_id) == [("SeatClaimed", {"type": "SeatClaimed", "seat": awaited}, f"user:{claimer.pk}")]


@pytest.mark.parametrize("case", ["own seat", "not awaited", "bot seat", "unseated", "bad seat"])
def test_a_seat_that_is_not_claimable_is_refused_and_nothing_is_written(alice, bob, settings, case):
    settings.CLAIM_SEAT_AFTER_SECONDS = 0
    match_id = started_match("ten", [alice, bob], rated=False)
    awaited = _waiting_on(match_id)
    waiting, other = (alice, bob) if awaited == 0 else (bob, alice)
    head = Match.objects.get(pk=match_id).last_seq
    client, body, expected = {
        "own seat": (client_for(waiting), {"seat": awaited}, (409, "seat_not_claimable")),
        "not awaited": (client_for(waiting), {"seat": 1 - awaited}, (409, "seat_not_claimable")),
        "bot seat": (client_for(other), {"seat": awaited}, (409, "seat_not_claimable")),
        "unseated": (client_for(make_user("stan")), {"seat": awaited}, (403, "not_seated")),
        "bad seat": (client_for(other), {"seat": "x"}, (400, None)),
    }[case]
    if case == "bot seat":  # already played by the bot
        Seat.objects.filter(match_id=match_id, seat=awaited).update(abandoned=True)
    answer = client.post(f"/api/matches/{match_id}/claim", body, format="json")
    assert answer.status_code == expected[0], answer.json()
    if expected[1]:
        assert answer.json()["error"]["code"] == expected[1]
    assert Match.objects.get(pk=match_id).last_seq == head and not facts(match_id)


def test_a_private_table_is_no_table_to_a_stranger_who_would_resign_or_claim(alice, bob):
    opened = client_for(alice).post("/api/matches", {"game": "ten", "players": 2, "private": True}, format="json").json()
    stranger = client_for(make_user("stan"))
    for route, body in (("resign", None), ("claim", {"seat": 0})):
        answer = stranger.post(f"/api/matches/{opened['id']}/{route}", body, format="json")
        assert (answer.status_code, answer.json()["error"]["code"]) == (404, "match_not_found")
