"""A witness of the league log: it cosigns a checkpoint only once it has checked that the log
grew from the last checkpoint it cosigned, and refuses a log that shrank or forked. Pure but for
the `fetch` functions it is given; `manage.py log_witness` runs it against a server.
"""
from __future__ import annotations

import base64
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from leaguelog import merkle
from leaguelog.checkpoint import Checkpoint, open_checkpoint
from leaguelog.cosignature import cosignature_line
from leaguelog.notes import SignerKey, VerifierKey


class ForkError(Exception):
    """The log showed this witness two histories: one of them is a lie."""


@dataclass(frozen=True)
class Witnessed:
    """The newest checkpoint this witness has cosigned."""

    size: int
    root_hash: bytes

    def save(self, path: Path) -> None:
        path.write_text(json.dumps({"size": self.size, "root_hash": base64.b64encode(self.root_hash).decode()}))

    @classmethod
    def load(cls, path: Path) -> Witnessed | None:
        if not path.exists():
            return None
        saved = json.loads(path.read_text())
        return cls(saved["size"], base64.b64decode(saved["root_hash"]))


def witness_checkpoint(
    note: str,
    *,
    log_key: VerifierKey,
    witness: SignerKey,
    last: Witnessed | None,
    consistency_proof: Callable[[int, int], list[bytes]],
    now: int,
) -> tuple[Witnessed, Checkpoint, str | None]:
    """Checks the log's newest signed checkpoint against the last one cosigned and cosigns it.

    Returns what is now witnessed, the checkpoint and the cosignature line (None: nothing new).
    Raises ForkError when the log rolled back or cannot prove it grew from what was cosigned, and
    NoteError when the note is not the log's.
    """
    checkpoint, _ = open_checkpoint(note, [log_key])
    if checkpoint.origin != log_key.name:
        raise ForkError(f"the checkpoint names {checkpoint.origin!r}, not the log {log_key.name!r}")
    if last is not None:
        if checkpoint.size < last.size:
            raise ForkError(f"the log shrank from {last.size} entries to {checkpoint.size}")
        if checkpoint.size == last.size:
            if checkpoint.root_hash != last.root_hash:
                raise ForkError(f"two different trees of {last.size} entries were signed")
            return last, checkpoint, None
        proof = consistency_proof(last.size, checkpoint.size)
        if not merkle.verify_consistency(last.size, checkpoint.size, last.root_hash, checkpoint.root_hash, proof):
            raise ForkError(f"the tree of {checkpoint.size} entries does not extend the cosigned one of {last.size}")
    line = cosignature_line(checkpoint.body(), witness, now)
    return Witnessed(checkpoint.size, checkpoint.root_hash), checkpoint, line
