"""Small builders for the leaguelog tests: an in-memory store of stored hashes."""
from __future__ import annotations

from dataclasses import dataclass, field

from leaguelog import merkle


@dataclass
class MemoryLog:
    """A log kept in a dict of stored hashes, appended to exactly as a database-backed log would be."""

    entries: list[bytes] = field(default_factory=list)
    stored: dict[tuple[int, int], bytes] = field(default_factory=dict)
    reads: int = 0

    def append(self, entry: bytes) -> None:
        """Append one entry and store the hashes it adds."""
        new_hashes = merkle.stored_hashes_for_leaf(len(self.entries), merkle.leaf_hash(entry), self.read_hash)
        for stored_hash in new_hashes:
            address = (stored_hash.level, stored_hash.index)
            assert address not in self.stored, "a stored hash is never rewritten"
            self.stored[stored_hash.level, stored_hash.index] = stored_hash.hash
        self.entries.append(entry)

    def read_hash(self, level: int, index: int) -> bytes:
        """The stored hash at (level, index), counting reads."""
        self.reads += 1
        return self.stored[level, index]

    @property
    def leaf_hashes(self) -> list[bytes]:
        """Every leaf hash, in order."""
        return [merkle.leaf_hash(entry) for entry in self.entries]


def log_of(entries: list[bytes]) -> MemoryLog:
    """A MemoryLog holding these entries."""
    log = MemoryLog()
    for entry in entries:
        log.append(entry)
    return log


def numbered_log(size: int) -> MemoryLog:
    """A MemoryLog of size entries b"entry 0", b"entry 1", ..."""
    return log_of([f"entry {number}".encode() for number in range(size)])
