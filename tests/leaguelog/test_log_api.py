"""The league log as served: anyone reads the checkpoint, the tiles and the JSON proofs, and what
they serve verifies against the signed checkpoint alone; bad paths and sizes get clear errors."""
from __future__ import annotations

import base64

import pytest
from django.conf import settings
from django.test import Client

from leaguelog import merkle, services, tiles
from leaguelog.checkpoint import open_checkpoint
from leaguelog.models import LogCheckpoint
from leaguelog.notes import parse_verifier_key
from tests.conftest import client_for
from tests.games.builders import finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def log_of_nine(alice, bob):
    for seed in range(1, 10):
        finished_match("sequence-stacks", [alice, bob], seed=seed)
        if seed in (3, 9):
            services.log_integrate()


def opened(note: str):
    key = Client().get("/log/key").content.decode().strip()
    return open_checkpoint(note, [parse_verifier_key(key)])[0]


@pytest.mark.parametrize("who", ["anonymous", "player", "staff"])
def test_anyone_reads_the_checkpoint_tiles_proofs_and_entries(who, log_of_nine, alice, staff):
    client = {"anonymous": Client(), "player": client_for(alice), "staff": client_for(staff)}[who]
    checkpoint = client.get("/log/checkpoint")
    assert checkpoint.status_code == 200 and checkpoint["Content-Type"].startswith("text/plain")
    assert opened(checkpoint.content.decode()).size == 9
    assert client.get("/log/tile/0/000.p/9").status_code == 200
    assert client.get("/log/tile/entries/000.p/9").status_code == 200
    assert client.get("/api/log/proofs/inclusion", {"index": 2, "size": 9}).status_code == 200
    assert client.get("/api/log/proofs/consistency", {"old": 3, "new": 9}).status_code == 200
    assert client.get("/api/log/entries/4").status_code == 200


def test_the_served_key_verifies_the_checkpoint_and_is_the_logs(log_of_nine):
    key = Client().get("/log/key").content.decode().strip()
    assert key.split("+")[0] == settings.LOG_SIGNING_KEY.split("+")[2]
    assert not key.startswith("PRIVATE")


def test_tiles_alone_give_the_signed_root_and_every_entry(log_of_nine):
    client = Client()
    checkpoint = opened(client.get("/log/checkpoint").content.decode())

    def fetch(path: str) -> bytes:
        response = client.get(f"/log/{path}")
        assert response.status_code == 200, path
        assert response["Cache-Control"] == "public, max-age=31536000, immutable"
        return response.content

    read = tiles.tile_hash_reader(fetch, checkpoint.size)
    assert merkle.tree_hash(checkpoint.size, read) == checkpoint.root_hash
    (bundle,) = tiles.entry_bundles_for_size(checkpoint.size)
    bodies = tiles.parse_entry_bundle(fetch(bundle.path()), bundle.width)
    assert merkle.root_from_leaves([merkle.leaf_hash(body) for body in bodies]) == checkpoint.root_hash


def test_json_proofs_verify_against_the_signed_roots(log_of_nine):
    client = Client()
    roots = {c.size: bytes(c.root_hash) for c in LogCheckpoint.objects.all()}
    decoded = lambda body: [base64.b64decode(h) for h in body["proof"]]  # noqa: E731
    for index in range(9):
        body = client.get("/api/log/proofs/inclusion", {"index": index, "size": 9}).json()
        leaf = base64.b64decode(body["leaf_hash"])
        assert merkle.verify_inclusion(leaf, index, 9, decoded(body), roots[9])
    body = client.get("/api/log/proofs/consistency", {"old": 3, "new": 9}).json()
    assert merkle.verify_consistency(3, 9, roots[3], roots[9], decoded(body))


def test_an_entry_is_found_by_its_fact(log_of_nine):
    entry = Client().get("/api/log/entries/0").json()
    found = Client().get("/api/log/entries", {"kind": "match", "source_id": entry["source_id"]}).json()
    assert found == entry and entry["entry"]["match"] == entry["source_id"]


@pytest.mark.parametrize(
    ("path", "query", "status", "code"),
    [
        ("/api/log/proofs/inclusion", {"index": 9, "size": 9}, 400, "beyond_tree"),
        ("/api/log/proofs/inclusion", {"index": 0, "size": 10}, 400, "beyond_log"),
        ("/api/log/proofs/inclusion", {"index": "x", "size": 9}, 400, "invalid_input"),
        ("/api/log/proofs/inclusion", {"index": -1, "size": 9}, 400, "invalid_input"),
        ("/api/log/proofs/consistency", {"old": 5, "new": 3}, 400, "bad_sizes"),
        ("/api/log/proofs/consistency", {"old": 1, "new": 99}, 400, "beyond_log"),
        ("/api/log/entries/9", {}, 404, "entry_not_found"),
        ("/api/log/entries", {"kind": "match", "source_id": 999999}, 404, "entry_not_found"),
        ("/api/log/entries", {"kind": "secret", "source_id": 1}, 400, "invalid_input"),
        ("/log/tile/0/000", {}, 404, "tile_not_found"),
        ("/log/tile/0/000.p/10", {}, 404, "tile_not_found"),
        ("/log/tile/1/000.p/1", {}, 404, "tile_not_found"),
        ("/log/tile/0/x000/000.p/9", {}, 404, "tile_not_found"),
        ("/log/tile/entries/000.p/0", {}, 404, "tile_not_found"),
    ],
)
def test_bad_sizes_and_paths_are_refused_with_a_code(log_of_nine, path, query, status, code):
    response = Client().get(path, query)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code


def test_the_log_is_read_only_over_http(log_of_nine, staff):
    for path in ("/log/checkpoint", "/log/tile/0/000.p/9", "/log/key"):
        assert Client().post(path).status_code == 405
        assert client_for(staff).delete(path).status_code == 405
    assert client_for(staff).post("/api/log/entries/0").status_code == 405


def test_a_server_whose_log_has_not_started_says_so(db):
    response = Client().get("/log/checkpoint")
    assert response.status_code == 503 and response.json()["error"]["code"] == "log_not_started"
