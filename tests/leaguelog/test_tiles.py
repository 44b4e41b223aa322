"""Tiles: path encoding, the tiles a tree size has, reading a tree back from tiles alone, entry bundles."""
from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from leaguelog import merkle, tiles
from leaguelog.tiles import EntryBundle, Tile, TileError, parse_tile_path
from tests.leaguelog.builders import MemoryLog, numbered_log


def _served(log: MemoryLog, *tree_sizes: int) -> dict[str, bytes]:
    """The files a log serves after publishing checkpoints at these sizes: their tiles, partial ones too."""
    files = {}
    for tree_size in tree_sizes:
        for tile in tiles.hash_tiles_for_size(tree_size):
            files[tile.path()] = tiles.hash_tile_bytes(tile, log.read_hash)
        for bundle in tiles.entry_bundles_for_size(tree_size):
            start = bundle.index * tiles.TILE_WIDTH
            files[bundle.path()] = tiles.entry_bundle_bytes(log.entries[start:start + bundle.width])
    return files


class _Server:
    """Serves a dict of files, remembering which paths were fetched."""

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files
        self.fetched: list[str] = []

    def fetch(self, path: str) -> bytes:
        self.fetched.append(path)
        return self.files[path]


@pytest.mark.parametrize(
    ("index", "encoded"),
    [
        (0, "000"),
        (5, "005"),
        (999, "999"),
        (1000, "x001/000"),
        (1234067, "x001/x234/067"),  # the spec's example
        (10**9, "x001/x000/x000/000"),
    ],
)
def test_it_encodes_tile_indexes_in_3_digit_groups(index, encoded):
    assert tiles.encode_tile_index(index) == encoded


def test_tile_and_bundle_paths_follow_the_spec():
    assert Tile(0, 1234067).path() == "tile/0/x001/x234/067"
    assert Tile(2, 0, 1).path() == "tile/2/000.p/1"
    assert Tile(1, 1000, 17).path() == "tile/1/x001/000.p/17"
    assert EntryBundle(256, 3).path() == "tile/entries/256.p/3"
    assert EntryBundle(1234067).path() == "tile/entries/x001/x234/067"


@pytest.mark.parametrize(
    "make",
    [
        lambda: Tile(0, 0, 0),
        lambda: Tile(0, 0, 257),
        lambda: Tile(64, 0),
        lambda: Tile(-1, 0),
        lambda: Tile(0, -1),
        lambda: EntryBundle(0, 0),
        lambda: EntryBundle(-1),
    ],
    ids=[
        "width-0",
        "width-257",
        "level-64",
        "level-negative",
        "index-negative",
        "bundle-width-0",
        "bundle-negative",
    ],
)
def test_it_refuses_tiles_outside_the_spec(make):
    with pytest.raises(TileError):
        make()


@pytest.mark.parametrize(
    ("tree_size", "paths"),
    [
        (0, []),
        (1, ["tile/0/000.p/1", "tile/entries/000.p/1"]),
        (255, ["tile/0/000.p/255", "tile/entries/000.p/255"]),
        (256, ["tile/0/000", "tile/1/000.p/1", "tile/entries/000"]),
        (257, ["tile/0/000", "tile/0/001.p/1", "tile/1/000.p/1", "tile/entries/000", "tile/entries/001.p/1"]),
    ],
)
def test_it_lists_the_tiles_of_small_trees(tree_size, paths):
    assert tiles.tile_paths_for_size(tree_size) == paths


def test_it_lists_the_tiles_of_a_tree_one_full_level_one_tile_and_three_leaves_big():
    paths = tiles.tile_paths_for_size(65536 + 3)
    level_0 = [f"tile/0/{number:03d}" for number in range(256)] + ["tile/0/256.p/3"]
    bundles = [f"tile/entries/{number:03d}" for number in range(256)] + ["tile/entries/256.p/3"]
    assert paths == [*level_0, "tile/1/000", "tile/2/000.p/1", *bundles]


def test_it_lists_the_spec_example_of_a_tree_of_70000():
    """The spec: 273 full level 0 tiles, a partial one of width 112, one full level 1 tile, a partial
    level 1 tile of width 17 and a partial level 2 tile of width 1."""
    listed = tiles.hash_tiles_for_size(70_000)
    level_0 = [Tile(0, index) for index in range(273)] + [Tile(0, 273, 112)]
    assert [tile for tile in listed if tile.level == 0] == level_0
    assert [tile for tile in listed if tile.level > 0] == [Tile(1, 0), Tile(1, 1, 17), Tile(2, 0, 1)]


def test_a_level_one_tile_holds_the_roots_of_full_level_zero_tiles():
    log = numbered_log(512)
    level_1 = tiles.hash_tile_bytes(Tile(1, 0, 2), log.read_hash)
    first_tile_root = merkle.root_from_leaves(log.leaf_hashes[:256])
    assert level_1 == first_tile_root + merkle.root_from_leaves(log.leaf_hashes[256:])


@given(tree_size=st.integers(min_value=1, max_value=1500))
@example(tree_size=255)
@example(tree_size=256)
@example(tree_size=257)
@example(tree_size=1500)
def test_every_stored_hash_reads_back_through_tiles(tree_size):
    log = numbered_log(tree_size)
    server = _Server(_served(log, tree_size))
    read_hash = tiles.tile_hash_reader(server.fetch, tree_size)
    for (level, index), stored_hash in log.stored.items():
        assert read_hash(level, index) == stored_hash
    assert set(server.fetched) <= set(tiles.tile_paths_for_size(tree_size))
    assert len(server.fetched) == len(set(server.fetched)), "each tile is fetched once"


def test_a_verifier_rebuilds_the_root_and_proofs_from_tiles_alone():
    tree_size = 65536 + 3
    log = numbered_log(tree_size)
    root = merkle.root_from_leaves(log.leaf_hashes)
    server = _Server(_served(log, tree_size))
    read_hash = tiles.tile_hash_reader(server.fetch, tree_size)
    assert merkle.tree_hash(tree_size, read_hash) == root
    for index in (0, 255, 256, 65535, 65536, tree_size - 1):
        proof = merkle.inclusion_proof(index, tree_size, read_hash)
        assert merkle.verify_inclusion(log.leaf_hashes[index], index, tree_size, proof, root)


def test_an_older_checkpoint_is_checked_against_the_newer_tree_through_partial_tiles():
    old_size, new_size = 300, 1000
    log = numbered_log(new_size)
    server = _Server(_served(log, old_size, new_size))
    old_root = merkle.tree_hash(old_size, tiles.tile_hash_reader(server.fetch, old_size))
    new_reader = tiles.tile_hash_reader(server.fetch, new_size)
    new_root = merkle.tree_hash(new_size, new_reader)
    assert old_root == merkle.root_from_leaves(log.leaf_hashes[:old_size])
    assert "tile/0/001.p/44" in server.fetched  # the old tree's own partial tile, still served
    proof = merkle.consistency_proof(old_size, new_size, new_reader)
    assert merkle.verify_consistency(old_size, new_size, old_root, new_root, proof)


def test_a_tile_of_the_wrong_length_is_refused():
    log = numbered_log(300)
    files = _served(log, 300)
    files["tile/0/001.p/44"] = files["tile/0/001.p/44"][:-1]
    read_hash = tiles.tile_hash_reader(_Server(files).fetch, 300)
    with pytest.raises(TileError, match="tile/0/001.p/44 is 1407 bytes, expected 1408"):
        read_hash(0, 299)


def test_a_hash_outside_the_tree_is_not_read():
    read_hash = tiles.tile_hash_reader(_Server({}).fetch, 300)
    for level, index in [(0, 300), (1, 150), (9, 0), (-1, 0), (0, -1)]:
        with pytest.raises(ValueError, match="no stored hash"):
            read_hash(level, index)


def test_entries_hash_to_the_level_zero_tile_of_their_bundle():
    log = numbered_log(300)
    files = _served(log, 300)
    entries = tiles.parse_entry_bundle(files["tile/entries/001.p/44"], 44)
    assert entries == log.entries[256:]
    assert b"".join(merkle.leaf_hash(entry) for entry in entries) == files["tile/0/001.p/44"]


@given(entries=st.lists(st.binary(max_size=300), min_size=1, max_size=256))
def test_an_entry_bundle_round_trips(entries):
    assert tiles.parse_entry_bundle(tiles.entry_bundle_bytes(entries), len(entries)) == entries


def test_an_entry_bundle_prefixes_each_entry_with_its_big_endian_length():
    bundle = tiles.entry_bundle_bytes([b"ab", b"", b"\xff" * 256])
    assert bundle == b"\x00\x02ab" + b"\x00\x00" + b"\x01\x00" + b"\xff" * 256


@pytest.mark.parametrize(
    ("data", "width", "reason"),
    [
        (b"\x00\x02ab\x00", 2, "truncated in the length of entry 1"),
        (b"\x00\x02ab\x00\x05abc", 2, "truncated in entry 1: 5 bytes announced"),
        (b"\x00\x02a", 1, "truncated in entry 0"),
        (b"\x00\x02ab", 2, "holds 1 entries, expected 2"),
        (b"\x00\x02ab\x00\x00", 1, "holds 2 entries, expected 1"),
        (b"", 1, "holds 0 entries"),
    ],
)
def test_a_malformed_entry_bundle_is_refused(data, width, reason):
    with pytest.raises(TileError, match=reason):
        tiles.parse_entry_bundle(data, width)


def test_it_refuses_to_bundle_what_a_bundle_cannot_hold():
    with pytest.raises(TileError, match="over a bundle's limit"):
        tiles.entry_bundle_bytes([b"x" * 65536])
    with pytest.raises(TileError, match="1 to 256 entries"):
        tiles.entry_bundle_bytes([])
    with pytest.raises(TileError, match="1 to 256 entries"):
        tiles.entry_bundle_bytes([b""] * 257)
    assert tiles.parse_entry_bundle(tiles.entry_bundle_bytes([b"x" * 65535]), 1) == [b"x" * 65535]


@pytest.mark.parametrize(
    "item", [Tile(0, 0), Tile(0, 1234067), Tile(2, 5, 7), Tile(63, 1, 255), EntryBundle(3), EntryBundle(1000, 255)]
)
def test_a_tile_path_parses_back_to_its_tile(item):
    assert parse_tile_path(item.path()) == item


@pytest.mark.parametrize(
    "path",
    [
        "tile/0/x001/234/067x", "tile/0/x000/001", "tile/00/001", "tile/0/001.p/0", "tile/0/001.p/256",
        "tile/0/001.p/07", "tile/e/001", "foo/0/001", "tile/0", "tile/0/1", "tile/64/000", "tile/entries/000.p/",
        "tile/0/001/002", "tile/-1/000",
    ],
)
def test_a_path_the_log_would_not_write_is_refused(path):
    with pytest.raises(TileError):
        parse_tile_path(path)
