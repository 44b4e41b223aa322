"""The league log's mirror: a folder outside the database (LOG_MIRROR_DIR) holding the log's tiles
and its newest signed checkpoint, laid out as `python -m leaguelog DIR` reads a mirror.

It is the log's high-water mark, which a database restore cannot roll back: the integrator writes a
batch's tiles and its checkpoint here (as `checkpoint.next`) before the batch commits, and makes it
`checkpoint` (the mark) once it has; a database found shorter than the mark is brought back up to it
from these tiles, or the log publishes nothing (`leaguelog.services.log_mirror_check`).

Files, no Django: a tile or bundle is written once and never changed (writing other bytes at a path
that holds some is a `MirrorError`, the sign of two histories); `sources/<N>[.p/<W>]` beside each
entry bundle names the database row each of its entries logs (a bundle holds the facts, not the ids
of their rows, which a recovery must not hand out again); only the checkpoint files are replaced.
"""
from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from leaguelog import tiles

CHECKPOINT = "checkpoint"  # the mark: the newest checkpoint published, with its cosignatures
CHECKPOINT_NEXT = "checkpoint.next"  # a batch's checkpoint, written before its commit
_LOCK = ".lock"


class MirrorError(Exception):
    """The mirror cannot be read or written as the log needs (a changed tile, a bad file)."""


def sources_path(bundle: tiles.EntryBundle) -> str:
    """Where the rows behind a bundle's entries are named: `sources/` and the bundle's own index."""
    return "sources/" + bundle.path().removeprefix("tile/entries/")


class LogMirror:
    """The mirror folder at `root` (made when first written)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def read(self, path: str) -> bytes | None:
        """The file at a mirror path, or None when there is none."""
        try:
            return (self.root / path).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise MirrorError(f"{self.root / path} cannot be read: {error}") from error

    def note(self, name: str = CHECKPOINT) -> str | None:
        """A checkpoint file's note (`checkpoint` or `checkpoint.next`), or None."""
        data = self.read(name)
        return None if data is None else data.decode("utf-8", "replace")

    def write_once(self, path: str, data: bytes) -> None:
        """Writes an immutable file; one already there must hold these very bytes."""
        existing = self.read(path)
        if existing is None:
            self._replace(path, data)
        elif existing != data:
            raise MirrorError(f"{self.root / path} holds other bytes than the log has at that path: two histories")

    def write_sources(self, bundle: tiles.EntryBundle, sources: list[tuple[str, int, int]]) -> None:
        """Names the (kind, source_id, part) of each entry of the bundle."""
        self.write_once(sources_path(bundle), json.dumps(sources).encode())

    def sources(self, bundle: tiles.EntryBundle) -> list[tuple[str, int, int]] | None:
        data = self.read(sources_path(bundle))
        if data is None:
            return None
        try:
            return [(str(kind), int(source_id), int(part)) for kind, source_id, part in json.loads(data)]
        except (ValueError, TypeError) as error:
            raise MirrorError(f"{sources_path(bundle)} is not a list of [kind, source_id, part]: {error}") from error

    def replace_note(self, name: str, note: str) -> None:
        """Replaces a checkpoint file (the caller holds `locked()`)."""
        self._replace(name, note.encode("utf-8"))

    def remove(self, name: str) -> None:
        (self.root / name).unlink(missing_ok=True)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """An exclusive lock on the checkpoint files, across processes: the mark is read, compared
        and replaced by one process at a time, so it never moves back."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / _LOCK, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def _replace(self, path: str, data: bytes) -> None:
        # Written whole, flushed to disk, then renamed over: a crash leaves the old file or the
        # new one, never half of one; the folder is flushed too, so the rename itself lasts.
        target = self.root / path
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
            with open(temporary, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, target)
            folder = os.open(target.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        except OSError as error:
            raise MirrorError(f"{target} cannot be written: {error}") from error
