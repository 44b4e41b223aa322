"""Cosignatures: the published layout, round trips, tampering, and counting a quorum of witnesses."""
from __future__ import annotations

import pytest

from leaguelog import cosignature, merkle, notes
from leaguelog.checkpoint import Checkpoint, CheckpointError
from leaguelog.cosignature import CosignatureError
from leaguelog.notes import NoteError

# c2sp.org/tlog-cosignature, the example (C2SP/C2SP tlog-cosignature.md at commit 5ba5ee8): the body,
# its Ed25519 cosignature line (the witness's key is not published) and the message it signed.
SPEC_BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
SPEC_COSIGNATURE_LINE = (
    "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZ"
    "qhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
)
SPEC_MESSAGE = "cosignature/v1\ntime 1679315147\n" + SPEC_BODY
# transparency-dev/formats note/note_cosigv1_test.go (Apache-2.0): a witness's published vkey, type 0x04.
REMORA_WITNESS_KEY = "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2"

_BODY = Checkpoint("league.example/log", 5, merkle.leaf_hash(b"root stand-in")).body()
_TIME = 1_700_000_000


def _witness(name: str) -> notes.SignerKey:
    return notes.parse_signer_key(notes.generate_signer_key(name, notes.ED25519_COSIGNATURE))


def test_the_signed_message_is_the_published_one():
    assert cosignature.cosigned_message(SPEC_BODY, 1679315147) == SPEC_MESSAGE.encode()


def test_the_published_cosignature_has_our_layout():
    """Key ID (4) ‖ big-endian timestamp (8) ‖ Ed25519 signature (64), the time of the published message."""
    signature = notes.parse_signature_line(SPEC_COSIGNATURE_LINE)
    assert len(signature.signature) == 8 + 64
    assert int.from_bytes(signature.signature[:8], "big") == 1679315147


def test_a_published_witness_key_has_a_cosignature_key_id():
    witness = notes.parse_verifier_key(REMORA_WITNESS_KEY)
    assert witness.key_type == notes.ED25519_COSIGNATURE
    assert witness.key_id == notes.key_id(witness.name, 0x04, witness.public_key)
    assert witness.key_id != notes.key_id(witness.name, notes.ED25519, witness.public_key)


def test_a_cosignature_verifies_and_gives_its_time():
    witness = _witness("witness.example/w1")
    line = cosignature.cosignature_line(_BODY, witness, _TIME)
    assert line.startswith("— witness.example/w1 ") and line.endswith("\n")
    assert cosignature.verify_cosignature_line(line, _BODY, witness.verifier()) == _TIME


def test_a_witness_key_string_round_trips_with_type_0x04():
    signer_key = notes.generate_signer_key("witness.example/w1", notes.ED25519_COSIGNATURE)
    verifier = notes.parse_verifier_key(notes.verifier_key_for(signer_key))
    assert verifier.key_type == 0x04
    line = cosignature.cosignature_line(_BODY, notes.parse_signer_key(signer_key), 0)
    assert cosignature.verify_cosignature_line(line, _BODY, verifier) == 0


def test_a_cosignature_on_another_checkpoint_fails():
    witness = _witness("witness.example/w1")
    line = cosignature.cosignature_line(_BODY, witness, _TIME)
    other_body = Checkpoint("league.example/log", 6, merkle.leaf_hash(b"root stand-in")).body()
    with pytest.raises(CosignatureError, match="does not verify"):
        cosignature.verify_cosignature_line(line, other_body, witness.verifier())


def test_a_changed_timestamp_fails():
    witness = _witness("witness.example/w1")
    signature = notes.parse_signature_line(cosignature.cosignature_line(_BODY, witness, _TIME))
    later = (_TIME + 1).to_bytes(8, "big") + signature.signature[8:]
    line = notes.NoteSignature(signature.name, signature.key_id, later).line()
    with pytest.raises(CosignatureError, match="does not verify"):
        cosignature.verify_cosignature_line(line, _BODY, witness.verifier())


def test_a_cosignature_by_another_witness_is_refused():
    line = cosignature.cosignature_line(_BODY, _witness("witness.example/w1"), _TIME)
    with pytest.raises(CosignatureError, match="not by witness"):
        cosignature.verify_cosignature_line(line, _BODY, _witness("witness.example/w2").verifier())
    impostor = _witness("witness.example/w1")
    with pytest.raises(CosignatureError, match="not by witness"):
        cosignature.verify_cosignature_line(line, _BODY, impostor.verifier())


def test_a_cosignature_of_the_wrong_length_is_refused():
    witness = _witness("witness.example/w1")
    signature = notes.parse_signature_line(cosignature.cosignature_line(_BODY, witness, _TIME))
    line = notes.NoteSignature(signature.name, signature.key_id, signature.signature[8:]).line()
    with pytest.raises(CosignatureError, match="timestamp and an Ed25519 signature"):
        cosignature.verify_cosignature_line(line, _BODY, witness.verifier())


def test_a_timestamp_above_2_63_is_refused():
    witness = _witness("witness.example/w1")
    with pytest.raises(CosignatureError, match="timestamp"):
        cosignature.cosignature_line(_BODY, witness, 2**63)
    with pytest.raises(CosignatureError, match="timestamp"):
        cosignature.cosignature_line(_BODY, witness, -1)
    signature = notes.parse_signature_line(cosignature.cosignature_line(_BODY, witness, _TIME))
    huge = (2**63).to_bytes(8, "big") + signature.signature[8:]
    line = notes.NoteSignature(signature.name, signature.key_id, huge).line()
    with pytest.raises(CosignatureError, match="above 2\\*\\*63"):
        cosignature.verify_cosignature_line(line, _BODY, witness.verifier())


def test_only_cosignature_keys_cosign_and_only_checkpoints_are_cosigned():
    note_key = notes.parse_signer_key(notes.generate_signer_key("witness.example/w1"))
    with pytest.raises(CosignatureError, match="not a cosignature/v1 key"):
        cosignature.cosignature_line(_BODY, note_key, _TIME)
    with pytest.raises(CosignatureError, match="not a cosignature/v1 key"):
        note_signature_line = notes.sign_note(_BODY, [note_key]).split("\n\n")[1]
        cosignature.verify_cosignature_line(note_signature_line, _BODY, note_key.verifier())
    with pytest.raises(CheckpointError):
        cosignature.cosignature_line("not a checkpoint\n", _witness("witness.example/w1"), _TIME)


def _cosigned_note(log: notes.SignerKey, witnesses: list[notes.SignerKey]) -> str:
    note = notes.sign_note(_BODY, [log])
    return note + "".join(cosignature.cosignature_line(_BODY, witness, _TIME) for witness in witnesses)


def test_it_counts_the_known_witnesses_that_cosigned():
    log = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    known = [_witness(f"witness.example/w{number}") for number in range(4)]
    stranger = _witness("stranger.example/w")
    note = _cosigned_note(log, [known[0], known[2], known[3], stranger, known[0]])
    witness_keys = [witness.verifier() for witness in known]
    assert cosignature.count_cosignatures(note, witness_keys) == 3
    assert cosignature.count_cosignatures(note, witness_keys[:2]) == 1
    assert cosignature.count_cosignatures(note, []) == 0


def test_the_log_signature_still_opens_a_cosigned_checkpoint():
    """A cosignature's key ID uses type 0x04, so note readers see it as an unknown key's signature."""
    log = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    witness = _witness("witness.example/w1")
    opened = notes.open_note(_cosigned_note(log, [witness]), [log.verifier()])
    assert [signature.name for signature in opened.unverified_signatures] == ["witness.example/w1"]


def test_a_bad_cosignature_by_a_known_witness_spoils_the_count():
    log = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    honest, other = _witness("witness.example/w1"), _witness("witness.example/w2")
    other_body = Checkpoint("league.example/log", 6, merkle.leaf_hash(b"fork")).body()
    note = _cosigned_note(log, [honest]) + cosignature.cosignature_line(other_body, other, _TIME)
    with pytest.raises(NoteError, match="'witness.example/w2' does not verify"):
        cosignature.count_cosignatures(note, [honest.verifier(), other.verifier()])
