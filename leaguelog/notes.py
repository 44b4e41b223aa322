"""C2SP signed notes (https://c2sp.org/signed-note) with Ed25519 keys, in Go's note package formats.

A note is a text ending in a newline, a blank line, then signature lines "— <name> <base64>", where
the base64 is a 4-byte key ID followed by the signature. Keys are strings: a verifier key is
"<name>+<hex key id>+<base64(type ‖ public key)>", a signer key "PRIVATE+KEY+<name>+<hex key id>+
<base64(type ‖ seed)>", as golang.org/x/mod/sumdb/note.GenerateKey writes them. The key ID commits to
the name, the signature type and the public key, so a key string that was mangled is refused.

Keys of type ED25519_COSIGNATURE (c2sp.org/tlog-cosignature) share these formats; their signatures
cover a different message, so only leaguelog.cosignature makes or checks them.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ED25519 = 0x01
ED25519_COSIGNATURE = 0x04
_KEY_TYPES = {ED25519, ED25519_COSIGNATURE}
_ED25519_KEY_SIZE = 32
_KEY_ID_SIZE = 4

_SIGNATURE_LINE_PREFIX = "— "  # U+2014 EM DASH, then a space
_PRIVATE_KEY_PREFIX = "PRIVATE+KEY+"
_KEY_ID_HEX = re.compile(r"[0-9a-f]{8}")
# The spec asks verifiers to accept at least 16 signatures; the cap stops a huge note costing much work.
_MAX_SIGNATURES = 100


class NoteError(ValueError):
    """A key or note that is malformed, or a note whose signatures do not verify."""


@dataclass(frozen=True)
class VerifierKey:
    """A named public key: verifies the signatures whose name and key ID match its own."""

    name: str
    key_id: bytes
    key_type: int
    public_key: bytes

    def encode(self) -> str:
        """The verifier key string <name>+<hex key id>+<base64(type ‖ public key)>."""
        return f"{self.name}+{self.key_id.hex()}+{_encode_base64(bytes([self.key_type]) + self.public_key)}"

    def verifies(self, message: bytes, signature: bytes) -> bool:
        """Whether signature is this key's Ed25519 signature of message."""
        try:
            Ed25519PublicKey.from_public_bytes(self.public_key).verify(signature, message)
        except InvalidSignature:
            return False
        return True


@dataclass(frozen=True)
class SignerKey:
    """A named private key (an Ed25519 seed) with the key ID of its verifier key."""

    name: str
    key_id: bytes
    key_type: int
    seed: bytes = field(repr=False)  # a secret: kept out of reprs, hence out of logs and tracebacks

    def encode(self) -> str:
        """The signer key string PRIVATE+KEY+<name>+<hex key id>+<base64(type ‖ seed)>."""
        key_material = _encode_base64(bytes([self.key_type]) + self.seed)
        return f"{_PRIVATE_KEY_PREFIX}{self.name}+{self.key_id.hex()}+{key_material}"

    def verifier(self) -> VerifierKey:
        """The verifier key that checks this key's signatures."""
        public_key = Ed25519PrivateKey.from_private_bytes(self.seed).public_key().public_bytes_raw()
        return VerifierKey(self.name, self.key_id, self.key_type, public_key)

    def sign(self, message: bytes) -> bytes:
        """This key's Ed25519 signature of message."""
        return Ed25519PrivateKey.from_private_bytes(self.seed).sign(message)


@dataclass(frozen=True)
class NoteSignature:
    """One signature line: the signer's name and key ID, and the signature bytes after the key ID."""

    name: str
    key_id: bytes
    signature: bytes

    def line(self) -> str:
        """The signature line, "— <name> <base64(key id ‖ signature)>" and its newline."""
        return f"{_SIGNATURE_LINE_PREFIX}{self.name} {_encode_base64(self.key_id + self.signature)}\n"


@dataclass(frozen=True)
class OpenedNote:
    """A note's text, the signatures known keys verified, and those by keys the reader does not know."""

    text: str
    verified_signatures: tuple[NoteSignature, ...]
    unverified_signatures: tuple[NoteSignature, ...]


def key_id(name: str, key_type: int, public_key: bytes) -> bytes:
    """The 4-byte key ID: SHA-256(name ‖ 0x0A ‖ type ‖ public key)[:4]."""
    return hashlib.sha256(name.encode() + b"\n" + bytes([key_type]) + public_key).digest()[:_KEY_ID_SIZE]


def generate_signer_key(name: str, key_type: int = ED25519) -> str:
    """A new random signer key string for name (Ed25519 note key, or a cosignature key with key_type 0x04)."""
    _check_name(name)
    _check_key_type(key_type)
    private_key = Ed25519PrivateKey.generate()
    public_key = private_key.public_key().public_bytes_raw()
    seed = private_key.private_bytes_raw()
    return SignerKey(name, key_id(name, key_type, public_key), key_type, seed).encode()


def verifier_key_for(signer_key: str) -> str:
    """The verifier key string matching a signer key string."""
    return parse_signer_key(signer_key).verifier().encode()


def parse_verifier_key(verifier_key: str) -> VerifierKey:
    """Parse <name>+<hex key id>+<base64(type ‖ public key)>, refusing one whose key ID does not match."""
    name, key_type, key_id_hex, public_key = _parse_key_parts(verifier_key, "verifier key")
    expected_key_id = key_id(name, key_type, public_key)
    if key_id_hex != expected_key_id.hex():
        raise NoteError(f"verifier key {name!r}: key ID {key_id_hex} does not match its name and key")
    return VerifierKey(name, expected_key_id, key_type, public_key)


def parse_signer_key(signer_key: str) -> SignerKey:
    """Parse PRIVATE+KEY+<name>+<hex key id>+<base64(type ‖ seed)>, refusing a key ID that does not match."""
    if not signer_key.startswith(_PRIVATE_KEY_PREFIX):
        raise NoteError(f"a signer key starts with {_PRIVATE_KEY_PREFIX!r}")
    name, key_type, key_id_hex, seed = _parse_key_parts(signer_key[len(_PRIVATE_KEY_PREFIX):], "signer key")
    public_key = Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes_raw()
    expected_key_id = key_id(name, key_type, public_key)
    if key_id_hex != expected_key_id.hex():
        raise NoteError(f"signer key {name!r}: key ID {key_id_hex} does not match its name and key")
    return SignerKey(name, expected_key_id, key_type, seed)


def sign_note(text: str, signers: Iterable[SignerKey]) -> str:
    """The signed note: text (ending in a newline), a blank line, and one signature line per signer."""
    _check_note_characters(text)
    if not text.endswith("\n"):
        raise NoteError("note text must end in a newline")
    signature_lines = []
    for signer in signers:
        _check_note_key(signer.key_type, signer.name)
        signature_lines.append(NoteSignature(signer.name, signer.key_id, signer.sign(text.encode())).line())
    if not signature_lines:
        raise NoteError("a note needs at least one signer")
    return text + "\n" + "".join(signature_lines)


def parse_note(note: str) -> tuple[str, tuple[NoteSignature, ...]]:
    """Split a signed note into its text and its signature lines, verifying nothing."""
    _check_note_characters(note)
    # The text may hold blank lines; the signatures start after the last one.
    split = note.rfind("\n\n")
    if split < 0:
        raise NoteError("a note needs a blank line between its text and its signatures")
    text, signature_block = note[: split + 1], note[split + 2:]
    if not signature_block.endswith("\n"):
        raise NoteError("a note ends in signature lines, each ending in a newline")
    lines = signature_block[:-1].split("\n")
    if len(lines) > _MAX_SIGNATURES:
        raise NoteError(f"a note has at most {_MAX_SIGNATURES} signatures")
    return text, tuple(parse_signature_line(line + "\n") for line in lines)


def parse_signature_line(line: str) -> NoteSignature:
    """Parse one signature line, "— <name> <base64(key id ‖ signature)>" and its newline."""
    if not line.startswith(_SIGNATURE_LINE_PREFIX) or not line.endswith("\n") or "\n" in line[:-1]:
        raise NoteError(f"not a signature line: {line!r}")
    name, _, encoded = line[len(_SIGNATURE_LINE_PREFIX):-1].partition(" ")
    _check_name(name)
    signature = decode_base64(encoded, f"signature by {name!r}")
    if len(signature) <= _KEY_ID_SIZE:
        raise NoteError(f"signature by {name!r} is too short to hold a key ID and a signature")
    return NoteSignature(name, signature[:_KEY_ID_SIZE], signature[_KEY_ID_SIZE:])


def open_note(note: str, known_verifiers: Iterable[VerifierKey]) -> OpenedNote:
    """Check a note's signatures: a known key's must verify, and at least one must be a known key's."""
    verifiers = _verifiers_by_name_and_key_id(known_verifiers)
    text, signatures = parse_note(note)
    verified: dict[tuple[str, bytes], NoteSignature] = {}
    unverified: dict[NoteSignature, None] = {}  # a dict, not a set: keeps the note's order
    for signature in signatures:
        verifier = verifiers.get((signature.name, signature.key_id))
        if verifier is None:
            unverified[signature] = None
        elif not verifier.verifies(text.encode(), signature.signature):
            raise NoteError(f"signature by known key {signature.name!r} does not verify")
        else:
            verified.setdefault((signature.name, signature.key_id), signature)
    if not verified:
        raise NoteError("no signature on the note is by a known key")
    return OpenedNote(text, tuple(verified.values()), tuple(unverified))


def decode_base64(encoded: str, what: str) -> bytes:
    """Decode strict standard base64 (padded and canonical: one value, one spelling); errors name what."""
    try:
        decoded = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise NoteError(f"{what}: {encoded!r} is not standard base64") from error
    if _encode_base64(decoded) != encoded:
        raise NoteError(f"{what}: {encoded!r} is not canonical base64")
    return decoded


def _verifiers_by_name_and_key_id(
    known_verifiers: Iterable[VerifierKey],
) -> dict[tuple[str, bytes], VerifierKey]:
    # A signature is matched by name and key ID together (the spec ignores one matching only one).
    verifiers: dict[tuple[str, bytes], VerifierKey] = {}
    for verifier in known_verifiers:
        _check_note_key(verifier.key_type, verifier.name)
        if verifiers.setdefault((verifier.name, verifier.key_id), verifier) != verifier:
            raise NoteError(f"two known keys share the name {verifier.name!r} and ID {verifier.key_id.hex()}")
    return verifiers


def _parse_key_parts(key: str, what: str) -> tuple[str, int, str, bytes]:
    # <name>+<hex key id>+<base64(type ‖ key material)>, shared by verifier and signer keys. Only the
    # first two '+' separate parts: '+' is a base64 character too.
    parts = key.split("+", 2)
    if len(parts) != 3:
        raise NoteError(f"a {what} is <name>+<hex key id>+<base64 key>, got {len(parts)} '+'-separated parts")
    name, key_id_hex, encoded = parts
    _check_name(name)
    if not _KEY_ID_HEX.fullmatch(key_id_hex):
        raise NoteError(f"{what} {name!r}: key ID {key_id_hex!r} is not 8 lowercase hex digits")
    key_material = decode_base64(encoded, f"{what} {name!r}")
    if not key_material:
        raise NoteError(f"{what} {name!r} has no key material")
    _check_key_type(key_material[0])
    if len(key_material) != 1 + _ED25519_KEY_SIZE:
        key_size = len(key_material) - 1
        raise NoteError(f"{what} {name!r}: an Ed25519 key is {_ED25519_KEY_SIZE} bytes, got {key_size}")
    return name, key_material[0], key_id_hex, key_material[1:]


def _check_name(name: str) -> None:
    if not name or "+" in name or any(character.isspace() for character in name):
        raise NoteError(f"key name {name!r} must be non-empty, without spaces or '+'")


def _check_key_type(key_type: int) -> None:
    if key_type not in _KEY_TYPES:
        raise NoteError(f"unsupported signature type {key_type:#04x}")


def _check_note_key(key_type: int, name: str) -> None:
    # A cosignature key signs a different message (leaguelog.cosignature), never the bare note text.
    if key_type != ED25519:
        raise NoteError(f"key {name!r} is not an Ed25519 note key (type {key_type:#04x})")


def _check_note_characters(note: str) -> None:
    # The spec forbids every ASCII control character but the newline; a str is already valid Unicode,
    # but a lone surrogate is not UTF-8 and could never have been signed as bytes.
    if any(ord(character) < 0x20 and character != "\n" for character in note):
        raise NoteError("a note must not hold control characters other than newline")
    try:
        note.encode()
    except UnicodeEncodeError as error:
        raise NoteError("a note must be valid UTF-8") from error


def _encode_base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
