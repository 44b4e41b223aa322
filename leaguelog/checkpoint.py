"""C2SP tlog checkpoints (https://c2sp.org/tlog-checkpoint): the signed note text naming a tree head.

The body is the origin line, the tree size in decimal, the base64 root hash, then optional extension
lines, each ending in a newline. Parsing is strict, so that a checkpoint has one spelling: two
texts that differ can never name the same tree head, and a signature covers exactly one.
"""
from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass

from leaguelog.merkle import HASH_SIZE
from leaguelog.notes import NoteError, OpenedNote, VerifierKey, decode_base64, open_note

_TREE_SIZE = re.compile(r"0|[1-9][0-9]*", re.ASCII)
# Sizes are uint64 everywhere else (Go's parsers, tile levels); the cap also keeps int() off huge texts.
_MAX_TREE_SIZE = 2**64 - 1


class CheckpointError(NoteError):
    """A checkpoint body that does not follow the tlog-checkpoint format."""


@dataclass(frozen=True)
class Checkpoint:
    """A log's tree head: its origin, the number of leaves, and the Merkle root of those leaves."""

    origin: str
    size: int
    root_hash: bytes
    extensions: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.origin or "\n" in self.origin:
            raise CheckpointError(f"origin {self.origin!r} must be one non-empty line")
        if not 0 <= self.size <= _MAX_TREE_SIZE:
            raise CheckpointError(f"tree size {self.size} is not a uint64")
        if len(self.root_hash) != HASH_SIZE:
            raise CheckpointError(f"root hash is {len(self.root_hash)} bytes, not {HASH_SIZE}")
        if any(not extension or "\n" in extension for extension in self.extensions):
            raise CheckpointError("each extension must be one non-empty line")

    def body(self) -> str:
        """The checkpoint's note text: origin, size, base64 root and extension lines, each ending in "\\n"."""
        root_line = base64.b64encode(self.root_hash).decode("ascii")
        lines = [self.origin, str(self.size), root_line, *self.extensions]
        return "".join(line + "\n" for line in lines)

    @classmethod
    def parse(cls, body: str) -> Checkpoint:
        """Parse a checkpoint body strictly (no leading zeros, canonical base64, a 32-byte root)."""
        if not body.endswith("\n"):
            raise CheckpointError("a checkpoint body ends in a newline")
        lines = body[:-1].split("\n")
        if len(lines) < 3:
            raise CheckpointError(f"a checkpoint body has at least 3 lines, got {len(lines)}")
        origin, size_text, root_text, *extensions = lines
        if not _TREE_SIZE.fullmatch(size_text) or len(size_text) > len(str(_MAX_TREE_SIZE)):
            raise CheckpointError(f"tree size {size_text!r} is not a uint64 in decimal without leading zeros")
        return cls(origin, int(size_text), _decode_root(root_text), tuple(extensions))


def open_checkpoint(note: str, log_verifiers: Iterable[VerifierKey]) -> tuple[Checkpoint, OpenedNote]:
    """Open a signed checkpoint: the note must carry a log key's verified signature, then its body parse."""
    opened = open_note(note, log_verifiers)
    return Checkpoint.parse(opened.text), opened


def _decode_root(root_text: str) -> bytes:
    try:
        root_hash = decode_base64(root_text, "root hash")
    except NoteError as error:
        raise CheckpointError(str(error)) from error
    if len(root_hash) != HASH_SIZE:
        raise CheckpointError(f"root hash is {len(root_hash)} bytes, not {HASH_SIZE}")
    return root_hash
