"""verify_league checks a whole league from its log's files alone: a small league (rated matches,
a rated bot tournament with a correction, played to the end) verifies through the test server,
from a mirror folder and in a process without Django; every kind of tampering is caught and named."""
from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from games import services as game_services
from games import turns
from games.chain import canonical_json, event_hash
from games.engines import ENGINES
from games.models import Match
from leaguelog import merkle, tiles
from leaguelog import services as log_services
from leaguelog.__main__ import folder_fetch, main, mirrored, served_path
from leaguelog.checkpoint import Checkpoint
from leaguelog.cosignature import cosignature_line
from leaguelog.notes import (
    ED25519_COSIGNATURE,
    generate_signer_key,
    parse_note,
    parse_signer_key,
    parse_verifier_key,
    sign_note,
    verifier_key_for,
)
from leaguelog.verify import Disagreement, Fetch, FetchError, verify_league
from ratings.selectors import game_params
from ratings.services import match_rate
from tests.games.builders import finished_match
from tests.games.servers import uvicorn_servers
from tests.leaguelog.builders import log_of
from tests.tournaments.builders import finish_round, make_tournament, play_to_end, reloaded
from tournaments import services as tournament_services
from tournaments.models import Round, TournamentEvent

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
LOG_KEY = parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))


def client_fetch() -> Fetch:
    """The test server as verify_league's fetch."""
    client = Client()

    def fetch(path: str) -> bytes:
        response = client.get(served_path(path))
        if response.status_code != 200:
            raise FetchError(f"served with status {response.status_code}")
        return b"".join(response.streaming_content) if response.streaming else response.content

    return fetch


@pytest.fixture
def league(alice, bob, staff) -> dict[str, int]:
    """Three rated matches of two people, a table whose players added to its shuffle, a rated
    tournament of two bots over two rounds whose first table the organiser corrected, all rated
    and logged."""
    people = [finished_match("sequence-stacks", [alice, bob], seed=seed).pk for seed in (1, 2, 3)]
    for match_id in people:
        match_rate(match_id=match_id)
    shuffled = game_services.match_create(
        user=alice, game="sequence-stacks", players=2, options={"turn_limit": 2}, contributed_shuffle=True
    )
    game_services.match_join(match_id=shuffled.pk, user=bob)
    game_services.match_shuffle_contribute(match_id=shuffled.pk, user=bob, value="d" * 64)
    game_services.match_start(match_id=shuffled.pk, user=alice)
    assert turns.match_play_out(match_id=shuffled.pk)
    tournament = make_tournament(staff, bots=1, bot="random", options={"rounds": 2}, rated=True)
    tournament_services.entrant_bot_add(tournament_id=tournament.pk, user=staff, bot="stack_finisher")
    tournament_services.tournament_start(tournament_id=tournament.pk, user=staff)
    (first,) = finish_round(reloaded(tournament))
    match_rate(match_id=first)
    tournament_services.result_correct(
        tournament_id=tournament.pk, user=staff, round_number=1, table_number=1, ranks=[1, 2], reason="sheet"
    )
    play_to_end(tournament)
    for match_id in (first, *tournament_matches(tournament.pk)):
        match_rate(match_id=match_id, through_latest=True)
    while log_services.log_integrate():
        pass
    return {
        "tournament": tournament.pk, "first_table_match": first, "people_match": people[0], "shuffled_match": shuffled.pk
    }


def tournament_matches(tournament_id: int) -> list[int]:
    return list(Match.objects.filter(tournament_table__round__tournament_id=tournament_id).values_list("pk", flat=True))


def failure(fetch: Fetch, **options) -> str:
    with pytest.raises(Disagreement) as caught:
        verify_league(fetch, log_key=options.pop("log_key", LOG_KEY), **options)
    return str(caught.value)


def test_the_league_verifies_entry_by_entry(league):
    summary = verify_league(client_fetch(), log_key=LOG_KEY)
    assert (summary.matches, summary.exports, summary.tournaments, summary.ladders) == (6, 6, 1, 2)
    assert summary.rating_rows == 3 * 2 + 2 * 2 + 2 * 2  # a correction: two reversals, two new rows
    assert summary.size == summary.entries  # no fact needed parts


def test_a_mirror_verifies_from_its_folder_and_main_prints_the_summary(league, tmp_path, capsys):
    verify_league(mirrored(client_fetch(), tmp_path), log_key=LOG_KEY)
    assert main([str(tmp_path), "--log-key", LOG_KEY.encode()]) == 0
    out = capsys.readouterr().out
    assert "verify_league: ok:" in out and "6 matches (6 exports replayed), 1 tournaments, 2 ladders" in out


@pytest.mark.processes
# games.verify_league is the verifier's old path, kept as an alias until the next release.
@pytest.mark.parametrize("module", ["leaguelog", "games.verify_league"])
def test_it_runs_without_django_settings_or_a_database(league, tmp_path, module):
    verify_league(mirrored(client_fetch(), tmp_path), log_key=LOG_KEY)
    done = subprocess.run(
        [sys.executable, "-m", module, str(tmp_path), "--log-key", LOG_KEY.encode()],
        env={"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}, cwd=tmp_path, capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "verify_league: ok:" in done.stdout


def test_usage_errors_exit_2(league, tmp_path, capsys):
    verify_league(mirrored(client_fetch(), tmp_path), log_key=LOG_KEY, check_matches=False)
    mirrored(client_fetch(), tmp_path)("key")  # as --mirror keeps it
    for argv in ([str(tmp_path)], [str(tmp_path), "--log-key", "nonsense"],
                 [str(tmp_path), "--log-key", LOG_KEY.encode(), "--quorum", "1"],
                 [str(tmp_path / "absent"), "--log-key", LOG_KEY.encode()]):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2, argv
    assert LOG_KEY.encode() in capsys.readouterr().err  # the hint when no key is pinned


def test_a_failure_exits_1_naming_it(league, tmp_path, capsys):
    verify_league(mirrored(client_fetch(), tmp_path), log_key=LOG_KEY)
    export = tmp_path / f"matches/{league['people_match']}.jsonl"
    export.write_text(export.read_text().replace('"seat":1', '"seat":0', 1))
    assert main([str(tmp_path), "--log-key", LOG_KEY.encode()]) == 1
    assert f"FAILED: match {league['people_match']} " in capsys.readouterr().err
    assert main([str(tmp_path), "--log-key", LOG_KEY.encode(), "--skip-matches"]) == 0


# --- the checkpoint ------------------------------------------------------------------------------


def test_a_checkpoint_signed_by_another_key_is_refused(league):
    other = parse_signer_key(generate_signer_key("tests.card-league.invalid"))
    real = client_fetch()
    body, _ = parse_note(real("checkpoint").decode())
    forged = sign_note(body, [other]).encode()
    message = failure(served_with(real, {"checkpoint": forged}))
    assert "is not one the log's key 'tests.card-league.invalid' signed" in message


def test_a_fork_signed_by_the_log_key_is_caught_by_the_tiles(league):
    real = client_fetch()
    checkpoint = Checkpoint.parse(parse_note(real("checkpoint").decode())[0])
    fork = Checkpoint(checkpoint.origin, checkpoint.size, bytes(32))
    forged = sign_note(fork.body(), [parse_signer_key(settings.LOG_SIGNING_KEY)]).encode()
    assert "the hash tiles served give another root" in failure(served_with(real, {"checkpoint": forged}))


def test_the_log_must_extend_a_previous_checkpoint(league):
    real = client_fetch()
    checkpoint = Checkpoint.parse(parse_note(real("checkpoint").decode())[0])
    signer = parse_signer_key(settings.LOG_SIGNING_KEY)
    earlier = sign_note(Checkpoint(checkpoint.origin, 10, bytes(32)).body(), [signer])
    assert "fork: the first 10 entries" in failure(real, previous_note=earlier)
    bigger = sign_note(Checkpoint(checkpoint.origin, checkpoint.size + 1, bytes(32)).body(), [signer])
    assert "the log shrank" in failure(real, previous_note=bigger)
    assert verify_league(real, log_key=LOG_KEY, previous_note=real("checkpoint").decode(), check_matches=False)


def test_witnesses_must_reach_the_quorum(league):
    real = client_fetch()
    witness = parse_signer_key(generate_signer_key("witness.invalid", ED25519_COSIGNATURE))
    note = real("checkpoint").decode()
    cosigned = (note + cosignature_line(parse_note(note)[0], witness, int(time.time()))).encode()
    witnesses = [witness.verifier()]
    assert verify_league(served_with(real, {"checkpoint": cosigned}), log_key=LOG_KEY, witnesses=witnesses,
                         quorum=1, check_matches=False)
    assert "cosigned by 0 of the witnesses given, 1 required" in failure(real, witnesses=witnesses, quorum=1)


# --- the tree ----------------------------------------------------------------------------------------


def test_a_rewritten_entry_in_a_bundle_fails_the_root_naming_the_entry(league):
    real = client_fetch()
    path, entries = last_bundle(real)
    index = next(i for i, e in enumerate(entries) if b'"event":"RoundCompleted"' in e)
    entries[index] = entries[index].replace(b'"event":"RoundCompleted"', b'"event":"RoundComplete!"')
    message = failure(served_with(real, {path: tiles.entry_bundle_bytes(entries)}))
    assert f"entry {index} is not the one the signed tree holds" in message


def test_a_bundle_missing_an_entry_fails(league):
    real = client_fetch()
    path, entries = last_bundle(real)
    del entries[4]
    assert "holds" in failure(served_with(real, {path: tiles.entry_bundle_bytes(entries)}))


# --- the facts, validly logged but wrong -------------------------------------------------------------------


def test_a_rewritten_match_export_fails(league):
    real = client_fetch()
    match_id = league["people_match"]
    lines = real(f"matches/{match_id}.jsonl").decode().splitlines()
    event = json.loads(lines[3])
    event["data"]["tampered"] = True
    lines[3] = json.dumps(event)
    message = failure(served_with(real, {f"matches/{match_id}.jsonl": "\n".join(lines).encode()}))
    assert f"match {match_id} (entry " in message and "line 4: seq 3: hash does not match" in message


def test_a_contributed_shuffle_rewritten_with_its_hashes_fails(league):
    """Another contribution in the file, every hash after it recomputed: the deal no longer follows
    from it (and the head no longer is the logged one)."""
    real = client_fetch()
    match_id = league["shuffled_match"]
    header, *events = (json.loads(line) for line in real(f"matches/{match_id}.jsonl").decode().splitlines())
    assert events[0]["data"]["shuffle"]["contributions"] == [{"seat": 1, "value": "d" * 64}]
    events[0]["data"]["shuffle"]["contributions"][0]["value"] = "e" * 64
    previous = ""
    for event in events:
        event["hash"] = event_hash(
            previous, version=header["chain"]["version"], seq=event["seq"], kind=event["kind"], type=event["type"],
            actor=event["actor"], data=event["data"], created=event["created"],
        )
        previous = event["hash"]
    header["final_hash"] = previous
    lines = [json.dumps(item) for item in (header, *events)]
    message = failure(served_with(real, {f"matches/{match_id}.jsonl": "\n".join(lines).encode()}))
    assert f"match {match_id} (entry " in message and "the deck's seed does not follow" in message


def test_a_rating_off_by_a_trillionth_fails(league):
    def tamper(entry: dict) -> dict:
        if entry["type"] == "rating_entry" and entry["position"] == 2 and entry["pool"] == "people":
            entry["mu_after"] += 1e-12
        return entry

    message = failure(relogged(client_fetch(), tamper))
    assert "ladder sequence-stacks/people epoch 1 position 2" in message and "mu_after, sigma_after" in message


def test_a_wrong_final_standing_fails(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "TournamentFinished":
            entry["data"]["standings"][0]["points"] = "7"
        return entry

    message = failure(relogged(client_fetch(), tamper))
    assert f"tournament {league['tournament']} seq" in message and "its standings are not the folded results'" in message


def test_a_table_result_that_is_not_its_match_fails(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "TableResult" and entry["data"]["match"] != league["first_table_match"]:
            entry["data"]["match"] = league["first_table_match"]
        return entry

    assert "the result names match" in failure(relogged(client_fetch(), tamper))


def test_a_correction_rewritten_fails_at_the_standings_it_led_to(league):
    def tamper(entry: dict) -> dict:
        if entry.get("event") == "ResultCorrected":
            entry["data"]["ranks"] = [1, 1]  # as played: the rating's revision 1 then has no correction either
        return entry

    message = failure(relogged(client_fetch(), tamper), check_matches=False)
    assert "TournamentFinished): its standings are not the folded results'" in message


# --- helpers --------------------------------------------------------------------------------------------


def served_with(fetch: Fetch, replaced: dict[str, bytes]) -> Fetch:
    return lambda path: replaced[path] if path in replaced else fetch(path)


def last_bundle(fetch: Fetch) -> tuple[str, list[bytes]]:
    size = Checkpoint.parse(parse_note(fetch("checkpoint").decode())[0]).size
    bundle = tiles.entry_bundles_for_size(size)[-1]
    return bundle.path(), tiles.parse_entry_bundle(fetch(bundle.path()), bundle.width)


def relogged(fetch: Fetch, tamper: Callable[[dict], dict]) -> Fetch:
    """The server's entries, each passed through tamper, logged again as a log of their own
    signed by the log's key: a valid log of facts that may not follow from each other."""
    size = Checkpoint.parse(parse_note(fetch("checkpoint").decode())[0]).size
    bodies = [e for b in tiles.entry_bundles_for_size(size) for e in tiles.parse_entry_bundle(fetch(b.path()), b.width)]
    entries = [canonical_json(tamper(json.loads(body))).encode() for body in bodies]
    log = log_of(entries)
    files = {tile.path(): tiles.hash_tile_bytes(tile, log.read_hash) for tile in tiles.hash_tiles_for_size(size)}
    for bundle in tiles.entry_bundles_for_size(size):
        first = bundle.index * tiles.TILE_WIDTH
        files[bundle.path()] = tiles.entry_bundle_bytes(entries[first:first + bundle.width])
    checkpoint = Checkpoint(LOG_KEY.name, size, merkle.tree_hash(size, log.read_hash))
    files["checkpoint"] = sign_note(checkpoint.body(), [parse_signer_key(settings.LOG_SIGNING_KEY)]).encode()
    return served_with(fetch, files)


def test_folder_fetch_reads_what_mirrored_wrote(tmp_path):
    written = mirrored(lambda path: path.encode(), tmp_path)("tile/0/000.p/3")
    assert folder_fetch(tmp_path)("tile/0/000.p/3") == written == b"tile/0/000.p/3"
    with pytest.raises(FetchError):
        folder_fetch(tmp_path)("checkpoint")


def test_the_rating_parameters_are_published_exactly():
    published = json.loads(Client().get("/api/ratings/params").content)

    assert published.keys() == set(ENGINES)
    assert all(published[game] == game_params(game).__dict__ for game in ENGINES)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_a_live_server_verifies_and_mirrors(league, tmp_path, capsys):
    with uvicorn_servers(1) as (base,):
        assert main([base, "--log-key", LOG_KEY.encode(), "--mirror", str(tmp_path)]) == 0
    assert main([str(tmp_path), "--log-key", LOG_KEY.encode()]) == 0
    assert capsys.readouterr().out.count("6 matches (6 exports replayed), 1 tournaments, 2 ladders") == 2


def test_a_tournament_whose_field_changed_verifies(alice, bob, carol, staff):
    """Waitlist, check-in, late entry, a drop and a re-entry and a no-show check are logged
    tournament events; the verifier's fold recomputes the final standings from them."""
    starts = timezone.now() + dt.timedelta(minutes=5)
    tournament = make_tournament(
        staff, people=(alice,), bots=3, bot="random", options={"rounds": 4}, max_entrants=5, starts_at=starts,
        field_rules={"check_in_minutes": 30, "waitlist": 1, "late_entry": True, "reentry": True,
                     "no_show_seconds": 600},
    )
    tournament_services.entrant_register(tournament_id=tournament.pk, user=carol)  # the fifth
    tournament_services.entrant_register(tournament_id=tournament.pk, user=bob)  # waitlisted
    tournament_services.entrant_check_in(tournament_id=tournament.pk, user=bob)
    tournament_services.tournament_advance(tournament_id=tournament.pk, now=starts)  # Alice, Carol missed check-in
    opened = Round.objects.get(tournament=tournament, number=1).started_at
    assert tournament_services.tournament_advance(
        tournament_id=tournament.pk, now=opened + dt.timedelta(seconds=600)
    ) == ["no-shows"]
    tournament_services.entrant_register(tournament_id=tournament.pk, user=alice)  # late, from round 2
    finish_round(reloaded(tournament))
    tournament_services.entrant_withdraw(tournament_id=tournament.pk, user=bob)
    finish_round(reloaded(tournament))
    tournament_services.entrant_reenter(tournament_id=tournament.pk, user=bob)
    play_to_end(reloaded(tournament))
    kinds = set(TournamentEvent.objects.filter(tournament=tournament).values_list("type", flat=True))
    assert {"PlayerWaitlisted", "CheckInMissed", "PlayerPromoted", "PlayerLateEntered", "PlayerReentered",
            "NoShowsForfeited"} <= kinds
    while log_services.log_integrate():
        pass
    summary = verify_league(client_fetch(), log_key=LOG_KEY)
    assert summary.tournaments == 1


def test_held_results_and_a_private_table_leave_the_league_verifiable(alice, bob, staff):
    """Issue #39: a duplicate deal's table results wait for the deal to be done and a private
    table is never logged; the league verifies mid-round and at the end."""
    private = finished_match("sequence-stacks", [alice, bob], seed=4, rated=False)
    Match.objects.filter(pk=private.pk).update(private=True)
    tournament = make_tournament(staff, bots=4, bot="random", options={"rounds": 2, "duplicate": True})
    tournament_services.tournament_start(tournament_id=tournament.pk, user=staff)
    first = Match.objects.filter(tournament_table__round__tournament=tournament, status="running").order_by("pk")[0]
    turns.match_play_out(match_id=first.pk)
    tournament_services.tournament_match_finished(match_id=first.pk)  # its deal still played at the other table
    while log_services.log_integrate():
        pass
    verify_league(client_fetch(), log_key=LOG_KEY)
    play_to_end(reloaded(tournament))
    while log_services.log_integrate():
        pass
    summary = verify_league(client_fetch(), log_key=LOG_KEY)
    assert summary.tournaments == 1 and summary.matches == 4  # the private table is not among them
