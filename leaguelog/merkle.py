"""RFC 6962 / RFC 9162 Merkle tree hashing, proofs from stored subtree hashes, and proof verifiers.

Storage follows Go's golang.org/x/mod/sumdb/tlog: the log keeps only "stored hashes", the hashes of
complete subtrees, addressed by (level, index): the subtree of 2**level leaves starting at leaf
index * 2**level. Appending leaf n adds its leaf hash plus one hash per subtree it completes, and
every root, inclusion proof and consistency proof is rebuilt from those, so nothing is ever
rewritten. A proof holds O(log n) hashes; building it reads O(log² n) stored hashes, because each
proof element of an incomplete subtree is folded from at most log n complete ones.
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()

# Domain separation prefixes, RFC 6962 §2.1: a leaf can never be mistaken for an interior node.
_LEAF_PREFIX = b"\x00"
_NODE_PREFIX = b"\x01"

HashReader = Callable[[int, int], bytes]
"""read_hash(level, index): the stored hash of the complete subtree of 2**level leaves at index."""


@dataclass(frozen=True)
class StoredHash:
    """A complete subtree's hash and its address: 2**level leaves starting at leaf index * 2**level."""

    level: int
    index: int
    hash: bytes


def leaf_hash(entry: bytes) -> bytes:
    """The RFC 6962 hash of one log entry: SHA-256(0x00 ‖ entry)."""
    return hashlib.sha256(_LEAF_PREFIX + entry).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """The RFC 6962 hash of an interior node: SHA-256(0x01 ‖ left ‖ right)."""
    return hashlib.sha256(_NODE_PREFIX + left + right).digest()


def root_from_leaves(leaf_hashes: Sequence[bytes]) -> bytes:
    """MTH over already-hashed leaves (RFC 9162 §2.1.1), splitting at the largest power of two below n."""
    if not leaf_hashes:
        return EMPTY_ROOT
    if len(leaf_hashes) == 1:
        return leaf_hashes[0]
    split = _largest_power_of_two_below(len(leaf_hashes))
    return node_hash(root_from_leaves(leaf_hashes[:split]), root_from_leaves(leaf_hashes[split:]))


def stored_hashes_for_leaf(leaf_index: int, new_leaf_hash: bytes, read_hash: HashReader) -> list[StoredHash]:
    """The hashes to store when appending leaf leaf_index: its leaf hash, then each subtree it completes."""
    if leaf_index < 0:
        raise ValueError(f"leaf index {leaf_index} is negative")
    new_hashes = [StoredHash(0, leaf_index, new_leaf_hash)]
    level, index, subtree_hash = 0, leaf_index, new_leaf_hash
    # An odd index is a right child: its left sibling is already stored, so their parent is complete.
    while index % 2 == 1:
        subtree_hash = node_hash(read_hash(level, index - 1), subtree_hash)
        level, index = level + 1, index // 2
        new_hashes.append(StoredHash(level, index, subtree_hash))
    return new_hashes


def tree_hash(size: int, read_hash: HashReader) -> bytes:
    """The root of the first size leaves, folded from the stored hashes of its complete subtrees."""
    if size < 0:
        raise ValueError(f"tree size {size} is negative")
    if size == 0:
        return EMPTY_ROOT
    return _range_hash(0, size, read_hash)


def inclusion_proof(index: int, size: int, read_hash: HashReader) -> list[bytes]:
    """The RFC 9162 §2.1.3.1 inclusion path of leaf index in the tree of the first size leaves."""
    if not 0 <= index < size:
        raise ValueError(f"leaf index {index} is not in a tree of size {size}")
    return _inclusion_path(index, 0, size, read_hash)


def consistency_proof(old_size: int, new_size: int, read_hash: HashReader) -> list[bytes]:
    """The RFC 9162 §2.1.4.1 proof that the tree of old_size leaves is a prefix of that of new_size."""
    if not 0 <= old_size <= new_size:
        raise ValueError(f"no consistency proof from size {old_size} to size {new_size}")
    # Nothing to prove: every tree extends the empty tree, and a tree is consistent with itself.
    if old_size in (0, new_size):
        return []
    return _consistency_subproof(old_size, 0, new_size, True, read_hash)


def verify_inclusion(leaf_hash: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes) -> bool:
    """Whether proof shows the leaf hash at index in the tree of size leaves with this root (§2.1.3.2)."""
    # A leaf hash of the wrong length is no hash at all, even if a one-leaf root repeats it.
    if not 0 <= index < size or len(leaf_hash) != HASH_SIZE:
        return False
    node_index, last_index, computed = index, size - 1, leaf_hash
    for sibling in proof:
        if last_index == 0:
            return False  # the proof is longer than the path to the root
        if node_index % 2 == 1 or node_index == last_index:
            computed = node_hash(sibling, computed)
            # A rightmost node without a sibling is promoted unchanged up the levels it skips.
            while node_index % 2 == 0 and node_index != 0:
                node_index, last_index = node_index >> 1, last_index >> 1
        else:
            computed = node_hash(computed, sibling)
        node_index, last_index = node_index >> 1, last_index >> 1
    return last_index == 0 and computed == root


def verify_consistency(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    """Whether proof shows the tree (old_size, old_root) is a prefix of (new_size, new_root) (§2.1.4.2)."""
    if not 0 <= old_size <= new_size:
        return False
    if old_size == 0:
        # The empty tree is a prefix of every tree, so the only proof is the empty one; its root is
        # still checked, and an empty new tree must have the empty root too.
        return not proof and old_root == EMPTY_ROOT and (new_size > 0 or new_root == EMPTY_ROOT)
    if old_size == new_size:
        return not proof and old_root == new_root
    if not proof:
        return False
    return _consistency_path_matches(old_size, new_size, old_root, new_root, proof)


def _consistency_path_matches(
    old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]
) -> bool:
    # The proof omits the old root when the old tree is a complete subtree: the verifier holds it.
    path = [old_root, *proof] if old_size & (old_size - 1) == 0 else list(proof)
    node_index, last_index = old_size - 1, new_size - 1
    while node_index % 2 == 1:
        node_index, last_index = node_index >> 1, last_index >> 1
    old_computed = new_computed = path[0]
    for sibling in path[1:]:
        if last_index == 0:
            return False
        if node_index % 2 == 1 or node_index == last_index:
            old_computed = node_hash(sibling, old_computed)
            new_computed = node_hash(sibling, new_computed)
            while node_index % 2 == 0 and node_index != 0:
                node_index, last_index = node_index >> 1, last_index >> 1
        else:
            new_computed = node_hash(new_computed, sibling)
        node_index, last_index = node_index >> 1, last_index >> 1
    return last_index == 0 and old_computed == old_root and new_computed == new_root


def _inclusion_path(index: int, start: int, end: int, read_hash: HashReader) -> list[bytes]:
    if end - start == 1:
        return []
    split = start + _largest_power_of_two_below(end - start)
    if index < split:
        return [*_inclusion_path(index, start, split, read_hash), _range_hash(split, end, read_hash)]
    return [*_inclusion_path(index, split, end, read_hash), _range_hash(start, split, read_hash)]


def _consistency_subproof(
    old_size: int, start: int, end: int, old_tree_is_known: bool, read_hash: HashReader
) -> list[bytes]:
    # RFC 9162 SUBPROOF(m, D[start:end], b); old_tree_is_known is b: the verifier already holds the
    # hash of D[start:start + old_size] as its old root, so the proof need not carry it.
    if old_size == end - start:
        return [] if old_tree_is_known else [_range_hash(start, end, read_hash)]
    split = start + _largest_power_of_two_below(end - start)
    if start + old_size <= split:
        subproof = _consistency_subproof(old_size, start, split, old_tree_is_known, read_hash)
        return [*subproof, _range_hash(split, end, read_hash)]
    subproof = _consistency_subproof(start + old_size - split, split, end, False, read_hash)
    return [*subproof, _range_hash(start, split, read_hash)]


def _range_hash(start: int, end: int, read_hash: HashReader) -> bytes:
    # MTH(D[start:end]) for a range the MTH split produces: start is a multiple of a power of two no
    # smaller than end - start, so the range is complete subtrees of decreasing size, left to right,
    # and MTH is their right-to-left fold.
    subtree_hashes = []
    while start < end:
        level = (end - start).bit_length() - 1
        subtree_hashes.append(read_hash(level, start >> level))
        start += 1 << level
    folded = subtree_hashes[-1]
    for left in reversed(subtree_hashes[:-1]):
        folded = node_hash(left, folded)
    return folded


def _largest_power_of_two_below(count: int) -> int:
    # The k of RFC 9162 §2.1.1: the largest power of two smaller than count (count >= 2).
    return 1 << ((count - 1).bit_length() - 1)
