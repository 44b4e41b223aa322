"""Signed notes: published keys and notes, round trips, and the notes and keys that must be refused."""
from __future__ import annotations

import base64

import pytest

from leaguelog import notes
from leaguelog.notes import NoteError

# golang.org/x/mod sumdb/note example_test.go and note_test.go (BSD-3-Clause), at commit fe2ec04.
PETER_SIGNER_KEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
PETER_VERIFIER_KEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
PETER_TEXT = (
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
)
PETER_NOTE = (
    PETER_TEXT
    + "\n"
    + "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNX"
    + "gKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
)
# The same file's keys that are well formed but wrong: a 36-byte key and an unknown type byte, each
# with a key ID recomputed to match, so only the key material gives them away.
PETER_KEY_TOO_LONG = "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY=="
PETER_KEY_UNKNOWN_TYPE = "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"

# c2sp.org/signed-note, "Example" (C2SP/C2SP signed-note.md at commit 5ba5ee8).
SPEC_VERIFIER_KEY = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
SPEC_NOTE = (
    "This is an example message.\n\n"
    "— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZX"
    "sYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"
)

# transparency-dev/formats note/note_cosigv1_test.go (Apache-2.0): a key whose base64 holds a '+'.
KEY_WITH_PLUS_IN_BASE64 = "TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6"


def _signer(name: str) -> notes.SignerKey:
    return notes.parse_signer_key(notes.generate_signer_key(name))


def test_it_computes_the_published_key_id():
    verifier = notes.parse_verifier_key(PETER_VERIFIER_KEY)
    assert verifier.key_id == bytes.fromhex("c74f20a3")
    assert notes.key_id("PeterNeumann", notes.ED25519, verifier.public_key).hex() == "c74f20a3"


def test_it_derives_the_published_verifier_key_from_the_signer_key():
    assert notes.verifier_key_for(PETER_SIGNER_KEY) == PETER_VERIFIER_KEY


def test_key_strings_survive_a_parse_and_encode_round_trip():
    assert notes.parse_signer_key(PETER_SIGNER_KEY).encode() == PETER_SIGNER_KEY
    assert notes.parse_verifier_key(PETER_VERIFIER_KEY).encode() == PETER_VERIFIER_KEY
    assert notes.parse_verifier_key(KEY_WITH_PLUS_IN_BASE64).encode() == KEY_WITH_PLUS_IN_BASE64


def test_it_signs_exactly_as_the_published_example():
    """Ed25519 is deterministic, so the same key and text give Go's note byte for byte."""
    assert notes.sign_note(PETER_TEXT, [notes.parse_signer_key(PETER_SIGNER_KEY)]) == PETER_NOTE


@pytest.mark.parametrize(
    ("verifier_key", "note", "text"),
    [
        (PETER_VERIFIER_KEY, PETER_NOTE, PETER_TEXT),
        (SPEC_VERIFIER_KEY, SPEC_NOTE, "This is an example message.\n"),
    ],
    ids=["go-example", "c2sp-example"],
)
def test_it_opens_the_published_notes(verifier_key, note, text):
    verifier = notes.parse_verifier_key(verifier_key)
    opened = notes.open_note(note, [verifier])
    assert opened.text == text
    assert [(signature.name, signature.key_id) for signature in opened.verified_signatures] == [
        (verifier.name, verifier.key_id)
    ]
    assert opened.unverified_signatures == ()


def test_a_signature_by_an_unknown_key_is_kept_as_unverified():
    peter = notes.parse_verifier_key(PETER_VERIFIER_KEY)
    stranger = _signer("stranger.example/key")
    note = PETER_NOTE + notes.sign_note(PETER_TEXT, [stranger]).removeprefix(PETER_TEXT + "\n")
    opened = notes.open_note(note, [peter])
    assert [signature.name for signature in opened.verified_signatures] == ["PeterNeumann"]
    assert [signature.name for signature in opened.unverified_signatures] == ["stranger.example/key"]


def test_a_note_signed_only_by_unknown_keys_is_refused():
    with pytest.raises(NoteError, match="no signature .* known key"):
        notes.open_note(PETER_NOTE, [notes.parse_verifier_key(SPEC_VERIFIER_KEY)])


def test_a_key_sharing_only_the_name_or_only_the_key_id_is_not_the_known_key():
    """The spec ignores a signature matching a known key's name or ID but not both."""
    log = _signer("log.example")
    impostor = _signer("log.example")
    note = notes.sign_note("hello\n", [impostor])
    with pytest.raises(NoteError, match="no signature"):
        notes.open_note(note, [log.verifier()])
    renamed_signer = notes.SignerKey("other.example", log.key_id, log.key_type, log.seed)
    renamed = notes.sign_note("hello\n", [renamed_signer])
    with pytest.raises(NoteError, match="no signature"):
        notes.open_note(renamed, [log.verifier()])


def test_it_signs_and_opens_with_several_keys():
    log, mirror = _signer("log.example/main"), _signer("mirror.example")
    note = notes.sign_note("line one\n\nline three after a blank line\n", [log, mirror])
    opened = notes.open_note(note, [log.verifier(), mirror.verifier()])
    assert opened.text == "line one\n\nline three after a blank line\n"
    signed_by = {signature.name for signature in opened.verified_signatures}
    assert signed_by == {"log.example/main", "mirror.example"}


def test_a_repeated_signature_counts_once():
    log = _signer("log.example")
    note = notes.sign_note("hello\n", [log, log])
    assert len(notes.open_note(note, [log.verifier()]).verified_signatures) == 1


def test_tampered_text_is_refused():
    tampered = PETER_NOTE.replace("cryptography", "cryptocurrency")
    with pytest.raises(NoteError, match="does not verify"):
        notes.open_note(tampered, [notes.parse_verifier_key(PETER_VERIFIER_KEY)])


def test_a_bad_signature_by_a_known_key_is_refused_even_beside_a_good_one():
    log, mirror = _signer("log.example"), _signer("mirror.example")
    good = notes.sign_note("hello\n", [log])
    forged_line = notes.NoteSignature(mirror.name, mirror.key_id, mirror.sign(b"something else\n")).line()
    with pytest.raises(NoteError, match="'mirror.example' does not verify"):
        notes.open_note(good + forged_line, [log.verifier(), mirror.verifier()])


def test_a_signer_key_keeps_its_seed_out_of_its_repr():
    signer = notes.parse_signer_key(PETER_SIGNER_KEY)
    assert signer.seed.hex() not in repr(signer)
    assert "seed" not in repr(signer)


def test_generated_keys_round_trip_through_their_strings():
    signer_key = notes.generate_signer_key("league.example/log")
    signer = notes.parse_signer_key(signer_key)
    verifier = notes.parse_verifier_key(notes.verifier_key_for(signer_key))
    assert signer.encode() == signer_key
    assert (verifier.name, verifier.key_id) == ("league.example/log", signer.key_id)
    assert verifier.key_type == notes.ED25519
    assert verifier.verifies(b"message", signer.sign(b"message"))
    assert not verifier.verifies(b"other message", signer.sign(b"message"))


@pytest.mark.parametrize("name", ["", "has space", "has+plus", "tab\there", "no\u00a0break", "line\nbreak"])
def test_it_refuses_to_generate_a_key_with_a_bad_name(name):
    with pytest.raises(NoteError, match="key name"):
        notes.generate_signer_key(name)


@pytest.mark.parametrize(
    "verifier_key",
    [
        PETER_KEY_TOO_LONG,
        PETER_KEY_UNKNOWN_TYPE,
        "PeterNeumann+c74f20a3",
        "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T",
        "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW\n",
        "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
        "PeterNeumann+c74f20a3+",
    ],
)
def test_it_refuses_malformed_verifier_keys(verifier_key):
    with pytest.raises(NoteError):
        notes.parse_verifier_key(verifier_key)


def test_every_mangling_of_a_key_string_is_refused():
    """Each proper substring and each single-character change of the published keys fails to parse."""
    for key, parse in [
        (PETER_VERIFIER_KEY, notes.parse_verifier_key),
        (PETER_SIGNER_KEY, notes.parse_signer_key),
    ]:
        for start in range(len(key)):
            for end in range(start + 1, len(key) + 1):
                if (start, end) != (0, len(key)):
                    with pytest.raises(NoteError):
                        parse(key[start:end])
        for position in range(len(key)):
            with pytest.raises(NoteError):
                parse(key[:position] + chr(ord(key[position]) + 1) + key[position + 1:])


def test_a_signer_key_needs_its_private_prefix():
    with pytest.raises(NoteError, match="PRIVATE\\+KEY\\+"):
        notes.parse_signer_key(PETER_VERIFIER_KEY)


@pytest.mark.parametrize(
    ("note", "reason"),
    [
        (PETER_TEXT + "— PeterNeumann x08go/ZJ=\n", "blank line"),
        (PETER_NOTE.rstrip("\n"), "ending in a newline"),
        (PETER_TEXT + "\n", "ending in a newline"),
        (PETER_NOTE.replace("— ", "- "), "not a signature line"),
        (PETER_NOTE.replace("— PeterNeumann", "— Peter+Neumann"), "key name"),
        (PETER_NOTE.replace("— PeterNeumann x08go", "— PeterNeumann  x08go"), "base64"),
        (PETER_NOTE.replace("JnAM=", "JnAM"), "base64"),
        (PETER_TEXT + "\n— PeterNeumann AAAA\n", "too short"),
        (PETER_NOTE.replace("problem,", "problem,\r"), "control characters"),
        (PETER_TEXT + "\n" + "— PeterNeumann AAAAAAA=\n" * 101, "at most 100"),
    ],
    ids=[
        "no-blank-line",
        "no-final-newline",
        "no-signatures",
        "hyphen-not-em-dash",
        "plus-in-name",
        "two-spaces",
        "broken-base64",
        "signature-without-bytes",
        "carriage-return",
        "too-many-signatures",
    ],
)
def test_it_refuses_malformed_notes(note, reason):
    with pytest.raises(NoteError, match=reason):
        notes.open_note(note, [notes.parse_verifier_key(PETER_VERIFIER_KEY)])


def test_non_canonical_base64_is_refused():
    canonical = base64.b64encode(b"\xff").decode()  # "/w==": the last two bits of 'w' must be zero
    with pytest.raises(NoteError, match="canonical"):
        notes.decode_base64(canonical.replace("w", "x"), "test value")
    assert notes.decode_base64(canonical, "test value") == b"\xff"


def test_it_refuses_to_sign_text_that_is_no_note_text():
    signer = _signer("log.example")
    with pytest.raises(NoteError, match="newline"):
        notes.sign_note("no final newline", [signer])
    with pytest.raises(NoteError, match="control"):
        notes.sign_note("bell \a\n", [signer])
    with pytest.raises(NoteError, match="at least one signer"):
        notes.sign_note("hello\n", [])


def test_cosignature_keys_neither_sign_nor_open_plain_notes():
    witness = notes.parse_signer_key(notes.generate_signer_key("witness.example", notes.ED25519_COSIGNATURE))
    with pytest.raises(NoteError, match="not an Ed25519 note key"):
        notes.sign_note("hello\n", [witness])
    with pytest.raises(NoteError, match="not an Ed25519 note key"):
        notes.open_note(PETER_NOTE, [witness.verifier()])


def test_two_known_keys_with_the_same_name_and_key_id_are_ambiguous():
    peter = notes.parse_verifier_key(PETER_VERIFIER_KEY)
    twin = notes.VerifierKey(peter.name, peter.key_id, peter.key_type, bytes(32))
    with pytest.raises(NoteError, match="share the name"):
        notes.open_note(PETER_NOTE, [peter, twin])
