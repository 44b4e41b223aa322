"""C2SP tlog cosignatures, Ed25519 cosignature/v1 (https://c2sp.org/tlog-cosignature).

A witness that has checked a checkpoint is consistent with every one it saw before adds a note
signature line to it. Its key ID uses signature type 0x04 (notes.ED25519_COSIGNATURE), it signs
"cosignature/v1\\ntime <unix seconds>\\n" followed by the checkpoint body, and its signature bytes are
key ID (4) ‖ timestamp (8, big-endian) ‖ Ed25519 signature (64). A client trusts a checkpoint once a
quorum of the witnesses it knows has cosigned it, which defeats a log showing different views.
"""
from __future__ import annotations

from collections.abc import Iterable

from leaguelog.checkpoint import Checkpoint
from leaguelog.notes import (
    ED25519_COSIGNATURE,
    NoteError,
    NoteSignature,
    SignerKey,
    VerifierKey,
    parse_note,
    parse_signature_line,
)

_TIMESTAMP_SIZE = 8
_ED25519_SIGNATURE_SIZE = 64
# The spec caps the timestamp at 2**63 - 1, though it is written as a uint64.
_MAX_TIMESTAMP = 2**63 - 1


class CosignatureError(NoteError):
    """A cosignature that is malformed, by another key, or does not verify."""


def cosigned_message(checkpoint_body: str, timestamp: int) -> bytes:
    """The bytes an Ed25519 cosigner signs: the cosignature/v1 header, the time line, the checkpoint body."""
    _check_timestamp(timestamp)
    Checkpoint.parse(checkpoint_body)  # a witness vouches for checkpoints only: refuse any other text
    return f"cosignature/v1\ntime {timestamp}\n{checkpoint_body}".encode()


def cosignature_line(checkpoint_body: str, witness: SignerKey, timestamp: int) -> str:
    """The note signature line (with its newline) by which witness cosigns the checkpoint at timestamp."""
    _check_witness_key(witness.key_type, witness.name)
    signature = witness.sign(cosigned_message(checkpoint_body, timestamp))
    timestamped_signature = timestamp.to_bytes(_TIMESTAMP_SIZE, "big") + signature
    return NoteSignature(witness.name, witness.key_id, timestamped_signature).line()


def verify_cosignature_line(line: str, checkpoint_body: str, witness: VerifierKey) -> int:
    """The timestamp of witness's cosignature line on the checkpoint; CosignatureError if it is not that."""
    return _verified_timestamp(parse_signature_line(line), checkpoint_body, witness)


def count_cosignatures(note: str, witnesses: Iterable[VerifierKey]) -> int:
    """How many of these witnesses cosigned the note's checkpoint; a bad cosignature by one is an error."""
    # Only the witnesses' lines are checked here; the log's own signature is open_checkpoint's job.
    checkpoint_body, signatures = parse_note(note)
    by_name_and_key_id = {(witness.name, witness.key_id): witness for witness in witnesses}
    cosigned_by: set[tuple[str, bytes]] = set()
    for signature in signatures:
        witness = by_name_and_key_id.get((signature.name, signature.key_id))
        if witness is not None:
            _verified_timestamp(signature, checkpoint_body, witness)
            cosigned_by.add((witness.name, witness.key_id))
    return len(cosigned_by)


def _verified_timestamp(signature: NoteSignature, checkpoint_body: str, witness: VerifierKey) -> int:
    _check_witness_key(witness.key_type, witness.name)
    if (signature.name, signature.key_id) != (witness.name, witness.key_id):
        raise CosignatureError(f"signature by {signature.name!r} is not by witness {witness.name!r}")
    if len(signature.signature) != _TIMESTAMP_SIZE + _ED25519_SIGNATURE_SIZE:
        raise CosignatureError(f"cosignature by {witness.name!r} is not a timestamp and an Ed25519 signature")
    timestamp = int.from_bytes(signature.signature[:_TIMESTAMP_SIZE], "big")
    if timestamp > _MAX_TIMESTAMP:
        raise CosignatureError(f"cosignature by {witness.name!r} has timestamp {timestamp}, above 2**63 - 1")
    message = cosigned_message(checkpoint_body, timestamp)
    if not witness.verifies(message, signature.signature[_TIMESTAMP_SIZE:]):
        raise CosignatureError(f"cosignature by {witness.name!r} does not verify")
    return timestamp


def _check_witness_key(key_type: int, name: str) -> None:
    if key_type != ED25519_COSIGNATURE:
        raise CosignatureError(f"key {name!r} is not a cosignature/v1 key (type {key_type:#04x}, not 0x04)")


def _check_timestamp(timestamp: int) -> None:
    if not 0 <= timestamp <= _MAX_TIMESTAMP:
        raise CosignatureError(f"timestamp {timestamp} is outside 0..2**63 - 1")
