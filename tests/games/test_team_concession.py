"""A cooperative game's team concedes (issue #43 item 1): a person who still plays their seat
proposes, the others still playing agree, and the match ends at once as the team's loss, from
the stream alone (replay, verifier, export); a withdrawal ends the proposal; a seat given up
drops out of it. Each route by persona, bad input, and nothing written when refused."""
from __future__ import annotations

import dataclasses
import json

import pytest

from games import selectors, services, turns
from games.chain import event_hash
from games.engines import ENGINES
from games.exchange import match_export_lines
from games.models import Event, Match, Seat
from games.state import state_at_head
from games.verification import StoredEvent, parse_match_file, verify_file_contents, verify_stream
from ratings.models import TeamResult
from tests.conftest import client_for, make_user
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db

FACTS = ("ConcessionProposed", "ConcessionAgreed", "ConcessionWithdrawn")


def facts(match_id: int) -> list[tuple[str, dict, str]]:
    return [(e.type, e.data, e.actor) for e in Event.objects.filter(match_id=match_id, kind=Event.Kind.TABLE).order_by("seq")
            if e.type in FACTS]


def head(match_id: int) -> int:
    return Match.objects.get(pk=match_id).last_seq


def concede(user, match_id: int):
    return client_for(user).post(f"/api/matches/{match_id}/concede")


def withdraw(user, match_id: int):
    return client_for(user).delete(f"/api/matches/{match_id}/concede")


def move_once(match_id: int, users: list) -> None:
    """The seat to act ends its turn if it may, else plays its first card (through the API)."""
    match = Match.objects.get(pk=match_id)
    state = state_at_head(match.pk, match.game, match.last_seq)
    [seat] = ENGINES[match.game].to_act(state)
    legal = ENGINES[match.game].legal_moves(state, seat)
    move = legal[-1] if legal[-1]["action"] == "end_turn" else legal[0]
    answer = client_for(users[seat]).post(f"/api/matches/{match_id}/moves", {"move": move}, format="json")
    assert answer.status_code == 200, answer.json()


def assert_conceded(match_id: int) -> dict:
    """The match ended as the team's loss, and every reader of the stream alone agrees."""
    match = Match.objects.get(pk=match_id)
    assert match.status == Match.Status.FINISHED and match.finished_at is not None and match.deadline is None
    outcome = match.outcome
    assert (outcome["cooperative"], outcome["won"], outcome["winners"]) == (True, False, [])
    assert outcome["detail"]["reason"] == "conceded"
    assert outcome["scores"] == [outcome["detail"]["cards_left"]] * match.players
    report = selectors.verify_match(match)
    assert report.ok, report.problems
    assert report.outcome == outcome
    header, events, _times = parse_match_file(match_export_lines(match))
    exported = verify_file_contents(header, events)
    assert exported.ok and exported.outcome == outcome, exported.problems
    replay = client_for().get(f"/api/matches/{match_id}/replay")
    assert replay.status_code == 200
    last = [row.type for row in Event.objects.filter(match_id=match_id).order_by("-seq")[:3]]
    assert last[:2] == ["MatchFinished", "TeamConceded"] and last[2] in FACTS[:2], last
    return outcome


def test_two_people_concede_once_both_agree_and_the_match_is_a_rated_finished_loss(
    alice, bob, eager_tasks, django_capture_on_commit_callbacks
):
    match_id = started_match("the-game", [alice, bob])
    with django_capture_on_commit_callbacks(execute=True):
        for _ in range(6):  # both people move, so the match counts for ratings
            move_once(match_id, [alice, bob])
    proposed = concede(alice, match_id)
    assert proposed.status_code == 200, proposed.json()
    assert proposed.json()["status"] == "running"
    assert proposed.json()["concession"] == {"agreed": [0], "waiting": [1]}
    assert client_for(bob).get(f"/api/matches/{match_id}").json()["concession"] == {"agreed": [0], "waiting": [1]}
    assert facts(match_id) == [("ConcessionProposed", {"type": "ConcessionProposed", "seat": 0}, f"user:{alice.pk}")]

    with django_capture_on_commit_callbacks(execute=True):
        agreed = concede(bob, match_id)
    assert agreed.status_code == 200, agreed.json()
    assert agreed.json()["status"] == "finished" and agreed.json()["concession"] is None
    outcome = assert_conceded(match_id)
    assert facts(match_id)[-1] == ("ConcessionAgreed", {"type": "ConcessionAgreed", "seat": 1}, f"user:{bob.pk}")
    assert agreed.json()["ranks"] == [1, 1]
    assert agreed.json()["rating"]["rated"] is True
    # Ratings follow as for any finished loss: the team result and both players' entries.
    result = TeamResult.objects.get(match_id=match_id)
    assert (result.won, result.cards_left, result.players) == (False, outcome["detail"]["cards_left"], 2)
    board = client_for().get("/api/ratings/the-game/leaderboard", {"min_games": 1}).json()
    assert {row["name"] for row in board["results"]} == {"Alice", "Bob"}


def test_one_person_with_a_bot_concedes_at_once(alice):
    created = client_for(alice).post("/api/matches", {"game": "the-game", "players": 2, "rated": False}, format="json")
    match_id = created.json()["id"]
    assert client_for(alice).post(f"/api/matches/{match_id}/bots", {"bot": "random"}, format="json").status_code == 200
    assert client_for(alice).post(f"/api/matches/{match_id}/start").status_code == 200
    answer = concede(alice, match_id)
    assert answer.status_code == 200, answer.json()
    assert answer.json()["status"] == "finished"
    assert facts(match_id) == [("ConcessionProposed", {"type": "ConcessionProposed", "seat": 0}, f"user:{alice.pk}")]
    assert_conceded(match_id)


def test_a_proposal_stays_through_moves_until_withdrawn_and_a_withdrawal_ends_it_for_all(alice, bob, carol):
    users = [alice, bob, carol]
    match_id = started_match("the-game", users, rated=False)
    assert concede(bob, match_id).status_code == 200
    move_once(match_id, users)
    move_once(match_id, users)
    assert client_for().get(f"/api/matches/{match_id}").json()["concession"] == {"agreed": [1], "waiting": [0, 2]}
    assert concede(carol, match_id).json()["concession"] == {"agreed": [1, 2], "waiting": [0]}

    # Alice declines: the proposal is over for everyone, and a new one starts from nobody.
    declined = withdraw(alice, match_id)
    assert declined.status_code == 200, declined.json()
    assert declined.json()["concession"] is None and declined.json()["status"] == "running"
    assert concede(alice, match_id).json()["concession"] == {"agreed": [0], "waiting": [1, 2]}
    assert withdraw(alice, match_id).json()["concession"] is None  # the proposer withdraws their own
    assert [kind for kind, _data, _actor in facts(match_id)] == [
        "ConcessionProposed", "ConcessionAgreed", "ConcessionWithdrawn", "ConcessionProposed", "ConcessionWithdrawn",
    ]
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING
    assert selectors.verify_match(Match.objects.get(pk=match_id)).ok


def test_a_seat_given_up_drops_out_and_carries_a_proposal_everyone_left_agreed_to(alice, bob, carol):
    users = [alice, bob, carol]
    match_id = started_match("the-game", users, rated=False)
    assert concede(alice, match_id).status_code == 200
    assert concede(bob, match_id).json()["concession"] == {"agreed": [0, 1], "waiting": [2]}
    resigned = client_for(carol).post(f"/api/matches/{match_id}/resign")
    assert resigned.status_code == 200, resigned.json()
    assert resigned.json()["status"] == "finished"
    assert facts(match_id)[-1] == ("ConcessionAgreed", {"type": "ConcessionAgreed", "seat": 1}, "server")
    assert_conceded(match_id)


def test_the_clock_abandoning_a_seat_carries_the_proposal_too(alice, bob):
    match_id = started_match("the-game", [alice, bob], rated=False)
    assert concede(bob, match_id).status_code == 200
    turns.seat_abandon(match_id=match_id, seat=0)
    assert_conceded(match_id)


def test_a_proposer_who_resigns_leaves_no_proposal_behind(alice, bob, carol):
    users = [alice, bob, carol]
    match_id = started_match("the-game", users, rated=False)
    assert concede(alice, match_id).status_code == 200
    assert client_for(alice).post(f"/api/matches/{match_id}/resign").status_code == 200
    summary = client_for(bob).get(f"/api/matches/{match_id}").json()
    assert (summary["status"], summary["concession"]) == ("running", None)
    assert concede(bob, match_id).json()["concession"] == {"agreed": [1], "waiting": [2]}
    assert facts(match_id)[-1][0] == "ConcessionProposed"
    assert concede(carol, match_id).json()["status"] == "finished"
    assert_conceded(match_id)


@pytest.mark.parametrize("who", ["anonymous", "stranger", "staff", "seat_given_up"])
@pytest.mark.parametrize("method", ["post", "delete"])
def test_only_a_person_playing_a_seat_concedes_and_a_refusal_writes_nothing(alice, bob, carol, staff, who, method):
    match_id = started_match("the-game", [alice, bob, carol], rated=False)
    if method == "delete":
        assert concede(alice, match_id).status_code == 200
    before = head(match_id)
    if who == "seat_given_up":
        assert client_for(bob).post(f"/api/matches/{match_id}/resign").status_code == 200
        before = head(match_id)
        client, status, code = client_for(bob), 409, "seat_given_up"
    else:
        client = {"anonymous": client_for(), "stranger": client_for(make_user("stan")), "staff": client_for(staff)}[who]
        status, code = (401, None) if who == "anonymous" else (403, "not_seated")
    answer = getattr(client, method)(f"/api/matches/{match_id}/concede")
    assert answer.status_code == status, answer.json()
    if code:
        assert answer.json()["error"]["code"] == code
    assert head(match_id) == before
    assert Match.objects.get(pk=match_id).status == Match.Status.RUNNING


def test_a_spectator_sees_the_proposal_but_cannot_agree(alice, bob):
    match_id = started_match("the-game", [alice, bob], rated=False)
    assert concede(alice, match_id).status_code == 200
    spectator = make_user("spec")
    assert client_for(spectator).get(f"/api/matches/{match_id}").json()["concession"] == {"agreed": [0], "waiting": [1]}
    refused = concede(spectator, match_id)
    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "not_seated")


def test_agreeing_twice_withdrawing_nothing_and_conceding_a_finished_or_open_table_are_refused(alice, bob):
    match_id = started_match("the-game", [alice, bob], rated=False)
    nothing = withdraw(alice, match_id)
    assert (nothing.status_code, nothing.json()["error"]["code"]) == (409, "no_concession")
    assert concede(alice, match_id).status_code == 200
    before = head(match_id)
    twice = concede(alice, match_id)
    assert (twice.status_code, twice.json()["error"]["code"]) == (409, "concession_already_agreed")
    assert head(match_id) == before

    assert concede(bob, match_id).status_code == 200
    finished = head(match_id)
    for answer in (concede(alice, match_id), withdraw(bob, match_id)):
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "match_not_running")
    assert head(match_id) == finished

    opened = client_for(alice).post("/api/matches", {"game": "the-game", "players": 2}, format="json").json()
    refused = concede(alice, opened["id"])
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "match_not_running")
    assert concede(alice, 999999).status_code == 404
    assert client_for(alice).put(f"/api/matches/{match_id}/concede").status_code == 405


@pytest.mark.parametrize("game", ["ten", "sequence-stacks", "split"])
def test_a_game_without_a_team_refuses_with_its_own_code_in_welsh_too(alice, bob, game):
    match_id = started_match(game, [alice, bob], rated=False)
    before = head(match_id)
    refused = concede(alice, match_id)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "game_not_cooperative")
    welsh = client_for(alice).post(f"/api/matches/{match_id}/concede", HTTP_ACCEPT_LANGUAGE="cy")
    assert welsh.json()["error"]["message"].startswith("Dim ond tîm gêm gydweithredol")
    assert withdraw(bob, match_id).json()["error"]["code"] == "game_not_cooperative"
    assert head(match_id) == before
    assert not Seat.objects.filter(match_id=match_id, abandoned=True).exists()


def test_the_services_refuse_a_game_without_a_team_before_reading_its_state(alice, bob):
    match_id = started_match("ten", [alice, bob], rated=False)
    with pytest.raises(Exception) as refused:
        services.concession_agree(match_id=match_id, user=alice)
    assert getattr(refused.value, "code", None) == "game_not_cooperative"
    assert services.concession_settle(match_id) is False


def _forged(match: Match, change) -> list[StoredEvent]:
    """The match's events after `change` (a list of `StoredEvent`s in, out), every hash recomputed,
    as a forger with the database would."""
    events = change([dataclasses.replace(e, data=json.loads(json.dumps(e.data))) for e in selectors.stored_events(match.pk)])
    previous, out = "", []
    for seq, event in enumerate(events, start=1):
        digest = event_hash(
            previous, version=match.chain_version, seq=seq, kind=event.kind, type=event.data["type"],
            actor=event.actor, data=event.data, created=event.created,
        )
        out.append(dataclasses.replace(event, seq=seq, type=event.data["type"], hash=digest))
        previous = digest
    return out


def test_the_verifier_refuses_a_forged_concession(alice):
    match_id = started_match("the-game", [alice], rated=False)
    assert concede(alice, match_id).status_code == 200
    match = Match.objects.get(pk=match_id)
    assert verify_stream("the-game", _forged(match, lambda events: events), chain_version=match.chain_version).ok

    def fewer_cards(events):
        events[-2].data["cards_left"] = 0
        return events

    def no_cause(events):  # the end after another table fact, not the agreement that causes it
        events[-3] = dataclasses.replace(events[-3], data={"type": "SeatResigned", "seat": 0})
        return events

    def caused_by_withdrawal(events):
        events[-3].data["type"] = "ConcessionWithdrawn"
        return events

    for forgery, problem in [
        (fewer_cards, "not what the team's concession causes"),
        (no_cause, "an engine event that no move caused"),
        (caused_by_withdrawal, "an engine event that no move caused"),
    ]:
        report = verify_stream("the-game", _forged(match, forgery), chain_version=match.chain_version)
        assert not report.ok and problem in " ".join(report.problems), (forgery.__name__, report.problems)


def test_a_delayed_tables_spectator_learns_of_a_proposal_only_once_the_position_shown_reaches_it(alice, bob):
    """A spectator kept moves behind sees the table's concession as it stood at the position shown,
    never what the players decided since (as the rest of the summary)."""
    body = {"game": "the-game", "players": 2, "rated": False, "spectator_policy": "delayed", "spectator_delay_moves": 1}
    created = client_for(alice).post("/api/matches", body, format="json")
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    assert client_for(bob).post(f"/api/matches/{match_id}/join", {}, format="json").status_code == 200
    assert client_for(alice).post(f"/api/matches/{match_id}/start").status_code == 200
    move_once(match_id, [alice, bob])  # the spectator is shown the position before it
    assert concede(alice, match_id).status_code == 200
    spectator = client_for(make_user("spec"))
    assert spectator.get(f"/api/matches/{match_id}").json()["concession"] is None
    assert client_for(bob).get(f"/api/matches/{match_id}").json()["concession"] == {"agreed": [0], "waiting": [1]}
    move_once(match_id, [alice, bob])  # the position shown is now the one this move was made in
    assert spectator.get(f"/api/matches/{match_id}").json()["concession"] == {"agreed": [0], "waiting": [1]}
