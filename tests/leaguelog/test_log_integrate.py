"""The integrator logs every public fact once, in the order queued, and signs each checkpoint;
nothing hidden (a running match's seed, a sealed deal) reaches the log before it is public."""
from __future__ import annotations

import json

import pytest
from django.conf import settings

from games import services as game_services
from games.models import Match
from leaguelog import merkle, selectors, services
from leaguelog.checkpoint import open_checkpoint
from leaguelog.models import LogCheckpoint, LogEntry, LogHash, LogPending
from leaguelog.notes import parse_verifier_key, verifier_key_for
from ratings.models import RatingEntry
from ratings.services import match_rate
from tests.games.builders import finished_match
from tests.games.test_sealed_matches import play_out
from tests.tournaments.builders import finish_round, make_tournament
from tournaments import services as tournament_services
from tournaments.models import TournamentEvent

pytestmark = pytest.mark.django_db


def logged() -> list[dict]:
    return [json.loads(bytes(body)) for body in LogEntry.objects.order_by("index").values_list("body", flat=True)]


def latest_checkpoint():
    note = LogCheckpoint.objects.order_by("-size").first().note
    return open_checkpoint(note, [parse_verifier_key(verifier_key_for(settings.LOG_SIGNING_KEY))])[0]


def assert_checkpoint_is_the_root_of_every_entry() -> None:
    leaves = [merkle.leaf_hash(bytes(b)) for b in LogEntry.objects.order_by("index").values_list("body", flat=True)]
    checkpoint = latest_checkpoint()
    assert checkpoint.size == len(leaves)
    assert checkpoint.root_hash == merkle.root_from_leaves(leaves)


def test_a_finished_match_is_logged_once_with_its_public_facts(alice, bob):
    match = finished_match("ten", [alice, bob])
    assert services.log_integrate() == 1
    (entry,) = logged()
    match.refresh_from_db()
    assert entry == {
        "v": 1, "type": "match", "match": match.pk, "game": "ten", "origin": "played", "rated": True,
        "players": [f"user:{alice.pk}", f"user:{bob.pk}"], "ranks": entry["ranks"], "outcome": match.outcome,
        "final_hash": match.head_hash, "events": match.last_seq, "seed": match.seed,
        "seed_sha256": match.seed_sha256, "finished_at": entry["finished_at"], "chain_version": 2,
    }
    assert sorted(entry["ranks"]) in ([1, 2], [1, 1])
    assert services.log_integrate() == 0 and len(logged()) == 1
    assert_checkpoint_is_the_root_of_every_entry()


def test_the_first_run_signs_the_empty_log_and_an_idle_run_signs_nothing_new(db):
    assert services.log_integrate() == 0
    assert latest_checkpoint().size == 0 and latest_checkpoint().root_hash == merkle.EMPTY_ROOT
    services.log_integrate()
    assert LogCheckpoint.objects.count() == 1


def test_a_running_match_is_not_logged_and_its_seed_nowhere(alice, bob):
    match = game_services.match_start_seated(game="the-game", seats=[alice, bob], created_by=alice)
    services.log_integrate()
    assert not LogEntry.objects.exists()
    assert str(match.seed) not in json.dumps(logged())


def test_a_sealed_match_is_logged_once_it_is_unsealed(alice, bob):
    match = game_services.match_start_seated(game="the-game", seats=[alice, bob], created_by=alice, sealed=True)
    play_out(match.pk)
    services.log_integrate()
    assert not LogEntry.objects.filter(kind="match").exists()
    game_services.matches_unseal(match_ids=[match.pk])
    services.log_integrate()
    assert [e["match"] for e in logged() if e["type"] == "match"] == [match.pk]


def test_a_rated_match_logs_its_ledger_rows_after_the_match(alice, bob):
    match = finished_match("ten", [alice, bob])
    match_rate(match_id=match.pk)
    services.log_integrate()
    entries = logged()
    assert [e["type"] for e in entries] == ["match", "rating_entry", "rating_entry"]
    rows = {row.pk: row for row in RatingEntry.objects.all()}
    for entry in entries[1:]:
        row = rows[entry["id"]]
        assert (entry["competitor"], entry["mu_after"], entry["sigma_after"], entry["position"]) == (
            row.competitor, row.mu_after, row.sigma_after, row.position
        )


def test_every_tournament_event_is_logged_and_a_duplicate_deal_waits_for_its_round(alice):
    tournament = make_tournament(alice, bots=4, options={"duplicate": True, "rounds": 1})
    tournament_services.tournament_start(tournament_id=tournament.pk, user=alice)
    services.log_integrate()
    logged_events = {(e["tournament"], e["seq"]) for e in logged() if e["type"] == "tournament_event"}
    stored = {(tournament.pk, seq) for seq in TournamentEvent.objects.values_list("seq", flat=True)}
    paired = TournamentEvent.objects.get(type="RoundPaired")
    assert logged_events == stored - {(tournament.pk, paired.seq)}
    assert LogPending.objects.filter(kind="tournament_event", source_id=paired.pk).exists()

    finish_round(tournament)
    services.log_integrate()
    entries = logged()
    stored = {(tournament.pk, seq) for seq in TournamentEvent.objects.values_list("seq", flat=True)}
    assert {(e["tournament"], e["seq"]) for e in entries if e["type"] == "tournament_event"} == stored
    (logged_pairing,) = [e for e in entries if e.get("event") == "RoundPaired"]
    assert logged_pairing["data"] == paired.data and paired.data["tables"][0]["deal"] is not None
    assert not LogPending.objects.exists()
    assert_checkpoint_is_the_root_of_every_entry()


def test_a_fact_too_long_for_one_entry_is_logged_in_parts_that_join_to_it(alice, bob, monkeypatch):
    match = finished_match("ten", [alice, bob])
    monkeypatch.setattr(selectors, "_PART_CHARACTERS", 40)
    monkeypatch.setattr(selectors.tiles, "MAX_ENTRY_SIZE", 100)
    services.log_integrate()
    parts = logged()
    assert len(parts) > 2 and [p["part"] for p in parts] == list(range(len(parts)))
    whole = json.loads("".join(p["text"] for p in parts))
    assert whole["type"] == "match" and whole["match"] == match.pk and {p["parts"] for p in parts} == {len(parts)}
    assert_checkpoint_is_the_root_of_every_entry()


def test_hashes_stored_as_it_goes_give_every_root_and_proof(alice, bob):
    for seed in range(1, 8):
        finished_match("sequence-stacks", [alice, bob], seed=seed)
        services.log_integrate()
    size = LogEntry.objects.count()
    stored = {(level, index): bytes(value) for level, index, value in LogHash.objects.values_list("level", "index", "hash")}
    leaves = [merkle.leaf_hash(bytes(b)) for b in LogEntry.objects.order_by("index").values_list("body", flat=True)]
    for old in range(1, size + 1):
        root = merkle.root_from_leaves(leaves[:old])
        assert bytes(LogCheckpoint.objects.get(size=old).root_hash) == root
        for index in range(old):
            proof = merkle.inclusion_proof(index, old, lambda level, i: stored[(level, i)])
            assert merkle.verify_inclusion(leaves[index], index, old, proof, root)


def test_a_finished_private_table_is_never_logged(alice, bob, carol):
    """Issue #39: the league log is public, a private table is known only to its own people; it
    published one once finished, its players included. It is casual, so no rating entry names it."""
    private = finished_match("ten", [alice, bob], rated=False)
    Match.objects.filter(pk=private.pk).update(private=True)  # opened private; finished as any table
    public = finished_match("ten", [bob, carol], seed=2)
    match_rate(match_id=public.pk)
    assert services.log_integrate() >= 2
    assert not LogPending.objects.exists()  # dropped from the queue, not waiting in it
    assert private.pk not in {entry.get("match") for entry in logged()}
    assert public.pk in {entry["match"] for entry in logged() if entry["type"] == "match"}
    assert not RatingEntry.objects.filter(match_id=private.pk).exists()
    assert_checkpoint_is_the_root_of_every_entry()
