"""Checkpoints: the spec's example, strict parsing, and opening a signed checkpoint."""
from __future__ import annotations

import base64

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leaguelog import merkle, notes
from leaguelog.checkpoint import Checkpoint, CheckpointError, open_checkpoint
from leaguelog.notes import NoteError

# c2sp.org/tlog-checkpoint, the example at the top (C2SP/C2SP tlog-checkpoint.md at commit 5ba5ee8).
SPEC_BODY = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
_ROOT = base64.b64encode(merkle.EMPTY_ROOT).decode()


def test_it_parses_and_writes_the_spec_example():
    checkpoint = Checkpoint.parse(SPEC_BODY)
    assert checkpoint.origin == "example.com/behind-the-sofa"
    assert checkpoint.size == 20852163
    assert checkpoint.root_hash == base64.b64decode("CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=")
    assert checkpoint.extensions == ()
    assert checkpoint.body() == SPEC_BODY


def test_extension_lines_follow_the_root_and_survive_a_round_trip():
    checkpoint = Checkpoint("league.example/log", 0, merkle.EMPTY_ROOT, ("ext one", "ext two"))
    assert checkpoint.body() == f"league.example/log\n0\n{_ROOT}\next one\next two\n"
    assert Checkpoint.parse(checkpoint.body()) == checkpoint


# Lines of any text but control characters (the newline among them) and lone surrogates.
_LINE_CHARACTERS = st.characters(blacklist_categories=("Cc", "Cs"))
_ORIGINS = st.text(alphabet=_LINE_CHARACTERS, min_size=1, max_size=30)
_EXTENSIONS = st.lists(st.text(alphabet=_LINE_CHARACTERS, min_size=1), max_size=3)


@given(
    origin=_ORIGINS,
    size=st.integers(min_value=0, max_value=2**64 - 1),
    root=st.binary(min_size=32, max_size=32),
    extensions=_EXTENSIONS,
)
def test_every_checkpoint_parses_back_from_its_body(origin, size, root, extensions):
    checkpoint = Checkpoint(origin, size, root, tuple(extensions))
    assert Checkpoint.parse(checkpoint.body()) == checkpoint


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (f"league.example/log\n007\n{_ROOT}\n", "leading zeros"),
        (f"league.example/log\n-1\n{_ROOT}\n", "leading zeros"),
        (f"league.example/log\n+1\n{_ROOT}\n", "leading zeros"),
        (f"league.example/log\n 1\n{_ROOT}\n", "leading zeros"),
        (f"league.example/log\n١\n{_ROOT}\n", "leading zeros"),  # an Arabic-Indic digit one
        (f"league.example/log\n{2**64}\n{_ROOT}\n", "uint64"),
        (f"league.example/log\n{'9' * 5000}\n{_ROOT}\n", "uint64"),
        (f"\n1\n{_ROOT}\n", "origin"),
        (f"league.example/log\n1\n{_ROOT}", "ends in a newline"),
        ("league.example/log\n1\n", "at least 3 lines"),
        (f"league.example/log\n1\n{_ROOT[:-1]}\n", "base64"),
        (f"league.example/log\n1\n{_ROOT[:-2]}V=\n", "canonical base64"),  # a padding bit set
        (f"league.example/log\n1\n{base64.b64encode(bytes(31)).decode()}\n", "31 bytes"),
        (f"league.example/log\n1\n{base64.urlsafe_b64encode(bytes([0xfb] * 32)).decode()}\n", "base64"),
        (f"league.example/log\n1\n{_ROOT}\n\n", "extension"),
    ],
    ids=[
        "leading-zero",
        "negative",
        "plus-sign",
        "space",
        "non-ascii-digit",
        "above-uint64",
        "huge-number",
        "empty-origin",
        "no-final-newline",
        "two-lines",
        "truncated-base64",
        "non-canonical-base64",
        "short-root",
        "url-safe-base64",
        "empty-extension",
    ],
)
def test_it_refuses_a_malformed_body(body, reason):
    with pytest.raises(CheckpointError, match=reason):
        Checkpoint.parse(body)


def test_it_refuses_to_build_a_checkpoint_it_could_not_parse():
    with pytest.raises(CheckpointError):
        Checkpoint("", 1, merkle.EMPTY_ROOT)
    with pytest.raises(CheckpointError):
        Checkpoint("two\nlines", 1, merkle.EMPTY_ROOT)
    with pytest.raises(CheckpointError):
        Checkpoint("league.example/log", -1, merkle.EMPTY_ROOT)
    with pytest.raises(CheckpointError):
        Checkpoint("league.example/log", 1, b"short")
    with pytest.raises(CheckpointError):
        Checkpoint("league.example/log", 1, merkle.EMPTY_ROOT, ("",))


def test_it_opens_a_checkpoint_signed_by_the_log():
    log_key = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    checkpoint = Checkpoint("league.example/log", 3, merkle.leaf_hash(b"root stand-in"))
    signed = notes.sign_note(checkpoint.body(), [log_key])
    opened_checkpoint, opened_note = open_checkpoint(signed, [log_key.verifier()])
    assert opened_checkpoint == checkpoint
    assert [signature.name for signature in opened_note.verified_signatures] == ["league.example/log"]


def test_a_signed_note_that_is_no_checkpoint_is_refused():
    log_key = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    with pytest.raises(CheckpointError):
        open_checkpoint(notes.sign_note("just a note\n", [log_key]), [log_key.verifier()])


def test_a_checkpoint_without_the_log_signature_is_refused():
    log_key = notes.parse_signer_key(notes.generate_signer_key("league.example/log"))
    other_key = notes.parse_signer_key(notes.generate_signer_key("other.example/log"))
    note = notes.sign_note(SPEC_BODY, [other_key])
    with pytest.raises(NoteError, match="no signature"):
        open_checkpoint(note, [log_key.verifier()])
