"""Judging in a room (issue #46 items 3 and 4): a seated player calls a judge to their table, a
judge the organiser named takes the call and resolves it with a ruling, and time added to a table
lets it play on past the round's deadline. Every step is an event: the call's in the tournament's
judging stream (read by its judges and the table's players only), a ruling's effect on play in
the tournament's public stream."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.utils import timezone

from games import turns
from games.services import match_create
from leaguelog import services as log_services
from leaguelog.verify import verify_league
from notifications import services as notification_services
from notifications.models import Notification
from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.leaguelog.test_verify_league import LOG_KEY, client_fetch
from tests.tournaments.builders import (
    assert_rebuild_equals_incremental,
    events_of,
    make_tournament,
    play_to_end,
    running_matches,
)
from tournaments import selectors, services
from tournaments.models import JudgeCall, JudgeCallEvent, Round, RoundTable, TournamentEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged(db) -> dict:
    """A Swiss tournament of four people at two tables, round 1 running with a 10-minute deadline;
    olga organises and has named jess to judge."""
    olga, jess = make_user("olga"), make_user("jess")
    people = [make_user(name) for name in ("alice", "bob", "carol", "dan")]
    tournament = make_tournament(olga, people=tuple(people), options={"rounds": 2}, round_seconds=600)
    services.tournament_start(tournament_id=tournament.pk, user=olga)
    services.judge_name(tournament_id=tournament.pk, user=olga, username="jess")
    tables = {t.number: t for t in RoundTable.objects.filter(round__tournament=tournament).order_by("number")}
    by_user = {e.user_id: e.pk for e in tournament.entrants.all()}
    alice = people[0]
    at_alices = next(t for t in tables.values() if by_user[alice.pk] in t.seats)
    other = next(t for t in tables.values() if t is not at_alices)
    seated_with_alice = next(p for p in people if by_user[p.pk] in at_alices.seats and p != alice)
    elsewhere = next(p for p in people if by_user[p.pk] in other.seats)
    return {
        "tournament": tournament, "olga": olga, "jess": jess, "alice": alice, "table": at_alices, "other_table": other,
        "opponent": seated_with_alice, "elsewhere": elsewhere, "entrants": by_user,
        "spectator": make_user("eve"), "staff": make_user("sam", staff=True),
    }


def calls_url(j: dict) -> str:
    return f"/api/tournaments/{j['tournament'].pk}/judge-calls"


def call(j: dict, user, **body) -> object:
    return client_for(user).post(calls_url(j), {"match": j["table"].match_id, "reason": "dispute", **body}, format="json")


def judging_steps(j: dict) -> list[str]:
    return list(JudgeCallEvent.objects.filter(tournament=j["tournament"]).order_by("seq").values_list("type", flat=True))


def public_types(j: dict) -> list[str]:
    return list(TournamentEvent.objects.filter(tournament=j["tournament"]).order_by("seq").values_list("type", flat=True))


def test_a_seated_player_calls_a_judge_and_the_call_keeps_the_tables_position(judged):
    public_before = public_types(judged)
    answer = call(judged, judged["alice"], details="We disagree on whether a run may wrap.")
    assert answer.status_code == 201, answer.content
    body = answer.json()
    assert body["status"] == "open" and body["reason"] == "dispute"
    assert body["round"] == 1 and body["table"] == judged["table"].number
    assert body["match_seq"] == judged["table"].match.last_seq
    assert body["caller"] == {"id": judged["alice"].pk, "name": "Alice"}
    assert judging_steps(judged) == ["JudgeNamed", "JudgeCalled"]
    # Nothing of it in the tournament's public stream.
    assert public_types(judged) == public_before


@pytest.mark.parametrize("persona", ["anonymous", "other_player", "spectator", "organiser", "staff", "judge"])
def test_only_a_player_seated_at_the_table_may_call_a_judge_to_it(judged, persona):
    who = {"anonymous": None, "other_player": judged["elsewhere"], "spectator": judged["spectator"],
           "organiser": judged["olga"], "staff": judged["staff"], "judge": judged["jess"]}[persona]
    before = judging_steps(judged)
    answer = call(judged, who)
    if who is None:
        assert answer.status_code == 401
    else:
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_at_table"
    assert judging_steps(judged) == before


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"reason": "bored"}, "invalid_input"),
        ({"details": "x" * 501}, "invalid_input"),
        ({"match": 999_999}, "table_not_found"),
    ],
)
def test_a_bad_call_is_refused_with_its_reason_and_changes_nothing(judged, body, code):
    before = judging_steps(judged)
    answer = call(judged, judged["alice"], **body)
    assert answer.status_code in (400, 404) and answer.json()["error"]["code"] == code
    assert judging_steps(judged) == before


def test_a_second_call_waits_for_the_first_to_be_resolved(judged):
    assert call(judged, judged["alice"]).status_code == 201
    again = call(judged, judged["alice"], reason="rules")
    assert again.status_code == 409 and again.json()["error"]["code"] == "judge_already_called"
    # The opponent may call too: each person's own call.
    assert call(judged, judged["opponent"], reason="rules").status_code == 201


@pytest.mark.parametrize(
    ("persona", "status"),
    [("anonymous", 401), ("player", 403), ("spectator", 403), ("organiser", 200), ("judge", 200), ("staff", 200)],
)
def test_the_queue_is_read_by_the_organiser_the_judges_and_staff_only(judged, persona, status):
    call(judged, judged["alice"], details="secret words")
    who = {"anonymous": None, "player": judged["alice"], "spectator": judged["spectator"], "organiser": judged["olga"],
           "judge": judged["jess"], "staff": judged["staff"]}[persona]
    answer = client_for(who).get(calls_url(judged))
    assert answer.status_code == status
    if status == 200:
        queue = answer.json()
        assert [c["details"] for c in queue["calls"]] == ["secret words"]
        assert queue["judges"] == [{"id": judged["jess"].pk, "name": "Jess"}]
        assert client_for(who).get(calls_url(judged), {"after": queue["head"]}).json()["calls"] == []
    else:
        assert "secret words" not in answer.content.decode()


def test_the_callers_words_reach_neither_the_public_the_other_players_nor_the_feed(judged):
    call(judged, judged["alice"], details="secret words")
    match_id = judged["table"].match_id
    seen = {name: client_for(judged[name]).get(f"/api/tournaments/tables/{match_id}/judging").json()
            for name in ("alice", "opponent", "spectator", "jess")}
    assert seen["alice"]["calls"][0]["details"] == "secret words"
    assert seen["jess"]["calls"][0]["details"] == "secret words"
    assert seen["opponent"]["calls"][0]["details"] is None and seen["opponent"]["calls"][0]["status"] == "open"
    assert seen["spectator"]["calls"] == [] and not seen["spectator"]["can_call"]
    assert seen["alice"]["can_call"] and seen["jess"]["judges"] and not seen["alice"]["judges"]
    feed = client_for().get(f"/api/tournaments/{judged['tournament'].pk}/events", {"limit": 500}).content.decode()
    assert "secret words" not in feed and "JudgeCalled" not in feed


def test_a_judge_takes_a_call_once_and_players_cannot(judged):
    number = call(judged, judged["alice"]).json()["number"]
    claim = f"{calls_url(judged)}/{number}/claim"
    assert client_for(judged["alice"]).post(claim).json()["error"]["code"] == "not_judge"
    assert client_for(judged["spectator"]).post(claim).status_code == 403
    taken = client_for(judged["jess"]).post(claim)
    assert taken.status_code == 200 and taken.json()["claimed_by"]["name"] == "Jess"
    again = client_for(judged["olga"]).post(claim)
    assert again.status_code == 409 and again.json()["error"]["code"] == "judge_call_taken"
    assert client_for(judged["jess"]).post(f"{calls_url(judged)}/999/claim").status_code == 404


def claimed(judged, judge="jess") -> str:
    number = call(judged, judged["alice"]).json()["number"]
    assert client_for(judged[judge]).post(f"{calls_url(judged)}/{number}/claim").status_code == 200
    return f"{calls_url(judged)}/{number}/resolve"


def test_a_ruling_that_adds_time_extends_the_table_in_the_public_stream(judged):
    resolve = claimed(judged)
    answer = client_for(judged["jess"]).post(
        resolve, {"kind": "extension", "seconds": 300, "note": "Five minutes for the time the dispute took."}, format="json"
    )
    assert answer.status_code == 200, answer.content
    ruling = answer.json()["ruling"]
    assert ruling == {"kind": "extension", "note": "Five minutes for the time the dispute took.", "seconds": 300,
                      "extra_seconds": 300}
    assert answer.json()["status"] == "resolved" and answer.json()["resolved_by"]["name"] == "Jess"
    table = judged["table"]
    assert events_of(judged["tournament"], "TableTimeExtended") == [
        {"round": 1, "table": table.number, "seconds": 300, "extra_seconds": 300}
    ]
    assert RoundTable.objects.get(pk=table.pk).extra_seconds == 300
    shown = next(t for t in selectors.rounds(judged["tournament"])[0]["tables"] if t["table"] == table.number)
    assert shown["extra_seconds"] == 300
    assert judging_steps(judged)[-3:] == ["JudgeCalled", "JudgeCallClaimed", "JudgeCallResolved"]
    assert_rebuild_equals_incremental(judged["tournament"])
    # Resolved once.
    again = client_for(judged["jess"]).post(resolve, {"kind": "note", "note": "again"}, format="json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "judge_call_resolved"


def test_only_the_judge_who_took_the_call_or_the_organiser_resolves_it(judged):
    resolve = claimed(judged)
    other = make_user("otto")
    services.judge_name(tournament_id=judged["tournament"].pk, user=judged["olga"], username="otto")
    refused = client_for(other).post(resolve, {"kind": "note", "note": "mine now"}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "judge_call_not_yours"
    for persona in ("alice", "spectator"):
        assert client_for(judged[persona]).post(resolve, {"kind": "note", "note": "x"}, format="json").status_code == 403
    assert client_for(judged["olga"]).post(resolve, {"kind": "note", "note": "Play on."}, format="json").status_code == 200


def test_an_open_call_is_taken_before_it_is_resolved(judged):
    number = call(judged, judged["alice"]).json()["number"]
    resolve = f"{calls_url(judged)}/{number}/resolve"
    answer = client_for(judged["jess"]).post(resolve, {"kind": "note", "note": "x"}, format="json")
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "judge_call_not_claimed"


@pytest.mark.parametrize(
    ("ruling", "code"),
    [
        ({"kind": "note", "note": "  "}, "invalid_input"),
        ({"kind": "verdict", "note": "x"}, "invalid_input"),
        ({"kind": "extension", "note": "x", "seconds": 5}, "invalid_input"),
        ({"kind": "extension", "note": "x"}, "bad_extension"),
        ({"kind": "penalty", "note": "x", "entrant": 999_999, "penalty": "warning"}, "bad_penalty"),
        ({"kind": "correction", "note": "x"}, "bad_correction"),
    ],
)
def test_a_bad_ruling_is_refused_and_changes_nothing(judged, ruling, code):
    resolve = claimed(judged)
    steps, public = judging_steps(judged), public_types(judged)
    answer = client_for(judged["jess"]).post(resolve, ruling, format="json")
    assert answer.status_code == 400 and answer.json()["error"]["code"] == code, answer.content
    assert judging_steps(judged) == steps and public_types(judged) == public
    assert JudgeCall.objects.get(tournament=judged["tournament"]).status == "claimed"


def test_a_penalty_names_a_player_at_the_table(judged):
    resolve = claimed(judged)
    opponent = judged["entrants"][judged["opponent"].pk]
    answer = client_for(judged["jess"]).post(
        resolve, {"kind": "penalty", "note": "Slow play after a caution.", "entrant": opponent, "penalty": "warning"},
        format="json",
    )
    assert answer.status_code == 200
    assert answer.json()["ruling"] == {"kind": "penalty", "note": "Slow play after a caution.", "entrant": opponent,
                                       "penalty": "warning"}


def test_a_correction_is_the_organisers_and_goes_through_the_tournaments_correction_event(judged):
    resolve = claimed(judged)
    alice = judged["entrants"][judged["alice"].pk]
    body = {"kind": "correction", "note": "Left the room during the game.", "forfeited": [alice]}
    public = public_types(judged)
    refused = client_for(judged["jess"]).post(resolve, body, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_organiser"
    assert public_types(judged) == public
    answer = client_for(judged["olga"]).post(resolve, body, format="json")
    assert answer.status_code == 200, answer.content
    forfeit = TournamentEvent.objects.get(tournament=judged["tournament"], type="ForfeitAwarded")
    assert answer.json()["ruling"]["correction_seq"] == forfeit.seq
    assert forfeit.data["forfeited"] == [alice] and forfeit.data["reason"] == "Left the room during the game."


def test_time_added_lets_a_table_play_on_past_the_rounds_deadline(judged):
    tournament, table, other = judged["tournament"], judged["table"], judged["other_table"]
    services.table_time_extend(
        tournament_id=tournament.pk, user=judged["jess"], round_number=1, table_number=table.number, seconds=600
    )
    deadline = Round.objects.get(tournament=tournament, number=1).deadline
    services.tournament_advance(tournament_id=tournament.pk, now=deadline + dt.timedelta(seconds=1))
    # The other table was played out at the deadline; the extended one plays on.
    assert running_matches(tournament) == [table.match_id]
    assert RoundTable.objects.get(pk=other.pk).result is not None
    services.tournament_advance(tournament_id=tournament.pk, now=deadline + dt.timedelta(seconds=601))
    assert table.match_id not in running_matches(tournament)
    assert RoundTable.objects.get(pk=table.pk).result is not None
    assert Round.objects.get(tournament=tournament, number=1).completed_at is not None


@pytest.mark.parametrize(
    ("persona", "status"),
    [("anonymous", 401), ("player", 403), ("spectator", 403), ("judge", 200), ("organiser", 200), ("staff", 200)],
)
def test_only_those_who_judge_add_time(judged, persona, status):
    who = {"anonymous": None, "player": judged["alice"], "spectator": judged["spectator"], "judge": judged["jess"],
           "organiser": judged["olga"], "staff": judged["staff"]}[persona]
    url = f"/api/tournaments/{judged['tournament'].pk}/rounds/1/tables/{judged['table'].number}/extension"
    answer = client_for(who).post(url, {"seconds": 120}, format="json")
    assert answer.status_code == status
    assert RoundTable.objects.get(pk=judged["table"].pk).extra_seconds == (120 if status == 200 else 0)


def test_time_is_added_only_to_a_table_still_playing_and_within_bounds(judged):
    tournament, table = judged["tournament"], judged["table"]
    url = f"/api/tournaments/{tournament.pk}/rounds/1/tables/{table.number}/extension"
    jess = client_for(judged["jess"])
    assert jess.post(url, {"seconds": 30}, format="json").status_code == 400
    missing = jess.post(f"/api/tournaments/{tournament.pk}/rounds/1/tables/99/extension", {"seconds": 60}, format="json")
    assert missing.json()["error"]["code"] == "table_not_found"
    assert jess.post(url, {"seconds": 3600}, format="json").status_code == 200
    assert jess.post(url, {"seconds": 3600}, format="json").status_code == 200
    too_long = jess.post(url, {"seconds": 60}, format="json")
    assert too_long.status_code == 409 and too_long.json()["error"]["code"] == "extension_too_long"
    turns.match_play_out(match_id=table.match_id)
    done = jess.post(url, {"seconds": 60}, format="json")
    assert done.status_code == 409 and done.json()["error"]["code"] == "table_not_playing"
    assert RoundTable.objects.get(pk=table.pk).extra_seconds == 7200


def test_judges_are_named_and_removed_by_the_organiser_alone(judged):
    url = f"/api/tournaments/{judged['tournament'].pk}/judges"
    make_user("otto")
    for who in (judged["jess"], judged["alice"], judged["spectator"]):
        answer = client_for(who).post(url, {"username": "otto"}, format="json")
        assert answer.status_code == 403 and answer.json()["error"]["code"] == "not_organiser"
    assert client_for().post(url, {"username": "otto"}, format="json").status_code == 401
    assert client_for(judged["olga"]).post(url, {"username": "nobody"}, format="json").status_code == 404
    assert client_for(judged["olga"]).post(url, {"username": "jess"}, format="json").json()["error"]["code"] == "already_judge"
    named = client_for(judged["staff"]).post(url, {"username": "otto"}, format="json")
    assert named.status_code == 201 and named.json()["name"] == "Otto"
    otto = named.json()["id"]
    assert client_for(judged["jess"]).delete(f"{url}/{otto}").status_code == 403
    assert client_for(judged["olga"]).delete(f"{url}/{otto}").status_code == 204
    assert client_for(judged["olga"]).delete(f"{url}/{otto}").status_code == 404
    assert judging_steps(judged) == ["JudgeNamed", "JudgeNamed", "JudgeRemoved"]


def test_a_judge_removed_no_longer_reads_the_queue(judged):
    services.judge_remove(tournament_id=judged["tournament"].pk, user=judged["olga"], judge_user_id=judged["jess"].pk)
    assert client_for(judged["jess"]).get(calls_url(judged)).status_code == 403


def test_a_table_of_no_tournament_has_no_judging(judged):
    match = match_create(game="ten", user=judged["alice"], players=2)
    answer = client_for().get(f"/api/tournaments/tables/{match.pk}/judging")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "not_tournament_table"


def test_no_time_is_added_once_the_tables_time_is_up_or_to_a_round_without_a_deadline(judged):
    tournament, table = judged["tournament"], judged["table"]
    url = f"/api/tournaments/{tournament.pk}/rounds/1/tables/{table.number}/extension"
    Round.objects.filter(tournament=tournament, number=1).update(deadline=timezone.now() - dt.timedelta(seconds=1))
    late = client_for(judged["jess"]).post(url, {"seconds": 60}, format="json")
    assert late.status_code == 409 and late.json()["error"]["code"] == "table_time_up"
    Round.objects.filter(tournament=tournament, number=1).update(deadline=None)
    endless = client_for(judged["jess"]).post(url, {"seconds": 60}, format="json")
    assert endless.status_code == 409 and endless.json()["error"]["code"] == "round_has_no_deadline"
    assert not events_of(tournament, "TableTimeExtended")


def test_a_ruling_needs_words_for_the_players(judged):
    number = call(judged, judged["alice"]).json()["number"]
    services.judge_call_claim(tournament_id=judged["tournament"].pk, user=judged["jess"], call_number=number)
    where = {"tournament_id": judged["tournament"].pk, "user": judged["jess"], "call_number": number}
    for ruling, code in (({"kind": "note", "note": " "}, "ruling_note_required"), ({"kind": "note"}, "ruling_note_required"),
                         ("play on", "bad_ruling")):
        with pytest.raises(ApplicationError) as refused:
            services.judge_call_resolve(**where, ruling=ruling)
        assert refused.value.code == code


@pytest.mark.parametrize(
    ("persona", "status"),
    [("anonymous", 302), ("player", 403), ("spectator", 403), ("judge", 200), ("organiser", 200), ("staff", 200)],
)
def test_the_judges_queue_page_is_theirs_alone(judged, persona, status):
    who = {"anonymous": None, "player": judged["alice"], "spectator": judged["spectator"], "judge": judged["jess"],
           "organiser": judged["olga"], "staff": judged["staff"]}[persona]
    call(judged, judged["alice"], details="secret words")
    browser = Client()
    if who is not None:
        browser.force_login(who)
    answer = browser.get(f"/tournaments/{judged['tournament'].pk}/judging")
    assert answer.status_code == status
    assert b"secret words" not in answer.content  # the page reads the calls from the API
    if status == 200:
        assert b'src="/static/frontend/js/judging.js"' in answer.content
    tournament_page = browser.get(f"/tournaments/{judged['tournament'].pk}").content
    assert (b'id="t-judging"' in tournament_page) == (status == 200)


def test_the_table_page_carries_its_judging_for_the_reader(judged):
    browser = Client()
    browser.force_login(judged["alice"])
    page = browser.get(f"/tables/{judged['table'].match_id}").content.decode()
    assert f'"judging": {{"tournament": {judged["tournament"].pk}' in page and '"can_call": true' in page
    browser.force_login(judged["spectator"])
    page = browser.get(f"/tables/{judged['table'].match_id}").content.decode()
    assert '"can_call": false' in page and '"calls": []' in page


def test_a_call_tells_the_judges_and_a_ruling_tells_the_caller(judged):
    number = call(judged, judged["alice"]).json()["number"]
    tournament = judged["tournament"]
    told = notification_services.judging_notify(tournament_id=tournament.pk, seq=number)
    rows = Notification.objects.filter(pk__in=told)
    assert sorted(rows.values_list("user__username", flat=True)) == ["jess", "olga"]
    jess_told = rows.get(user=judged["jess"]).data
    assert jess_told["title"] == f"A judge is called to table {judged['table'].number}"
    assert jess_told["url"] == f"/tournaments/{tournament.pk}/judging"
    assert notification_services.judging_notify(tournament_id=tournament.pk, seq=number) == []  # told once
    services.judge_call_claim(tournament_id=tournament.pk, user=judged["jess"], call_number=number)
    resolved = services.judge_call_resolve(
        tournament_id=tournament.pk, user=judged["jess"], call_number=number, ruling={"kind": "note", "note": "Play on."}
    )
    ruled = notification_services.judging_notify(tournament_id=tournament.pk, seq=resolved.last_seq)
    (row,) = Notification.objects.filter(pk__in=ruled)
    assert row.user == judged["alice"] and row.kind == "judge_ruled" and row.data["body"] == "Play on."
    assert row.data["url"] == f"/tables/{judged['table'].match_id}"


def test_a_tournament_with_time_added_verifies_from_the_league_log(judged):
    """verify_league folds the tournament's log, TableTimeExtended included, to the same standings."""
    tournament = judged["tournament"]
    services.table_time_extend(
        tournament_id=tournament.pk, user=judged["jess"], round_number=1, table_number=judged["table"].number, seconds=300
    )
    assert play_to_end(tournament).status == "finished"
    while log_services.log_integrate():
        pass
    summary = verify_league(client_fetch(), log_key=LOG_KEY)
    assert summary.tournaments == 1
