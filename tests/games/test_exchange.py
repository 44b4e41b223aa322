"""Export and import of matches: identical events and hashes after a round trip; tampering refused by line."""
from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import transaction

from games.engines import ENGINES
from games.exchange import ImportRefused, match_export_lines, match_import
from games.models import Event, Match
from games.verification import verify_match
from server.errors import ApplicationError
from tests.conftest import client_for
from tests.games.builders import finished_match
from tests.games.helpers import started_match

pytestmark = pytest.mark.django_db


def exported_then_forgotten(game: str, users) -> list[str]:
    """The file of a finished match, and a database as it was before that match existed."""
    with transaction.atomic():
        match = finished_match(game, users)
        lines = list(match_export_lines(match))
        transaction.set_rollback(True)
    assert not Match.objects.exists()
    return lines


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_export_then_import_into_an_empty_database_gives_identical_events_and_hashes(game, alice, bob, carol):
    users = [alice, bob, carol][: max(2, ENGINES[game].min_players)]
    lines = exported_then_forgotten(game, users)
    match = match_import(lines, imported_by=alice)
    assert match.origin == Match.Origin.IMPORTED and not match.rated and match.status == Match.Status.FINISHED
    stored = list(Event.objects.filter(match=match).order_by("seq").values_list("seq", "kind", "actor", "data", "hash"))
    in_file = [(e["seq"], e["kind"], e["actor"], e["data"], e["hash"]) for e in map(json.loads, lines[1:])]
    assert stored == in_file
    assert verify_match(match).ok
    assert list(match_export_lines(match))[1:] == lines[1:]
    assert [s.user.username for s in match.seat_set.order_by("seat")] == [u.username for u in users]


def refusal(lines) -> ImportRefused:
    from accounts.models import User

    with pytest.raises(ImportRefused) as refused:
        match_import(lines, imported_by=User.objects.first())
    assert not Match.objects.exists()
    return refused.value


def test_a_file_with_one_altered_card_is_refused_with_its_line(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    number, line = next((i, l) for i, l in enumerate(lines) if '"CardPlayed"' in l)
    event = json.loads(line)
    event["data"]["card"] = str(int(event["data"]["card"]) + 1)
    lines[number] = json.dumps(event)
    refused = refusal(lines)
    assert refused.line == number + 1 and "hash" in refused.reason


def test_a_file_with_a_missing_line_is_refused_with_its_line(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    del lines[6]
    refused = refusal(lines)
    assert refused.line == len(lines) + 1 and "announces" in refused.reason
    header = json.loads(lines[0])
    header["events"] -= 1
    lines[0] = json.dumps(header)
    assert refusal(lines).line == 7  # where seq 6 should stand, seq 7 does


def test_a_file_with_a_wrong_hash_is_refused_with_its_line(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    event = json.loads(lines[4])
    event["hash"] = "0" * 64
    lines[4] = json.dumps(event)
    assert refusal(lines).line == 5


def test_a_file_whose_final_hash_is_not_the_chains_is_refused_on_the_header(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    header = json.loads(lines[0])
    header["final_hash"] = "f" * 64
    lines[0] = json.dumps(header)
    assert "head hash" in refusal(lines).reason


@pytest.mark.parametrize("bad", ["", "not json", "[]", '{"format": "other"}'])
def test_a_file_that_is_not_a_match_file_is_refused_on_line_1(bad):
    from tests.conftest import make_user

    make_user("importer")
    assert refusal([bad]).line == 1


def test_importing_the_same_match_twice_is_a_409(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    match_import(lines, imported_by=alice)
    with pytest.raises(ApplicationError) as again:
        match_import(lines, imported_by=alice)
    assert again.value.code == "already_imported" and Match.objects.count() == 1


def test_download_and_upload_over_the_api(alice, bob):
    match = finished_match("the-game", [alice, bob])
    download = client_for(None).get(f"/api/matches/{match.pk}/export")
    assert download.status_code == 200 and download["Content-Type"] == "application/jsonl"
    body = b"".join(download.streaming_content)
    assert json.loads(body.splitlines()[0])["final_hash"] == match.head_hash
    upload = client_for(alice).post("/api/matches/import", {"file": io.BytesIO(body)}, format="multipart")
    assert upload.status_code == 409 and upload.json()["error"]["code"] == "already_imported"
    forged = body.replace(b'"pile":0', b'"pile":1', 1)
    refused = client_for(alice).post("/api/matches/import", {"file": io.BytesIO(forged)}, format="multipart")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "import_refused"
    assert refused.json()["error"]["extra"]["line"] > 1


def test_a_running_match_is_exported_to_staff_only(alice, bob, staff):
    match_id = started_match("the-game", [alice, bob])
    assert client_for(alice).get(f"/api/matches/{match_id}/export").status_code == 403
    assert client_for(staff).get(f"/api/matches/{match_id}/export").status_code == 200


def test_the_commands_export_and_import_many_matches(tmp_path, alice, bob, capsys):
    with transaction.atomic():
        for seed in (1, 2, 3):
            finished_match("the-game", [alice, bob], seed=seed)
        call_command("export_matches", str(tmp_path), verbosity=0)
        transaction.set_rollback(True)
    assert len(list(tmp_path.glob("*.jsonl"))) == 3
    call_command("import_matches", str(tmp_path), "--as", "alice")
    assert "3 imported, 0 refused" in capsys.readouterr().out
    call_command("verify_events", "--all", verbosity=0)
    assert "3 matches checked" in capsys.readouterr().out


def test_a_file_verifies_without_a_server(tmp_path, alice, bob):
    from games.verify_file import verify_file

    match = finished_match("the-game", [alice, bob])
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(match_export_lines(match)) + "\n")
    assert verify_file(str(path)) is None
    path.write_text(path.read_text().replace('"won":false', '"won":true', 1))
    assert verify_file(str(path)).startswith("line ")
