"""A deleted account's names are in nothing written or served after the deletion (issue #39, round 3,
finding 4): facts name a person by account id, and every reader takes the name from the account,
which the deletion anonymises. The logs still verify; facts written before keep their old shape.

Regression: `MatchStarted` wrote each person's shown name into its seats and `PlayerRegistered` the
entrant's name, so the person's name stayed in the events, their exports, the tournament feed and
the league log after the account was deleted."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import transaction
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from games.chain import canonical_json
from games.exchange import match_import
from games.models import Event, Match
from games.verification import parse_match_file, verify_file_contents
from leaguelog import services as log_services
from leaguelog.__main__ import served_path
from leaguelog.models import LogEntry
from leaguelog.notes import parse_verifier_key, verifier_key_for
from leaguelog.verify import Fetch, FetchError, verify_league
from tests.accounts.helpers import PASSWORD
from tests.conftest import client_for
from tests.games.builders import finished_match
from tests.tournaments.builders import assert_rebuild_equals_incremental, make_tournament, play_to_end, reloaded
from tournaments import fold, projections
from tournaments import services as tournament_services
from tournaments.models import Entrant, Tournament, TournamentEvent
from tournaments.services._stream import _append

pytestmark = pytest.mark.django_db

LOG_KEY = parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))
GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden" / "chain-v2" / "the-game.jsonl"


def served(path: str) -> str:
    answer = APIClient().get(path)
    assert answer.status_code == 200, answer.content
    return b"".join(answer.streaming_content).decode() if answer.streaming else answer.content.decode()


def names_alice(text: str) -> bool:
    """Her username ("alice") or display name ("Alice", `tests.conftest.make_user`)."""
    return "alice" in text.lower()


def client_fetch() -> Fetch:
    client = Client()

    def fetch(path: str) -> bytes:
        answer = client.get(served_path(path))
        if answer.status_code != 200:
            raise FetchError(f"served with status {answer.status_code}")
        return b"".join(answer.streaming_content) if answer.streaming else answer.content

    return fetch


def integrate() -> None:
    while log_services.log_integrate():
        pass


def delete(user: User) -> str:
    assert client_for(user).post("/api/auth/me/delete", {"password": PASSWORD}, format="json").status_code == 204
    return f"deleted player {user.pk}"


@pytest.fixture
def played(alice, bob) -> dict[str, int]:
    """Alice played a match with Bob and a tournament of theirs to its end; then her account went."""
    casual = finished_match("sequence-stacks", [alice, bob], seed=2)
    tournament = make_tournament(bob, people=(alice, bob), options={"rounds": 1})
    tournament_services.tournament_start(tournament_id=tournament.pk, user=bob)
    assert play_to_end(tournament).status == Tournament.Status.FINISHED
    integrate()
    delete(alice)
    integrate()
    table = Match.objects.get(tournament_table__round__tournament=tournament)
    return {"casual": casual.pk, "table": table.pk, "tournament": tournament.pk}


def test_no_event_export_feed_or_log_entry_names_the_deleted_person(played, alice):
    matches = (played["casual"], played["table"])
    for match_id in matches:
        for data in Event.objects.filter(match_id=match_id).values_list("data", flat=True):
            assert not names_alice(canonical_json(data)), data
        export = served(f"/api/matches/{match_id}/export")
        assert not names_alice(export)
        assert json.loads(export.splitlines()[0])["players"][0]["username"] == f"deleted-player-{alice.pk}"
        assert not names_alice(served(f"/api/matches/{match_id}/events"))
    for data in TournamentEvent.objects.filter(tournament_id=played["tournament"]).values_list("data", flat=True):
        assert not names_alice(canonical_json(data)), data
    assert not names_alice(served(f"/api/tournaments/{played['tournament']}/events?limit=500"))
    bodies = [bytes(body).decode() for body in LogEntry.objects.values_list("body", flat=True)]
    assert any('"type":"tournament_event"' in body for body in bodies) and any('"type":"match"' in body for body in bodies)
    assert not any(names_alice(body) for body in bodies)


def test_the_events_exports_and_league_log_still_verify(played, bob):
    call_command("verify_events", verbosity=0)  # raises on a problem
    for match_id in (played["casual"], played["table"]):
        lines = served(f"/api/matches/{match_id}/export").splitlines()
        header, events, _ = parse_match_file(lines)
        assert verify_file_contents(header, events).ok
    summary = verify_league(client_fetch(), log_key=LOG_KEY)
    assert summary.tournaments == 1 and summary.exports == summary.matches >= 2


def test_the_export_of_a_deleted_persons_match_imports_into_another_server(alice, bob):
    with transaction.atomic():  # the server it was played on, forgotten afterwards
        match = finished_match("the-game", [alice, bob], seed=5)
        delete(alice)
        lines = served(f"/api/matches/{match.pk}/export").splitlines()
        transaction.set_rollback(True)
    assert not names_alice("\n".join(lines))
    imported = match_import(lines, imported_by=bob)
    assert [json.loads(line)["hash"] for line in lines[1:]] == list(
        Event.objects.filter(match=imported).order_by("seq").values_list("hash", flat=True)
    )
    assert imported.seat_set.get(seat=0).guest == f"deleted-player-{alice.pk}@import"
    call_command("verify_events", "--match", str(imported.pk), verbosity=0)


def test_matches_tournaments_and_replays_name_everyone_by_their_name_now(played, alice):
    shown = f"deleted player {alice.pk}"
    for match_id in (played["casual"], played["table"]):
        seats = APIClient().get(f"/api/matches/{match_id}").json()["seats"]
        assert sorted(s["name"] for s in seats) == sorted([shown, "Bob"])
        assert APIClient().get(f"/api/matches/{match_id}/replay").status_code == 200
    tournament = played["tournament"]
    entrants = APIClient().get(f"/api/tournaments/{tournament}/entrants").json()["results"]
    assert sorted(e["name"] for e in entrants) == sorted([shown, "Bob"])
    standings = APIClient().get(f"/api/tournaments/{tournament}/standings").json()["results"]
    assert sorted(row["entrant"]["name"] for row in standings) == sorted([shown, "Bob"])
    assert_rebuild_equals_incremental(Tournament.objects.get(pk=tournament))


def test_an_entry_written_with_a_name_before_still_folds_and_its_name_is_not_served(alice, bob):
    """Events written before carry the person's `name`: they still fold and verify, the feed leaves
    the name out (the entrants list names them), and the league log keeps its entry as logged."""
    tournament = make_tournament(bob, bots=1, options={"rounds": 1})
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        entrant = Entrant.objects.create(tournament=locked, user=alice, name="Alice")
        old_shape = {"entrant": entrant.pk, "name": "Alice", "user": alice.pk, "bot": ""}
        _append(locked, "PlayerRegistered", old_shape, actor=f"user:{alice.pk}")
    state = fold.fold(projections.event_dict(e) for e in TournamentEvent.objects.filter(tournament=tournament))
    assert state["entrants"][str(entrant.pk)] == {"user": alice.pk, "bot": "", "status": "active"}
    assert entrant.pk in projections.state_of(tournament)["order"]
    tournament_services.tournament_start(tournament_id=tournament.pk, user=bob)
    play_to_end(reloaded(tournament))
    assert_rebuild_equals_incremental(tournament)
    integrate()
    shown = delete(alice)
    feed = served(f"/api/tournaments/{tournament.pk}/events?limit=500")
    registered = next(e for e in json.loads(feed)["events"] if e["data"].get("entrant") == entrant.pk)
    assert registered["data"] == {"entrant": entrant.pk, "user": alice.pk, "bot": ""} and not names_alice(feed)
    entrants = APIClient().get(f"/api/tournaments/{tournament.pk}/entrants").json()["results"]
    assert shown in [e["name"] for e in entrants]
    logged = [bytes(body).decode() for body in LogEntry.objects.filter(kind="tournament_event").values_list("body", flat=True)]
    assert sum('"name":"Alice"' in body for body in logged) == 1  # as logged: the hashes cover its bytes
    assert verify_league(client_fetch(), log_key=LOG_KEY).tournaments == 1


def test_a_match_started_with_names_before_still_imports_verifies_and_exports_as_it_was(bob):
    """An old-shape `MatchStarted` (a `name` per seat) keeps its bytes: its hashes cover them."""
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    match = match_import(lines, imported_by=bob)
    call_command("verify_events", "--match", str(match.pk), verbosity=0)
    exported = served(f"/api/matches/{match.pk}/export").splitlines()
    assert exported[1:] == lines[1:]
    assert [s["name"] for s in APIClient().get(f"/api/matches/{match.pk}").json()["seats"]] == [
        "golden0@import", "golden1@import"
    ]


def test_the_servers_own_reasons_name_a_person_by_entrant_and_are_read_with_the_name_now(alice, bob, carol):
    """"Alice left the field." was written in the promoted person's event; now "entrant N left the
    field." is, and the decisions list reads it with the entrant's name (anonymised once deleted)."""
    tournament = make_tournament(bob, people=(alice, bob), max_entrants=2, field_rules={"waitlist": 1})
    tournament_services.entrant_register(tournament_id=tournament.pk, user=carol)  # waits in line
    tournament_services.entrant_withdraw(tournament_id=tournament.pk, user=alice)  # carol takes the seat
    left = Entrant.objects.get(tournament=tournament, user=alice).pk
    promoted = TournamentEvent.objects.get(tournament=tournament, type="PlayerPromoted").data
    assert f"entrant {left} left the field." in promoted["why"] and not names_alice(canonical_json(promoted))

    def why_promoted() -> str:
        decisions = APIClient().get(f"/api/tournaments/{tournament.pk}/decisions").json()
        return next(d["why"] for d in decisions if d["type"] == "PlayerPromoted")

    assert "Alice left the field." in why_promoted()
    shown = delete(alice)
    assert f"{shown} left the field." in why_promoted()
