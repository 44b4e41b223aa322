"""C2SP tiled transparency logs (https://c2sp.org/tlog-tiles): tile paths, tile bytes, entry bundles.

A log is served as static files. A hash tile at level L holds up to 256 consecutive stored hashes of
Merkle level 8·L: hash i of tile N is the root of the complete subtree of 256**L leaves starting at
leaf (N·256 + i)·256**L, which is exactly merkle's stored hash (8·L, N·256 + i). The Merkle levels in
between are rebuilt by hashing, so a client holding the tiles a tree size needs can read every
stored hash, hence every root and proof, and check it all against a signed checkpoint's root.
The rightmost tiles of each level are partial ("<N>.p/<W>", W from 1 to 255 hashes wide).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from leaguelog.merkle import HASH_SIZE, HashReader, root_from_leaves

TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
_MAX_TILE_LEVEL = 63  # the spec's bound on <L>
_ENTRY_LENGTH_SIZE = 2  # each bundled entry is prefixed by its length as a big-endian uint16
MAX_ENTRY_SIZE = (1 << (8 * _ENTRY_LENGTH_SIZE)) - 1

Fetch = Callable[[str], bytes]
"""fetch(path): the bytes served at a tile or entry bundle path, e.g. "tile/0/x001/234"."""


class TileError(ValueError):
    """A tile or entry bundle that is malformed, truncated, or not the size the tree implies."""


@dataclass(frozen=True)
class Tile:
    """A hash tile: width consecutive stored hashes of Merkle level 8·level, starting at index·256."""

    level: int
    index: int
    width: int = TILE_WIDTH

    def __post_init__(self) -> None:
        if not 0 <= self.level <= _MAX_TILE_LEVEL:
            raise TileError(f"tile level {self.level} is outside 0..{_MAX_TILE_LEVEL}")
        _check_index_and_width(self.index, self.width)

    def path(self) -> str:
        """The tile's path, tile/<L>/<N>[.p/<W>]."""
        return f"tile/{self.level}/{encode_tile_index(self.index)}{_partial_suffix(self.width)}"


@dataclass(frozen=True)
class EntryBundle:
    """An entry bundle: the width entries whose leaf hashes make level-0 tile index."""

    index: int
    width: int = TILE_WIDTH

    def __post_init__(self) -> None:
        _check_index_and_width(self.index, self.width)

    def path(self) -> str:
        """The bundle's path, tile/entries/<N>[.p/<W>]."""
        return f"tile/entries/{encode_tile_index(self.index)}{_partial_suffix(self.width)}"


def encode_tile_index(index: int) -> str:
    """N as 3-digit path elements, all but the last prefixed by x: 1234067 → x001/x234/067."""
    if index < 0:
        raise TileError(f"tile index {index} is negative")
    digits = str(index)
    digits = digits.zfill(-(-len(digits) // 3) * 3)
    groups = [digits[start:start + 3] for start in range(0, len(digits), 3)]
    return "/".join([*(f"x{group}" for group in groups[:-1]), groups[-1]])


def parse_tile_path(path: str) -> Tile | EntryBundle:
    """The tile or entry bundle at a path as `Tile.path` and `EntryBundle.path` write it (only
    that spelling: a server must not serve one tile at two paths); TileError otherwise."""
    parts = path.split("/")
    if len(parts) < 3 or parts[0] != "tile":
        raise TileError(f"{path!r} is not a tile path")
    width = TILE_WIDTH
    if len(parts) >= 4 and parts[-2].endswith(".p"):
        if not parts[-1].isdigit() or parts[-1] != str(int(parts[-1])) or not 0 < int(parts[-1]) < TILE_WIDTH:
            raise TileError(f"{path!r} has a malformed partial width")
        width = int(parts[-1])
        parts = [*parts[:-2], parts[-2][:-2]]
    index_text = "/".join(parts[2:])
    elements = parts[2:]
    if not all(len(e) == 4 and e[0] == "x" and e[1:].isdigit() for e in elements[:-1]) or not (
        len(elements[-1]) == 3 and elements[-1].isdigit()
    ):
        raise TileError(f"{path!r} has a malformed tile index")
    index = int("".join(e.lstrip("x") for e in elements))
    if encode_tile_index(index) != index_text:
        raise TileError(f"{path!r} does not spell its tile index as the log does")
    if parts[1] == "entries":
        return EntryBundle(index, width)
    if not parts[1].isdigit() or parts[1] != str(int(parts[1])):
        raise TileError(f"{path!r} has a malformed tile level")
    return Tile(int(parts[1]), index, width)


def hash_tiles_for_size(tree_size: int) -> list[Tile]:
    """Every hash tile, full or partial, of a tree of tree_size leaves, level by level."""
    tiles: list[Tile] = []
    level = 0
    while hash_count := tree_size >> (TILE_HEIGHT * level):
        full_tiles, partial_width = divmod(hash_count, TILE_WIDTH)
        tiles.extend(Tile(level, index) for index in range(full_tiles))
        if partial_width:
            tiles.append(Tile(level, full_tiles, partial_width))
        level += 1
    return tiles


def entry_bundles_for_size(tree_size: int) -> list[EntryBundle]:
    """Every entry bundle, full or partial, of a tree of tree_size leaves."""
    full_bundles, partial_width = divmod(tree_size, TILE_WIDTH)
    bundles = [EntryBundle(index) for index in range(full_bundles)]
    if partial_width:
        bundles.append(EntryBundle(full_bundles, partial_width))
    return bundles


def tile_paths_for_size(tree_size: int) -> list[str]:
    """The paths of every hash tile, then every entry bundle, a tree of tree_size leaves is served as."""
    return [tile.path() for tile in hash_tiles_for_size(tree_size)] + [
        bundle.path() for bundle in entry_bundles_for_size(tree_size)
    ]


def hash_tile_bytes(tile: Tile, read_hash: HashReader) -> bytes:
    """The bytes of a hash tile: its stored hashes of Merkle level 8·level, concatenated."""
    first = tile.index * TILE_WIDTH
    return b"".join(read_hash(TILE_HEIGHT * tile.level, first + offset) for offset in range(tile.width))


def entry_bundle_bytes(entries: Iterable[bytes]) -> bytes:
    """The bytes of an entry bundle: each entry prefixed by its length as a big-endian uint16."""
    parts = []
    for entry in entries:
        if len(entry) > MAX_ENTRY_SIZE:
            raise TileError(f"an entry of {len(entry)} bytes is over a bundle's limit of {MAX_ENTRY_SIZE}")
        parts.append(len(entry).to_bytes(_ENTRY_LENGTH_SIZE, "big") + entry)
    if not 1 <= len(parts) <= TILE_WIDTH:
        raise TileError(f"an entry bundle holds 1 to {TILE_WIDTH} entries, got {len(parts)}")
    return b"".join(parts)


def parse_entry_bundle(data: bytes, width: int = TILE_WIDTH) -> list[bytes]:
    """The entries of a bundle that must hold exactly width of them; TileError if truncated or padded."""
    entries: list[bytes] = []
    position = 0
    while position < len(data):
        if position + _ENTRY_LENGTH_SIZE > len(data):
            raise TileError(f"entry bundle truncated in the length of entry {len(entries)}")
        length = int.from_bytes(data[position:position + _ENTRY_LENGTH_SIZE], "big")
        position += _ENTRY_LENGTH_SIZE
        if position + length > len(data):
            raise TileError(f"entry bundle truncated in entry {len(entries)}: {length} bytes announced")
        entries.append(data[position:position + length])
        position += length
    if len(entries) != width:
        raise TileError(f"entry bundle holds {len(entries)} entries, expected {width}")
    return entries


def tile_hash_reader(fetch: Fetch, tree_size: int) -> HashReader:
    """A read_hash(level, index) for a tree of tree_size leaves that reads the hashes from fetched tiles."""
    # Each tile is fetched once; the caller checks what it reads against a checkpoint's signed root.
    fetch_tile = functools.cache(functools.partial(_fetch_tile_hashes, fetch))

    def read_hash(level: int, index: int) -> bytes:
        if level < 0 or index < 0 or (index + 1) << level > tree_size:
            raise ValueError(f"no stored hash ({level}, {index}) in a tree of size {tree_size}")
        tile_level, level_in_tile = divmod(level, TILE_HEIGHT)
        # The subtree's hashes at level 8·tile_level: 2**level_in_tile (at most 128) aligned ones,
        # so they lie in one tile, which the tree size says is full or partial. Their MTH is the fold
        # root_from_leaves makes of any run of hashes, leaf or not.
        tile_index, offset = divmod(index << level_in_tile, TILE_WIDTH)
        hashes = fetch_tile(_tile_in_tree(tile_level, tile_index, tree_size))
        return root_from_leaves(hashes[offset:offset + (1 << level_in_tile)])

    return read_hash


def _tile_in_tree(level: int, index: int, tree_size: int) -> Tile:
    full_tiles, partial_width = divmod(tree_size >> (TILE_HEIGHT * level), TILE_WIDTH)
    return Tile(level, index) if index < full_tiles else Tile(level, index, partial_width)


def _fetch_tile_hashes(fetch: Fetch, tile: Tile) -> list[bytes]:
    data = fetch(tile.path())
    if len(data) != tile.width * HASH_SIZE:
        raise TileError(f"{tile.path()} is {len(data)} bytes, expected {tile.width * HASH_SIZE}")
    return [data[start:start + HASH_SIZE] for start in range(0, len(data), HASH_SIZE)]


def _partial_suffix(width: int) -> str:
    return "" if width == TILE_WIDTH else f".p/{width}"


def _check_index_and_width(index: int, width: int) -> None:
    if index < 0:
        raise TileError(f"tile index {index} is negative")
    if not 1 <= width <= TILE_WIDTH:
        raise TileError(f"tile width {width} is outside 1..{TILE_WIDTH}")
