"""A witness cosigns a checkpoint only once the log proves it grew from the last one cosigned;
the server keeps and serves the cosignatures of its own witnesses and of no one else."""
from __future__ import annotations

import base64
import json

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from leaguelog import merkle, selectors, services
from leaguelog.checkpoint import Checkpoint
from leaguelog.cosignature import cosignature_line, count_cosignatures
from leaguelog.models import LogCheckpoint, LogCosignature
from leaguelog.notes import (
    ED25519_COSIGNATURE,
    NoteError,
    generate_signer_key,
    parse_signer_key,
    parse_verifier_key,
    sign_note,
    verifier_key_for,
)
from leaguelog.witness import ForkError, Witnessed, witness_checkpoint
from tests.conftest import make_user
from tests.games.builders import finished_match
from tests.games.servers import uvicorn_servers

WITNESS_KEY = generate_signer_key("witness.example", ED25519_COSIGNATURE)
WITNESS = parse_signer_key(WITNESS_KEY)
LOG_KEY = parse_signer_key(generate_signer_key("log.example"))
LEAVES = [merkle.leaf_hash(bytes([n])) for n in range(9)]


def note_of(size: int, leaves=LEAVES, key=LOG_KEY) -> str:
    return sign_note(Checkpoint(key.name, size, merkle.root_from_leaves(leaves[:size])).body(), [key])


def proof_of(leaves=LEAVES):
    stored = {}
    for index, leaf in enumerate(leaves):
        for h in merkle.stored_hashes_for_leaf(index, leaf, lambda level, i: stored[(level, i)]):
            stored[(h.level, h.index)] = h.hash
    return lambda old, new: merkle.consistency_proof(old, new, lambda level, i: stored[(level, i)])


def witness(note: str, last: Witnessed | None, proof=None):
    return witness_checkpoint(
        note, log_key=LOG_KEY.verifier(), witness=WITNESS, last=last, consistency_proof=proof or proof_of(), now=1_700_000_000
    )


def test_a_witness_cosigns_a_log_that_grows_and_nothing_twice():
    first, checkpoint, line = witness(note_of(3), None)
    assert first == Witnessed(3, checkpoint.root_hash) and line is not None
    assert witness(note_of(3), first)[2] is None
    grown, _, line = witness(note_of(9), first)
    assert grown.size == 9
    assert count_cosignatures(note_of(9) + line, [WITNESS.verifier()]) == 1


def test_a_witness_refuses_a_log_that_shrank_forked_or_is_another():
    seen = witness(note_of(5), None)[0]
    with pytest.raises(ForkError, match="shrank"):
        witness(note_of(4), seen)
    other = [merkle.leaf_hash(b"other")] + LEAVES[1:]
    with pytest.raises(ForkError, match="two different trees"):
        witness(note_of(5, other), seen)
    with pytest.raises(ForkError, match="does not extend"):
        witness(note_of(9, other), seen, proof_of(other))
    stranger = parse_signer_key(generate_signer_key("stranger.example"))
    with pytest.raises(NoteError):
        witness(note_of(9, key=stranger), seen)


@pytest.fixture
def logged(db, alice, bob, settings):
    settings.LOG_WITNESSES = [WITNESS.verifier().encode()]
    finished_match("sequence-stacks", [alice, bob])
    services.log_integrate()
    return LogCheckpoint.objects.get(size=1)


def cosign(checkpoint: LogCheckpoint, key=WITNESS) -> dict:
    body = Checkpoint.parse(checkpoint.note.split("\n\n")[0] + "\n").body()
    return {"size": checkpoint.size, "cosignature": cosignature_line(body, key, 1_700_000_000)}


def test_the_server_keeps_and_serves_its_witness_cosignature_once(logged):
    client = Client()
    assert client.post("/api/log/cosignatures", cosign(logged), content_type="application/json").status_code == 201
    assert client.post("/api/log/cosignatures", cosign(logged), content_type="application/json").status_code == 200
    served = client.get("/log/checkpoint").content.decode()
    assert count_cosignatures(served, [WITNESS.verifier()]) == 1
    assert LogCosignature.objects.count() == 1


def test_the_server_refuses_a_cosignature_of_a_stranger_a_forgery_or_no_checkpoint(logged):
    client = Client()
    stranger = parse_signer_key(generate_signer_key("stranger.example", ED25519_COSIGNATURE))
    post = lambda body: client.post("/api/log/cosignatures", body, content_type="application/json")  # noqa: E731
    response = post(cosign(logged, stranger))
    assert response.status_code == 403 and response.json()["error"]["code"] == "unknown_witness"
    prefix, encoded = cosign(logged)["cosignature"].rsplit(" ", 1)
    signature = bytearray(base64.b64decode(encoded))
    signature[-1] ^= 1
    forged = {"size": logged.size, "cosignature": f"{prefix} {base64.b64encode(bytes(signature)).decode()}\n"}
    assert post(forged).json()["error"]["code"] == "bad_cosignature"
    assert post({**cosign(logged), "size": 7}).json()["error"]["code"] == "checkpoint_not_found"
    assert post({"size": "x", "cosignature": ""}).status_code == 400
    assert post({**cosign(logged), "cosignature": "not a line"}).status_code == 400
    assert not LogCosignature.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.processes
def test_the_witness_command_cosigns_a_live_server_and_stops_at_a_fork(tmp_path, capsys):
    alice, bob = make_user("alice"), make_user("bob")
    finished_match("sequence-stacks", [alice, bob])
    services.log_integrate()
    log_key = verifier_key_for(settings.LOG_SIGNING_KEY)
    state = tmp_path / "witness.json"
    with uvicorn_servers(1, LOG_WITNESSES=WITNESS.verifier().encode()) as (base,):
        arguments = ["--server", base, "--key", WITNESS_KEY, "--log-key", log_key, "--state", str(state), "--once"]
        call_command("log_witness", *arguments)
        assert LogCosignature.objects.count() == 1 and json.loads(state.read_text())["size"] == 1
        finished_match("sequence-stacks", [alice, bob], seed=2)
        services.log_integrate()
        call_command("log_witness", *arguments)
        assert LogCosignature.objects.filter(checkpoint__size=2).exists()

        state.write_text(json.dumps({"size": 2, "root_hash": base64.b64encode(b"\x01" * 32).decode()}))
        with pytest.raises(SystemExit) as stopped:
            call_command("log_witness", *arguments)
        assert stopped.value.code == 3 and "FORK" in capsys.readouterr().err
    assert parse_verifier_key(log_key).name == selectors.checkpoint_latest().note.split("\n")[0]
