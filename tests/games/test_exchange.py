"""Export and import of matches: identical events and hashes after a round trip; tampering refused by line."""
from __future__ import annotations

import io
import json
import re
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.utils.module_loading import import_string
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from accounts.models import User
from games import services
from games.chain import CHAIN_VERSION, canonical_json, canonical_time, event_hash
from games.engines import ENGINES
from games.exchange import ImportRefused, match_export_lines, match_import
from games.models import Event, Match
from games.selectors import verify_match
from games.services import match_practice
from games.verification import parse_match_file, verify_file_contents
from games.verify_file import verify_file
from ratings.services import match_rate
from server.errors import ApplicationError
from tests.conftest import client_for, make_user
from tests.games.builders import bot_moves, finished_match
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
    assert match.chain_version == 2 and verify_match(match).ok
    assert list(match_export_lines(match))[1:] == lines[1:]
    seats = list(match.seat_set.order_by("seat"))
    assert [(s.user, s.guest) for s in seats] == [(None, f"{u.username}@import") for u in users]


# --- chain versions -----------------------------------------------------------------------------

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "golden"
V2_COVERS = ["seq", "kind", "type", "actor", "data", "created"]


def test_an_export_states_its_chain_version_and_what_it_covers_and_spells_each_time_as_hashed(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    header = json.loads(lines[0])
    assert header["format_version"] == 2 and header["chain"] == {"version": 2, "covers": V2_COVERS}
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", json.loads(line)["created"]) for line in lines[1:])


@pytest.mark.parametrize("delta", [timedelta(microseconds=1), timedelta(days=-1)], ids=["1 µs", "a day earlier"])
def test_a_file_with_a_moves_time_changed_is_refused_naming_its_line(alice, bob, delta):
    lines = exported_then_forgotten("the-game", [alice, bob])
    number = next(i for i, line in enumerate(lines) if '"MovePlayed"' in line)
    event = json.loads(lines[number])
    event["created"] = canonical_time(datetime.fromisoformat(event["created"]) + delta)
    lines[number] = json.dumps(event)
    refused = refusal(lines)
    assert refused.line == number + 1 and f"seq {event['seq']}: hash does not match" in refused.reason


def test_a_version_2_file_spelling_a_time_another_way_is_refused_naming_its_line(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    event = json.loads(lines[3])
    event["created"] = datetime.fromisoformat(event["created"]).isoformat()  # the same instant, "+00:00"
    lines[3] = json.dumps(event)
    refused = refusal(lines)
    assert refused.line == 4 and "created must be written as the chain hashes it" in refused.reason


@pytest.mark.parametrize(
    "chain",
    [
        {"version": 3, "covers": V2_COVERS},
        {"version": 2, "covers": V2_COVERS[:-1]},
        {"version": True, "covers": ["seq", "kind", "actor", "data"]},
        None,
    ],
    ids=["unknown version", "covers left short", "a boolean version", "none"],
)
def test_a_header_whose_chain_is_not_a_version_and_its_true_covers_is_refused_on_line_1(alice, bob, chain):
    lines = exported_then_forgotten("the-game", [alice, bob])
    header = json.loads(lines[0])
    header["chain"] = chain
    lines[0] = json.dumps(header)
    refused = refusal(lines)
    assert refused.line == 1 and "chain must be one of" in refused.reason


def test_a_file_claiming_version_1_for_version_2_events_is_refused_at_its_first_event(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    header = json.loads(lines[0])
    header["chain"] = {"version": 1, "covers": ["seq", "kind", "actor", "data"]}
    lines[0] = json.dumps(header)
    refused = refusal(lines)
    assert refused.line == 2 and "seq 1: hash does not match" in refused.reason


def test_a_version_1_file_claiming_version_2_is_refused_at_its_first_event(alice):
    lines = (GOLDEN / "the-game.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header.update(format_version=2, chain={"version": 2, "covers": V2_COVERS})
    events = [json.loads(line) for line in lines[1:]]
    for event in events:  # spelled as version 2 wants, so only the hash is left to refuse it
        event["created"] = canonical_time(datetime.fromisoformat(event["created"]))
    refused = refusal([json.dumps(header), *map(json.dumps, events)])
    assert refused.line == 2 and "seq 1: hash does not match" in refused.reason


def test_a_version_1_file_imports_as_version_1_verifies_and_exports_saying_so(alice):
    """Every file written before version 2 (format 1, no chain in its header) keeps importing."""
    golden = (GOLDEN / "the-game.jsonl").read_text(encoding="utf-8").splitlines()
    match = match_import(golden, imported_by=alice)
    assert match.chain_version == 1 and verify_match(match).ok
    again = list(match_export_lines(match))
    assert json.loads(again[0])["chain"] == {"version": 1, "covers": ["seq", "kind", "actor", "data"]}
    assert [json.loads(line)["hash"] for line in again[1:]] == [json.loads(line)["hash"] for line in golden[1:]]
    header, events, _ = parse_match_file(again)
    assert verify_file_contents(header, events).ok


def test_a_version_2_golden_file_imports_as_version_2_and_exports_the_same_events(alice):
    golden = (GOLDEN / "chain-v2" / "the-game.jsonl").read_text(encoding="utf-8").splitlines()
    match = match_import(golden, imported_by=alice)
    assert match.chain_version == 2 and verify_match(match).ok
    assert list(match_export_lines(match))[1:] == golden[1:]


def refusal(lines) -> ImportRefused:
    with pytest.raises(ImportRefused) as refused:
        match_import(lines, imported_by=User.objects.first())
    assert not Match.objects.exists()
    return refused.value


def test_a_file_with_one_altered_card_is_refused_with_its_line(alice, bob):
    lines = exported_then_forgotten("the-game", [alice, bob])
    number, line = next((i, text) for i, text in enumerate(lines) if '"CardPlayed"' in text)
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


def two_chat_lines(match: Match) -> list[str]:
    """Stands in for chat.selectors.chat_export_lines in MATCH_EXPORT_EXTRAS."""
    return [canonical_json({"chat": {"seq": seq, "match": match.pk}}) for seq in (1, 2)]


def test_an_exports_chat_comes_from_the_function_match_export_extras_names(tmp_path, alice, bob, settings):
    """games imports no chat: the view and the command read the chat's lines by name."""
    assert all(callable(import_string(path)) for path in settings.MATCH_EXPORT_EXTRAS.values())
    settings.MATCH_EXPORT_EXTRAS = {"chat": f"{__name__}.two_chat_lines"}
    match = finished_match("the-game", [alice, bob])
    served = b"".join(client_for(None).get(f"/api/matches/{match.pk}/export", {"chat": "true"}).streaming_content)
    call_command("export_matches", str(tmp_path), "--chat", verbosity=0)
    written = (tmp_path / f"match-{match.pk}.jsonl").read_text()
    assert served.decode() == written
    assert json.loads(written.splitlines()[0])["chat"] == 2 and written.splitlines()[-2:] == two_chat_lines(match)


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
    match = finished_match("the-game", [alice, bob])
    path = tmp_path / "m.jsonl"
    path.write_text("\n".join(match_export_lines(match)) + "\n")
    assert verify_file(str(path)) is None
    path.write_text(path.read_text().replace('"won":false', '"won":true', 1))
    assert verify_file(str(path)).startswith("line ")


# --- who an imported match names ----------------------------------------------------------------


def with_header(lines: list[str], **changes) -> list[str]:
    header = json.loads(lines[0])
    header.update(changes)
    return [json.dumps(header), *lines[1:]]


def named(lines: list[str], *usernames) -> list[str]:
    header = json.loads(lines[0])
    for player, username in zip(header["players"], usernames):
        player["username"] = username
    return [json.dumps(header), *lines[1:]]


def test_an_import_never_credits_a_local_account(alice, bob, carol):
    """Prevents a forged file from attaching a made-up match to existing users: the file's
    people sit as guests `name@server`, linked to no account, and the match is in no one's list."""
    lines = with_header(exported_then_forgotten("the-game", [alice, bob]), source="cards.example.org")
    match = match_import(lines, imported_by=carol)
    assert [(s.user_id, s.shown_name) for s in match.seat_set.order_by("seat")] == [
        (None, "alice@cards.example.org"), (None, "bob@cards.example.org"),
    ]
    summary = client_for(None).get(f"/api/matches/{match.pk}").json()
    assert [(s["user"], s["name"]) for s in summary["seats"]] == [
        (None, "alice@cards.example.org"), (None, "bob@cards.example.org")
    ]
    listed = client_for(None).get("/api/matches", {"player": "alice"}).json()
    assert match.pk not in [m["id"] for m in listed["results"]]


def test_an_import_creates_no_user_even_for_an_unknown_name(alice, bob, carol):
    """Prevents imports from creating local accounts (with names sign-up refuses) for the file's people."""
    lines = named(exported_then_forgotten("the-game", [alice, bob]), "mallory", "trent")
    before = User.objects.count()
    match = match_import(lines, imported_by=carol)
    assert User.objects.count() == before
    assert [s.guest for s in match.seat_set.order_by("seat")] == ["mallory@import", "trent@import"]


@pytest.mark.parametrize(
    "username, reason",
    [
        ("", "non-empty"),
        ("<b>boss</b>", "only letters"),
        ("a" * 151, "at most 150"),
        ("eve@Not A Host", "host name"),
        ("eve@", "host name"),
    ],
)
def test_a_name_sign_up_would_refuse_is_refused_with_line_1_and_the_reason(alice, bob, username, reason):
    """Prevents names that sign-up refuses (HTML, empty, 151 characters: once a 500) from entering by import."""
    lines = named(exported_then_forgotten("the-game", [alice, bob]), username)
    users = User.objects.count()
    refused = refusal(lines)
    assert refused.line == 1 and reason in refused.reason and "seat 0" in refused.reason
    assert User.objects.count() == users
    upload = client_for(alice).post("/api/matches/import", {"file": io.BytesIO("\n".join(lines).encode())}, format="multipart")
    assert upload.status_code == 400 and upload.json()["error"]["extra"]["line"] == 1


def test_a_source_that_is_not_a_host_name_is_refused(alice, bob):
    """Prevents a file from dressing its players in a made-up server name with HTML or spaces."""
    lines = with_header(exported_then_forgotten("the-game", [alice, bob]), source="<i>x</i>")
    assert "source" in refusal(lines).reason


def test_exporting_an_imported_match_keeps_name_at_source(alice, bob, carol, settings):
    """Prevents a re-exported import from passing its guests off as this server's users."""
    lines = with_header(exported_then_forgotten("the-game", [alice, bob]), source="cards.example.org")
    settings.EXPORT_SERVER_NAME = "here.example.net"
    with transaction.atomic():
        again = list(match_export_lines(match_import(lines, imported_by=carol)))
        transaction.set_rollback(True)
    header = json.loads(again[0])
    assert header["source"] == "here.example.net"
    assert [p["username"] for p in header["players"]] == ["alice@cards.example.org", "bob@cards.example.org"]
    match = match_import(again, imported_by=carol)
    assert [s.guest for s in match.seat_set.order_by("seat")] == ["alice@cards.example.org", "bob@cards.example.org"]


def test_a_local_export_names_this_server_as_source(alice, bob, settings):
    settings.EXPORT_SERVER_NAME = "here.example.net"
    header = json.loads(exported_then_forgotten("the-game", [alice, bob])[0])
    assert header["source"] == "here.example.net" and [p["username"] for p in header["players"]] == ["alice", "bob"]


def test_an_imported_match_is_never_rated(alice, bob, carol):
    """Prevents an import from moving anyone's rating: the rating task skips it and the database
    refuses an imported match marked rated."""
    match = match_import(exported_then_forgotten("the-game", [alice, bob]), imported_by=carol)
    assert match_rate(match_id=match.pk) == 0
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(pk=match.pk).update(rated=True)


def test_a_practice_match_is_not_imported(alice, bob, staff):
    """Prevents a made-up position from entering as a practice match (its source is another server's match)."""

    with transaction.atomic():
        source = finished_match("the-game", [alice, bob])
        lines = list(match_export_lines(match_practice(match_id=source.pk, user=alice, seq=5), staff))
        transaction.set_rollback(True)
    refused = refusal(lines)
    assert refused.line == 2 and "practice" in refused.reason


def test_a_bot_this_game_has_not_is_refused(alice, bob):
    """Prevents a 41-character or unknown bot name from reaching the seat column (a 500)."""
    with transaction.atomic():
        match = services_match_with_bot(alice)
        lines = list(match_export_lines(match))
        transaction.set_rollback(True)
    header = json.loads(lines[0])
    header["players"][1]["bot"] = "x" * 41
    assert "not a bot" in refusal([json.dumps(header), *lines[1:]]).reason


def services_match_with_bot(user):
    moves = bot_moves("the-game", 2, 3, ["tight", "tight"])
    return services.match_record(game="the-game", seats=[user, "tight"], created_by=user, seed=3, moves=moves, rated=False)


# --- no file answers 500 ------------------------------------------------------------------------


def _mutations():
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False)
        | st.text(max_size=200) | st.sampled_from(["\x00", "\ud800", "a" * 300, "<b>x</b>", "", "@", "x@y"]),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
        max_leaves=8,
    )
    keys = st.sampled_from(
        ["seq", "kind", "type", "actor", "data", "hash", "created", "format", "format_version", "game", "players",
         "events", "final_hash", "source", "username", "bot", "seat", "seed", "seed_sha256", "practice_of", "seats",
         "outcome", "move", "type"]
    )
    edit = st.tuples(st.sampled_from(["set", "delete", "raw", "drop_line", "dup_line", "bytes"]), keys, json_values,
                     st.integers(min_value=0, max_value=10**6), st.binary(max_size=40))
    return st.tuples(st.lists(edit, min_size=1, max_size=4), st.booleans())


def _apply(lines: list[str], mutation) -> bytes:
    """The file after the edits: values set or deleted at any depth, lines dropped or doubled, raw
    bytes; then, half of the time, the chain hashed again as a forger would, so the edits get past
    the hash check to the rules and the store."""
    edits, rehash = mutation
    lines = list(lines)
    tail = b""
    for action, key, value, where, raw in edits:
        number = where % len(lines)
        if action == "drop_line" and len(lines) > 1:
            del lines[number]
        elif action == "dup_line":
            lines.insert(number, lines[number])
        elif action == "raw":
            lines[number] = lines[number][: where % (len(lines[number]) + 1)] + json.dumps(value)
        elif action == "bytes":
            tail += raw
        else:
            objects = _objects(_loaded(lines[number]))
            target = objects[where % len(objects)]
            if action == "set":
                target[key] = value
            else:
                target.pop(key, None)
            lines[number] = json.dumps(objects[0])
    if rehash:
        lines = _rehashed(lines)
    return "\n".join(lines).encode("utf-8", "surrogatepass") + tail


def _rehashed(lines: list[str]) -> list[str]:
    try:
        version = json.loads(lines[0])["chain"]["version"]
    except Exception:  # noqa: BLE001 - a header the edits broke: hash as a new match is
        version = CHAIN_VERSION
    previous, out, count = "", [], 0
    for line in lines[1:]:
        try:
            event = json.loads(line)
            event["hash"] = previous = event_hash(
                previous, version=version, seq=event["seq"], kind=event["kind"], type=event["type"],
                actor=event["actor"], data=event["data"], created=event["created"],
            )
            line = json.dumps(event)
            count += 1
        except Exception:  # noqa: BLE001 - a line the edits broke stays broken
            pass
        out.append(line)
    try:
        header = json.loads(lines[0])
        header.update(final_hash=previous, events=count)
        return [json.dumps(header), *out]
    except Exception:  # noqa: BLE001
        return [lines[0], *out]


def _loaded(line: str):
    try:
        return json.loads(line)
    except ValueError:
        return {}


def _objects(value) -> list[dict]:
    found = [value] if isinstance(value, dict) else []
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    for child in children:
        found += _objects(child)
    return found or [{}]


def test_no_mangled_file_answers_500_or_writes_anything(alice, bob, tmp_path):
    """Prevents a hostile file from crashing the import (a 500) or leaving rows behind: every
    mangled file is imported whole or refused with a 4xx, over the API and by the command."""

    lines = exported_then_forgotten("the-game", [alice, bob])
    api = client_for(alice)
    path = tmp_path / "mangled.jsonl"

    @hypothesis_settings(suppress_health_check=list(HealthCheck), database=None)
    @given(_mutations())
    def check(edits):
        content = _apply(lines, edits)
        with transaction.atomic():
            counts = (Match.objects.count(), User.objects.count())
            answer = api.post("/api/matches/import", {"file": io.BytesIO(content)}, format="multipart")
            assert answer.status_code in (201, 400, 409, 422), answer.content
            if answer.status_code != 201:
                assert answer.json()["error"]["code"] and (Match.objects.count(), User.objects.count()) == counts
            transaction.set_rollback(True)
        path.write_bytes(content)
        with transaction.atomic():
            try:
                call_command("import_matches", str(path), "--as", "alice", stdout=io.StringIO(), stderr=io.StringIO())
            except SystemExit:  # refused: the command says so on stderr and exits 1
                assert (Match.objects.count(), User.objects.count()) == counts
            transaction.set_rollback(True)

    check()


def test_the_command_refuses_a_file_that_is_not_utf8_without_a_traceback(tmp_path, alice, capsys):
    """Prevents a crash of `import_matches` on bytes that are not UTF-8 (the command read text)."""
    (tmp_path / "bad.jsonl").write_bytes(b"\xff\xfe{}")
    with pytest.raises(SystemExit):
        call_command("import_matches", str(tmp_path), "--as", "alice")
    assert "not UTF-8" in capsys.readouterr().err and not Match.objects.exists()
